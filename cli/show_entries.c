/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * show_entries.c: the entries of one source and the one the current
 * Makefile hits, for `maxcode show` (show_entries.h says how make is
 * asked, and why).
 */
#include "mc_setup.h"
#include "show_entries.h"
#include "alloc.h"
#include "cache.h"
#include "commands.h"
#include "file.h"
#include "log.h"
#include "manifest.h"
#include "report.h"
#include "spawn.h"

#include <cjson/cJSON.h>
#include <dirent.h>

/* What make's data base may hold at most (-p on a large project). */
#define MAKE_OUT_CAP ((size_t)64 << 20)

/* The goal make is given: an empty rule of its own, so that no goal of
 * the makefile is considered (and no recursive make runs). */
#define SHOW_GOAL ".maxcode-show-nothing"

void
mc_show_entries_init(struct mc_show_entries *l)
{
    memset(l, 0, sizeof(*l));
    l->chosen = -1;
    mc_buf_init(&l->how);
}

void
mc_show_entries_release(struct mc_show_entries *l)
{
    size_t i;

    for (i = 0; i < l->n; i++) {
        cJSON_Delete(l->v[i].m);
        mc_free(l->v[i].dir);
        mc_free(l->v[i].differs);
        mc_strv_release(&l->v[i].words);
    }
    mc_free(l->v);
    mc_buf_release(&l->how);
    mc_show_entries_init(l);
}

/* Whether L holds KEY. */
static int
has_key(const struct mc_show_entries *l, const char *key)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        if (!strcmp(l->v[i].key, key))
            return 1;
    return 0;
}

/* Add entry E (its manifest M, taken) to L. -1 when out of memory (M is
 * freed). */
static int
add_entry(struct mc_show_entries *l, const struct mc_entry *e, cJSON *m)
{
    struct mc_show_entry *x;
    struct mc_buf dir = MC_BUF_INIT;

    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 4;
        void *v = mc_realloc(l->v, cap * sizeof(*l->v));

        if (!v) {
            cJSON_Delete(m);
            return -1;
        }
        l->v = v;
        l->cap = cap;
    }
    x = &l->v[l->n++];
    memset(x, 0, sizeof(*x));
    mc_strv_init(&x->words);
    memcpy(x->key, e->key, sizeof(x->key));
    x->created = e->created;
    x->m = m;
    if (mc_manifest_dir(m, &dir) || !(x->dir = mc_strdup(dir.s ? dir.s
                                                              : "")) ||
        mc_report_build_words(m, &x->words)) {
        mc_buf_release(&dir);
        return -1;
    }
    mc_buf_release(&dir);
    return 0;
}

/* Read the entry file PATH and add it to L when READ_ANY or when its
 * manifest names SOURCE (REAL: its real path, or NULL). -1 when out of
 * memory. */
static int
consider(struct mc_show_entries *l, const char *path, const char *source,
         const char *real, int read_any)
{
    struct mc_entry e;
    cJSON *m = NULL;
    int rc = 0;

    mc_entry_init(&e);
    if (mc_entry_read_file(path, &e, NULL) == MC_OK && !has_key(l, e.key) &&
        (m = cJSON_ParseWithLength(e.manifest.s, e.manifest.len)) &&
        cJSON_IsObject(m) &&
        (read_any ||
         (real ? mc_show_same_file(mc_manifest_str(m, "source_path"), real)
               : !strcmp(mc_manifest_str(m, "source"), source)))) {
        struct stat st;

        rc = add_entry(l, &e, m);
        m = NULL;
        if (!rc && !stat(path, &st))
            l->v[l->n - 1].mtime = st.st_mtim;
    }
    cJSON_Delete(m);
    mc_entry_release(&e);
    return rc;
}

/* The first line of .maxcode/KEY/.source here, into B; -1 without. */
static int
source_of_variant(const char *key, struct mc_buf *b)
{
    struct mc_buf path = MC_BUF_INIT;
    int rc = -1;

    mc_buf_reset(b);
    mc_buf_addf(&path, ".maxcode/%s/.source", key);
    if (!mc_buf_status(&path) && !mc_file_read(path.s, b, NULL) && b->len) {
        b->len = strcspn(b->s, "\n");
        b->s[b->len] = '\0';
        rc = 0;
    }
    mc_buf_release(&path);
    return rc;
}

/* The entries of the variant directories here whose .source is REAL and
 * that C has, into L. -1 when out of memory. */
static int
add_here(struct mc_show_entries *l, struct mc_cache *c, const char *real)
{
    struct mc_buf text = MC_BUF_INIT, path = MC_BUF_INIT;
    DIR *d = real ? opendir(".maxcode") : NULL;
    struct dirent *de;
    int rc = 0;

    while (d && !rc && (de = readdir(d)) != NULL) {
        if (!mc_is_key(de->d_name) || has_key(l, de->d_name) ||
            source_of_variant(de->d_name, &text) || strcmp(text.s, real))
            continue;
        mc_buf_reset(&path);
        if (mc_cache_path(c, de->d_name, ".mce", &path) ||
            access(path.s, F_OK))
            continue;
        rc = consider(l, path.s, NULL, NULL, 1);
    }
    if (d)
        closedir(d);
    mc_buf_release(&text);
    mc_buf_release(&path);
    return rc;
}

static int
newest_first(const void *a, const void *b)
{
    const struct mc_show_entry *x = a, *y = b;

    if (x->created != y->created)
        return x->created > y->created ? -1 : 1;
    if (mc_show_later(&x->mtime, &y->mtime))
        return -1;
    if (mc_show_later(&y->mtime, &x->mtime))
        return 1;
    return strcmp(x->key, y->key);
}

/* Each entry's words that tell it apart from the others. -1 when out of
 * memory. */
static int
set_differs(struct mc_show_entries *l)
{
    const struct mc_strv **words = mc_malloc(l->n * sizeof(*words));
    struct mc_buf d = MC_BUF_INIT;
    size_t i;
    int rc = words ? 0 : -1;

    for (i = 0; words && i < l->n; i++)
        words[i] = &l->v[i].words;
    for (i = 0; !rc && i < l->n; i++)
        if (mc_report_words_differ(words, l->n, i, &d) ||
            !(l->v[i].differs = mc_strdup(d.s ? d.s : "")))
            rc = -1;
    mc_free(words);
    mc_buf_release(&d);
    return rc;
}

/* The makefile make reads here, as make looks for it; NULL for none. */
static const char *
makefile_here(void)
{
    static const char *const names[] = {"GNUmakefile", "makefile",
                                        "Makefile"};
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(names); i++)
        if (!access(names[i], F_OK))
            return names[i];
    return NULL;
}

/* Whether the environment string S sets a variable of the outer make's
 * that would make the child a part of that make run. */
static int
outer_make_var(const char *s)
{
    static const char *const names[] = {"MAKEFLAGS=", "MFLAGS=",
                                        "MAKELEVEL=", "GNUMAKEFLAGS=",
                                        "MAKEFILES="};
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(names); i++)
        if (!strncmp(s, names[i], strlen(names[i])))
            return 1;
    return 0;
}

/* Mark the entries of L whose key make's data base TEXT (LEN bytes)
 * names in a variant path (".maxcode/KEY/"); a key of REAL's that no
 * entry has goes into L->other. */
static void
mark_current(struct mc_show_entries *l, const char *text, size_t len,
             const char *real)
{
    static const char marker[] = ".maxcode/";
    const size_t ml = sizeof(marker) - 1;
    struct mc_buf src = MC_BUF_INIT;
    const char *p = text, *end = text + len;
    char key[MC_KEY_HEX + 1];
    size_t i;

    while (p && (size_t)(end - p) > ml + MC_KEY_HEX &&
           (p = memmem(p, (size_t)(end - p), marker, ml)) != NULL) {
        p += ml;
        if ((size_t)(end - p) <= MC_KEY_HEX || p[MC_KEY_HEX] != '/')
            continue;
        memcpy(key, p, MC_KEY_HEX);
        key[MC_KEY_HEX] = '\0';
        if (!mc_is_key(key))
            continue;
        for (i = 0; i < l->n; i++)
            if (!strcmp(l->v[i].key, key))
                break;
        if (i < l->n)
            l->v[i].current = 1;
        else if (!l->other[0] && real && !source_of_variant(key, &src) &&
                 !strcmp(src.s, real))
            memcpy(l->other, key, sizeof(key));
    }
    mc_buf_release(&src);
}

/* Ask make which key the current makefile here computes for REAL (the
 * source's real path), and choose the entry to show. */
static void
choose(struct mc_show_entries *l, const char *real)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_spawn_result r;
    struct mc_spawn_opts o;
    struct mc_strv argv = MC_STRV_INIT, env = MC_STRV_INIT, all =
                                                               MC_STRV_INIT;
    const char *make = getenv("MAKE");
    const char *mf = makefile_here();
    char cwd[PATH_MAX];
    size_t i;

    l->chosen = 0;
    l->asked = 1;
    mc_spawn_result_init(&r);
    if (!getcwd(cwd, sizeof(cwd)))
        snprintf(cwd, sizeof(cwd), ".");
    if (!mf) {
        mc_buf_addf(&l->how, "no makefile in %s to ask which one it hits "
                    "(run show in make's directory); the newest is shown",
                    cwd);
        goto out;
    }
    if (!make || !*make)
        make = "make";
    mc_strv_push(&argv, make);
    mc_strv_push(&argv, "-q");
    mc_strv_push(&argv, "-p");
    mc_strv_push(&argv, "--no-print-directory");
    mc_strv_push(&argv, "--eval=" SHOW_GOAL ": ;");
    mc_strv_push(&argv, SHOW_GOAL);
    if (mc_spawn_env(&all) == MC_OK)
        for (i = 0; i < all.n; i++)
            if (!outer_make_var(all.v[i]) &&
                strncmp(all.v[i], "MAXCODE_STATS=", 14))
                mc_strv_push(&env, all.v[i]);
    /* Asking is not a build: no hit or miss counted. */
    mc_strv_push(&env, "MAXCODE_STATS=0");
    memset(&o, 0, sizeof(o));
    o.envp = env.v;
    o.timeout_s = SHOW_MAKE_TIMEOUT_S;
    o.out_cap = MAKE_OUT_CAP;
    if (mc_strv_status(&argv) || mc_strv_status(&env) || !env.v) {
        mc_buf_adds(&l->how, "out of memory; the newest is shown");
        goto out;
    }
    if (mc_spawn(argv.v, &o, &r, &err)) {
        mc_buf_addf(&l->how, "cannot run '%s' to ask which one the "
                    "makefile hits (%s); the newest is shown", make,
                    err.msg);
        goto out;
    }
    mark_current(l, r.out.s ? r.out.s : "", r.out.len, real);
    for (i = 0; i < l->n && !l->v[i].current; i++)
        ;
    if (i < l->n) {
        l->chosen = (int)i;
        mc_buf_addf(&l->how, "the current %s computes key %s (%s -q -p "
                    "in %s)", mf, l->v[i].key, make, cwd);
    } else if (l->other[0]) {
        mc_buf_addf(&l->how, "the current %s computes key %s, which has "
                    "no entry yet (its next build searches); the newest "
                    "is shown", mf, l->other);
    } else if (r.timed_out || !r.exited || r.status == 2) {
        const char *e = r.err.s ? r.err.s : "";
        size_t n = strcspn(e, "\n");

        mc_buf_addf(&l->how, "%s -q -p in %s %s%s%.*s; the newest is "
                    "shown", make, cwd, r.timed_out ? "took too long"
                                                   : "failed",
                    n ? ": " : "", (int)n, e);
    } else {
        mc_buf_addf(&l->how, "the current %s in %s names none of them "
                    "when make reads it (no $(maxcode ...) call for this "
                    "source expanded then); the newest is shown", mf, cwd);
    }
out:
    mc_spawn_result_release(&r);
    mc_strv_release(&argv);
    mc_strv_release(&env);
    mc_strv_release(&all);
}

int
mc_show_entries_find(const char *source, struct mc_show_entries *l)
{
    struct mc_cache c = MC_CACHE_INIT;
    struct mc_err err = MC_ERR_INIT;
    struct mc_cache_items items;
    char *real = realpath(source, NULL);
    int rc = -1;
    size_t i;

    memset(&items, 0, sizeof(items));
    if (mc_open_cache(&c, NULL))
        goto out;
    if (mc_cache_scan(&c, &items, &err)) {
        mc_error("%s", err.msg);
        goto out;
    }
    for (i = 0; i < items.n; i++)
        if (consider(l, items.v[i].path, source, real, 0))
            goto oom;
    if (add_here(l, &c, real))
        goto oom;
    if (l->n > 1)
        qsort(l->v, l->n, sizeof(*l->v), newest_first);
    if (l->n > 1 && set_differs(l))
        goto oom;
    if (l->n > 1)
        choose(l, real);
    else if (l->n == 1)
        l->chosen = 0;
    if (mc_buf_status(&l->how))
        goto oom;
    rc = 0;
    goto out;
oom:
    mc_error("out of memory");
out:
    mc_cache_items_release(&items);
    mc_cache_release(&c);
    free(real); /* from realpath() */
    return rc;
}

cJSON *
mc_show_entries_json(const struct mc_show_entries *l)
{
    cJSON *a = cJSON_CreateArray(), *o, *f;
    size_t i;

    for (i = 0; a && i < l->n; i++) {
        const struct mc_show_entry *x = &l->v[i];
        const cJSON *flags = cJSON_GetObjectItemCaseSensitive(x->m, "flags");

        if (!(o = cJSON_CreateObject())) {
            cJSON_Delete(a);
            return NULL;
        }
        cJSON_AddItemToArray(a, o);
        cJSON_AddStringToObject(o, "key", x->key);
        cJSON_AddStringToObject(o, "created",
                                mc_manifest_str(x->m, "created"));
        cJSON_AddStringToObject(o, "directory", x->dir);
        cJSON_AddStringToObject(o, "compiler",
                                mc_manifest_str(x->m, "compiler"));
        f = cJSON_IsArray(flags) ? cJSON_Duplicate(flags, 1)
                                 : cJSON_CreateArray();
        cJSON_AddItemToObject(o, "flags", f);
        cJSON_AddStringToObject(o, "differs", x->differs ? x->differs
                                                         : "");
        cJSON_AddStringToObject(o, "status", mc_manifest_str(x->m,
                                                             "status"));
        cJSON_AddNumberToObject(o, "speedup",
                                mc_manifest_num(x->m, "speedup", 1));
        cJSON_AddStringToObject(o, "reason", mc_manifest_str(x->m,
                                                             "reason"));
        cJSON_AddBoolToObject(o, "current", x->current);
        cJSON_AddBoolToObject(o, "shown", (int)i == l->chosen);
    }
    return a;
}

int
mc_show_lookup_current(const char *what, struct mc_entry *e,
                       struct cJSON **m)
{
    struct mc_show_entries l;
    int found = -1;

    *m = NULL;
    mc_show_entries_init(&l);
    if (mc_is_key(what) || !mc_show_entries_find(what, &l))
        found = mc_show_lookup(l.n > 1 ? l.v[l.chosen].key : what, e, m);
    mc_show_entries_release(&l);
    return found;
}
