/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * common.h: what the commands of cli/ share: the usage error, printing
 * cJSON's text, a size for people and the cache of the settings. A
 * command prints its result on stdout and its errors on stderr; these
 * helpers print as a command does.
 */
#ifndef MC_COMMON_H
#define MC_COMMON_H

/* The exit status of a usage error. */
#define MC_EXIT_USAGE 2

struct mc_cache;
struct mc_conf;

/* Print "maxcode: " and the message made from FMT and its arguments on
 * stderr, then the usage (maxcode(1)'s SYNOPSIS); returns
 * MC_EXIT_USAGE. */
int mc_usage_error(const char *fmt, ...) MC_PRINTF(1, 2);

/* Print TEXT (cJSON's, may be NULL: it could not be made) and a
 * newline on stdout and free it; returns the exit status (1, with
 * "out of memory", for NULL). */
int mc_put_json_text(char *text);

/* N bytes as people read a size ("512 B", "1.5 MiB") into OUT (CAP
 * bytes). */
void mc_human_size(uint64_t n, char *out, size_t cap);

/*
 * Load the settings and open the cache they name (MAXCODE_CACHE_DIR)
 * into C. With CONF (may be NULL) the settings stay there for the
 * caller, who releases them with mc_conf_release() after a success.
 * Returns 0, or 1 having said why on stderr; either way C may be
 * released with mc_cache_release(), and after a failure neither C nor
 * CONF holds anything.
 */
int mc_open_cache(struct mc_cache *c, struct mc_conf *conf);

/*
 * The directory of the `maxcode` that users run (the front, front.c),
 * where the plugin and the headers are found from: this program lives
 * apart from it, in the build tree's cli/ or in pkglibexecdir. NULL,
 * having said why on stderr, when this program's own path is unknown.
 * The caller frees it with mc_free().
 */
char *mc_command_dir(void);

#endif /* MC_COMMON_H */
