/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * buf.c: the growable string buffer.
 */
#include "mc_setup.h"
#include "buf.h"
#include "alloc.h"

char mc_buf_empty[1];

void
mc_buf_init(struct mc_buf *b)
{
    b->s = mc_buf_empty;
    b->len = 0;
    b->cap = 0;
    b->oom = 0;
}

void
mc_buf_release(struct mc_buf *b)
{
    if (b->cap)
        mc_free(b->s);
    mc_buf_init(b);
}

void
mc_buf_reset(struct mc_buf *b)
{
    b->len = 0;
    b->oom = 0;
    if (b->cap)
        b->s[0] = '\0';
}

enum mc_code
mc_buf_grow(struct mc_buf *b, size_t extra)
{
    size_t want, cap;
    char *s;

    if (b->oom)
        return MC_ENOMEM;
    if (extra > SIZE_MAX - b->len - 1)
        goto fail;
    want = b->len + extra + 1;
    if (want <= b->cap)
        return MC_OK;
    cap = b->cap ? b->cap : 64;
    while (cap < want)
        cap = cap > SIZE_MAX / 2 ? want : cap * 2;
    s = mc_realloc(b->cap ? b->s : NULL, cap);
    if (!s)
        goto fail;
    if (!b->cap)
        s[0] = '\0';
    b->s = s;
    b->cap = cap;
    return MC_OK;
fail:
    b->oom = 1;
    return MC_ENOMEM;
}

enum mc_code
mc_buf_add(struct mc_buf *b, const void *data, size_t len)
{
    if (mc_buf_grow(b, len))
        return MC_ENOMEM;
    if (len)
        memcpy(b->s + b->len, data, len);
    b->len += len;
    b->s[b->len] = '\0';
    return MC_OK;
}

enum mc_code
mc_buf_adds(struct mc_buf *b, const char *s)
{
    return mc_buf_add(b, s, strlen(s));
}

enum mc_code
mc_buf_addc(struct mc_buf *b, char c)
{
    return mc_buf_add(b, &c, 1);
}

enum mc_code
mc_buf_vaddf(struct mc_buf *b, const char *fmt, va_list ap)
{
    va_list cp;
    int n;

    if (b->oom)
        return MC_ENOMEM;
    va_copy(cp, ap);
    n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n < 0)
        return MC_EINVAL;
    if (mc_buf_grow(b, (size_t)n))
        return MC_ENOMEM;
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return MC_OK;
}

enum mc_code
mc_buf_addf(struct mc_buf *b, const char *fmt, ...)
{
    va_list ap;
    enum mc_code rc;

    va_start(ap, fmt);
    rc = mc_buf_vaddf(b, fmt, ap);
    va_end(ap);
    return rc;
}

void
mc_buf_rtrim(struct mc_buf *b)
{
    while (b->len && strchr(" \t\r\n\v\f", b->s[b->len - 1]))
        b->len--;
    if (b->cap)
        b->s[b->len] = '\0';
}

enum mc_code
mc_buf_status(const struct mc_buf *b)
{
    return b->oom ? MC_ENOMEM : MC_OK;
}

char *
mc_buf_detach(struct mc_buf *b, size_t *len)
{
    char *s;

    if (b->oom) {
        mc_buf_release(b);
        return NULL;
    }
    s = b->cap ? b->s : mc_strdup("");
    if (len)
        *len = s ? b->len : 0;
    mc_buf_init(b);
    return s;
}
