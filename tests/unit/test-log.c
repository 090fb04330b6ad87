/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-log.c: log levels, secret masking, and lines cleaned of control
 * characters and cut short enough to stay one write.
 */
#include "mc_setup.h"
#include "buf.h"
#include "log.h"
#include "tap.h"

static char last[8192];
static int lines;

static void
sink(enum mc_log_msg kind, const char *line, void *ctx)
{
    (void)kind;
    (void)ctx;
    snprintf(last, sizeof(last), "%s", line);
    lines++;
}

static void
test_log__levels(void)
{
    enum mc_log_level level;

    mc_log_set_sink(sink, NULL);
    mc_log_set_level(MC_LOG_QUIET);
    lines = 0;
    mc_info("progress");
    mc_verbose("detail");
    is_long(lines, 0, "quiet drops info and verbose messages");
    mc_error("broken");
    is_str(last, "maxcode: broken", "quiet still shows errors, prefixed");
    mc_log_set_level(MC_LOG_NORMAL);
    lines = 0;
    mc_info("progress %d", 3);
    mc_verbose("detail");
    is_long(lines, 1, "normal shows info but not verbose");
    mc_log_set_level(MC_LOG_VERBOSE);
    mc_verbose("detail");
    is_str(last, "maxcode: detail", "verbose shows details");
    ok(mc_log_parse_level("verbose", &level) == 0 &&
           level == MC_LOG_VERBOSE,
       "levels parse by name");
    ok(mc_log_parse_level("loud", &level) == -1, "unknown levels fail");
}

static void
test_log__secrets_are_masked(void)
{
    mc_log_set_level(MC_LOG_NORMAL);
    mc_log_add_secret("sk-live-abcdef");
    mc_error("request with key sk-live-abcdef failed (sk-live-abcdef)");
    is_str(last, "maxcode: request with key *** failed (***)",
           "every occurrence of a secret is masked");
    mc_log_clear_secrets();
    mc_log_set_sink(NULL, NULL);
}

static void
test_log__mask_one_secret(void)
{
    struct mc_buf b = MC_BUF_INIT;

    mc_buf_adds(&b, "key=abcd1234; again abcd1234.");
    mc_log_mask(&b, "abcd1234");
    is_str(b.s, "key=***; again ***.", "every occurrence is masked");
    is_long(b.len, strlen(b.s), "and the length follows");
    mc_log_mask(&b, "key");
    is_str(b.s, "key=***; again ***.", "a secret under 4 bytes is not");
    mc_log_mask(&b, NULL);
    is_str(b.s, "key=***; again ***.", "a NULL secret does nothing");
    mc_buf_release(&b);
    mc_log_mask(&b, "abcd1234");
    is_str(b.s, "", "an empty buffer is left alone");
    mc_buf_adds(&b, "registered s3cr3t-value here");
    mc_log_add_secret("s3cr3t-value");
    mc_log_mask_secrets(&b);
    is_str(b.s, "registered *** here",
           "mc_log_mask_secrets masks the registered secrets");
    mc_log_clear_secrets();
    mc_buf_release(&b);
}

static void
test_log__control_characters_and_length(void)
{
    static char big[6000];

    mc_log_set_sink(sink, NULL);
    mc_log_set_level(MC_LOG_NORMAL);
    mc_info("a\033[2Jb\rc\x7f\xc2\x9b" "d\te\xc3\xa9");
    is_str(last, "maxcode: a?[2Jb?c???d\te\xc3\xa9",
           "ESC, CR, DEL and a C1 control become '?'; tab and UTF-8 stay");
    memset(big, 'x', sizeof(big) - 3);
    memcpy(big + 3990, "\xc3\xa9", 2); /* bytes 3999 and 4000 */
    mc_info("%s", big);
    ok(strlen(last) <= 4000, "a long line is cut to 4000 bytes");
    ok(strlen(last) == 9 + 3990, "and not inside a character");
    mc_log_set_sink(NULL, NULL);
}

int
main(void)
{
    TAP_RUN(test_log__levels);
    TAP_RUN(test_log__secrets_are_masked);
    TAP_RUN(test_log__mask_one_secret);
    TAP_RUN(test_log__control_characters_and_length);
    return tap_done();
}
