/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sandbox_priv.h: what the parts of the sandbox share, and nothing else
 * includes (not installed): sandbox.c (scratch directories, the child's
 * setup, runs, sweeping) calls sandbox_fs.c (Landlock rules and the
 * read allow-list).
 */
#ifndef MC_SANDBOX_PRIV_H
#define MC_SANDBOX_PRIV_H

#include "sandbox.h"

/* The Landlock ABI version the kernel has, or -1 (or 0) when it has
 * none. */
int mc_sandbox_landlock_abi(void);

/*
 * Allow writes only beneath DIR (and to /dev/null and the files of
 * EXTRA, a NULL-terminated list or NULL), with every write right the
 * kernel's Landlock ABI knows. When READS (a NULL-terminated list) is
 * not NULL, reads too are allowed only beneath DIR, the files of EXTRA
 * and READS.
 */
int mc_sandbox_restrict_fs(const char *dir, char *const *extra,
                           char *const *reads, int abi);

/* Everything a run may read into OUT (see sys_code and sys_read): what
 * the caller allowed, the scratch directory, the system's, the
 * directories on PATH, and for a CUDA run (GPU) what its driver reads. */
enum mc_code mc_sandbox_read_paths(const struct mc_sandbox *sb, int gpu,
                                   struct mc_strv *out);

#endif /* MC_SANDBOX_PRIV_H */
