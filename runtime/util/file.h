/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * file.h: small file helpers shared by the cache, the variant writer, the
 * evaluator and the commands: whole-file reads, atomic writes, mkdir -p
 * and lock files.
 */
#ifndef MC_FILE_H
#define MC_FILE_H

#include "buf.h"
#include "status.h"

#define MC_FILE_MAX (256u << 20) /* larger files are refused */

#define MC_FILE_SMALL (64u << 10) /* cap of a probe or counters file */

/*
 * Append all of the file at PATH to B; links are followed (a user's own
 * source may be one). MC_ENOENT (and no message) if it does not exist;
 * MC_ESYNTAX if it is no regular file ("'PATH' is a FIFO", "is a
 * device", "is a directory"), found by stat() before it is opened, so
 * that nothing waits on a FIFO and no device is opened; MC_ESYNTAX too
 * when more than MC_FILE_MAX bytes are read (the bytes read count, not
 * st_size: "'PATH' is larger than N bytes"), B then unchanged; MC_EIO.
 */
enum mc_code mc_file_read(const char *path, struct mc_buf *b,
                          struct mc_err *err);

/* mc_file_read() that also fills *ST from the open file. */
enum mc_code mc_file_read_stat(const char *path, struct mc_buf *b,
                               struct stat *st, struct mc_err *err);

/*
 * The checking read for files that someone else may have placed: a
 * candidate's run directory, a cache directory shared with other users.
 * Append the file REL, relative to the directory ROOT, to B, opened
 * without following a link at any component of REL (one openat2() of
 * REL with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS where the kernel has
 * it, else, and to name a link it refused, a walk of one component at a
 * time with O_NOFOLLOW), with O_NONBLOCK and O_NOCTTY (a FIFO is opened
 * without a wait; a device node, which only root can make, may be
 * opened), checked with fstat() to be a regular file, and read up to CAP
 * bytes, counted as read. ROOT itself may be reached through links. ST,
 * when not NULL, gets the file's fstat(). Returns:
 *   MC_OK;
 *   MC_ENOENT, no message: REL, or a directory on its way, is missing;
 *   MC_ESYNTAX, the file itself is refused: "'REL' is a symbolic link",
 *     "is a FIFO", "is a device", "is a socket", "is a directory", "is
 *     larger than CAP bytes" (B is then unchanged);
 *   MC_EIO, its path is refused: "'REL': 'DIR' is a symbolic link",
 *     "'REL' names '..'", "'REL' is an absolute path"; or an open or
 *     read failed ("cannot open 'REL': ...");
 *   MC_ENOMEM.
 * Messages name REL as given, never ROOT, so they can go back to whoever
 * wrote REL.
 */
enum mc_code mc_file_read_beneath(const char *root, const char *rel,
                                  size_t cap, struct mc_buf *b,
                                  struct stat *st, struct mc_err *err);

/* mc_file_read_beneath() of REL beneath the directory ROOTFD, opened by
 * the caller (O_PATH will do), who may keep it for many reads. */
enum mc_code mc_file_read_at(int rootfd, const char *rel, size_t cap,
                             struct mc_buf *b, struct stat *st,
                             struct mc_err *err);

/*
 * mc_file_read_beneath() of REL in the cache directory ROOT, for the
 * small files kept there (counters, probes, models): a refused file
 * (MC_ESYNTAX, MC_EIO) is also said once per process at log level
 * normal, "ignoring a file in the cache directory 'ROOT': REASON", so
 * that each bad file is reported once however often it is read. The
 * caller treats every error as "none there".
 */
enum mc_code mc_file_read_shared(const char *root, const char *rel,
                                 size_t cap, struct mc_buf *b,
                                 struct mc_err *err);

/*
 * Write the LEN bytes at DATA to PATH atomically: a temporary file
 * ".NAME.tmp.PID.RANDOM" in the same directory, then rename(). On any
 * error (a full disk included) the temporary file is removed and PATH is
 * untouched. Test hook: MAXCODE_DEBUG_STORE_PAUSE=SECONDS sleeps after
 * writing half the data, so a test can kill the writer mid-store.
 */
enum mc_code mc_file_write_atomic(const char *path, const void *data,
                                  size_t len, struct mc_err *err);

/*
 * The first half of an atomic write of PATH, for a caller that writes as
 * it goes: create the temporary file ".NAME.tmp.PID.RANDOM" in PATH's
 * directory (the current one when PATH has no '/'), new, mode 0666 less
 * the umask, open for writing as *FD; its path goes into TMP (reset
 * first, released by the caller). MC_EIO naming it when it cannot be
 * created. Finish with mc_file_tmp_commit() or mc_file_tmp_abort().
 */
enum mc_code mc_file_tmp_create(const char *path, struct mc_buf *tmp,
                                int *fd, struct mc_err *err);

/* Close FD and rename TMP onto PATH. When either fails, TMP is removed,
 * PATH is untouched and the error is MC_EIO. */
enum mc_code mc_file_tmp_commit(int fd, const char *tmp, const char *path,
                                struct mc_err *err);

/* Close FD (unless -1) and remove TMP: PATH is untouched. */
void mc_file_tmp_abort(int fd, const char *tmp);

/* Write the LEN bytes at DATA to FD, retrying on EINTR and short writes.
 * MC_EIO naming NAME when a write fails or the disk is full. */
enum mc_code mc_file_write_all(int fd, const void *data, size_t len,
                               const char *name, struct mc_err *err);

/* mkdir -p of the directory part of PATH. */
enum mc_code mc_file_mkdirs_for(const char *path, struct mc_err *err);

/*
 * Take the exclusive flock() of the file at PATH, which is created (with
 * its directories) when missing. With BLOCKING, wait for it; without,
 * return MC_EINVAL at once, and no message, when another process holds
 * it. A lock file can be removed (by `maxcode cache clean` or a trim)
 * between the open() and the flock(), and a lock on a removed file is
 * one nobody else sees: so once locked, PATH is checked to still be the
 * file held, and the lock is taken again on the new file if not.
 * On success *FD is the descriptor that holds the lock: pass it to
 * mc_file_unlock(). On failure *FD is -1, the error is MC_EIO naming
 * PATH (or what mc_file_mkdirs_for() says), and errno keeps its cause.
 */
enum mc_code mc_file_lock(const char *path, int blocking, int *fd,
                          struct mc_err *err);

/* Release the lock FD from mc_file_lock() by closing it; -1 is ignored. */
void mc_file_unlock(int fd);

#endif /* MC_FILE_H */
