/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-buf.c: the growable string buffer and the status helpers.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "status.h"
#include "tap.h"

static void
test_buf__empty_is_terminated(void)
{
    struct mc_buf b = MC_BUF_INIT;

    is_str(b.s, "", "an initialised buffer reads as \"\"");
    is_long(b.len, 0, "and has length 0");
    mc_buf_release(&b);
}

static void
test_buf__appends_grow(void)
{
    struct mc_buf b = MC_BUF_INIT;
    int i;

    for (i = 0; i < 1000; i++)
        mc_buf_addf(&b, "%d,", i % 10);
    is_long(b.len, 2000, "1000 appends of 2 bytes give 2000 bytes");
    ok(!strncmp(b.s, "0,1,2,", 6) && b.s[b.len] == '\0',
       "content is kept across growth and terminated");
    mc_buf_adds(&b, "  \n");
    mc_buf_rtrim(&b);
    is_long(b.len, 2000, "rtrim drops trailing whitespace");
    mc_buf_release(&b);
}

static void
test_buf__detach_hands_over(void)
{
    struct mc_buf b = MC_BUF_INIT;
    size_t len;
    char *s;

    mc_buf_add(&b, "ab\0cd", 5);
    s = mc_buf_detach(&b, &len);
    is_long(len, 5, "detach reports the length, NULs included");
    ok(s && !memcmp(s, "ab\0cd", 6), "detach returns the bytes");
    is_str(b.s, "", "the buffer is empty afterwards");
    mc_free(s);
}

/* Append FMT with the arguments to a buffer that holds "pre:" and to a
 * snprintf() of the same, and say whether the two agree. */
#define SAME_AS_SNPRINTF(fmt, ...)                                           \
    do {                                                                     \
        struct mc_buf b_ = MC_BUF_INIT;                                      \
        char want_[256];                                                     \
                                                                             \
        mc_buf_adds(&b_, "pre:");                                            \
        snprintf(want_, sizeof(want_), "pre:" fmt, __VA_ARGS__);             \
        is_long(mc_buf_addf(&b_, fmt, __VA_ARGS__), MC_OK, "addf " fmt);     \
        is_str(b_.s, want_, "addf " fmt " writes what snprintf writes");     \
        is_long(b_.len, strlen(want_), "addf " fmt ": the length");          \
        mc_buf_release(&b_);                                                 \
    } while (0)

static void
test_buf__addf_as_snprintf(void)
{
    /* volatile: the compiler must not see the null, or -Wformat-overflow
     * refuses it (glibc's snprintf writes "(null)" for it, as addf). */
    const char *volatile null = NULL;

    /* The conversions of the formatter without stdio... */
    SAME_AS_SNPRINTF("%s/%.2s/%.2s/%s%s", "/c", "abcd", "cd", "abcd", "");
    SAME_AS_SNPRINTF(".maxcode/%s/%s", "0123abcd", "f.c");
    SAME_AS_SNPRINTF("%.*s|%.*s|%.0s|", 3, "abcdef", -1, "xy", "z");
    SAME_AS_SNPRINTF("%s %s", null, "x");
    SAME_AS_SNPRINTF("%c%%%c", 'a', 'b');
    SAME_AS_SNPRINTF("%d %i %d %d", 0, -7, INT_MAX, INT_MIN);
    SAME_AS_SNPRINTF("%u %x %lx %lu", 0u, 255u, 0xdeadbeefUL, ULONG_MAX);
    SAME_AS_SNPRINTF("%ld %lld %llu", LONG_MIN, LLONG_MIN, ULLONG_MAX);
    SAME_AS_SNPRINTF("%zu %zd %zx", (size_t)12345, (ssize_t)-3,
                     (size_t)4096);
    SAME_AS_SNPRINTF("%lld %lld.%09ld %s|", 105LL, 1796454165LL,
                     731729248L, "f57.c");
    SAME_AS_SNPRINTF("%09ld|%06u|%03d|%02x", -12L, 7u, -5, 10u);
    SAME_AS_SNPRINTF("%s", "no conversion after");
    /* ...and what stdio writes. */
    SAME_AS_SNPRINTF("%.2f %7s %-4s| %6.2f %.17g", 1.005, "ab", "c", 3.14159,
                     0.1);
    SAME_AS_SNPRINTF("%5d %+d %s", 42, 3, "mixed");
}

static void
test_buf__addf_long_text(void)
{
    struct mc_buf b = MC_BUF_INIT;
    char big[300];

    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    mc_buf_addf(&b, "%s|%.1f", big, 2.5);   /* through vsnprintf */
    mc_buf_addf(&b, "%s|%d", big, 3);       /* without */
    is_long(b.len, 2 * 299 + 6, "long appends grow the buffer");
    ok(!memcmp(b.s + 299, "|2.5x", 5) && !strcmp(b.s + 2 * 299 + 4, "|3"),
       "and keep every byte");
    mc_buf_release(&b);
}

static void
test_status__messages(void)
{
    struct mc_err err = MC_ERR_INIT;

    is_long(mc_err_set(&err, MC_EIO, "cannot open '%s'", "x.c"), MC_EIO,
            "mc_err_set returns its code");
    mc_err_set(&err, MC_EINVAL, "second");
    is_str(err.msg, "cannot open 'x.c'", "the first message is kept");
    is_str(mc_strerror(MC_ENOMEM), "out of memory", "mc_strerror names codes");
}

int
main(void)
{
    TAP_RUN(test_buf__empty_is_terminated);
    TAP_RUN(test_buf__appends_grow);
    TAP_RUN(test_buf__detach_hands_over);
    TAP_RUN(test_buf__addf_as_snprintf);
    TAP_RUN(test_buf__addf_long_text);
    TAP_RUN(test_status__messages);
    return tap_done();
}
