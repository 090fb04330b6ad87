/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * commands.h: the subcommands of the maxcode command, one file each in
 * cli/ (main.c dispatches from MC_COMMANDS). Each takes the ARGC
 * arguments in ARGV after "maxcode" (ARGV[0] is the command's name),
 * prints its result on stdout and its errors on stderr, and returns the
 * exit status: 0 success, 1 failure, 2 usage error (some commands add
 * their own). What they share is in common.h.
 */
#ifndef MC_COMMANDS_H
#define MC_COMMANDS_H

#include "common.h"

/*
 * The commands, X(NAME, FUNCTION) each, in the order main.c's table
 * tries them; main() answers --version (-V) and --help (-h) before the
 * table. Each NAME has its item in maxcode(1)'s COMMANDS, and each item
 * is a NAME or one of main()'s own (tests/unit/test-help.c checks it).
 */
#define MC_COMMANDS(X) \
    X("--plugin-path", mc_cmd_plugin_path) \
    X("--cflags", mc_cmd_cflags) \
    X("cuda", mc_cmd_cuda) \
    X("config", mc_cmd_config) \
    X("key", mc_cmd_key) \
    X("optimize", mc_cmd_optimize) \
    X("eval", mc_cmd_eval) \
    X("show", mc_cmd_show) \
    X("diff", mc_cmd_diff) \
    X("bench", mc_cmd_bench) \
    X("stats", mc_cmd_stats) \
    X("report", mc_cmd_report) \
    X("cache", mc_cmd_cache) \
    X("rollouts", mc_cmd_rollouts) \
    X("gvf", mc_cmd_gvf) \
    X("help", mc_cmd_help)

/* `maxcode --plugin-path`: the maxcode.so of this maxcode
 * (cmd_plugin.c). */
int mc_cmd_plugin_path(int argc, char **argv);

/* `maxcode config [--json]`: every setting, its value and its origin. */
int mc_cmd_config(int argc, char **argv);

/* `maxcode optimize [OPTION...] SOURCE [KEY=VALUE...]`: the path to
 * compile on stdout (cmd_optimize.c says how it is found). */
int mc_cmd_optimize(int argc, char **argv);

/* `maxcode eval SOURCE CANDIDATE [KEY=VALUE...]`: the candidate's
 * feedback record; 3 when the candidate is not correct. */
int mc_cmd_eval(int argc, char **argv);

/* `maxcode show SOURCE-or-KEY [--json]`: an entry's manifest, as it
 * is (--json) or for people (mc_show_print), in cmd_show.c. */
int mc_cmd_show(int argc, char **argv);

/* `maxcode diff [--color|--no-color] SOURCE-or-KEY`: the kept variant
 * against the original (cmd_show.c). */
int mc_cmd_diff(int argc, char **argv);

/* `maxcode bench [--json] [--rounds N] SOURCE-or-KEY`: the kept variant
 * measured against its original now, beside the entry's claim
 * (cmd_bench.c). */
int mc_cmd_bench(int argc, char **argv);

struct cJSON;
struct mc_entry;

/*
 * Find the entry of WHAT (a SOURCE or a KEY) as `maxcode show` does:
 * for a KEY its entry; for a SOURCE the newest entry whose manifest
 * names it, else the manifest this directory's last build kept for it
 * (.maxcode/KEY/manifest.json). *M gets the manifest (the caller frees
 * it with cJSON_Delete()) and E (initialised by the caller) the entry.
 * Returns 0 with an entry, 1 with a kept manifest only, -1 (having said
 * why on stderr) with neither.
 */
int mc_show_lookup(const char *what, struct mc_entry *e, struct cJSON **m);

/* Whether SP, a manifest's source_path, is the file at REAL (a real
 * path). An entry from another machine (a remote, an archive) has SP
 * relative to make's directory (share.h): it is resolved from here. */
int mc_show_same_file(const char *sp, const char *real);

/* Whether A is later than B (file times: the order of entries created
 * in one second, the header's unit). */
int mc_show_later(const struct timespec *a, const struct timespec *b);

/* Print manifest M for people: a summary and the trajectory's table,
 * every line cut to the terminal's width (cmd_show.c). */
void mc_show_print(const struct cJSON *m);

/* `maxcode stats [--json] [--zero]`: the cache counters. */
int mc_cmd_stats(int argc, char **argv);

/* `maxcode report [-o FILE.html] [KEY...]`: the HTML report of the
 * cache's searches (report.h). */
int mc_cmd_report(int argc, char **argv);

/* `maxcode cache list|clean|trim|verify|export|import`: looking after
 * the cache; an archive of it to move it between machines. */
int mc_cmd_cache(int argc, char **argv);

/* `maxcode key generate -o PREFIX [--comment TEXT]`: a key pair for
 * signing cache entries, PREFIX and PREFIX.pub (cmd_key.c). */
int mc_cmd_key(int argc, char **argv);

/* `maxcode cuda [--json] [--refresh]`: the CUDA device probe. */
int mc_cmd_cuda(int argc, char **argv);

/* `maxcode rollouts export [-o FILE] [--split SHARE] [KEY...]`: the
 * value model's training records from the cache's trajectories. */
int mc_cmd_rollouts(int argc, char **argv);

/* `maxcode gvf train [-o MODEL] [--split SHARE]`: fit the built-in value
 * model on this cache's rollouts. */
int mc_cmd_gvf(int argc, char **argv);

/* `maxcode help COMMAND [WORD...]`: the items of maxcode(1)'s COMMANDS
 * section that COMMAND and the WORDs start (cmd_help.c); a usage error
 * when none does. Without COMMAND (ARGC 1), `maxcode --help`: the usage
 * and the overview (help.h). */
int mc_cmd_help(int argc, char **argv);

/* `maxcode WORD... --help` (ARGV holds the ARGC WORDs): the help of the
 * longest run of leading WORDs that names a command, as `maxcode help`
 * prints it; a usage error when even the first names none. */
int mc_help_for(int argc, char **argv);

/* `maxcode --cflags`: the -I option for <maxcode/cuda_harness.h>. */
int mc_cmd_cflags(int argc, char **argv);

#endif /* MC_COMMANDS_H */
