/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * file.h: small file helpers shared by the cache, the variant writer and
 * the commands.
 */
#ifndef MC_FILE_H
#define MC_FILE_H

#include "buf.h"
#include "status.h"

#define MC_FILE_MAX (256u << 20) /* larger files are refused */

/*
 * Append all of the file at PATH to B. MC_ENOENT (and no message) if it
 * does not exist; MC_ESYNTAX if it is larger than MC_FILE_MAX.
 */
enum mc_code mc_file_read(const char *path, struct mc_buf *b,
                          struct mc_err *err);

/* mc_file_read() that also fills *ST from the open file. */
enum mc_code mc_file_read_stat(const char *path, struct mc_buf *b,
                               struct stat *st, struct mc_err *err);

/*
 * Write the LEN bytes at DATA to PATH atomically: a temporary file
 * ".NAME.tmp.PID.RANDOM" in the same directory, then rename(). On any
 * error (a full disk included) the temporary file is removed and PATH is
 * untouched. Test hook: MAXCODE_DEBUG_STORE_PAUSE=SECONDS sleeps after
 * writing half the data, so a test can kill the writer mid-store.
 */
enum mc_code mc_file_write_atomic(const char *path, const void *data,
                                  size_t len, struct mc_err *err);

/* mkdir -p of the directory part of PATH. */
enum mc_code mc_file_mkdirs_for(const char *path, struct mc_err *err);

#endif /* MC_FILE_H */
