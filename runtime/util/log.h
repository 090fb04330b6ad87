/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * log.h: maxcode's messages to the user, at three levels (MAXCODE_LOG):
 *   quiet    only errors
 *   normal   errors and progress (the default)
 *   verbose  also the details: what went into a key, each command run
 * Every line starts with "maxcode: ". Registered secrets (API keys) are
 * replaced by "***" before a line reaches its sink, so a key that slips
 * into a message never reaches a log.
 */
#ifndef MC_LOG_H
#define MC_LOG_H

struct mc_buf;

#include <stdarg.h>

enum mc_log_level {
    MC_LOG_QUIET = 0,
    MC_LOG_NORMAL = 1,
    MC_LOG_VERBOSE = 2
};

/* A message's own level: errors always show, info at normal and above. */
enum mc_log_msg { MC_MSG_ERROR = 0, MC_MSG_INFO = 1, MC_MSG_DEBUG = 2 };

/*
 * Where finished lines go. LINE has no trailing newline. The default sink
 * writes LINE and a newline to stderr.
 */
typedef void (*mc_log_sink_fn)(enum mc_log_msg kind, const char *line,
                               void *ctx);

void mc_log_set_level(enum mc_log_level level);
enum mc_log_level mc_log_get_level(void);

/* Parse "quiet", "normal" or "verbose" into *LEVEL; 0 on success, -1 if
 * S names no level. */
int mc_log_parse_level(const char *s, enum mc_log_level *level);

/* Send lines to SINK (NULL restores the stderr sink). */
void mc_log_set_sink(mc_log_sink_fn sink, void *ctx);

/*
 * Never print SECRET: each occurrence in a message becomes "***". The
 * string is copied. Secrets shorter than 4 bytes are ignored (they would
 * mask ordinary words). Up to 8 secrets are remembered.
 */
void mc_log_add_secret(const char *secret);
void mc_log_clear_secrets(void);

/* Does TEXT hold a registered secret? */
int mc_log_holds_secret(const char *text);

/*
 * Replace each occurrence of SECRET in B by "***", in place. A NULL
 * SECRET, one shorter than 4 bytes (it would mask ordinary words) and an
 * empty B are left alone. This is the one masking loop: the log, the
 * model client and the evaluator's feedback records all go through it.
 */
void mc_log_mask(struct mc_buf *b, const char *secret);

/* Replace each registered secret in B by "***", in place. */
void mc_log_mask_secrets(struct mc_buf *b);

/* Emit a message of KIND if the level lets it through. */
void mc_log(enum mc_log_msg kind, const char *fmt, ...) MC_PRINTF(2, 3);
void mc_vlog(enum mc_log_msg kind, const char *fmt, va_list ap)
    MC_VPRINTF(2);

#define mc_error(...)   mc_log(MC_MSG_ERROR, __VA_ARGS__)
#define mc_info(...)    mc_log(MC_MSG_INFO, __VA_ARGS__)
#define mc_verbose(...) mc_log(MC_MSG_DEBUG, __VA_ARGS__)

#endif /* MC_LOG_H */
