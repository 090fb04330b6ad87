/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_optimize.c: `maxcode optimize`, the recipe of the rules the plugin
 * emits (and usable by hand). It runs in named steps: set up the target,
 * lock its key, look it up again (another make may have finished the same
 * key), measure the original (the baseline, after recording the source's
 * include files), search (search.h: the proposers, the executor and the
 * strategy), write the manifest, store the entry and write the variant
 * file. When no candidate is confirmed faster, the entry keeps the
 * original, and its manifest says why.
 *
 * Usage: maxcode optimize [--key K] [--cc CC] [--flags FLAGS] [--ld LD]
 *                         [--ldflags LDFLAGS] [--ldlibs LDLIBS]
 *                         [--recipe-flags FLAGS] [--made FILES]
 *                         [--mode MODE] [--count] [--] SOURCE
 *                         [KEY=VALUE...]
 * The compiler and flags come from --cc and --flags, else from the
 * compile DB or the environment's CC/CFLAGS (CXX/CXXFLAGS, NVCC/NVCCFLAGS)
 * and the cflags option; the link driver and flags from --ld, --ldflags
 * and --ldlibs, else from CXX (when a link file is C++), LDFLAGS and
 * LDLIBS. --recipe-flags are the flags as make expanded them when it
 * ran the rule's recipe, with the target-specific variables of the
 * user's target that needs the variant: when they are not --flags, a
 * warning says both, the manifest records them and the entry's note
 * repeats the warning at each hit. --made names the files of the
 * target that make had not made yet when it keyed it (--key hashes
 * them by name): the key is completed here, looked up (here, then in
 * the remote cache), searched under on a miss, and the variant written
 * at --key's path, where make's expansion points. MODE (default
 * MAXCODE_MODE): off
 * prints SOURCE;
 * cache prints the variant on a hit and SOURCE on a miss, never
 * searching; verify re-checks a hit; optimize searches on a miss; refresh
 * searches again. The path to compile is printed on stdout. A failure
 * keeps the original: the exit status is 0 unless MAXCODE_STRICT=1,
 * under which a search that failed (failed() below) stores nothing,
 * prints no path and exits 1 with the reason.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "cache.h"
#include "commands.h"
#include "conf.h"
#include "cuda.h"
#include "eval.h"
#include "search.h"
#include "share.h"
#include "file.h"
#include "flags.h"
#include "hash.h"
#include "hit.h"
#include "lang.h"
#include "log.h"
#include "manifest.h"
#include "native.h"
#include "paths.h"
#include "prompt.h"
#include "reads.h"
#include "record_includes.h"
#include "launch.h"
#include "optimize_store.h"
#include "remote.h"
#include "sign.h"
#include "spawn.h"
#include "target.h"
#include "target_setup.h"
#include "variant.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <time.h>

struct opts {
    const char *key, *mode;
    const char *recipe_flags; /* --recipe-flags: the flags as make
                               * expanded them in the recipe */
    const char *made; /* --made: the files make had not made yet when
                       * it computed --key */
    struct mc_target_setup_build build; /* --cc, --flags, ... */
    int launch; /* --launch: search through MAXCODE_LAUNCHER */
    int count; /* --count: count this lookup, as make counts its own */
    int print_native; /* --print-native: the native architecture that
                       * isa=native resolves to here, on stdout (what
                       * --launch asks a node) */
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
        if (!strcmp(argv[i], "--launch")) {
            o->launch = 1;
            continue;
        }
        if (!strcmp(argv[i], "--print-native") ||
            !strcmp(argv[i], "--count")) {
            o->print_native |= !strcmp(argv[i], "--print-native");
            o->count |= !strcmp(argv[i], "--count");
            continue;
        }
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
        else if (!strcmp(argv[i], "--recipe-flags"))
            dst = &o->recipe_flags;
        else if (!strcmp(argv[i], "--made"))
            dst = &o->made;
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
 * One run of the command, passed from step to step. A step returns
 * STEP_NEXT to go on, STEP_HIT when the cache has the entry (on to the
 * variant file), or the exit status when the command ends there.
 */
enum { STEP_NEXT = -1, STEP_HIT = -2 };

struct run {
    struct opts o;
    struct mc_target_setup ts;  /* the target and its settings */
    struct mc_target *t;        /* &ts.t */
    const char *mode;           /* off, cache, verify, optimize, refresh */
    int strict;                 /* MAXCODE_STRICT=1 */
    char key[MC_KEY_HEX + 1];
    struct mc_cache cache;
    struct mc_sign_keys keys;   /* MAXCODE_SIGNING_KEY and
                                 * MAXCODE_TRUSTED_KEYS (cache.keys) */
    struct mc_buf vpath;        /* the variant file */
    int lock;                   /* the key's lock, or -1 */
    int store;                  /* the entry goes into the cache */
    int stored;                 /* -1: storing it failed */
    int benign;                 /* kept uncached, yet no failure (no
                                 * CUDA device): not one under
                                 * MAXCODE_STRICT=1 either */
    int hit;                    /* the cache had the entry */
    struct mc_remote remote;    /* MAXCODE_REMOTE (remote.h) */
    struct mc_cuda_probe gpu;   /* a CUDA target's device probe */
    int probed_now;             /* this run probed (none remembered) */
    int native_now;             /* this run resolved isa=native (none
                                 * remembered) */
    struct mc_buf flags_warning; /* the flags of the recipe are not the
                                  * key's: what was said (no source) */
    const char *vkey;           /* the key of the variant's path, when
                                 * not KEY: make's, keyed before
                                 * isa=native was resolved or before
                                 * the files of --made were made */
    struct mc_entry e;          /* the entry, found or made */
    struct mc_buf src;          /* the original's text */
    const char *reason;         /* why the original is kept */
    char why[2048];             /* the text of REASON, when made here */
    int no_build;               /* the original does not build */
    struct mc_eval ev;          /* the executor, with the baseline */
    int ev_ok, searchable;
    struct mc_search search;
    int search_ok;              /* SEARCH is set up (and to release) */
    int search_failed;          /* it stopped on an error */
    const struct mc_search_node *best; /* the confirmed winner, or NULL */
    struct mc_manifest_outcome oc;
    struct mc_stats d;          /* the counters this run adds */
    int launched;               /* --launch: a search was launched */
    struct mc_launch launch;    /* how it ended */
};

static void
run_init(struct run *r)
{
    struct mc_manifest_outcome oc = {"original", "", 1, -1, 0, 0, NULL,
                                     NULL, NULL};

    memset(r, 0, sizeof(*r));
    r->t = &r->ts.t;
    r->lock = -1;
    r->store = 1;
    r->reason = "no proposer";
    r->oc = oc;
    mc_entry_init(&r->e);
    mc_sign_keys_init(&r->keys);
    mc_buf_init(&r->vpath);
    mc_buf_init(&r->src);
    mc_buf_init(&r->flags_warning);
    mc_buf_init(&r->launch.why);
}

static void
run_release(struct run *r)
{
    if (r->search_ok)
        mc_search_release(&r->search);
    if (r->ev_ok)
        mc_eval_release(&r->ev);
    if (r->lock >= 0)
        mc_cache_unlock(r->lock);
    mc_entry_release(&r->e);
    mc_remote_release(&r->remote);
    mc_cache_release(&r->cache);
    mc_sign_keys_release(&r->keys);
    mc_target_setup_release(&r->ts);
    mc_buf_release(&r->vpath);
    mc_buf_release(&r->src);
    mc_buf_release(&r->flags_warning);
    mc_buf_release(&r->launch.why);
}

/* A CUDA target: the device probe this machine remembers for its boot,
 * probed now when there is none (the plugin only reads it), and the GPU
 * identity that keys the target. */
static int
set_up_gpu(struct run *r)
{
    struct mc_err err = MC_ERR_INIT;
    const char *dir = mc_conf_get(&r->t->conf, MC_SET_CACHE_DIR);

    if (mc_cuda_probe_read(dir, &r->gpu, &err) == MC_OK && !r->gpu.known) {
        r->probed_now = 1;
        if (mc_cuda_probe_run(dir, r->t->compiler, &r->gpu, &err))
            mc_info("%s: the device probe is not remembered: %s",
                    r->t->source, err.msg);
    }
    if (mc_cuda_set_identity(r->t, &r->gpu)) {
        mc_error("out of memory");
        return 1;
    }
    return 0;
}

/* isa=native: the architecture -march=native is on this machine,
 * resolved now when none is remembered (the plugin only reads it). */
static int
set_up_native(struct run *r)
{
    struct mc_err err = MC_ERR_INIT;

    if (mc_native_set_target(r->t, 1, &r->native_now, &err)) {
        mc_error("%s: %s", r->t->source, err.msg);
        return 1;
    }
    return 0;
}

/* The words of A that B lacks into OUT, separated by spaces. */
static void
words_missing(const struct mc_strv *a, const struct mc_strv *b,
              struct mc_buf *out)
{
    size_t i;

    for (i = 0; i < a->n; i++)
        if (!mc_strv_contains(b, a->v[i]))
            mc_buf_addf(out, "%s%s", out->len ? " " : "", a->v[i]);
}

/*
 * The flags make gave the recipe (--recipe-flags: the user's target's,
 * target-specific variables included) against those the key and the
 * search use (--flags): when they differ, say so in one line that
 * names both, and keep the line for the manifest and the entry's note.
 */
static void
check_recipe_flags(struct run *r)
{
    struct mc_strv recipe = MC_STRV_INIT;
    struct mc_buf added = MC_BUF_INIT, dropped = MC_BUF_INIT;
    struct mc_buf rs = MC_BUF_INIT, ts = MC_BUF_INIT;
    struct mc_buf *w = &r->flags_warning;
    const struct mc_strv *tf = &r->t->flags;
    size_t i;
    int same;

    if (!r->o.recipe_flags || !r->t->flags_from_make ||
        !strcmp(r->mode, "cache"))
        return;
    if (mc_shell_split(r->o.recipe_flags, &recipe, NULL))
        goto out; /* unbalanced: no flags make could have given */
    same = recipe.n == tf->n;
    for (i = 0; same && i < tf->n; i++)
        same = !strcmp(recipe.v[i], tf->v[i]);
    if (same)
        goto out;
    words_missing(&recipe, tf, &added);
    words_missing(tf, &recipe, &dropped);
    mc_strv_join_shell(&recipe, &rs);
    mc_strv_join_shell(tf, &ts);
    mc_buf_adds(w, "the target that uses this variant has other flags "
                "than the search tested (");
    if (added.len)
        mc_buf_addf(w, "it adds %.160s%s", added.s,
                    dropped.len ? ", " : "");
    if (dropped.len)
        mc_buf_addf(w, "it drops %.160s", dropped.s);
    if (!added.len && !dropped.len)
        mc_buf_adds(w, "in another order");
    mc_buf_addf(w, "): its recipe has '%.200s', the search '%.200s'; set "
                "the flags for the whole Makefile, not for one target, or "
                "give cflags= in the $(maxcode ...) call, so that what is "
                "tested is what ships", rs.s ? rs.s : "",
                ts.s ? ts.s : "");
    for (i = 0; i < w->len; i++)
        if (w->s[i] == '\n' || w->s[i] == '\t')
            w->s[i] = ' ';
    if (!mc_buf_status(w))
        mc_info("%s: %s", r->t->source, w->s);
    r->oc.recipe_flags = r->o.recipe_flags;
    r->oc.flags_warning = w->s;
out:
    mc_strv_release(&recipe);
    mc_buf_release(&added);
    mc_buf_release(&dropped);
    mc_buf_release(&rs);
    mc_buf_release(&ts);
}

/* The target, the mode (off prints SOURCE) and the build. */
static int
step_set_up(struct run *r, int argc, char **argv)
{
    struct mc_err err = MC_ERR_INIT;
    int status;

    status = mc_target_setup_load(&r->ts, argv[r->o.first_arg],
                                  argv + r->o.first_arg + 1,
                                  (size_t)(argc - r->o.first_arg - 1));
    if (status)
        return status;
    /* MAXCODE_STRICT is no option: the target's settings have the same. */
    r->strict = !strcmp(mc_conf_get(&r->t->conf, MC_SET_STRICT), "1");
    if (r->o.mode &&
        mc_conf_check(MC_SET_MODE, r->o.mode, "--mode", &err)) {
        mc_error("%s", err.msg);
        return MC_EXIT_USAGE;
    }
    r->mode = r->o.mode ? r->o.mode : mc_conf_get(&r->t->conf, MC_SET_MODE);
    if (!strcmp(r->mode, "off")) {
        printf("%s\n", r->t->source);
        return 0;
    }
    /* The rules pass what make resolved; by hand, each may be given. */
    status = mc_target_setup_build(&r->ts, &r->o.build);
    if (!status)
        check_recipe_flags(r);
    if (!status && mc_lang_get(r->t->lang)->kernels)
        status = set_up_gpu(r);
    if (!status)
        status = set_up_native(r);
    return status ? status : STEP_NEXT;
}

/*
 * --launch, in a mode that searches: the search runs through
 * MAXCODE_LAUNCHER (launch.h), under the key computed here (with the
 * nodes' architecture for isa=native), before any lock is taken here
 * (the node takes the key's lock where it searches, which may be this
 * cache); then this run is mode cache's lookup of what it stored. A
 * launcher that failed is said in the outcome line and counted; the
 * build goes on with the original, or with the entry if the remote
 * cache has it.
 */
static int
step_launch(struct run *r, int argc, char **argv)
{
    const char *launcher = mc_conf_get(&r->t->conf, MC_SET_LAUNCHER);
    int native = !strcmp(mc_target_get(r->t, MC_OPT_ISA), "native");
    struct mc_err err = MC_ERR_INIT;
    char key[MC_KEY_HEX + 1];

    if (r->o.print_native) {
        printf("%s\n", r->t->native_arch ? r->t->native_arch : "");
        return 0;
    }
    if (!r->o.launch || !*launcher || !strcmp(r->mode, "cache") ||
        !strcmp(r->mode, "verify"))
        return STEP_NEXT;
    if (native && !r->t->native_arch)
        r->native_now = mc_launch_native(r->t, launcher, argc, argv,
                                         r->o.first_arg);
    if (mc_target_key(r->t, 0, key, &err)) {
        mc_error("%s: %s", r->t->source, err.msg);
        return 1;
    }
    /* make keyed it before the nodes' architecture was known (this run
     * or another asked a node since): the search is under the resolved
     * key, this build's variant at make's. */
    if (native && r->o.key && strcmp(r->o.key, key))
        r->native_now = 1;
    mc_launch_search(launcher, argc, argv, r->o.first_arg, key,
                     &r->launch);
    r->launched = 1;
    r->d.n[MC_STAT_LAUNCHED] = 1;
    r->d.n[MC_STAT_LAUNCH_FAILURES] = r->launch.failed;
    r->mode = "cache";
    return STEP_NEXT;
}

/* make's --key differs from the key computed here: keep make's, and
 * say why (the next make run keys the target afresh). */
static void
key_differs(struct run *r)
{
    const char *src = r->t->source;

    if (r->o.made && !r->probed_now) {
        /* make keyed it before the build made these files, by their
         * names: the complete key is this one, which the next parse
         * computes and finds; this build's variant is at make's. */
        mc_verbose("%s: %s made by the build; its complete key is %s", src,
                   r->o.made, r->key);
        r->vkey = r->o.key;
        return;
    }
    if (r->native_now && !r->probed_now) {
        /* make keyed it before -march=native was resolved here: search
         * and store under the resolved key, which the next parse
         * computes and finds; this build's variant is at make's. */
        mc_verbose("%s: the native architecture (%s) was resolved only "
                   "now; searching under its key %s", src,
                   r->t->native_arch ? r->t->native_arch : "unknown",
                   r->key);
        r->vkey = r->o.key;
        return;
    }
    memcpy(r->key, r->o.key, sizeof(r->key));
    if (r->probed_now && !r->gpu.n)
        return; /* No device: step_device() says so. */
    r->store = 0;
    if (r->probed_now) {
        /* make keyed the target before its GPU was known. */
        mc_info("%s: the CUDA devices were probed only now; the next "
                "build keys the target for them", src);
        r->benign = 1;
        r->reason = "the CUDA devices were probed during this build; the "
                    "next build searches";
    } else {
        /* The inputs changed between make's parse and this recipe. Keep
         * the original for now; the next make run keys them afresh. */
        mc_info("%s: inputs changed while make ran; using the original",
                src);
        r->reason = "inputs changed during the build";
    }
}

/* MAXCODE_SIGNING_KEY, when set, for every entry this run stores (and
 * so pushes): one that cannot be used stores nothing, and so searches
 * nothing, rather than publish unsigned entries; said once per make
 * run, and in the outcome line. */
static void
load_signing_key(struct run *r)
{
    const char *path = mc_conf_get(&r->t->conf, MC_SET_SIGNING_KEY);
    struct mc_err err = MC_ERR_INIT;

    if (!*path || !mc_sign_load_secret(&r->keys, path, &err))
        return;
    snprintf(r->why, sizeof(r->why), "not searched, as its result could "
             "not be signed: MAXCODE_SIGNING_KEY: %s", err.msg);
    r->reason = r->why;
    r->store = 0;
    if (mc_cache_first_in_build(&r->cache, "no-signing-key"))
        mc_error("warning: MAXCODE_SIGNING_KEY: %s; nothing is searched "
                 "or stored in this build", err.msg);
}

/* The key (--key when the inputs changed since make's parse), the
 * variant file's path and the key's lock, held to the end. */
static int
step_lock(struct run *r)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_target *t = r->t;

    if (mc_target_key(t, mc_log_get_level() == MC_LOG_VERBOSE, r->key,
                      &err)) {
        mc_error("%s: %s", t->source, err.msg);
        return 1;
    }
    if (r->o.key && strcmp(r->o.key, r->key))
        key_differs(r);
    if (mc_cache_init(&r->cache, mc_conf_get(&t->conf, MC_SET_CACHE_DIR),
                      &err) ||
        mc_variant_path(r->vkey ? r->vkey : r->key, mc_target_name(t),
                        &r->vpath)) {
        mc_error("out of memory");
        return 1;
    }
    r->cache.keys = &r->keys;
    mc_remote_init(&r->remote, &r->cache, &r->keys, &t->conf, &r->d);
    if (r->store)
        load_signing_key(r);
    if (r->store && mc_cache_lock(&r->cache, r->key, &r->lock, &err)) {
        /* A cache that cannot be written (read-only, gone, no room for
         * the lock): nothing found could be kept, so nothing is
         * searched. The outcome line says why, once. */
        snprintf(r->why, sizeof(r->why), "not searched, as the cache "
                 "cannot keep the result: %s", err.msg);
        r->reason = r->why;
        r->store = 0;
    }
    return STEP_NEXT;
}

/* Another make may have stored this key while we waited, or the remote
 * cache has it: a hit, if its variant may run here (checked again under
 * MAXCODE_MODE=verify). A miss in mode cache is SOURCE (by hand) or the
 * original written as the variant (for a rule). */
static int
step_look_up(struct run *r)
{
    int hit = 0, other_arch = 0;

    if (r->store && strcmp(r->mode, "refresh")) {
        hit = mc_cache_get(&r->cache, r->key, &r->e, NULL) == MC_OK &&
              mc_entry_includes_valid(&r->e);
        if ((r->o.made && r->vkey) || r->o.count)
            /* make looked nothing up (its key was not complete), or the
             * launcher asks: this is the target's lookup, counted as
             * make counts one. */
            r->d.n[hit ? MC_STAT_HITS : MC_STAT_MISSES] = 1;
        if (hit)
            mc_verbose("%s: key %s is in the cache", r->t->source, r->key);
        else
            hit = mc_remote_fetch(&r->remote, r->t->source, r->key,
                                  r->mode, &r->e);
        if (hit && !mc_hit_fits(r->t, r->t->source, &r->e, r->mode, 1)) {
            hit = 0;
            other_arch = 1;
        }
    }
    if (hit) {
        if (!strcmp(r->mode, "verify"))
            mc_optimize_verify_entry(r->t, r->cache.dir, &r->e);
        /* Its note may say what check_recipe_flags() said already. */
        if (!r->flags_warning.len ||
            !memmem(r->e.note.s ? r->e.note.s : "", r->e.note.len,
                    r->flags_warning.s, r->flags_warning.len))
            mc_hit_say_note(r->t->source, &r->e);
        r->hit = 1;
        return STEP_HIT;
    }
    mc_entry_release(&r->e);
    mc_entry_init(&r->e);
    if (r->launched && (r->launch.failed || r->launch.why.len)) {
        /* What the scheduler said, in the outcome line: it failed, or
         * it ended well but said an error and nothing came back. */
        r->d.n[MC_STAT_LAUNCH_FAILURES] = 1;
        snprintf(r->why, sizeof(r->why), "the search launcher failed: %s",
                 r->launch.why.s ? r->launch.why.s : "");
        r->reason = r->why;
        r->store = 0;
        r->benign = 1;
        return STEP_NEXT;
    }
    if (r->launched) {
        /* The nodes' architecture may have changed since it was
         * remembered: the next build asks a node again. */
        if (!strcmp(mc_target_get(r->t, MC_OPT_ISA), "native") &&
            !r->native_now)
            mc_native_forget(r->t);
        r->store = 0;
        r->benign = 1;
        r->reason = "the launched search stored nothing that this "
                    "machine can fetch (is MAXCODE_REMOTE shared with "
                    "the nodes?)";
        return STEP_NEXT;
    }
    if (!strcmp(r->mode, "cache") && r->o.key) {
        /* Never search; the rule's target is the original. */
        r->store = 0;
        r->benign = 1;
        r->reason = r->remote.untrusted
                        ? "mode cache: the remote entry is not signed by a "
                          "trusted key"
                        : "mode cache: no entry, here or in the remote "
                          "cache";
        return STEP_NEXT;
    }
    if (!strcmp(r->mode, "cache")) {
        /* Never search; a miss is SOURCE itself. */
        printf("%s\n", r->t->source);
        return 0;
    }
    if (!strcmp(r->mode, "verify")) {
        /* The entry went away since make looked, or it is for another
         * machine: keep the original. */
        r->store = 0;
        r->reason = other_arch ? "the cached variant is for another "
                                 "architecture"
                               : "the entry to verify is gone";
    }
    return STEP_NEXT;
}

/* A CUDA target on a machine without a usable device keeps the original,
 * uncached (a later build on a GPU machine searches), and that is no
 * failure. */
static int
step_device(struct run *r)
{
    if (!mc_lang_get(r->t->lang)->kernels || r->gpu.n)
        return STEP_NEXT;
    snprintf(r->why, sizeof(r->why), "no CUDA device (%s)",
             r->gpu.error[0] ? r->gpu.error : "none found");
    r->reason = r->why;
    r->store = 0;
    r->benign = 1;
    return STEP_NEXT;
}

/*
 * The original cannot be measured for a cause in the Makefile (WHY, the
 * executor's short form, with the fix where it knows one: link= when
 * no file defines main): it does not build, crashes, fails its check,
 * ... WHY goes into the entry's NOTE, which every later build that uses
 * the entry says (mc_hit_say_note()): a cached fallback of this kind is
 * never silent.
 */
static void
note_makefile_cause(struct run *r, const char *why)
{
    static const char no_build[] = "the original does not build";
    size_t i;

    r->no_build = !strncmp(why, no_build, sizeof(no_build) - 1);
    mc_buf_addf(&r->e.note, "the cached entry keeps the original: %.600s",
                why);
    for (i = 0; i < r->e.note.len; i++)
        if (r->e.note.s[i] == '\n' || r->e.note.s[i] == '\t')
            r->e.note.s[i] = ' ';
}

/* The original's text and include files, then the baseline: the
 * original built, checked and timed alone. Only what can be stored is
 * searched. */
static int
step_baseline(struct run *r)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_target *t = r->t;

    if (mc_file_read(t->source, &r->src, &err)) {
        mc_error("cannot read '%s'", t->source);
        return 1;
    }
    mc_err_clear(&err);
    if (r->store && mc_record_includes(t, &r->e.includes, &err)) {
        /* The compile of the original will say what is wrong. */
        mc_info("%s: %s; keeping the original", t->source, err.msg);
        r->store = 0;
        r->reason = "the original does not preprocess";
    }
    if (!r->store)
        return STEP_NEXT;
    mc_err_clear(&err);
    if (mc_eval_init(&r->ev, t, r->cache.dir, &err) ||
        mc_eval_prepare(&r->ev, &err)) {
        snprintf(r->why, sizeof(r->why), "cannot measure the original: %s",
                 r->ev.why.len ? r->ev.why.s : err.msg);
        r->reason = r->why;
        if (r->ev.why.len)
            note_makefile_cause(r, err.msg);
    } else {
        r->oc.baseline = r->ev.baseline_s;
        r->searchable = 1;
    }
    r->ev_ok = 1;
    return STEP_NEXT;
}

/* The search, journaled in .maxcode/KEY/journal.jsonl (started afresh
 * by mode refresh), and what it found. */
static void
run_search(struct run *r)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_search *s = &r->search;
    struct mc_buf journal = MC_BUF_INIT;

    mc_buf_addf(&journal, ".maxcode/%s/journal.jsonl", r->key);
    if (!strcmp(r->mode, "refresh"))
        unlink(journal.s);
    if (!mc_file_mkdirs_for(journal.s, &err) &&
        !mc_search_init(s, r->t, &r->ev, r->key, journal.s, r->cache.dir,
                        &err)) {
        s->count = mc_cache_count; /* over the cache this run holds open */
        s->count_arg = &r->cache;
    }
    if (err.code || mc_search_run(s, &err)) {
        snprintf(r->why, sizeof(r->why), "the search failed: %s", err.msg);
        r->reason = r->why;
        r->search_failed = 1;
    } else if (s->final_speedup <= 0 && s->endpoint_failed && !s->n) {
        snprintf(r->why, sizeof(r->why), "%s", s->reason.s);
        r->reason = r->why;
    } else if (s->final_speedup > 0) {
        r->oc.status = "optimized";
        r->oc.speedup = s->final_speedup;
        r->reason = "";
        r->best = &s->nodes[s->best];
    } else {
        snprintf(r->why, sizeof(r->why), "%s", s->reason.s);
        r->reason = r->why;
    }
    r->search_ok = 1;
    if (s->endpoint_failed && !s->n) {
        /* Nothing was learnt: not cached, so the next build tries
         * the endpoint again. */
        mc_info("%s: not cached; the next build tries the model again",
                r->t->source);
        r->store = 0;
    }
    r->oc.candidates = s->n;
    r->oc.correct = mc_search_correct(s);
    r->oc.search = s;
    mc_buf_release(&journal);
}

/*
 * Whether the search failed, rather than found no faster variant: the
 * original is kept, not for a benign reason (no CUDA device here, mode
 * cache), and either nothing could be stored (the key's lock, inputs
 * changed during the build, SOURCE does not preprocess, the model
 * endpoint failed before any candidate), or the original could not be
 * measured, or the search stopped on an error or on the model endpoint.
 * A search whose candidates were all wrong, slower, or cut short by a
 * budget found no faster variant: no failure. MAXCODE_STRICT=1 fails
 * the build on a failure.
 */
static int
failed(const struct run *r)
{
    if (r->hit || r->best || r->benign)
        return 0;
    return !r->store || !r->searchable || r->search_failed ||
           (r->search_ok && r->search.endpoint_failed);
}

/*
 * The target's last line: the variant kept, with its confirmed speedup
 * (as stated: its interval's lower bound and why, when the interval is
 * too wide to state the median) and that round's interval, or the
 * original and why; then, when a search ran, its time, candidates and
 * what the models cost.
 */
static void
say_outcome(const struct run *r)
{
    const struct mc_search *s = &r->search;
    char cost[160] = "", took[32];

    if (r->search_ok) {
        struct mc_llm_usage u = mc_search_cost(s);

        mc_search_duration(s->seconds, took, sizeof(took));
        snprintf(cost, sizeof(cost), "; %s, %zu candidates, %llu model "
                 "requests, %llu tokens, cost %.4f", took, s->n,
                 u.requests, u.tokens_in + u.tokens_out, u.cost);
    }
    if (r->best)
        mc_info("%s: optimized: kept %s, %.2fx confirmed (%s%s%sinterval "
                "%.2fx-%.2fx)%s", r->t->source, r->best->label,
                r->oc.speedup, s->final_bound ? "lower bound; " : "",
                s->final_bound && s->final_why.s ? s->final_why.s : "",
                s->final_bound ? "; " : "", s->final_low, s->final_high,
                cost);
    else if (r->strict && failed(r))
        mc_error("%s: the search failed (MAXCODE_STRICT=1): %s%s",
                 r->t->source, r->reason, cost);
    else
        mc_info("%s: keeping the original (%s)%s", r->t->source, r->reason,
                cost);
}

/* The outcome's counters: a search (none when nothing could be learnt),
 * optimized or a fallback with its reason (also for a CUDA target with
 * no device here, which keeps the original without searching), and the
 * SECONDS the search took. */
static void
count_outcome(struct run *r, double seconds)
{
    int no_device = mc_lang_get(r->t->lang)->kernels && !r->gpu.n;

    if (!r->benign) {
        r->d.n[MC_STAT_SEARCHES] = 1;
        r->d.n[MC_STAT_OPTIMIZED] = r->best != NULL;
    }
    if (!r->best && (!r->benign || no_device)) {
        enum mc_stat why = mc_fallback_reason_of(
            r->search_ok ? &r->search : NULL, no_device);

        /* A search that stopped on an error found no answer, rather
         * than no speedup. */
        if (r->search_failed && why == MC_STAT_FALLBACK_NO_SPEEDUP)
            why = MC_STAT_FALLBACK_OTHER;
        if (r->no_build)
            why = MC_STAT_FALLBACK_NO_BUILD;
        r->d.n[MC_STAT_FALLBACKS] = 1;
        r->d.n[why] = 1;
    }
    r->d.n[MC_STAT_SEARCH_MS] = (unsigned long long)(seconds * 1000 + 0.5);
}

/* Search when the baseline allows, and say what was decided. */
static int
step_search(struct run *r)
{
    double start = mc_spawn_clock();

    if (r->searchable)
        run_search(r);
    count_outcome(r, r->searchable ? mc_spawn_clock() - start : 0);
    say_outcome(r);
    return STEP_NEXT;
}

/* The entry: the winner's code or the original's, and its manifest. */
static int
step_manifest(struct run *r)
{
    char *text;
    int status = STEP_NEXT;

    memcpy(r->e.key, r->key, sizeof(r->key));
    r->e.created = (int64_t)time(NULL);
    if (r->best)
        mc_buf_add(&r->e.variant, r->best->code.s, r->best->code.len);
    else
        mc_buf_add(&r->e.variant, r->src.s, r->src.len);
    r->oc.reason = r->reason;
    if (r->flags_warning.len) {
        /* Said again at each hit (mc_hit_say_note()), first. */
        struct mc_buf note = MC_BUF_INIT;

        mc_buf_add(&note, r->flags_warning.s, r->flags_warning.len);
        if (r->e.note.len)
            mc_buf_addf(&note, "; %.*s", (int)r->e.note.len, r->e.note.s);
        mc_buf_release(&r->e.note);
        r->e.note = note;
    }
    text = mc_manifest_write(r->t, r->key, &r->oc, &r->e.includes);
    if (!text || mc_buf_adds(&r->e.manifest, text) ||
        (r->oc.search && r->oc.search->n &&
         mc_manifest_traj(r->oc.search, &r->e.trajectory))) {
        mc_error("out of memory");
        status = 1;
    }
    cJSON_free(text);
    return status;
}

/* This run's counters into the cache's, once. */
static void
count(struct run *r)
{
    size_t i;
    int any = r->d.cost != 0;

    for (i = 0; i < MC_STAT__COUNT; i++)
        any |= r->d.n[i] != 0;
    if (any && r->cache.dir)
        mc_cache_stats_add(&r->cache, &r->d, NULL);
    memset(&r->d, 0, sizeof(r->d));
}

/* Into the cache, unless the original is kept uncached; the counters;
 * a trim when the cache has grown past MAXCODE_MAX_SIZE. */
static int
step_store(struct run *r)
{
    struct mc_err err = MC_ERR_INIT;

    if (r->strict && failed(r))
        r->store = 0; /* the next build fails the same way */
    if (r->store) {
        if (mc_cache_put(&r->cache, &r->e, &err)) {
            /* A full disk, say: the build goes on with the outcome,
             * uncached, and the next build searches again. */
            mc_info("%s: not cached (the next build searches again): %s",
                    r->t->source, err.msg);
            r->stored = -1;
        } else {
            r->d.n[MC_STAT_STORES] = 1;
        }
        mc_remote_push(&r->remote, r->t->source, &r->e);
    }
    count(r);
    if (r->d.n[MC_STAT_STORES])
        mc_optimize_auto_trim(&r->cache, &r->t->conf);
    return STEP_NEXT;
}

/* An outcome that is not cached keeps its manifest next to the variant
 * file, .maxcode/KEY/manifest.json, where `maxcode show SOURCE` finds
 * it when the cache has nothing for SOURCE. */
static void
keep_manifest(struct run *r)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf path = MC_BUF_INIT;

    mc_buf_addf(&path, ".maxcode/%s/manifest.json", r->key);
    if (r->e.manifest.len && !mc_buf_status(&path) &&
        (mc_file_mkdirs_for(path.s, &err) ||
         mc_file_write_atomic(path.s, r->e.manifest.s, r->e.manifest.len,
                              &err)))
        mc_info("%s: %s", r->t->source, err.msg);
    mc_buf_release(&path);
}

/* The variant file, whose path is the command's output; none when
 * MAXCODE_STRICT=1 fails the search (say_outcome() said why). */
static int
step_materialize(struct run *r)
{
    struct mc_err err = MC_ERR_INIT;
    int edited;

    if (r->strict && failed(r)) {
        keep_manifest(r);
        return 1;
    }
    if (mc_variant_materialize(r->vpath.s, r->t->source, r->t->source_real,
                               r->e.variant.s, r->e.variant.len, &edited,
                               &err)) {
        mc_error("%s", err.msg);
        return 1;
    }
    if (edited)
        mc_variant_say_edited(r->t->source, r->vpath.s);
    if (!r->store || r->stored < 0)
        keep_manifest(r);
    printf("%s\n", r->vpath.s);
    return 0;
}

int
mc_cmd_optimize(int argc, char **argv)
{
    struct run r;
    int status;

    run_init(&r);
    status = parse_opts(argc, argv, &r.o);
    if (status)
        goto out;
    status = step_set_up(&r, argc, argv);
    if (status == STEP_NEXT)
        status = step_launch(&r, argc, argv);
    if (status == STEP_NEXT)
        status = step_lock(&r);
    if (status == STEP_NEXT)
        status = step_look_up(&r);
    if (status == STEP_NEXT)
        status = step_device(&r);
    if (status == STEP_NEXT)
        status = step_baseline(&r);
    if (status == STEP_NEXT)
        status = step_search(&r);
    if (status == STEP_NEXT)
        status = step_manifest(&r);
    if (status == STEP_NEXT)
        status = step_store(&r);
    if (status == STEP_NEXT || status == STEP_HIT)
        status = step_materialize(&r);
    count(&r); /* a hit's remote counters */
out:
    run_release(&r);
    return status;
}
