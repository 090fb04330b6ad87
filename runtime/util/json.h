/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * json.h: the one reader of JSON members that come from outside the
 * process (a journal, an entry's manifest or trajectory from another
 * machine, a model's answer, a probe's result). Every number is
 * range-checked before it can reach a cast or a computation (a damaged
 * or crafted file may hold 1e300, -5, inf or NaN), every string is
 * capped, and arrays and objects are taken by type.
 *
 * Each reader sets *OUT only on MC_OK, so that a caller with a default
 * sets it first and may ignore the result:
 *   double s = 1;
 *   (void)mc_json_double(m, "speedup", 0, 1e12, &s);
 * Results: MC_OK; MC_ENOENT when O is NULL or has no member NAME (names
 * are case-sensitive); MC_EINVAL when the member has another type, or
 * is a number outside [MIN, MAX] or not finite, or a string longer than
 * MAXLEN bytes.
 */
#ifndef MC_JSON_H
#define MC_JSON_H

#include <stddef.h>
#include "status.h"

struct cJSON;

/* The largest integer a double holds exactly, 2^53: the cap of counts
 * (requests, tokens) read back. */
#define MC_JSON_INT_MAX 9007199254740992.0

/* Member NAME of O as a number in [MIN, MAX] into *OUT. */
enum mc_code mc_json_double(const struct cJSON *o, const char *name,
                            double min, double max, double *out);

/* Member NAME of O as a number in [MIN, MAX], truncated toward zero
 * into *OUT (the range is checked before the cast: -0.5 reads as 0 with
 * MIN 0, 2.9 as 2). */
enum mc_code mc_json_int(const struct cJSON *o, const char *name,
                         long long min, long long max, long long *out);

/* Member NAME of O as a string of at most MAXLEN bytes; *OUT borrows
 * from O. */
enum mc_code mc_json_str(const struct cJSON *o, const char *name,
                         size_t maxlen, const char **out);

/* Member NAME of O as a boolean: *OUT is 1 for true, 0 for false. */
enum mc_code mc_json_bool(const struct cJSON *o, const char *name,
                          int *out);

/* Member NAME of O when it is an array (an object), else NULL; it
 * borrows from O. */
const struct cJSON *mc_json_array(const struct cJSON *o, const char *name);
const struct cJSON *mc_json_object(const struct cJSON *o, const char *name);

/* Member NAME of O as a number in [MIN, MAX], else DFLT. */
double mc_json_num_or(const struct cJSON *o, const char *name, double min,
                      double max, double dflt);

/* Member NAME of O as a string of at most MAXLEN bytes, else "" (when
 * it is missing, not a string or longer); it borrows from O. */
const char *mc_json_text(const struct cJSON *o, const char *name,
                         size_t maxlen);

/* Whether member NAME of O is true (missing or anything else: 0). */
int mc_json_true(const struct cJSON *o, const char *name);

#endif /* MC_JSON_H */
