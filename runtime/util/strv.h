/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * strv.h: a growable, NULL-terminated vector of owned strings (argv-like).
 *
 * Running out of memory is sticky, as it is for struct mc_buf: the failing
 * call returns MC_ENOMEM and sets SV->oom, and every later push is a no-op
 * that returns MC_ENOMEM, so the vector never holds a command with a word
 * missing. A caller may push many times and check once with
 * mc_strv_status().
 */
#ifndef MC_STRV_H
#define MC_STRV_H

#include <stddef.h>
#include "status.h"

struct mc_strv {
    char **v;   /* V[N] is NULL once anything was pushed; may be NULL */
    size_t n;
    size_t cap;
    int oom;    /* a push ran out of memory */
};

#define MC_STRV_INIT {NULL, 0, 0, 0}

void mc_strv_init(struct mc_strv *sv);

/* Free every string and the vector; SV is then empty, its OOM flag
 * cleared. */
void mc_strv_release(struct mc_strv *sv);

/* MC_ENOMEM if a push to SV (or a split into it) ran out of memory since
 * it was last initialised or released, else MC_OK. */
enum mc_code mc_strv_status(const struct mc_strv *sv);

/* Append a copy of S. */
enum mc_code mc_strv_push(struct mc_strv *sv, const char *s);

/* Append a copy of the LEN bytes at S. */
enum mc_code mc_strv_pushn(struct mc_strv *sv, const char *s, size_t len);

/* Append S itself; SV takes ownership (and frees S on failure). A NULL
 * S is taken for a failed allocation: MC_ENOMEM, and SV remembers it. */
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
 * expansion happens. An unterminated quote is MC_ESYNTAX (the words
 * before it stay in OUT); running out of memory is MC_ENOMEM, and OUT
 * remembers it (mc_strv_status()).
 */
enum mc_code mc_shell_split(const char *command, struct mc_strv *out,
                            struct mc_err *err);

#endif /* MC_STRV_H */
