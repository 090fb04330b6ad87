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
 * creating the directory. A file that already has the same content (its
 * first line carries the same stamp) is left alone, so its mtime does not
 * make make rebuild its dependents.
 */
enum mc_code mc_variant_materialize(const char *path, const char *source,
                                    const char *source_real,
                                    const char *text, size_t len,
                                    struct mc_err *err);

/* Write only PATH's .source file (and the directory). */
enum mc_code mc_variant_mark_source(const char *path,
                                    const char *source_real,
                                    struct mc_err *err);

#endif /* MC_VARIANT_H */
