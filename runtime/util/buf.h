/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * buf.h: a growable, always NUL-terminated byte buffer (git's strbuf).
 *
 * Running out of memory is sticky: the failing call returns MC_ENOMEM,
 * sets B->oom, and every later append is a no-op that returns MC_ENOMEM,
 * so a caller may append many times and check once with mc_buf_status().
 * B->s is never NULL once a buffer is initialised: an empty buffer points
 * at a shared "" and owns no memory.
 */
#ifndef MC_BUF_H
#define MC_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include "status.h"

struct mc_buf {
    char *s;     /* the bytes, NUL-terminated */
    size_t len;  /* bytes in use, not counting the NUL */
    size_t cap;  /* bytes allocated; 0 while S is the shared "" */
    int oom;     /* an allocation failed */
};

extern char mc_buf_empty[];
#define MC_BUF_INIT {mc_buf_empty, 0, 0, 0}

/* Set B up empty; allocates nothing. */
void mc_buf_init(struct mc_buf *b);

/* Free B's memory. B must be initialised again before reuse. */
void mc_buf_release(struct mc_buf *b);

/* Empty B but keep its memory (and clear the OOM flag). */
void mc_buf_reset(struct mc_buf *b);

/* Make room for EXTRA more bytes. */
enum mc_code mc_buf_grow(struct mc_buf *b, size_t extra);

/* Append LEN bytes at DATA. */
enum mc_code mc_buf_add(struct mc_buf *b, const void *data, size_t len);

/* Append the string S. */
enum mc_code mc_buf_adds(struct mc_buf *b, const char *s);

/* Append the byte C. */
enum mc_code mc_buf_addc(struct mc_buf *b, char c);

/* Append V in decimal; with WIDTH > 0, zero-padded to WIDTH digits (at
 * most 20). Without printf's cost: for the hit path. */
enum mc_code mc_buf_addu(struct mc_buf *b, unsigned long long v, int width);

/* The same digits written at P (room for 20, no NUL added); returns
 * the end. */
char *mc_put_dec(char *p, unsigned long long v, int width);

/* Append printf-style formatted text. */
enum mc_code mc_buf_addf(struct mc_buf *b, const char *fmt, ...)
    MC_PRINTF(2, 3);
enum mc_code mc_buf_vaddf(struct mc_buf *b, const char *fmt, va_list ap)
    MC_VPRINTF(2);

/* Remove trailing whitespace. */
void mc_buf_rtrim(struct mc_buf *b);

/* MC_ENOMEM if any operation on B ran out of memory, else MC_OK. */
enum mc_code mc_buf_status(const struct mc_buf *b);

/*
 * Hand B's string to the caller, who frees it with mc_free(), and leave
 * B empty. Returns NULL if B ran out of memory (B is then released).
 */
char *mc_buf_detach(struct mc_buf *b, size_t *len);

#endif /* MC_BUF_H */
