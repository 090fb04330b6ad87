/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * udiff.h: line diffs of two texts, written as `diff -u` writes them.
 * `maxcode diff` shows what a variant changed with it, and the report
 * shows each candidate against its parent and the original.
 *
 * Lines are compared whole, newline included, so a last line without a
 * newline differs from the same line with one. The algorithm is Myers'
 * O(ND) in linear space; a region whose edit distance passes a cap is
 * written as one replace of the whole region, so time and memory stay
 * bounded on inputs that share nothing.
 */
#ifndef MC_UDIFF_H
#define MC_UDIFF_H

#include <stddef.h>
#include "buf.h"
#include "status.h"

/*
 * Append to OUT a unified diff of text A (A_LEN bytes) against text B
 * (B_LEN bytes): the lines "--- A_NAME" and "+++ B_NAME", then hunks
 * "@@ -l,n +l,n @@" with CONTEXT lines of context on each side (a
 * negative CONTEXT counts as 0). Hunks whose context would overlap are
 * merged. A last line without a newline is followed by the line
 * "\ No newline at end of file". Nothing is appended when A and B are
 * equal. A and B may be NULL when their length is 0; they may hold any
 * bytes. Returns MC_OK, or MC_ENOMEM (OUT may then hold part of the
 * diff).
 */
enum mc_code mc_udiff(const char *a_name, const char *a, size_t a_len,
                      const char *b_name, const char *b, size_t b_len,
                      int context, struct mc_buf *out);

/*
 * Count the lines that the diff of A against B removes (*REMOVED) and
 * adds (*ADDED), as `diff --stat` would. Returns MC_OK or MC_ENOMEM
 * (the counts are then 0).
 */
enum mc_code mc_udiff_count(const char *a, size_t a_len, const char *b,
                            size_t b_len, size_t *added, size_t *removed);

#endif /* MC_UDIFF_H */
