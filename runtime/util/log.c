/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * log.c: levels, the sink, and secret masking.
 */
#include "mc_setup.h"
#include "log.h"
#include "alloc.h"
#include "buf.h"

#define MAX_SECRETS 8 /* registered secrets remembered */
#define MIN_SECRET  4 /* shorter ones would mask ordinary words */
#define MAX_LINE    4000 /* bytes of a line: one atomic write to a pipe */

static enum mc_log_level current_level = MC_LOG_NORMAL;
static mc_log_sink_fn current_sink;
static void *current_ctx;
static char *secrets[MAX_SECRETS];

void
mc_log_set_level(enum mc_log_level level)
{
    current_level = level;
}

enum mc_log_level
mc_log_get_level(void)
{
    return current_level;
}

int
mc_log_parse_level(const char *s, enum mc_log_level *level)
{
    static const char *const names[] = {"quiet", "normal", "verbose"};
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(names); i++) {
        if (!strcmp(s, names[i])) {
            *level = (enum mc_log_level)i;
            return 0;
        }
    }
    return -1;
}

void
mc_log_set_sink(mc_log_sink_fn sink, void *ctx)
{
    current_sink = sink;
    current_ctx = ctx;
}

void
mc_log_add_secret(const char *secret)
{
    size_t i;

    if (!secret || strlen(secret) < MIN_SECRET)
        return;
    for (i = 0; i < MAX_SECRETS; i++) {
        if (secrets[i] && !strcmp(secrets[i], secret))
            return;
        if (!secrets[i]) {
            secrets[i] = mc_strdup(secret);
            return;
        }
    }
}

void
mc_log_clear_secrets(void)
{
    size_t i;

    for (i = 0; i < MAX_SECRETS; i++) {
        mc_free(secrets[i]);
        secrets[i] = NULL;
    }
}

int
mc_log_holds_secret(const char *text)
{
    size_t i;

    for (i = 0; i < MAX_SECRETS && secrets[i]; i++)
        if (strstr(text, secrets[i]))
            return 1;
    return 0;
}

void
mc_log_mask(struct mc_buf *b, const char *secret)
{
    size_t n = secret ? strlen(secret) : 0;
    char *p;

    if (n < MIN_SECRET || !b->cap)
        return;
    while ((p = strstr(b->s, secret)) != NULL) {
        memcpy(p, "***", 3);
        memmove(p + 3, p + n, strlen(p + n) + 1);
        b->len -= n - 3;
    }
}

void
mc_log_mask_secrets(struct mc_buf *b)
{
    size_t i;

    for (i = 0; i < MAX_SECRETS && secrets[i]; i++)
        mc_log_mask(b, secrets[i]);
}

/*
 * Write LINE and its newline to stderr in one write(2): under make -j
 * several searches share make's stderr, and a line written in pieces
 * could be cut by another's. A pipe keeps writes of up to PIPE_BUF
 * whole; a terminal or a log file keeps a single write together in
 * practice.
 */
static void
write_line(struct mc_buf *line)
{
    size_t done = 0;

    mc_buf_addc(line, '\n');
    fflush(stderr);
    if (mc_buf_status(line) != MC_OK)
        return;
    /* A loop of its own, not mc_file_write_all(): file logs, and the
     * log stays below it. */
    while (done < line->len) {
        ssize_t n = write(STDERR_FILENO, line->s + done, line->len - done);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return;
        done += (size_t)n;
    }
}

/*
 * Make each control character of B but newline and tab a '?': a line can
 * quote a model's critique, a compiler's output or a cache entry's text,
 * and an escape sequence in it must not reach the user's terminal. C1
 * controls, U+0080 to U+009F (UTF-8 0xc2 0x80-0x9f), count too. Then
 * cut B to MAX_LINE bytes, so that a line stays one atomic write to a
 * pipe (PIPE_BUF is at least 4096).
 */
static void
clean_line(struct mc_buf *b)
{
    size_t i;

    for (i = 0; i < b->len; i++) {
        unsigned char c = (unsigned char)b->s[i];

        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
            b->s[i] = '?';
        else if (c == 0xc2 && i + 1 < b->len &&
                 (unsigned char)b->s[i + 1] >= 0x80 &&
                 (unsigned char)b->s[i + 1] <= 0x9f)
            b->s[i] = b->s[i + 1] = '?';
    }
    if (b->len > MAX_LINE) {
        b->len = MAX_LINE;
        while (b->len && ((unsigned char)b->s[b->len] & 0xc0) == 0x80)
            b->len--; /* not in the middle of a character */
        b->s[b->len] = '\0';
    }
}

void
mc_vlog(enum mc_log_msg kind, const char *fmt, va_list ap)
{
    struct mc_buf line = MC_BUF_INIT;

    if ((int)kind > (int)current_level && kind != MC_MSG_ERROR)
        return;
    mc_buf_adds(&line, "maxcode: ");
    mc_buf_vaddf(&line, fmt, ap);
    mc_buf_rtrim(&line);
    if (mc_buf_status(&line) == MC_OK) {
        mc_log_mask_secrets(&line);
        clean_line(&line);
        if (current_sink)
            current_sink(kind, line.s, current_ctx);
        else
            write_line(&line);
    }
    mc_buf_release(&line);
}

void
mc_log(enum mc_log_msg kind, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    mc_vlog(kind, fmt, ap);
    va_end(ap);
}
