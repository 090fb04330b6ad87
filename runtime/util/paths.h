/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * paths.h: finding maxcode's own files. The maxcode command must print the
 * maxcode.so that belongs to it, both in the build tree and after
 * `make install` (with or without DESTDIR staging), so the plugin is found
 * relative to the running executable first:
 *   1. EXEDIR/plugin/.libs/maxcode.so         (the build tree)
 *   2. EXEDIR/REL/maxcode.so, where REL leads from the configured bindir
 *      to the configured pkglibdir            (an installed or staged tree)
 *   3. PKGLIBDIR/maxcode.so                   (the configured location)
 */
#ifndef MC_PATHS_H
#define MC_PATHS_H

#include "status.h"

/*
 * The relative path that leads from directory FROM to directory TO, both
 * absolute ("/usr/bin", "/usr/lib/maxcode" -> "../lib/maxcode"; equal
 * directories give "."). "." components and repeated or trailing slashes
 * are ignored. Returns NULL if out of memory or a path is not absolute.
 * The caller frees the result with mc_free().
 */
char *mc_path_relative(const char *from, const char *to);

/*
 * PATH as a name that does not depend on where DIR is: when PATH is
 * absolute and inside the absolute directory DIR, the rest of it after
 * DIR and its slashes (and any leading "./"), else PATH itself.
 * "/src/p/hot.c" in "/src/p" is "hot.c"; "/src/p" itself and
 * "/src/px/hot.c" stay as they are. Returns a pointer into PATH.
 */
const char *mc_path_in_dir(const char *path, const char *dir);

/*
 * Whether REAL (a real path: absolute, no "." or ".." component, no
 * link) is the directory DIR (a real path too; trailing slashes
 * ignored) or lies beneath it. "/src/p/a" and "/src/p" are beneath
 * "/src/p"; "/src/px" is not.
 */
int mc_path_beneath(const char *real, const char *dir);

/*
 * The working directory into BUF (LEN bytes), as getcwd() gives it; NULL
 * with errno set when it cannot be read. After mc_path_cwd_pin(), the
 * directory read then, with no system call: for a process that never
 * changes directory (make, once it has read its -C options, runs the
 * plugin in one directory), where a hit would otherwise ask the kernel
 * at every call.
 */
char *mc_path_cwd(char *buf, size_t len);

/* Read the working directory once, for mc_path_cwd() to give from then
 * on; nothing is pinned (and each call asks again) when it cannot be
 * read. */
void mc_path_cwd_pin(void);

/* Whether mc_path_cwd_pin() pinned a directory: what is found in it
 * may then be remembered for the process too. */
int mc_path_cwd_pinned(void);

/*
 * The directory of the running executable, resolved through
 * /proc/self/exe. The caller frees *OUT with mc_free().
 */
enum mc_code mc_path_exe_dir(char **out, struct mc_err *err);

/*
 * The absolute, canonical path of the maxcode.so that belongs to the
 * executable in EXE_DIR, searched as described above with the configured
 * BINDIR and PKGLIBDIR. MC_ENOENT (with the places looked at) when there
 * is none. The caller frees *OUT with mc_free().
 */
enum mc_code mc_path_plugin(const char *exe_dir, const char *bindir,
                            const char *pkglibdir, char **out,
                            struct mc_err *err);

#endif /* MC_PATHS_H */
