/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_optimize.c: `maxcode optimize`, the recipe of the rules the plugin
 * emits (and usable by hand). It takes the per-key lock, checks the cache
 * again (another make may have finished the same key), records the
 * source's include files, runs the search, stores the entry and writes
 * the variant file. Until the executor and the proposers exist, the
 * search keeps the original, with reason "no proposer".
 *
 * Usage: maxcode optimize [--key K] [--cc CC] [--flags FLAGS] [--ld LD]
 *                         [--ldflags LDFLAGS] [--ldlibs LDLIBS]
 *                         [--mode MODE] [--] SOURCE [KEY=VALUE...]
 * The compiler and flags come from --cc and --flags, else from the
 * compile DB or the environment's CC/CFLAGS (CXX/CXXFLAGS, NVCC/NVCCFLAGS)
 * and the cflags option; the link driver and flags from --ld, --ldflags
 * and --ldlibs, else from CXX (when a link file is C++), LDFLAGS and
 * LDLIBS. MODE (default MAXCODE_MODE): off prints SOURCE;
 * cache prints the variant on a hit and SOURCE on a miss, never
 * searching; verify re-checks a hit; optimize searches on a miss; refresh
 * searches again. The path to compile is printed on stdout. A failure
 * keeps the original: the exit status is 0 unless MAXCODE_STRICT=1.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "cache.h"
#include "commands.h"
#include "conf.h"
#include "eval.h"
#include "search.h"
#include "file.h"
#include "flags.h"
#include "hash.h"
#include "log.h"
#include "prompt.h"
#include "spawn.h"
#include "target.h"
#include "target_setup.h"
#include "variant.h"

#include <cjson/cJSON.h>
#include <time.h>

struct opts {
    const char *key, *mode;
    struct mc_target_setup_build build; /* --cc, --flags, ... */
    int first_arg; /* index of SOURCE in argv */
};

static int
parse_opts(int argc, char **argv, struct opts *o)
{
    int i;

    memset(o, 0, sizeof(*o));
    for (i = 1; i < argc; i++) {
        const char **dst = NULL;

        if (!strcmp(argv[i], "--")) {
            i++;
            break;
        }
        if (argv[i][0] != '-')
            break;
        if (!strcmp(argv[i], "--key"))
            dst = &o->key;
        else if (!strcmp(argv[i], "--cc"))
            dst = &o->build.cc;
        else if (!strcmp(argv[i], "--flags"))
            dst = &o->build.flags;
        else if (!strcmp(argv[i], "--ld"))
            dst = &o->build.ld;
        else if (!strcmp(argv[i], "--ldflags"))
            dst = &o->build.ldflags;
        else if (!strcmp(argv[i], "--ldlibs"))
            dst = &o->build.ldlibs;
        else if (!strcmp(argv[i], "--mode"))
            dst = &o->mode;
        else
            return mc_usage_error("optimize: unknown option '%s'", argv[i]);
        if (i + 1 >= argc)
            return mc_usage_error("optimize: %s needs a value", argv[i]);
        *dst = argv[++i];
    }
    if (i >= argc)
        return mc_usage_error("optimize: missing SOURCE");
    if (o->key && !mc_is_key(o->key))
        return mc_usage_error("optimize: --key '%s' is not a key", o->key);
    o->first_arg = i;
    return 0;
}

/*
 * The include files of T (from the compiler's -MM), each with its hash,
 * as "HASH PATH\n" lines in OUT. System headers are left out: the
 * compiler identity stands for them.
 */
static enum mc_code
record_includes(const struct mc_target *t, struct mc_buf *out,
                struct mc_err *err)
{
    struct mc_spawn_opts so = {.timeout_s = 120};
    struct mc_spawn_result r;
    struct mc_strv argv = MC_STRV_INIT, deps = MC_STRV_INIT;
    struct mc_buf word = MC_BUF_INIT;
    enum mc_code rc;
    const char *p;
    size_t i;

    mc_spawn_result_init(&r);
    rc = mc_shell_split(t->compiler, &argv, err);
    if (!rc && !argv.n)
        rc = mc_err_set(err, MC_EINVAL, "empty compiler command");
    if (!rc && (mc_flags_for_build(&t->flags, NULL, &argv) ||
                mc_strv_push(&argv, "-MM") ||
                mc_strv_push(&argv, t->source)))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    if (!rc)
        rc = mc_spawn(argv.v, &so, &r, err);
    if (rc)
        goto out;
    if (!r.exited || r.status) {
        mc_buf_rtrim(&r.err);
        rc = mc_err_set(err, MC_EINVAL, "'%s -MM %s' failed: %.160s",
                        argv.v[0], t->source, r.err.s);
        goto out;
    }
    /* "obj.o: src/a.c src/b.h \\\n src/c.h"; "\ " escapes a space. */
    p = strchr(r.out.s, ':');
    for (p = p ? p + 1 : r.out.s; *p; p++) {
        if (*p == '\\' && (p[1] == '\n' || p[1] == ' ')) {
            if (p[1] == ' ')
                mc_buf_addc(&word, ' ');
            p++;
            continue;
        }
        if (*p == ' ' || *p == '\n' || *p == '\t') {
            if (word.len && mc_strv_push(&deps, word.s))
                goto oom;
            mc_buf_reset(&word);
            continue;
        }
        mc_buf_addc(&word, *p);
    }
    if (word.len && mc_strv_push(&deps, word.s))
        goto oom;
    for (i = 0; i < deps.n; i++) {
        char hex[MC_KEY_HEX + 1];

        if (!strcmp(deps.v[i], t->source))
            continue;
        if (mc_hash_file_hex(deps.v[i], hex, NULL))
            continue; /* gone already: the next lookup misses anyway */
        mc_buf_addf(out, "%s %s\n", hex, deps.v[i]);
    }
    if (mc_buf_status(out) || mc_buf_status(&word))
        goto oom;
    goto out;
oom:
    rc = mc_err_set(err, MC_ENOMEM, "out of memory");
out:
    mc_spawn_result_release(&r);
    mc_strv_release(&argv);
    mc_strv_release(&deps);
    mc_buf_release(&word);
    return rc;
}

/* What a manifest says about the search. */
struct outcome {
    const char *status;      /* "optimized" or "original" */
    const char *reason;      /* why the original ("" when optimized) */
    double speedup;          /* confirmed; 1 for the original */
    double baseline;         /* seconds of the original, < 0: unknown */
    size_t candidates, correct;
    const struct mc_search *search; /* or NULL */
};

/* The manifest (DESIGN 1.6) of an entry; the caller frees it with
 * cJSON_free(). */
static char *
manifest(const struct mc_target *t, const char *key, const struct outcome *o,
         const struct mc_buf *includes)
{
    cJSON *m = cJSON_CreateObject(), *a, *obj;
    char created[32], *text = NULL;
    time_t now = time(NULL);
    struct tm tm;
    const char *p;
    size_t i;

    if (!m)
        return NULL;
    gmtime_r(&now, &tm);
    strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", &tm);
    cJSON_AddStringToObject(m, "key", key);
    cJSON_AddStringToObject(m, "source", t->source);
    cJSON_AddStringToObject(m, "source_path", t->source_real);
    cJSON_AddStringToObject(m, "status", o->status);
    cJSON_AddStringToObject(m, "reason", o->reason);
    cJSON_AddNumberToObject(m, "speedup", o->speedup);
    if (o->baseline >= 0) {
        cJSON_AddNumberToObject(m, "baseline_seconds", o->baseline);
        cJSON_AddNumberToObject(m, "best_seconds",
                                o->baseline / o->speedup);
    } else {
        cJSON_AddNullToObject(m, "baseline_seconds");
        cJSON_AddNullToObject(m, "best_seconds");
    }
    cJSON_AddStringToObject(m, "metric", mc_target_get(t, MC_OPT_METRIC));
    cJSON_AddNumberToObject(m, "candidates", (double)o->candidates);
    cJSON_AddNumberToObject(m, "correct_candidates", (double)o->correct);
    cJSON_AddStringToObject(m, "strategy", mc_target_get(t, MC_OPT_STRATEGY));
    cJSON_AddStringToObject(m, "proposer", mc_target_proposer(t));
    cJSON_AddStringToObject(m, "model", mc_conf_get(&t->conf, MC_SET_MODEL));
    if (o->search && o->search->use_llm) {
        const struct mc_llm *l = &o->search->llm;

        cJSON_AddNumberToObject(m, "llm_requests",
                                (double)l->total.requests);
        cJSON_AddNumberToObject(m, "tokens_in", (double)l->total.tokens_in);
        cJSON_AddNumberToObject(m, "tokens_out",
                                (double)l->total.tokens_out);
        cJSON_AddNumberToObject(m, "cost", l->total.cost);
        cJSON_AddStringToObject(m, "critic_model", o->search->critic_model);
        cJSON_AddStringToObject(m, "prompt_version", mc_prompt_version());
        obj = cJSON_AddObjectToObject(m, "usage");
        for (i = 0; obj && i < l->n_models; i++) {
            cJSON *u = cJSON_AddObjectToObject(obj, l->models[i].model);
            if (!u)
                break;
            cJSON_AddNumberToObject(u, "requests",
                                    (double)l->models[i].u.requests);
            cJSON_AddNumberToObject(u, "tokens_in",
                                    (double)l->models[i].u.tokens_in);
            cJSON_AddNumberToObject(u, "tokens_out",
                                    (double)l->models[i].u.tokens_out);
            cJSON_AddNumberToObject(u, "cost", l->models[i].u.cost);
        }
    } else {
        cJSON_AddNumberToObject(m, "llm_requests", 0);
        cJSON_AddNumberToObject(m, "tokens_in", 0);
        cJSON_AddNumberToObject(m, "tokens_out", 0);
        cJSON_AddNumberToObject(m, "cost", 0);
    }
    cJSON_AddStringToObject(m, "created", created);
    cJSON_AddStringToObject(m, "maxcode_version", PACKAGE_VERSION);
    cJSON_AddStringToObject(m, "compiler", t->compiler);
    a = cJSON_AddArrayToObject(m, "flags");
    for (i = 0; a && i < t->flags.n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateString(t->flags.v[i]));
    obj = cJSON_AddObjectToObject(m, "options");
    for (i = 0; obj && i < MC_OPT__COUNT; i++)
        cJSON_AddStringToObject(obj, mc_target_opt_name((enum mc_opt)i),
                                mc_target_get(t, (enum mc_opt)i));
    a = cJSON_AddArrayToObject(m, "includes");
    for (p = includes->s; a && *p;) {
        size_t n = strcspn(p, "\n");
        if (n > MC_KEY_HEX + 1) {
            char *path = mc_strndup(p + MC_KEY_HEX + 1, n - MC_KEY_HEX - 1);
            if (path)
                cJSON_AddItemToArray(a, cJSON_CreateString(path));
            mc_free(path);
        }
        p += n + (p[n] == '\n');
    }
    if (o->search) {
        const struct mc_search *s = o->search;

        if (s->best >= 0) {
            cJSON_AddStringToObject(m, "best", s->nodes[s->best].label);
            cJSON_AddStringToObject(m, "critique",
                                    s->nodes[s->best].critique
                                        ? s->nodes[s->best].critique
                                        : "");
        }
        a = cJSON_AddArrayToObject(m, "trajectory");
        for (i = 0; a && i < s->n; i++) {
            const struct mc_search_node *nd = &s->nodes[i];
            cJSON *e = cJSON_CreateObject();

            if (!e)
                break;
            cJSON_AddNumberToObject(e, "parent", nd->parent);
            cJSON_AddStringToObject(e, "variant", nd->label);
            cJSON_AddStringToObject(e, "verdict",
                                    mc_verdict_name(nd->verdict));
            cJSON_AddNumberToObject(e, "speedup", nd->speedup);
            cJSON_AddBoolToObject(e, "confirmed", nd->confirmed);
            cJSON_AddNumberToObject(e, "u", nd->u);
            cJSON_AddStringToObject(e, "critique",
                                    nd->critique ? nd->critique : "");
            cJSON_AddItemToArray(a, e);
        }
    }
    text = cJSON_Print(m);
    cJSON_Delete(m);
    return text;
}

/*
 * MAXCODE_MODE=verify: re-check the cached variant E with the executor
 * before it is used. A variant that is the original needs no check; one
 * that fails is replaced, in E, by the original.
 */
static void
verify_entry(struct mc_target *t, const char *cache_dir, struct mc_entry *e)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_feedback fb;
    struct mc_eval ev;
    int ok = 0;

    if (e->variant.len == t->text.len &&
        !memcmp(e->variant.s, t->text.s, t->text.len))
        return;
    mc_feedback_init(&fb);
    if (mc_eval_init(&ev, t, cache_dir, &err) == MC_OK &&
        mc_eval_candidate(&ev, e->variant.s, e->variant.len,
                          strcmp(mc_target_get(t, MC_OPT_SANITIZE), "0"), 0,
                          &fb, &err) == MC_OK)
        ok = fb.correct;
    mc_eval_release(&ev);
    if (ok) {
        mc_info("%s: cached variant %s verified", t->source, e->key);
    } else {
        mc_info("%s: cached variant %s failed verification (%s); using the "
                "original", t->source, e->key,
                err.code ? err.msg : fb.detail.s);
        mc_buf_reset(&e->variant);
        mc_buf_add(&e->variant, t->text.s, t->text.len);
    }
    mc_feedback_release(&fb);
}

/* Trim the cache when it has grown past MAXCODE_MAX_SIZE: down to 90%,
 * so that not every store trims. */
static void
auto_trim(struct mc_cache *c, const struct mc_conf *conf)
{
    struct mc_cache_items items;
    unsigned long long max = 0;

    if (mc_conf_parse_size(mc_conf_get(conf, MC_SET_MAX_SIZE), &max) ||
        mc_cache_scan(c, &items, NULL))
        return;
    if (items.total > max)
        mc_cache_trim(c, max / 10 * 9, NULL, NULL);
    mc_cache_items_release(&items);
}

int
mc_cmd_optimize(int argc, char **argv)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_target_setup ts;
    struct mc_target *t = &ts.t;
    struct mc_cache cache = {NULL};
    struct mc_entry e;
    struct mc_buf vpath = MC_BUF_INIT, src = MC_BUF_INIT;
    struct mc_stats d;
    struct opts o;
    char key[MC_KEY_HEX + 1];
    const char *mode, *reason = "no proposer";
    char *manifest_text = NULL, why[2048];
    struct mc_eval ev;
    struct mc_search search;
    struct outcome oc = {"original", "", 1, -1, 0, 0, NULL};
    const struct mc_search_node *best = NULL;
    double baseline = -1;
    int status = 1, lock = -1, strict = 0, store = 1, rc, ev_ok = 0;
    int searchable = 0, search_ok = 0;

    rc = parse_opts(argc, argv, &o);
    if (rc)
        return rc;
    memset(&d, 0, sizeof(d));
    memset(&search, 0, sizeof(search));
    mc_entry_init(&e);
    status = mc_target_setup_load(&ts, argv[o.first_arg],
                                  argv + o.first_arg + 1,
                                  (size_t)(argc - o.first_arg - 1));
    if (status)
        goto out;
    status = 1;
    /* MAXCODE_STRICT is no option: the target's settings have the same. */
    strict = !strcmp(mc_conf_get(&t->conf, MC_SET_STRICT), "1");
    if (o.mode && mc_conf_check(MC_SET_MODE, o.mode, "--mode", &err)) {
        mc_error("%s", err.msg);
        status = MC_EXIT_USAGE;
        goto out;
    }
    mode = o.mode ? o.mode : mc_conf_get(&t->conf, MC_SET_MODE);
    if (!strcmp(mode, "off")) {
        printf("%s\n", t->source);
        status = 0;
        goto out;
    }
    /* The rules pass what make resolved; by hand, each may be given. */
    status = mc_target_setup_build(&ts, &o.build);
    if (status)
        goto out;
    status = 1;
    if (mc_target_key(t, mc_log_get_level() == MC_LOG_VERBOSE, key, &err)) {
        mc_error("%s: %s", t->source, err.msg);
        goto out;
    }
    if (o.key && strcmp(o.key, key)) {
        /* The inputs changed between make's parse and this recipe. Keep
         * the original for now; the next make run keys them afresh. */
        mc_info("%s: inputs changed while make ran; using the original",
                t->source);
        memcpy(key, o.key, sizeof(key));
        store = 0;
        reason = "inputs changed during the build";
    }
    if (mc_cache_init(&cache, mc_conf_get(&t->conf, MC_SET_CACHE_DIR), &err) ||
        mc_variant_path(key, mc_target_name(t), &vpath)) {
        mc_error("out of memory");
        goto out;
    }
    if (store && mc_cache_lock(&cache, key, &lock, &err)) {
        mc_error("%s", err.msg);
        store = 0;
    }
    /* Another make may have stored this key while we waited. */
    if (store && strcmp(mode, "refresh") &&
        mc_cache_get(&cache, key, &e, NULL) == MC_OK &&
        mc_entry_includes_valid(&e)) {
        mc_verbose("%s: key %s is in the cache", t->source, key);
        if (!strcmp(mode, "verify"))
            verify_entry(t, cache.dir, &e);
        goto materialize;
    }
    mc_entry_release(&e);
    mc_entry_init(&e);
    if (!strcmp(mode, "cache")) {
        /* Never search; a miss is SOURCE itself. */
        printf("%s\n", t->source);
        status = 0;
        goto out;
    }
    if (!strcmp(mode, "verify")) {
        /* The entry went away since make looked: keep the original. */
        store = 0;
        reason = "the entry to verify is gone";
    }
    if (mc_file_read(t->source, &src, &err)) {
        mc_error("cannot read '%s'", t->source);
        goto out;
    }
    mc_err_clear(&err);
    if (store && record_includes(t, &e.includes, &err)) {
        /* The compile of the original will say what is wrong. */
        mc_info("%s: %s; keeping the original", t->source, err.msg);
        store = 0;
        reason = "the original does not preprocess";
    }
    if (store) {
        /* The baseline: the original built, checked and timed alone. */
        mc_err_clear(&err);
        if (mc_eval_init(&ev, t, cache.dir, &err) ||
            mc_eval_prepare(&ev, &err)) {
            snprintf(why, sizeof(why), "cannot measure the original: %s",
                     ev.why.len ? ev.why.s : err.msg);
            reason = why;
        } else {
            baseline = ev.baseline_s;
            searchable = 1;
        }
        ev_ok = 1;
    }
    if (searchable) {
        struct mc_buf journal = MC_BUF_INIT;

        mc_buf_addf(&journal, ".maxcode/%s/journal.jsonl", key);
        if (!strcmp(mode, "refresh"))
            unlink(journal.s);
        mc_err_clear(&err);
        if (mc_file_mkdirs_for(journal.s, &err) ||
            mc_search_init(&search, t, &ev, key, journal.s, cache.dir,
                           &err) ||
            mc_search_run(&search, &err)) {
            snprintf(why, sizeof(why), "the search failed: %s", err.msg);
            reason = why;
        } else if (search.final_speedup <= 0 && search.endpoint_failed &&
                   !search.n) {
            snprintf(why, sizeof(why), "%s", search.reason.s);
            reason = why;
        } else if (search.final_speedup > 0) {
            oc.status = "optimized";
            oc.speedup = search.final_speedup;
            reason = "";
            best = &search.nodes[search.best];
        } else {
            snprintf(why, sizeof(why), "%s", search.reason.s);
            reason = why;
        }
        search_ok = 1;
        if (search.endpoint_failed && !search.n) {
            /* Nothing was learnt: not cached, so the next build tries
             * the endpoint again. */
            mc_info("%s: not cached; the next build tries the model again",
                    t->source);
            store = 0;
        }
        oc.candidates = search.n;
        oc.correct = mc_search_correct(&search);
        oc.search = &search;
        mc_buf_release(&journal);
    }
    d.n[MC_STAT_SEARCHES] = 1;
    d.n[best ? MC_STAT_OPTIMIZED : MC_STAT_FALLBACKS] = 1;
    if (best)
        mc_info("%s: optimized: %.2fx confirmed (%s)", t->source, oc.speedup,
                best->label);
    else
        mc_info("%s: keeping the original (%s)", t->source, reason);
    memcpy(e.key, key, sizeof(key));
    e.created = (int64_t)time(NULL);
    if (best)
        mc_buf_add(&e.variant, best->code.s, best->code.len);
    else
        mc_buf_add(&e.variant, src.s, src.len);
    oc.reason = reason;
    oc.baseline = baseline;
    manifest_text = manifest(t, key, &oc, &e.includes);
    if (!manifest_text || mc_buf_adds(&e.manifest, manifest_text)) {
        mc_error("out of memory");
        goto out;
    }
    if (store) {
        mc_err_clear(&err);
        if (mc_cache_put(&cache, &e, &err))
            mc_error("cannot store %s: %s", key, err.msg);
        else
            d.n[MC_STAT_STORES] = 1;
    }
    mc_cache_stats_add(&cache, &d, NULL);
    if (d.n[MC_STAT_STORES])
        auto_trim(&cache, &t->conf);
materialize:
    mc_err_clear(&err);
    if (mc_variant_materialize(vpath.s, t->source, t->source_real, e.variant.s,
                               e.variant.len, &err)) {
        mc_error("%s", err.msg);
        goto out;
    }
    printf("%s\n", vpath.s);
    status = strict && !store ? 1 : 0;
out:
    if (search_ok)
        mc_search_release(&search);
    if (ev_ok)
        mc_eval_release(&ev);
    if (lock >= 0)
        mc_cache_unlock(lock);
    cJSON_free(manifest_text);
    mc_entry_release(&e);
    mc_cache_release(&cache);
    mc_target_setup_release(&ts);
    mc_buf_release(&vpath);
    mc_buf_release(&src);
    return status;
}
