/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * launch.h: a search run through MAXCODE_LAUNCHER (`srun --exclusive
 * -N1 ...`) by `maxcode optimize --launch`, where make runs. The node's
 * `maxcode optimize` stores what it finds in the shared cache; the
 * command that launched it then looks the key up as mode cache does. A
 * launcher that fails (a cancelled job, a partition that does not
 * exist, a time limit, a node set down) is no failure of the build: the
 * original is used for that unit, with the scheduler's message.
 */
#ifndef MC_LAUNCH_H
#define MC_LAUNCH_H

#include "buf.h"
#include "target.h"

struct mc_launch {
    int failed;        /* the launcher or the search under it failed */
    struct mc_buf why; /* then one line: the scheduler's last message,
                        * else how the launcher ended; when it ended
                        * well, its last error line if any (srun ends
                        * with 0 after a node failure) */
};

/*
 * Run LAUNCHER (shell words) with this program and ARGV (NULL-ended:
 * the `optimize` command's words as the node must run them) after it,
 * in our environment less MAXCODE_LAUNCHER (the node must not launch
 * again, nor take the launcher's remembered architecture for its own;
 * the model's key and the settings pass in the environment, never on
 * the command line). Its stdout goes to OUT (NULL: discarded), its
 * stderr to ours when it ends. Fills L; L->why is released by the
 * caller (mc_buf_release()).
 */
void mc_launch_run(const char *launcher, char *const *argv,
                   struct mc_buf *out, struct mc_launch *l);

/*
 * The search of `maxcode optimize ARGV` (ARGC words, its options before
 * FIRST, SOURCE at FIRST) run on a node: the same words less --launch,
 * with KEY as --key, through LAUNCHER (mc_launch_run()). Fills L.
 */
void mc_launch_search(const char *launcher, int argc, char **argv, int first,
                      const char *key, struct mc_launch *l);

/*
 * isa=native through a launcher: the architecture of its nodes, asked
 * of one node (`maxcode optimize --print-native` with the same words
 * there) and remembered for the launcher (native.h), so that make keys
 * the target for the nodes that search it and the next parse finds
 * what they stored; T->native_arch is set. Returns 1 when it is known
 * now, 0 when the node could not tell (said): the key then stays
 * unresolved, and the lookup after the search misses.
 */
int mc_launch_native(struct mc_target *t, const char *launcher, int argc,
                     char **argv, int first);

#endif
