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
mc_buf_addu(struct mc_buf *b, unsigned long long v, int width)
{
    char d[20];

    return mc_buf_add(b, d, (size_t)(mc_put_dec(d, v, width) - d));
}

char *
mc_put_dec(char *p, unsigned long long v, int width)
{
    /* Two digits a division: a hit writes seven numbers. */
    static const char pairs[] = "00010203040506070809101112131415161718"
                                "19202122232425262728293031323334353637"
                                "38394041424344454647484950515253545556"
                                "57585960616263646566676869707172737475"
                                "76777879808182838485868788899091929394"
                                "9596979899";
    char d[20] MC_NOINIT;
    int n = 0;

    while (v >= 10) {
        unsigned r = (unsigned)(v % 100);

        v /= 100;
        d[sizeof(d) - 1 - n++] = pairs[2 * r + 1];
        d[sizeof(d) - 1 - n++] = pairs[2 * r];
    }
    /* Left below 10: the first digit (a pair from 10 to 99 has none). */
    if (v || !n)
        d[sizeof(d) - 1 - n++] = (char)('0' + v);
    while (n < width && n < (int)sizeof(d))
        d[sizeof(d) - 1 - n++] = '0';
    memcpy(p, d + sizeof(d) - n, (size_t)n);
    return p + n;
}

enum mc_code
mc_buf_addc(struct mc_buf *b, char c)
{
    return mc_buf_add(b, &c, 1);
}

/* The decimal number that S starts with. */
static size_t
digits_value(const char *s)
{
    size_t v = 0;

    for (; *s >= '0' && *s <= '9'; s++)
        v = v * 10 + (size_t)(*s - '0');
    return v;
}

/*
 * A conversion of the fast formatter: "%%", "%c", "%s" with an optional
 * precision (".N" or ".*"), or "%d" "%i" "%u" "%x" with an optional
 * zero-padded width ("%09ld") and an "l", "ll" or "z" size. SPEC points
 * after the '%'; *END is set after the conversion. 0 for anything else
 * (a flag, a space-padded width, a float): vsnprintf() writes those.
 */
static int
fast_spec(const char *spec, const char **end)
{
    const char *p = spec;

    if (*p == '0') {
        while (*p >= '0' && *p <= '9')
            p++;
        if (p == spec + 1)
            return 0;
    } else if (*p == '.') {
        p++;
        if (*p == '*')
            p++;
        else if (*p >= '0' && *p <= '9')
            while (*p >= '0' && *p <= '9')
                p++;
        else
            return 0;
        if (*p != 's')
            return 0;
    }
    if (*p == 'l')
        p += p[1] == 'l' ? 2 : 1;
    else if (*p == 'z')
        p++;
    if (!*p || !strchr(p == spec ? "%csdiux" : "diuxs", *p))
        return 0;
    if (*p == 's' && p != spec && *spec != '.')
        return 0;
    *end = p + 1;
    return 1;
}

/* Append the integer of conversion SPEC (fast_spec()) from AP to B. */
static void
add_int(struct mc_buf *b, const char *spec, const char *conv, va_list *ap)
{
    char digits[3 * sizeof(unsigned long long) + 2], *d;
    unsigned long long u;
    size_t width = 0, n;
    int neg = 0, sized = conv - spec; /* spec[-1] is the '%' */

    if (*spec == '0')
        width = digits_value(spec + 1);
    if (*conv == 'd' || *conv == 'i') {
        long long v;

        if (spec[sized - 1] == 'z')
            v = va_arg(*ap, ssize_t);
        else if (sized >= 2 && spec[sized - 2] == 'l')
            v = va_arg(*ap, long long);
        else if (spec[sized - 1] == 'l')
            v = va_arg(*ap, long);
        else
            v = va_arg(*ap, int);
        neg = v < 0;
        u = neg ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    } else if (spec[sized - 1] == 'z') {
        u = va_arg(*ap, size_t);
    } else if (sized >= 2 && spec[sized - 2] == 'l') {
        u = va_arg(*ap, unsigned long long);
    } else if (spec[sized - 1] == 'l') {
        u = va_arg(*ap, unsigned long);
    } else {
        u = va_arg(*ap, unsigned int);
    }
    d = digits + sizeof(digits);
    do {
        *--d = "0123456789abcdef"[*conv == 'x' ? u % 16 : u % 10];
        u = *conv == 'x' ? u / 16 : u / 10;
    } while (u);
    n = (size_t)(digits + sizeof(digits) - d) + (size_t)neg;
    if (neg)
        mc_buf_addc(b, '-');
    for (; n < width; n++)
        mc_buf_addc(b, '0');
    mc_buf_add(b, d, (size_t)(digits + sizeof(digits) - d));
}

/* mc_buf_vaddf() without stdio, as a formatted append is on the path of
 * every $(maxcode ...) call: 0 when FMT has only conversions that
 * fast_spec() takes and the text is appended (or B's allocation failed),
 * 1 with B as it was when vsnprintf() must write it. */
static int
fast_vaddf(struct mc_buf *b, const char *fmt, va_list ap)
{
    const char *p, *lit = fmt, *end, *s;
    size_t len = b->len, n;
    va_list cp;
    int prec;

    va_copy(cp, ap);
    for (p = fmt;; p++) {
        if (*p && *p != '%')
            continue;
        mc_buf_add(b, lit, (size_t)(p - lit));
        if (!*p)
            break;
        if (!fast_spec(p + 1, &end)) {
            b->len = len;
            if (b->cap)
                b->s[len] = '\0';
            va_end(cp);
            return !b->oom;
        }
        switch (end[-1]) {
        case '%':
            mc_buf_addc(b, '%');
            break;
        case 'c':
            mc_buf_addc(b, (char)va_arg(cp, int));
            break;
        case 's':
            n = (size_t)-1;
            if (p[1] == '.' && p[2] == '*') {
                prec = va_arg(cp, int);
                if (prec >= 0)
                    n = (size_t)prec;
            } else if (p[1] == '.') {
                n = digits_value(p + 2);
            }
            s = va_arg(cp, const char *);
            if (!s) /* as glibc writes it */
                s = n >= 6 ? "(null)" : "";
            mc_buf_add(b, s, n == (size_t)-1 ? strlen(s) : strnlen(s, n));
            break;
        default:
            add_int(b, p + 1, end - 1, &cp);
        }
        lit = end;
        p = end - 1;
    }
    va_end(cp);
    return 0;
}

enum mc_code
mc_buf_vaddf(struct mc_buf *b, const char *fmt, va_list ap)
{
    va_list cp;
    size_t len = b->len, room;
    int n;

    if (b->oom)
        return MC_ENOMEM;
    if (!fast_vaddf(b, fmt, ap)) {
        if (!b->oom)
            return MC_OK;
        /* As a failed vsnprintf() append: nothing appended. */
        b->len = len;
        if (b->cap)
            b->s[len] = '\0';
        return MC_ENOMEM;
    }
    /* One vsnprintf() when the text fits the room there is. */
    room = b->cap ? b->cap - b->len : 0;
    va_copy(cp, ap);
    n = vsnprintf(room ? b->s + b->len : NULL, room, fmt, cp);
    va_end(cp);
    if (n < 0) {
        if (room)
            b->s[b->len] = '\0';
        return MC_EINVAL;
    }
    if ((size_t)n < room) {
        b->len += (size_t)n;
        return MC_OK;
    }
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
