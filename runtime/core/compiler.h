/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * compiler.h: the compiler identity that goes into every content key, as
 * MAXCODE_COMPILER_CHECK asks for it (ccache's compiler_check):
 *
 *   mtime        the real path, size and modification time of the binary
 *                the command's first word resolves to through PATH
 *   content      a hash of that binary's bytes (the default): the same
 *                compiler package on two machines gives the same identity
 *   none         the compiler command alone
 *   string:TEXT  TEXT
 *   COMMAND      anything else: a command run through /bin/sh, whose
 *                stdout and stderr are hashed; each %compiler% in it is
 *                replaced by the compiler command
 *
 * The compiler command as written ("gcc -m32", "ccache gcc") always goes
 * in as well. An identity is computed once per compiler and check in a
 * process (a make run, in the plugin). content and COMMAND are also
 * remembered per binary, so that the next make run only stats it:
 *
 *   CACHE_DIR/compilers/HEX.id
 *     HEX     = XXH3-128 of the fields check (COMMAND with %compiler%
 *               replaced, or "content"), real path, size and mtime
 *     id-file = ("content:" / "command:") 32HEXDIG LF
 *
 * A file that does not parse is ignored and written again. A COMMAND runs
 * in the caller's process: in make's thread at most once per compiler
 * binary and machine (then it is remembered), with a 60 s timeout.
 */
#ifndef MC_COMPILER_H
#define MC_COMPILER_H

#include "status.h"

/*
 * The identity of COMPILER (a command) under CHECK (a value of
 * MAXCODE_COMPILER_CHECK; "" means content) into *OUT, remembered under
 * CACHE_DIR (NULL or "": not remembered on disk). *OUT is owned by this
 * module and lives until the process ends. A first word that PATH does
 * not resolve gives "COMPILER|unresolved" for mtime and content.
 * Errors: MC_EINVAL when a check command cannot run or fails (the
 * message names it and says why), MC_ENOMEM.
 */
enum mc_code mc_compiler_identity(const char *compiler, const char *check,
                                  const char *cache_dir, const char **out,
                                  struct mc_err *err);

/* Forget the identities this process has computed (what is remembered
 * on disk stays): for tests, and for a process that outlives a change
 * of compiler. */
void mc_compiler_forget(void);

#endif /* MC_COMPILER_H */
