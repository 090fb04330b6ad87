/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * common.c: the helpers every command of cli/ uses (common.h): the usage
 * error with maxcode(1)'s SYNOPSIS, cJSON's text on stdout, sizes for
 * people, the cache the settings name.
 */
#include "mc_setup.h"
#include "common.h"
#include "alloc.h"
#include "buf.h"
#include "cache.h"
#include "conf.h"
#include "help.h"
#include "log.h"
#include "paths.h"

#include <cjson/cJSON.h>

int
mc_usage_error(const char *fmt, ...)
{
    va_list ap;

    fputs("maxcode: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n%s", mc_help_usage);
    return MC_EXIT_USAGE;
}

int
mc_put_json_text(char *text)
{
    if (!text) {
        mc_error("out of memory");
        return 1;
    }
    printf("%s\n", text);
    cJSON_free(text);
    return 0;
}

void
mc_human_size(uint64_t n, char *out, size_t cap)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)n;
    size_t u = 0;

    while (v >= 1024 && u + 1 < MC_ARRAY_SIZE(units)) {
        v /= 1024;
        u++;
    }
    snprintf(out, cap, u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

int
mc_open_cache(struct mc_cache *c, struct mc_conf *conf)
{
    struct mc_cache none = MC_CACHE_INIT;
    struct mc_err err = MC_ERR_INIT;
    struct mc_conf own;
    struct mc_conf *cf = conf ? conf : &own;
    enum mc_code rc;

    *c = none;
    if (mc_conf_load(cf, NULL, NULL, &err)) {
        mc_error("%s", err.msg);
        return 1;
    }
    rc = mc_cache_init(c, mc_conf_get(cf, MC_SET_CACHE_DIR), &err);
    if (rc) {
        mc_error("%s", err.msg);
        mc_cache_release(c);
    }
    if (rc || !conf)
        mc_conf_release(cf);
    return rc ? 1 : 0;
}

/* Whether DIR/REL/maxcode is a program. */
static int
has_command(const char *dir, const char *rel)
{
    struct mc_buf b = MC_BUF_INIT;
    int yes;

    mc_buf_addf(&b, "%s/%s/maxcode", dir, rel);
    yes = b.s && access(b.s, X_OK) == 0;
    mc_buf_release(&b);
    return yes;
}

char *
mc_command_dir(void)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf b = MC_BUF_INIT;
    char *dir = NULL, *rel = NULL, *slash;

    if (mc_path_exe_dir(&dir, &err)) {
        mc_error("%s", err.msg);
        return NULL;
    }
    slash = strrchr(dir, '/');
    if (slash && !strcmp(slash, "/cli") && has_command(dir, ".."))
        mc_buf_addf(&b, "%.*s", (int)(slash - dir), dir);
    else if ((rel = mc_path_relative(MC_PKGLIBEXECDIR, MC_BINDIR)) &&
             has_command(dir, rel))
        mc_buf_addf(&b, "%s/%s", dir, rel);
    else
        mc_buf_adds(&b, dir);
    mc_free(dir);
    mc_free(rel);
    if (mc_buf_status(&b)) {
        mc_error("out of memory");
        mc_buf_release(&b);
        return NULL;
    }
    return mc_buf_detach(&b, NULL);
}
