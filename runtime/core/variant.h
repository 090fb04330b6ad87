/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * variant.h: putting a variant where the user's recipe compiles it.
 *
 * A variant of SOURCE lives at .maxcode/<key>/<name> (relative to make's
 * directory) and must compile there with the user's unchanged recipe.
 * Two rewrites make that so, and both keep line numbers:
 *   1. a first line `#line 1 "SOURCE"` followed by a C comment that says
 *      "maxcode STAMP", so compiler messages and __FILE__ point at
 *      SOURCE's lines;
 *      STAMP hashes the text and SOURCE, so a hit whose file is already
 *      in place costs one short read;
 *   2. each `#include "NAME"` whose NAME exists next to SOURCE becomes
 *      `#include "REL/NAME"`, with REL leading from the variant's
 *      directory to SOURCE's, so quote includes still resolve.
 * Cache entries hold the variant without these rewrites, so an entry is
 * the same on every machine and checkout. Next to the variant, `.source`
 * holds SOURCE's real path: the compile-DB lookup uses it to map a
 * recorded compile of the variant back to SOURCE.
 *
 * Next to it too, `.written` records the variant file's size and mtime
 * as maxcode last wrote it, and what it was written from, so that a hit
 * notices a file edited by hand in .maxcode/ without reading it
 * (doc/internals/cache.md). It is a symbolic link (pointing nowhere)
 * whose text is the record, read by one readlink():
 *   written = size SP mtime SP name SP stamp
 *   size    = 1*DIGIT                 ; bytes
 *   mtime   = 1*DIGIT "." 9DIGIT      ; st_mtim: seconds, nanoseconds
 *   name    = the variant file's name (NAME)
 *   stamp   = 32HEXDIG                ; the first line's stamp
 * A file whose size or mtime differs, or that has no record, is compared
 * with what it should hold and written again when it differs.
 *
 * A hit in make's thread may add a tail to the record that names the
 * cache entry the variant was written from, so that the next hit knows
 * the variant is right without reading the entry:
 *   record  = written [ LF "@" SP origin SP place [ LF payload ] ]
 *   origin  = what the caller says identifies the entry file (its
 *             inode, size and birth time: a rewritten entry is a new file)
 *   place   = 32HEXDIG                ; hashes SOURCE and its real path
 *   payload = what the caller needs of the entry on such a hit (its
 *             include records and note), opaque here
 * A record that would be over 3 KiB is written without its tail. An edit
 * that keeps the size and puts the mtime back (touch -r) goes unseen.
 */
#ifndef MC_VARIANT_H
#define MC_VARIANT_H

#include "buf.h"
#include "status.h"

/* The variant path ".maxcode/KEY/NAME" into B. */
enum mc_code mc_variant_path(const char *key, const char *name,
                             struct mc_buf *b);

/*
 * Rewrite TEXT (LEN bytes) for the variant at PATH of SOURCE (real path
 * SOURCE_REAL) into OUT, as described above.
 */
enum mc_code mc_variant_rewrite(const char *path, const char *source,
                                const char *source_real, const char *text,
                                size_t len, struct mc_buf *out,
                                struct mc_err *err);

/*
 * Write the rewritten TEXT to PATH and SOURCE_REAL to PATH's .source,
 * creating the directory, and record PATH's size and mtime in .written.
 * A file that is as maxcode wrote it (the size and mtime recorded, and a
 * first line with the same stamp) is left alone, so its mtime does not
 * make make rebuild its dependents; so is one whose content is already
 * right (a touch), whose record is renewed. *EDITED (EDITED may be NULL)
 * is set to 1 when PATH had been changed since maxcode wrote it (by
 * hand) and was written again, else 0. Errors: MC_ENOMEM, MC_EIO (in
 * ERR), and PATH is then not to be used.
 */
enum mc_code mc_variant_materialize(const char *path, const char *source,
                                    const char *source_real,
                                    const char *text, size_t len,
                                    int *edited, struct mc_err *err);

/*
 * mc_variant_materialize(), and when ORIGIN is not NULL, a record whose
 * tail names ORIGIN and holds PAYLOAD (one line or more, no NUL; may be
 * NULL), renewed when the file is already in place under another tail.
 */
enum mc_code mc_variant_materialize_from(const char *path,
                                         const char *source,
                                         const char *source_real,
                                         const char *text, size_t len,
                                         const char *origin,
                                         const char *payload, int *edited,
                                         struct mc_err *err);

/*
 * Whether the variant file PATH of SOURCE (real path SOURCE_REAL) is as
 * maxcode last wrote it, from the entry that ORIGIN names: its size and
 * mtime as recorded, and the record's tail names ORIGIN and this place.
 * Then the record's payload is appended to PAYLOAD. A stat() and a
 * readlink(); any doubt answers 0, and the caller reads the entry.
 */
int mc_variant_fresh(const char *path, const char *source,
                     const char *source_real, const char *origin,
                     struct mc_buf *payload);

/* Say that the variant file PATH of SOURCE had been edited by hand and
 * was written again (mc_variant_materialize() set *edited). */
void mc_variant_say_edited(const char *source, const char *path);

/* Write only PATH's .source file (and the directory). */
enum mc_code mc_variant_mark_source(const char *path,
                                    const char *source_real,
                                    struct mc_err *err);

#endif /* MC_VARIANT_H */
