/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * flags.h: the paths inside compiler and linker flags. A relative path in
 * "-Iinclude" means something only together with the directory the
 * compiler runs in; maxcode moves flags between three places: a compile
 * DB entry's "directory", make's directory (where the executor compiles)
 * and the run directories of the program under test.
 *
 * Options whose argument is a path, separate ("-I dir") or joined
 * ("-Idir"), unless the joined text starts with '-' ("-include-pch"):
 *   -I -iquote -isystem -idirafter -include -imacros -iprefix
 *   -iwithprefix -iwithprefixbefore -isysroot -L -B -T
 * joined only: --sysroot=P -specs=P -fprofile-use=P @P (a response file);
 * inside "-Wl,A,B,...": "-rpath P", "-rpath=P", "-R P", "-L P", "-LP",
 * "-T P", "--version-script=P", "--dynamic-list=P"; and the same words
 * split over "-Xlinker W -Xlinker P".
 * A path that is empty, absolute, sysroot-relative ('=' or "$SYSROOT")
 * or relative to the executable ("$ORIGIN") is left alone.
 */
#ifndef MC_FLAGS_H
#define MC_FLAGS_H

#include "status.h"
#include "strv.h"

/* Which paths mc_flags_rebase() rewrites. */
enum mc_flags_which {
    MC_FLAGS_ALL,     /* every path the list above names */
    MC_FLAGS_RUNTIME  /* only those the program reads when it runs: the
                       * rpath (-Wl,-rpath / -R) */
};

/*
 * Append IN's words to OUT with each relative path (see above) that is
 * meant relative to directory FROM (absolute) rewritten: relative to
 * directory TO (absolute, "../include" when needed) when TO is not NULL,
 * else absolute. WHICH chooses the paths. MC_ENOMEM is the only error.
 */
enum mc_code mc_flags_rebase(const struct mc_strv *in, const char *from,
                             const char *to, enum mc_flags_which which,
                             struct mc_strv *out);

/*
 * Append IN's words to OUT as a build that maxcode runs needs them: the
 * switches that choose what a compile produces ("-c", "-S", "-E": the
 * caller says itself) and the dependency-file options ("-MD", "-MMD",
 * "-MF X", "-MT X", "-MQ X", "-Wp,-MD,X", "-Wp,-MMD,X") are left out,
 * a linker map ("-Wl,-Map,X", "-Wl,-Map=X") goes to DIR/link.map and
 * "-save-temps" becomes "-save-temps=obj" (both left out when DIR is
 * NULL), since such a build may write only in its scratch directory DIR.
 * MC_ENOMEM is the only error.
 */
enum mc_code mc_flags_for_build(const struct mc_strv *in, const char *dir,
                                struct mc_strv *out);

/*
 * Append to OUT every path that IN's words name (the options above, and
 * nvcc's "-ccbin P" and "--compiler-bindir P"), made absolute against
 * directory FROM; those relative to a sysroot or to the executable are
 * left out. What a build may read besides the sources: include and
 * library directories, forced includes, linker scripts, response files.
 * MC_ENOMEM is the only error.
 */
enum mc_code mc_flags_paths(const struct mc_strv *in, const char *from,
                            struct mc_strv *out);

#endif /* MC_FLAGS_H */
