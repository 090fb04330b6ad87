/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * strv.h: a growable, NULL-terminated vector of owned strings (argv-like).
 */
#ifndef MC_STRV_H
#define MC_STRV_H

#include <stddef.h>
#include "status.h"

struct mc_strv {
    char **v;   /* V[N] is NULL once anything was pushed; may be NULL */
    size_t n;
    size_t cap;
};

#define MC_STRV_INIT {NULL, 0, 0}

void mc_strv_init(struct mc_strv *sv);

/* Free every string and the vector. */
void mc_strv_release(struct mc_strv *sv);

/* Append a copy of S. */
enum mc_code mc_strv_push(struct mc_strv *sv, const char *s);

/* Append a copy of the LEN bytes at S. */
enum mc_code mc_strv_pushn(struct mc_strv *sv, const char *s, size_t len);

/* Append S itself; SV takes ownership (and frees S on failure). */
enum mc_code mc_strv_push_owned(struct mc_strv *sv, char *s);

/* Append copies of all of OTHER's strings. */
enum mc_code mc_strv_extend(struct mc_strv *sv, const struct mc_strv *other);

/* Whether an element equals S. */
int mc_strv_contains(const struct mc_strv *sv, const char *s);

/*
 * Append S to B quoted for a POSIX shell: unchanged if it needs no quotes,
 * else in single quotes with ' written as '\''.
 */
struct mc_buf;
enum mc_code mc_shell_quote(struct mc_buf *b, const char *s);

/* Append all of SV to B, each shell-quoted, separated by spaces. */
enum mc_code mc_strv_join_shell(const struct mc_strv *sv, struct mc_buf *b);

/*
 * Split COMMAND into words the way a POSIX shell does for a simple
 * command: blanks separate words; single quotes, double quotes (with \\,
 * \", \$ and \` escapes) and backslash outside quotes are honoured. No
 * expansion happens. An unterminated quote is MC_ESYNTAX.
 */
enum mc_code mc_shell_split(const char *command, struct mc_strv *out,
                            struct mc_err *err);

#endif /* MC_STRV_H */
