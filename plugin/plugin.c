/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * plugin.c: maxcode.so, the GNU make loadable object. It registers make
 * functions from a table and reports errors to make. It stays thin: it
 * runs inside make's only thread, so nothing slow happens here.
 *
 * Functions:
 *   $(maxcode SOURCE[, KEY=VALUE]...), $(maxcode-marked FILES): unit.c
 *   $(maxcode-version)        the maxcode version string. make parses a
 *                             reference without arguments as a variable,
 *                             so setup also defines that variable; the
 *                             function serves `$(maxcode-version )` and
 *                             $(call maxcode-version)
 *   $(maxcode-setting NAME)   the effective value of a setting, after all
 *                             layers (make variable > env > files > default)
 */
#include "mc_setup.h"
#include "plugin.h"
#include "alloc.h"
#include "buf.h"
#include "conf.h"
#include "log.h"
#include "paths.h"
#include "target.h"
#include "internal.h"

MC_EXPORT int plugin_is_GPL_compatible;

/* Defaults, files and environment: read once per make run. */
static struct mc_conf base_conf;
static int base_loaded;

/* Whether GOAL cleans: "clean" or a name that ends in it ("distclean",
 * "mostlyclean", "maintainer-clean", "realclean"), or "clobber". */
static int
cleaning_goal(const char *goal, size_t n)
{
    return (n >= 5 && !strncmp(goal + n - 5, "clean", 5)) ||
           (n == 7 && !strncmp(goal, "clobber", 7));
}

/* Read once per make run: the goals do not change while it reads. */
int
mc_plugin_only_cleaning(void)
{
    static int known, cleaning;
    char *goals, *p;

    if (known)
        return cleaning;
    goals = gmk_expand("$(MAKECMDGOALS)");
    cleaning = goals && goals[strspn(goals, " \t")];
    for (p = goals; cleaning && *p;) {
        size_t n;

        p += strspn(p, " \t");
        n = strcspn(p, " \t");
        if (n && !cleaning_goal(p, n))
            cleaning = 0;
        p += n;
    }
    gmk_free(goals);
    known = 1;
    return cleaning;
}

/*
 * Stop make with MSG at the caller's makefile line. The message goes
 * through a variable, so that parentheses, '$' and '#' in it cannot break
 * the $(error ...) call: '$' is doubled and '#' escaped for the
 * assignment, and newlines become spaces.
 */
static void
fail(const char *msg)
{
    struct mc_buf b = MC_BUF_INIT;
    const char *p;

    if (mc_plugin_only_cleaning())
        return; /* nothing stops `make clean` */
    mc_buf_adds(&b, "MAXCODE__ERROR := maxcode: ");
    for (p = msg; *p; p++) {
        if (*p == '$')
            mc_buf_adds(&b, "$$");
        else if (*p == '#')
            mc_buf_adds(&b, "\\#");
        else if (*p == '\n' || *p == '\r')
            mc_buf_addc(&b, ' ');
        else
            mc_buf_addc(&b, *p);
    }
    mc_buf_rtrim(&b);
    while (b.len && b.s[b.len - 1] == '\\')
        b.s[--b.len] = '\0';
    if (mc_buf_status(&b) == MC_OK)
        gmk_eval(b.s, NULL);
    else
        gmk_eval("MAXCODE__ERROR := maxcode: out of memory", NULL);
    mc_buf_release(&b);
    gmk_eval("$(error $(MAXCODE__ERROR))", NULL);
}

void
mc_plugin_fail(const char *fmt, ...)
{
    struct mc_buf b = MC_BUF_INIT;
    va_list ap;

    va_start(ap, fmt);
    mc_buf_vaddf(&b, fmt, ap);
    va_end(ap);
    fail(mc_buf_status(&b) ? "out of memory" : b.s);
    mc_buf_release(&b);
}

char *
mc_plugin_to_make(const char *s)
{
    size_t n = strlen(s);
    char *r = gmk_alloc((unsigned int)n + 1);

    if (r)
        memcpy(r, s, n + 1);
    return r;
}

/* Whether a variable of make ORIGIN belongs to the make layer. */
static int
from_make(const char *origin, size_t len)
{
    return (len == 4 && !strncmp(origin, "file", 4)) ||
           (len == 12 && !strncmp(origin, "command line", 12)) ||
           (len == 8 && !strncmp(origin, "override", 8));
}

enum mc_code
mc_plugin_conf(struct mc_conf *c, struct mc_err *err)
{
    static struct mc_buf query = MC_BUF_INIT;
    enum mc_code rc;
    char *origins;
    const char *p;
    size_t i;

    if (!base_loaded) {
        rc = mc_conf_load(&base_conf, NULL, NULL, err);
        if (rc)
            return rc;
        base_loaded = 1;
    }
    /* One expansion asks for the origin of every setting, "|"-separated;
     * only the few set in make are expanded again for their value. */
    if (!query.len) {
        for (i = 0; i < MC_SET__COUNT; i++)
            mc_buf_addf(&query, "%s$(origin %s)", i ? "|" : "",
                        mc_conf_name((enum mc_setting_id)i));
        if (mc_buf_status(&query)) {
            mc_buf_release(&query);
            return mc_err_set(err, MC_ENOMEM, "out of memory");
        }
    }
    rc = mc_conf_copy(c, &base_conf, err);
    if (rc)
        return rc;
    origins = gmk_expand(query.s);
    for (p = origins, i = 0; !rc && p && i < MC_SET__COUNT; i++) {
        size_t n = strcspn(p, "|");
        enum mc_setting_id id = (enum mc_setting_id)i;

        if (from_make(p, n)) {
            struct mc_buf ref = MC_BUF_INIT, where = MC_BUF_INIT;
            char *v;

            mc_buf_addf(&ref, "$(%s)", mc_conf_name(id));
            mc_buf_addf(&where, "make variable %s", mc_conf_name(id));
            if (mc_buf_status(&ref) || mc_buf_status(&where)) {
                rc = mc_err_set(err, MC_ENOMEM, "out of memory");
            } else if ((v = gmk_expand(ref.s)) != NULL) {
                rc = mc_conf_set(c, id, v, MC_FROM_MAKE, where.s, err);
                gmk_free(v);
            }
            mc_buf_release(&ref);
            mc_buf_release(&where);
        }
        p += n + (p[n] == '|');
    }
    gmk_free(origins);
    if (rc)
        mc_conf_release(c);
    return rc;
}

static char *
fn_version(const char *name, unsigned int argc, char **argv)
{
    (void)name;
    (void)argc;
    (void)argv;
    return mc_plugin_to_make(PACKAGE_VERSION);
}

static char *
fn_setting(const char *name, unsigned int argc, char **argv)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_conf c;
    enum mc_setting_id id;
    char *res = NULL, *want;
    char msg[400];

    (void)argc;
    want = mc_strdup(argv[0]);
    if (!want) {
        fail("out of memory");
        return NULL;
    }
    {
        /* make does not strip function arguments; we do. */
        char *s = want, *e;
        while (*s == ' ' || *s == '\t')
            s++;
        e = s + strlen(s);
        while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
            *--e = '\0';
        memmove(want, s, strlen(s) + 1);
    }
    if (mc_conf_lookup(want, 1, &id)) {
        snprintf(msg, sizeof(msg), "$(%s %s): unknown setting '%s' "
                 "(`maxcode config` lists them)", name, want, want);
        fail(msg);
        goto out;
    }
    if (mc_conf_is_secret(id)) {
        snprintf(msg, sizeof(msg), "$(%s %s): %s is a secret and is never "
                 "expanded", name, want, mc_conf_name(id));
        fail(msg);
        goto out;
    }
    if (mc_plugin_conf(&c, &err)) {
        fail(err.msg);
        goto out;
    }
    res = mc_plugin_to_make(mc_conf_get(&c, id));
    mc_conf_release(&c);
out:
    mc_free(want);
    return res;
}

struct function {
    const char *name; /* a literal: make 4.3 keeps the pointer */
    unsigned int min_args, max_args, flags;
    gmk_func_ptr fn;
};

static const struct function functions[] = {
    {"maxcode", 1, 0, GMK_FUNC_DEFAULT, mc_fn_maxcode},
    {"maxcode-marked", 1, 1, GMK_FUNC_DEFAULT, mc_fn_marked},
    {"maxcode-version", 0, 0, GMK_FUNC_DEFAULT, fn_version},
    {"maxcode-setting", 1, 1, GMK_FUNC_DEFAULT, fn_setting},
};

#ifdef GMK_ABI_VERSION
int
maxcode_gmk_setup(unsigned int abi, const gmk_floc *floc)
#else
int
maxcode_gmk_setup(const gmk_floc *floc)
#endif
{
    size_t i;

#ifdef GMK_ABI_VERSION
    (void)abi;
#endif
    for (i = 0; i < MC_ARRAY_SIZE(functions); i++)
        gmk_add_function(functions[i].name, functions[i].fn,
                         functions[i].min_args, functions[i].max_args,
                         functions[i].flags);
    gmk_eval("maxcode-version := " PACKAGE_VERSION, floc);
    /* make has taken its -C options by the time it loads us, and never
     * changes directory again: each call's key and lookup can take it
     * from here. */
    mc_path_cwd_pin();
    /* A link, input or files= name the build makes is no error at
     * parse time: make makes it before the search recipe (unit.c). */
    mc_target_allow_made(1);
    if (!getenv("MAXCODE_SESSION")) {
        /* This make run, for its recipes and sub-makes: a remote cache
         * failure is said once per run (cli/cmd_optimize.c). */
        char session[96];

        snprintf(session, sizeof(session),
                 "export MAXCODE_SESSION := %ld-%ld", (long)getpid(),
                 (long)time(NULL));
        gmk_eval(session, floc);
    }
    return 1;
}

/* Counters of this make run, written to the cache once, at exit. */
static struct mc_stats pending;
static char *pending_dir;

void
mc_plugin_flush_stats(void)
{
    struct mc_cache c;

    if (!pending_dir)
        return;
    if (mc_cache_init(&c, pending_dir, NULL) == MC_OK) {
        mc_cache_stats_add(&c, &pending, NULL);
        mc_cache_release(&c);
    }
    memset(&pending, 0, sizeof(pending));
    mc_free(pending_dir);
    pending_dir = NULL;
}

void
mc_plugin_count(const char *dir, enum mc_stat s)
{
    if (pending_dir && strcmp(pending_dir, dir))
        mc_plugin_flush_stats();
    if (!pending_dir && !(pending_dir = mc_strdup(dir)))
        return;
    pending.n[s]++;
}

/* The calls of this make process made in mode cache. */
static struct {
    unsigned long calls, hits, misses, originals;
} cache_mode;

void
mc_plugin_cache_mode(int hit, int original)
{
    cache_mode.calls++;
    if (hit > 0)
        cache_mode.hits++;
    else if (hit == 0)
        cache_mode.misses++;
    if (original)
        cache_mode.originals++;
}

/* Once per make process, after its last call: what mode cache did, when
 * it was used at all. A sub-make has its own line; a make that re-execs
 * itself (to reread remade makefiles) prints in the new image only. */
static void
cache_mode_summary(void)
{
    if (!cache_mode.calls)
        return;
    mc_info("cache mode: %lu hit%s, %lu miss%s (%lu built from the "
            "original)", cache_mode.hits, cache_mode.hits == 1 ? "" : "s",
            cache_mode.misses, cache_mode.misses == 1 ? "" : "es",
            cache_mode.originals);
    memset(&cache_mode, 0, sizeof(cache_mode));
}

/* make 4.3 never unloads; the counters go out when make exits. */
__attribute__((destructor)) static void
at_exit(void)
{
    mc_plugin_flush_stats();
    cache_mode_summary();
}

void
maxcode_gmk_unload(void)
{
    mc_plugin_flush_stats();
    cache_mode_summary();
    if (base_loaded)
        mc_conf_release(&base_conf);
    base_loaded = 0;
}
