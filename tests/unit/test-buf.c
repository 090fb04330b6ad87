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
    TAP_RUN(test_status__messages);
    return tap_done();
}
