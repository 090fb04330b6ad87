/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * archive.h: a whole cache as one file, to move it between machines and
 * keep it as a CI artifact (`maxcode cache export FILE`, `maxcode cache
 * import FILE`). Each entry travels as the bytes of its entry file, so it
 * keeps its own checksum and an importer checks every entry on its own:
 * one damaged entry costs that entry, not the archive.
 *
 * Format (all integers little-endian; doc/internals/cache.md):
 *   archive  = header *item trailer
 *   header   = magic version count                    ; 16 bytes
 *   magic    = "MCXA"                                 ; 4 bytes
 *   version  = u32                                    ; MC_ARCHIVE_VERSION
 *   count    = u64                                    ; items that follow
 *   item     = key length entry                       ; 40 + length bytes
 *   key      = 32 HEXLC                               ; the entry's key
 *   length   = u64                                    ; bytes in entry
 *   entry    = length OCTET                           ; an entry file
 *                                                     ; (cache.h), at most
 *                                                     ; MC_FILE_MAX bytes
 *   trailer  = 16 OCTET                               ; XXH3-128 of every
 *                                                     ; item, in order
 * Nothing follows the trailer. The writer knows the count only at the
 * end, so it writes the header first with a count of 0 and overwrites
 * the count last: its file must be seekable.
 */
#ifndef MC_ARCHIVE_H
#define MC_ARCHIVE_H

#include <stdint.h>
#include "buf.h"
#include "cache.h"
#include "hash.h"
#include "status.h"

#define MC_ARCHIVE_VERSION 1
#define MC_ARCHIVE_HEADER  16 /* magic, version, count */
#define MC_ARCHIVE_ITEM    40 /* an item's key and length */

/* ---- writing ---- */

struct mc_archive_writer {
    int fd;          /* the caller's; never closed here */
    uint64_t count;  /* items added */
    struct mc_hash h;
};

/* Begin an archive on FD, an empty file open for writing that can be
 * written at an offset (pwrite) later: writes the header. Undo with
 * mc_archive_writer_release(). MC_EIO, MC_ENOMEM. */
enum mc_code mc_archive_writer_start(struct mc_archive_writer *w, int fd,
                                     struct mc_err *err);

/* Add the LEN bytes at ENTRY, an entry file's contents, under KEY. */
enum mc_code mc_archive_writer_add(struct mc_archive_writer *w,
                                   const char *key, const void *entry,
                                   size_t len, struct mc_err *err);

/* Write the trailer and the final count. W still needs releasing. */
enum mc_code mc_archive_writer_finish(struct mc_archive_writer *w,
                                      struct mc_err *err);
void mc_archive_writer_release(struct mc_archive_writer *w);

/* Told about an entry left out or skipped: its key and why. */
typedef void (*mc_archive_note_fn)(void *ctx, const char *key,
                                   const char *why);

/*
 * Write every entry of C, oldest first, to FD as a whole archive (FD as
 * for mc_archive_writer_start()). An entry that does not read and check
 * (mc_entry_decode(), and the key its file name says) is left out and
 * passed to NOTE (may be NULL) with CTX; one removed meanwhile is left
 * out silently. *N (may be NULL) counts the entries written. MC_EIO,
 * MC_ENOMEM; FD then holds no usable archive.
 */
enum mc_code mc_archive_export(struct mc_cache *c, int fd,
                               mc_archive_note_fn note, void *ctx,
                               size_t *n, struct mc_err *err);

/* mc_archive_export() into the file PATH, atomically: a temporary file
 * next to it, renamed onto PATH once complete; PATH is untouched on any
 * error. */
enum mc_code mc_archive_export_file(struct mc_cache *c, const char *path,
                                    mc_archive_note_fn note, void *ctx,
                                    size_t *n, struct mc_err *err);

/* ---- reading ---- */

struct mc_archive_reader {
    int fd;          /* the caller's; never closed here */
    uint64_t count;  /* items the header announces */
    uint64_t index;  /* items read so far */
    uint64_t off;    /* bytes read so far */
    enum mc_code end; /* how the read ended; MC_OK while it goes on */
    struct mc_hash h;
};

/* One item as read: not checked beyond its framing. */
struct mc_archive_item {
    uint64_t index;              /* from 1 */
    char key[MC_KEY_HEX + 1];
    struct mc_buf entry;         /* the entry file's bytes */
};

void mc_archive_item_init(struct mc_archive_item *it);
void mc_archive_item_release(struct mc_archive_item *it);

/*
 * Read the header of the archive on FD (any readable file: a pipe will
 * do). MC_ESYNTAX when FD holds no maxcode archive, or one of another
 * version; MC_EIO, MC_ENOMEM. Release R in any case.
 */
enum mc_code mc_archive_reader_open(struct mc_archive_reader *r, int fd,
                                    struct mc_err *err);

/*
 * The next item into IT (set up with mc_archive_item_init(), reused).
 * MC_ENOENT after the last one, once the trailer matches and nothing
 * follows it. MC_ESYNTAX when the archive ends early, its framing is
 * damaged (a key that is not 32 hex digits, a length over MC_FILE_MAX),
 * its trailer does not match or bytes follow it: ERR says which and at
 * what byte. MC_EIO, MC_ENOMEM. Once it has returned anything but MC_OK
 * it returns that again, reading nothing.
 */
enum mc_code mc_archive_next(struct mc_archive_reader *r,
                             struct mc_archive_item *it,
                             struct mc_err *err);
void mc_archive_reader_release(struct mc_archive_reader *r);

/*
 * Check IT's entry and store it in C through mc_cache_import(), the way
 * in for every entry from outside: it must decode (magic, version,
 * lengths, checksum) and hold IT's key, and, when C's keys have trusted
 * keys configured, be signed by one of them. It is stored as it is,
 * unless C has these very bytes under that key already: then *PRESENT
 * is 1 and nothing is written. MC_ESYNTAX with the reason ("checksum
 * mismatch") when the entry is bad, MC_EUNTRUSTED (counted as
 * remote_untrusted) when it is not signed by a trusted key: nothing is
 * stored. MC_EIO when C cannot be written.
 */
enum mc_code mc_archive_store(struct mc_cache *c,
                              const struct mc_archive_item *it,
                              int *present, struct mc_err *err);

#endif /* MC_ARCHIVE_H */
