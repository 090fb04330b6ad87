/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * unit.c: $(maxcode SOURCE[, KEY=VALUE]...) and $(maxcode-marked FILES).
 *
 * A call checks its arguments, computes the content key, looks it up in
 * the local cache and, per MAXCODE_MODE, expands to
 *   - the variant .maxcode/<key>/<name>, written from the entry (a hit);
 *   - the same path, plus a rule whose recipe runs the search (a miss,
 *     or a link, input or files= entry the build makes: not there yet,
 *     so the recipe completes the key and looks it up; plan_made());
 *   - SOURCE (mode off, or cache/verify on a miss).
 * It runs in make's only thread, so it does nothing slow: no compiler,
 * no preprocessor, no search (a MAXCODE_COMPILER_CHECK command is the
 * exception: it runs once per compiler binary and machine, then its
 * result is remembered; compiler.h). The rule it emits:
 *
 *   .maxcode/<key>/<name>: SOURCE LINK... INPUTS... [.maxcode-force]
 *   <TAB>+@MAXCODE_X=... /path/to/maxcode optimize --key <key> \
 *           --cc CC --flags FLAGS [--mode M] -- SOURCE KEY=VALUE...
 *
 * A secret setting (the API key) that comes from a make variable is
 * exported to that recipe alone (".maxcode/<key>/<name>: export
 * MAXCODE_API_KEY := $(MAXCODE_API_KEY)"), never put on its command line.
 * The '+' lets the search use make's jobserver; under -n, -q and -t it is
 * left out, so no search starts. .DEFAULT_GOAL is saved and restored
 * around the rule. Refresh and verify runs depend on the phony
 * .maxcode-force so that the recipe runs even when the file is there.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "cache.h"
#include "cuda.h"
#include "hit.h"
#include "internal.h"
#include "key.h"
#include "lang.h"
#include "log.h"
#include "mark.h"
#include "native.h"
#include "paths.h"
#include "strv.h"
#include "target.h"
#include "variant.h"

#include <dlfcn.h>

/* Keys whose rule this make run already has. */
static struct mc_strv emitted;
static int force_emitted;
static char *maxcode_bin;

/* The maxcode command that belongs to this plugin: the build tree's
 * (plugin/.libs/maxcode.so -> ./maxcode), the installed one (pkglibdir
 * -> bindir), else "maxcode" on PATH. */
static const char *
command_path(void)
{
    struct mc_buf b = MC_BUF_INIT;
    Dl_info info;
    char *dir = NULL, *rel = NULL, *slash;

    if (maxcode_bin)
        return maxcode_bin;
    if (dladdr((void *)command_path, &info) && info.dli_fname &&
        (dir = realpath(info.dli_fname, NULL)) != NULL &&
        (slash = strrchr(dir, '/')) != NULL) {
        *slash = '\0';
        mc_buf_addf(&b, "%s/../../maxcode", dir);
        if (access(b.s, X_OK)) {
            rel = mc_path_relative(MC_PKGLIBDIR, MC_BINDIR);
            mc_buf_reset(&b);
            mc_buf_addf(&b, "%s/%s/maxcode", dir, rel ? rel : ".");
            if (access(b.s, X_OK))
                mc_buf_reset(&b);
        }
    }
    free(dir); /* from realpath() */
    mc_free(rel);
    if (!b.len)
        mc_buf_adds(&b, access(MC_BINDIR "/maxcode", X_OK) ? "maxcode"
                                                           : MC_BINDIR
                        "/maxcode");
    if (b.len > 6 && b.s[0] == '/') {
        char *real = realpath(b.s, NULL);
        if (real) {
            mc_buf_reset(&b);
            mc_buf_adds(&b, real);
            free(real); /* from realpath() */
        }
    }
    maxcode_bin = mc_buf_detach(&b, NULL);
    return maxcode_bin ? maxcode_bin : "maxcode";
}

/* Which of -n, -q, -t make runs with: then nothing may run. */
static int
dry_run(void)
{
    char *flags = gmk_expand("$(firstword $(MAKEFLAGS))");
    int dry = 0;

    if (flags && flags[0] && flags[0] != '-' && !strchr(flags, '='))
        dry = strpbrk(flags, "nqt") != NULL;
    gmk_free(flags);
    return dry;
}

/*
 * The five make variables a unit's build reads ($(CC) or its language's
 * compiler, $(CPPFLAGS), its flags, $(LDFLAGS), $(LDLIBS)), expanded by
 * one gmk_expand() at the first ask for the compiler: a hit pays one
 * expansion, not five. Each value is handed out once, copied only when
 * it is not empty; a name not among them, or values that hold the
 * separator, are expanded on their own.
 */
#define PREFETCH_N 5
struct prefetch {
    const char *name[PREFETCH_N];
    char *value[PREFETCH_N]; /* in EXPANDED; NULL once handed out */
    char *expanded;          /* gmk_expand()'s, cut at the separators */
    int done;
};

/* Fill P with its variables' values; nothing when they cannot be told
 * apart (a value holding the separator). */
static void
prefetch_fill(struct prefetch *p)
{
    char ref[PREFETCH_N * 24], *r = ref, *s, *sep;
    size_t n;
    int i;

    p->done = 1;
    /* "$(CC)\x1f$(CPPFLAGS)...", without printf: the names are short. */
    for (i = 0; i < PREFETCH_N; i++) {
        n = strlen(p->name[i]);
        if (n > 20)
            return;
        if (i)
            *r++ = '\x1f';
        memcpy(r, "$(", 2);
        memcpy(r + 2, p->name[i], n);
        r[2 + n] = ')';
        r += n + 3;
    }
    *r = '\0';
    if (!(p->expanded = gmk_expand(ref)))
        return;
    for (i = 0, s = p->expanded; i < PREFETCH_N; i++) {
        sep = strchr(s, '\x1f');
        if ((sep != NULL) != (i < PREFETCH_N - 1))
            break; /* a value holds the separator */
        if (sep)
            *sep = '\0';
        p->value[i] = s;
        if (sep)
            s = sep + 1;
    }
    if (i < PREFETCH_N)
        memset(p->value, 0, sizeof(p->value)); /* none, then */
}

static void
prefetch_release(struct prefetch *p)
{
    gmk_free(p->expanded);
}

/* A make variable of any origin (CC has a built-in default); CTX, when
 * not NULL, the unit's struct prefetch. NULL when it is unset or empty
 * (mc_target_var_fn). */
static char *
any_var(const char *name, void *ctx)
{
    struct prefetch *p = ctx;
    char small[64], *ref = small, *v, *res = NULL;
    size_t n = strlen(name);
    int i;

    if (p && !p->done && !strcmp(name, p->name[0]))
        prefetch_fill(p);
    for (i = 0; p && i < PREFETCH_N; i++)
        if (p->value[i] && !strcmp(name, p->name[i])) {
            v = p->value[i];
            p->value[i] = NULL;
            return *v ? mc_strdup(v) : NULL;
        }
    /* "$(NAME)": a call per variable and unit, without printf. */
    if (n + 4 > sizeof(small) && !(ref = mc_malloc(n + 4)))
        return NULL;
    ref[0] = '$';
    ref[1] = '(';
    memcpy(ref + 2, name, n);
    memcpy(ref + 2 + n, ")", 2);
    v = gmk_expand(ref);
    if (v && *v)
        res = mc_strdup(v);
    gmk_free(v);
    if (ref != small)
        mc_free(ref);
    return res;
}

/* Append S to B with each '$' doubled, for make. */
static void
add_make_escaped(struct mc_buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '$')
            mc_buf_addc(b, '$');
        mc_buf_addc(b, *s);
    }
}

/* Append the file name S to B as a word of a rule line, escaped for
 * make: '$' doubled, '#' escaped, and in a TARGET '%' escaped (else the
 * rule is a pattern rule; a prerequisite of an explicit rule takes it
 * as it is). rule_unfit() refuses what cannot be escaped. */
static void
add_make_word(struct mc_buf *b, const char *s, int target)
{
    for (; *s; s++) {
        if (*s == '$')
            mc_buf_addc(b, '$');
        else if (*s == '#' || (target && *s == '%'))
            mc_buf_addc(b, '\\');
        mc_buf_addc(b, *s);
    }
}

/* What in file name S make cannot take as a target or prerequisite,
 * however it is escaped, written into WHY (WHY_LEN bytes); 0 when
 * add_make_word() can write it. Spaces split words, ':' ';' '=' '|' end
 * them, '*' '?' '[' are wildcards, '\' an escape (a trailing one joins
 * lines), a leading '~' a home directory, "LIB(MEMBER)" an archive
 * member; and the name goes into the user's own rules as it is. */
static int
rule_unfit(const char *s, char *why, size_t why_len)
{
    size_t n = strlen(s);
    const char *p;

    for (p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;

        /* Most names have none of them: tests a hit makes on each byte,
         * without a call per byte. */
        if (c > ' ' && c != 0x7f && c != ':' && c != ';' && c != '=' &&
            c != '|' && c != '*' && c != '?' && c != '[' && c != '\\')
            continue;
        if (c <= ' ' || c == 0x7f)
            snprintf(why, why_len, "a space or control character");
        else /* one of the characters listed above */
            snprintf(why, why_len, "'%c'", *p);
        return 1;
    }
    if (s[0] == '~')
        snprintf(why, why_len, "a leading '~'");
    else if (n && s[n - 1] == ')' && strchr(s, '('))
        snprintf(why, why_len, "the form LIB(MEMBER) of an archive member");
    else
        return 0;
    return 1;
}

/* Whether every file of T that its search rule names can be written
 * into it: SOURCE, the link files, the inputs. -1 after reporting an
 * error to make, at the caller's line. */
static int
check_rule_words(const struct mc_target *t, const char *source)
{
    const struct mc_strv *lists[] = {&t->link, &t->inputs,
                                     &t->bench_inputs, &t->made};
    const char *bad = NULL;
    char why[64];
    size_t i, j;

    if (rule_unfit(t->source, why, sizeof(why)))
        bad = t->source;
    for (i = 0; !bad && i < MC_ARRAY_SIZE(lists); i++)
        for (j = 0; !bad && j < lists[i]->n; j++)
            if (rule_unfit(lists[i]->v[j], why, sizeof(why)))
                bad = lists[i]->v[j];
    if (!bad)
        return 0;
    mc_plugin_fail("%s: the file name '%s' has %s, which make cannot read "
                   "in a rule; rename the file", source, bad, why);
    return -1;
}

/* Append the settings that came from make variables as VAR=VALUE shell
 * assignments: the recipe's environment does not have them. Secrets are
 * never put on a command line. */
static void
add_make_settings(struct mc_buf *cmd, const struct mc_conf *c)
{
    size_t i;

    for (i = 0; i < MC_SET__COUNT; i++) {
        enum mc_setting_id id = (enum mc_setting_id)i;
        if (mc_conf_origin(c, id) != MC_FROM_MAKE || mc_conf_is_secret(id))
            continue;
        mc_buf_addf(cmd, "%s=", mc_conf_name(id));
        mc_shell_quote(cmd, mc_conf_get(c, id));
        mc_buf_addc(cmd, ' ');
    }
}

/* Append " OPT 'WORDS'" to CMD: LIST as one shell-quoted argument. */
static void
add_list_opt(struct mc_buf *cmd, const char *opt, const struct mc_strv *list)
{
    struct mc_buf words = MC_BUF_INIT;

    mc_strv_join_shell(list, &words);
    mc_buf_addf(cmd, " %s ", opt);
    mc_shell_quote(cmd, words.s ? words.s : "");
    mc_buf_release(&words);
}

/* Where add_optimize() puts the recipe's flags, which make expands when
 * it runs the recipe (add_recipe()). */
#define RECIPE_FLAGS '\001'

/* Append `maxcode optimize` of T for KEY in MODE to CMD; LAUNCH: through
 * MAXCODE_LAUNCHER (--launch). */
static void
add_optimize(struct mc_buf *cmd, const struct mc_target *t, const char *key,
             const char *mode, int launch)
{
    struct mc_strv args = MC_STRV_INIT;
    size_t i;

    mc_shell_quote(cmd, command_path());
    mc_buf_addf(cmd, " optimize%s --key %s --cc ", launch ? " --launch" : "",
                key);
    mc_shell_quote(cmd, t->compiler);
    add_list_opt(cmd, "--flags", &t->flags);
    if (t->linker) {
        mc_buf_adds(cmd, " --ld ");
        mc_shell_quote(cmd, t->linker);
    }
    add_list_opt(cmd, "--ldflags", &t->ldflags);
    add_list_opt(cmd, "--ldlibs", &t->ldlibs);
    if (t->flags_from_make)
        mc_buf_addf(cmd, " --recipe-flags %c", RECIPE_FLAGS);
    if (t->made.n)
        add_list_opt(cmd, "--made", &t->made);
    if (strcmp(mode, "optimize"))
        mc_buf_addf(cmd, " --mode %s", mode);
    mc_buf_adds(cmd, " -- ");
    mc_shell_quote(cmd, t->source);
    if (mc_target_args(t, &args)) {
        cmd->oom = 1; /* sticks, as any failed append */
        return;
    }
    for (i = 0; i < args.n; i++) {
        mc_buf_addc(cmd, ' ');
        mc_shell_quote(cmd, args.v[i]);
    }
    mc_strv_release(&args);
}

/*
 * Append the command CMD of T's rule to RULE, escaped for make, but
 * for each RECIPE_FLAGS: there, the flags as make expands them when it
 * runs the recipe, one shell-quoted word. The rule is a prerequisite
 * of the user's object or program, so that target's target-specific
 * variables are in force then; `maxcode optimize` compares them with
 * the flags it was keyed with (--flags).
 */
static void
add_recipe(struct mc_buf *rule, const struct mc_target *t, const char *cmd)
{
    const char *p = cmd, *q;

    while ((q = strchr(p, RECIPE_FLAGS)) != NULL) {
        char *part = mc_strndup(p, (size_t)(q - p));

        if (!part) {
            rule->oom = 1;
            return;
        }
        add_make_escaped(rule, part);
        mc_free(part);
        mc_buf_addf(rule, "'$(subst ','\\'',$(CPPFLAGS) $(%s))'",
                    mc_lang_get(t->lang)->flags_var);
        p = q + 1;
    }
    add_make_escaped(rule, p);
}

/* Emit the rule that produces VPATH by a search. */
static enum mc_code
emit_rule(const struct mc_target *t, const char *key, const char *vpath,
          const char *mode, int forced)
{
    struct mc_buf rule = MC_BUF_INIT, cmd = MC_BUF_INIT;
    const char *launcher = mc_conf_get(&t->conf, MC_SET_LAUNCHER);
    enum mc_code rc = MC_OK;
    char *goal;
    size_t i;

    if (mc_strv_contains(&emitted, key))
        return MC_OK;
    if (forced && !force_emitted) {
        gmk_eval(".PHONY: .maxcode-force\n.maxcode-force:", NULL);
        force_emitted = 1;
    }
    /* The command, as the shell will see it; with MAXCODE_LAUNCHER
     * (--launch) it runs the search through the launcher (srun ...) and
     * then fetches the result from the cache, or keeps the original
     * when the launcher fails (cli/launch.h). */
    add_make_settings(&cmd, &t->conf);
    add_optimize(&cmd, t, key, mode, *launcher && strcmp(mode, "cache"));
    /* The rule, each name escaped for make (check_rule_words()). */
    add_make_word(&rule, vpath, 1);
    mc_buf_adds(&rule, ": ");
    add_make_word(&rule, t->source, 0);
    for (i = 0; i < t->link.n; i++) {
        mc_buf_addc(&rule, ' ');
        add_make_word(&rule, t->link.v[i], 0);
    }
    for (i = 0; i < t->inputs.n; i++) {
        mc_buf_addc(&rule, ' ');
        add_make_word(&rule, t->inputs.v[i], 0);
    }
    for (i = 0; i < t->bench_inputs.n; i++)
        if (!mc_strv_contains(&t->inputs, t->bench_inputs.v[i])) {
            mc_buf_addc(&rule, ' ');
            add_make_word(&rule, t->bench_inputs.v[i], 0);
        }
    /* A files= entry the build makes is made before the search too. */
    for (i = 0; i < t->made.n; i++)
        if (mc_strv_contains(&t->files, t->made.v[i])) {
            mc_buf_addc(&rule, ' ');
            add_make_word(&rule, t->made.v[i], 0);
        }
    if (forced)
        mc_buf_adds(&rule, " .maxcode-force");
    mc_buf_adds(&rule, dry_run() ? "\n\t@" : "\n\t+@");
    add_recipe(&rule, t, cmd.s ? cmd.s : "");
    mc_buf_adds(&rule, " >/dev/null");
    if (mc_buf_status(&rule) || mc_buf_status(&cmd) ||
        mc_strv_push(&emitted, key)) {
        rc = MC_ENOMEM;
        goto out;
    }
    /* A secret set in the makefile reaches the recipe's environment
     * (never its command line) through a target-specific export. */
    for (i = 0; i < MC_SET__COUNT; i++) {
        enum mc_setting_id id = (enum mc_setting_id)i;
        if (mc_conf_is_secret(id) && mc_conf_origin(&t->conf, id) ==
                                         MC_FROM_MAKE) {
            mc_buf_addc(&rule, '\n');
            add_make_word(&rule, vpath, 1);
            mc_buf_addf(&rule, ": export %s := $(%s)", mc_conf_name(id),
                        mc_conf_name(id));
        }
    }
    if (mc_buf_status(&rule)) {
        rc = MC_ENOMEM;
        goto out;
    }
    goal = gmk_expand("$(.DEFAULT_GOAL)");
    gmk_eval(rule.s, NULL);
    mc_buf_reset(&rule);
    mc_buf_adds(&rule, ".DEFAULT_GOAL := ");
    add_make_escaped(&rule, goal ? goal : "");
    gmk_free(goal);
    if (mc_buf_status(&rule) == MC_OK)
        gmk_eval(rule.s, NULL);
out:
    mc_buf_release(&rule);
    mc_buf_release(&cmd);
    return rc;
}

/* SOURCE and its files are found through $(VPATH), as make finds
 * prerequisites. -1 after reporting an error to make. */
static int
set_vpath(void)
{
    char *vp = gmk_expand("$(VPATH)");
    enum mc_code rc = mc_target_set_vpath(vp);

    gmk_free(vp);
    if (rc) {
        mc_plugin_fail("out of memory");
        return -1;
    }
    return 0;
}

/* The GPU identity of the CUDA target T, from the probe this machine
 * remembers for its boot: make's thread reads it and never probes (the
 * search recipe does). */
static enum mc_code
read_gpu(struct mc_target *t, int *none, struct mc_err *err)
{
    struct mc_cuda_probe p;
    enum mc_code rc;

    rc = mc_cuda_probe_read(mc_conf_get(&t->conf, MC_SET_CACHE_DIR), &p,
                            err);
    if (!rc && mc_cuda_set_identity(t, &p))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    if (!rc && p.known && !p.n) {
        *none = 1;
        mc_info("%s: no CUDA device (%s); using the original", t->source,
                p.error[0] ? p.error : "none found");
    }
    return rc;
}

/* A CUDA target's GPU identity (read_gpu()); nothing for another
 * language, which so pays nothing for the probe's struct (a hardened
 * build fills each local struct where it is declared). */
static enum mc_code
set_gpu(struct mc_target *t, int *none, struct mc_err *err)
{
    *none = 0;
    if (!mc_lang_get(t->lang)->kernels)
        return MC_OK;
    return read_gpu(t, none, err);
}

/* Key T (SOURCE as written in the call): its build, its GPU or native
 * architecture as this machine remembers them (make's thread runs
 * neither the device probe nor the compiler), the key. *NO_GPU: a
 * CUDA target on a machine without a device. -1 after reporting an
 * error to make. */
static int
key_unit(struct mc_target *t, const char *source, char key[MC_KEY_HEX + 1],
         int *no_gpu)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_key_versions versions;
    const struct mc_lang_info *lang = mc_lang_get(t->lang);
    struct prefetch vars = {{lang->cc_var, "CPPFLAGS", lang->flags_var,
                             "LDFLAGS", "LDLIBS"},
                            {NULL},
                            NULL,
                            0};
    int from_db = 0, rc = 0;

    mc_key_versions_current(&versions);
    if (mc_target_resolve_build(t, any_var, &vars, &from_db, &err) ||
        set_gpu(t, no_gpu, &err) ||
        mc_native_set_target(t, 0, NULL, &err) ||
        mc_target_key_with(t, &versions,
                           mc_log_get_level() == MC_LOG_VERBOSE, key,
                           &err)) {
        mc_plugin_fail("%s: %s", source, err.msg);
        rc = -1;
    }
    prefetch_release(&vars);
    return rc;
}

/* Count S for T in the cache directory DIR, unless T's MAXCODE_STATS
 * is 0 (maxcode show asking make which key it computes). */
static void
count(const struct mc_target *t, const char *dir, enum mc_stat s)
{
    if (strcmp(mc_conf_get(&t->conf, MC_SET_STATS), "0"))
        mc_plugin_count(dir, s);
}

/* Look KEY up for T: a hit when the entry is there, its headers are
 * unchanged and its variant fits this machine (hit.h, with the
 * architecture as remembered). Counted either way. */
static int
look_up(const struct mc_target *t, const char *source,
        struct mc_cache *cache, const char *key, const char *mode,
        struct mc_entry *e)
{
    struct mc_err err = MC_ERR_INIT;
    enum mc_code rc = mc_cache_get(cache, key, e, &err);
    int hit = 0;

    if (rc == MC_OK && mc_entry_includes_valid(e))
        hit = mc_hit_fits(t, source, e, mode, 0);
    else if (rc == MC_OK)
        mc_verbose("%s: a header changed since key %s was stored", source,
                   key);
    else if (rc != MC_ENOENT && rc != MC_ESYNTAX) /* corrupt: said */
        mc_info("%s: %s", source, err.msg);
    count(t, cache->dir, hit ? MC_STAT_HITS : MC_STAT_MISSES);
    return hit;
}


/* The payload of a hit's .written record (variant.h) for entry E into
 * B: its include records, then its note as a line "! NOTE" (as
 * mc_hit_note_line() makes it). Empty when nothing is needed of E. */
static void
hit_payload(const struct mc_entry *e, struct mc_buf *b)
{
    mc_buf_add(b, e->includes.s, e->includes.len);
    if (!e->note.len)
        return;
    if (b->len && b->s[b->len - 1] != '\n')
        mc_buf_addc(b, '\n');
    mc_buf_adds(b, "! ");
    mc_hit_note_line(e, b);
}

/* The expansion of a hit on entry E: its variant at VPATH (mc_malloc'd),
 * or SOURCE (as the call wrote it) when the variant cannot be written.
 * Where the entry file can be named without reading it (ORIGIN) and
 * needs no check of this machine's architecture, the variant's record
 * names it, so that the next hit is fast_hit(). */
static char *
use_hit(struct mc_target *t, const char *source, struct mc_cache *cache,
        struct mc_entry *e, const char *key, struct mc_buf *vpath,
        const char *mode)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf payload = MC_BUF_INIT;
    char origin[MC_CACHE_ORIGIN_MAX];
    time_t mtime;
    int edited, named;

    mc_cache_touch(cache, e);
    named = !memmem(e->variant.s, e->variant.len, "arch=", 5) &&
            mc_cache_origin(cache, key, origin, &mtime) == MC_OK;
    if (named)
        hit_payload(e, &payload);
    if (mc_buf_status(&payload))
        named = 0;
    if (mc_variant_materialize_from(vpath->s, t->source, t->source_real,
                                    e->variant.s, e->variant.len,
                                    named ? origin : NULL,
                                    named ? payload.s : NULL, &edited,
                                    &err)) {
        /* Cannot write the variant: the original is always right. */
        mc_info("%s: %s; using the original", source, err.msg);
        mc_buf_release(&payload);
        return mc_strdup(source);
    }
    mc_buf_release(&payload);
    if (edited)
        mc_variant_say_edited(source, vpath->s);
    mc_hit_say_note(source, e);
    if (!strcmp(mode, "refresh") || !strcmp(mode, "verify"))
        emit_rule(t, key, vpath->s, mode, 1);
    return mc_buf_detach(vpath, NULL);
}

/* A hit known without reading the entry for KEY (use_hit() named it in
 * the variant's record, variant.h): the variant at VPATH is in place,
 * as written from the entry file that is there now, and the entry's
 * include records (in the record) still match. Its note is said. Else
 * 0, and the entry is read. */
static int
fast_hit(const struct mc_target *t, const char *source,
         struct mc_cache *cache, const char *key, const struct mc_buf *vpath)
{
    struct mc_buf payload = MC_BUF_INIT;
    char origin[MC_CACHE_ORIGIN_MAX];
    const char *note;
    size_t incl;
    time_t mtime;
    int hit = 0;

    if (mc_cache_origin(cache, key, origin, &mtime) ||
        !mc_variant_fresh(vpath->s, t->source, t->source_real, origin,
                          &payload))
        goto out;
    note = payload.len >= 2 && !memcmp(payload.s, "! ", 2)
               ? payload.s
               : memmem(payload.s, payload.len, "\n! ", 3);
    incl = note ? (size_t)(note - payload.s) : payload.len;
    if (!mc_cache_includes_valid(payload.s, incl)) {
        mc_verbose("%s: a header changed since key %s was stored", source,
                   key);
        goto out;
    }
    if (note)
        mc_hit_say_line(source, note + (*note == '\n' ? 3 : 2));
    mc_cache_touch_key(cache, key, mtime);
    hit = 1;
out:
    mc_buf_release(&payload);
    return hit;
}

/* The expansion of a miss that searches: the variant path VPATH
 * (mc_malloc'd) and the rule that makes it; NULL after reporting an
 * error to make. */
static char *
plan_search(struct mc_target *t, const char *source, const char *key,
            struct mc_buf *vpath, const char *mode)
{
    struct mc_err err = MC_ERR_INIT;

    /* A variant file left from an older entry is stale. */
    unlink(vpath->s);
    if (mc_variant_mark_source(vpath->s, t->source_real, &err))
        mc_info("%s: %s", source, err.msg);
    if (emit_rule(t, key, vpath->s, mode, !strcmp(mode, "refresh"))) {
        mc_plugin_fail("out of memory");
        return NULL;
    }
    return mc_buf_detach(vpath, NULL);
}

/*
 * The expansion of T when a file it names is one the build makes (not
 * there yet, T->made): no lookup can be complete without the file's
 * content, so there is none here. KEY, which hashes such a file by its
 * name, names the variant path VPATH (mc_malloc'd), and the rule that
 * makes it depends on the files, so make makes them first; its recipe
 * (`maxcode optimize --made`) computes the complete key, looks it up
 * (here, then in the remote cache), searches only on a miss in a mode
 * that searches, and writes the variant at VPATH. NULL after reporting
 * an error to make.
 */
static char *
plan_made(struct mc_target *t, const char *source, const char *key,
          struct mc_buf *vpath, const char *mode)
{
    struct mc_buf names = MC_BUF_INIT;

    if (mc_log_get_level() == MC_LOG_VERBOSE) {
        mc_strv_join_shell(&t->made, &names);
        mc_verbose("%s: %s not there yet (the build makes %s); the "
                   "search recipe completes the key", source,
                   names.s ? names.s : "", t->made.n == 1 ? "it" : "them");
        mc_buf_release(&names);
    }
    return plan_search(t, source, key, vpath, mode);
}

/* MAXCODE_MODE of T, with T's MAXCODE_LOG in force. */
static const char *
unit_mode(const struct mc_target *t)
{
    enum mc_log_level level;

    if (!mc_log_parse_level(mc_conf_get(&t->conf, MC_SET_LOG), &level))
        mc_log_set_level(level);
    return mc_conf_get(&t->conf, MC_SET_MODE);
}

/*
 * The work of one $(maxcode ...) call: SOURCE with the option strings
 * OPTS. Returns the expansion (mc_malloc'd) or NULL after reporting an
 * error to make.
 */
static char *
expand_unit(const char *source, char **opts, unsigned int nopts)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf vpath = MC_BUF_INIT;
    struct mc_entry e;
    struct mc_target t;
    struct mc_cache cache = MC_CACHE_INIT;
    struct mc_conf base;
    char key[MC_KEY_HEX + 1];
    const char *mode = "off";
    char *res = NULL;
    int hit = -1, conf_ok = 0, no_gpu = 0;

    mc_entry_init(&e);
    memset(&t, 0, sizeof(t));
    if (mc_plugin_conf(&base, &err)) {
        mc_plugin_fail("%s", err.msg);
        goto out;
    }
    conf_ok = 1;
    if (set_vpath())
        goto out;
    if (mc_target_parse_marked(&t, source, opts, nopts, &base, &err)) {
        mc_plugin_fail("%s%s%s", err.code == MC_ESYNTAX ? "" : source,
                       err.code == MC_ESYNTAX || !*source ? "" : ": ",
                       err.msg);
        goto out;
    }
    mode = unit_mode(&t);
    if (strcmp(mode, "off") && (check_rule_words(&t, source) ||
                                key_unit(&t, source, key, &no_gpu)))
        goto out;
    if (!strcmp(mode, "off") || no_gpu) {
        /* No GPU: nothing to search on, nothing to cache; a later build
         * on a machine with a GPU keys the target for it. Counted at
         * each call, as a lookup is. */
        if (no_gpu) {
            const char *dir = mc_conf_get(&t.conf, MC_SET_CACHE_DIR);

            count(&t, dir, MC_STAT_FALLBACKS);
            count(&t, dir, MC_STAT_FALLBACK_NO_DEVICE);
        }
        res = mc_strdup(source);
        goto out;
    }
    if (mc_cache_init(&cache, mc_conf_get(&t.conf, MC_SET_CACHE_DIR),
                      &err) ||
        mc_variant_path(key, mc_target_name(&t), &vpath)) {
        mc_plugin_fail("out of memory");
        goto out;
    }
    if (t.made.n) {
        res = plan_made(&t, source, key, &vpath, mode);
        goto out;
    }
    if (strcmp(mode, "refresh") && strcmp(mode, "verify") &&
        fast_hit(&t, source, &cache, key, &vpath)) {
        count(&t, cache.dir, MC_STAT_HITS);
        hit = 1;
        res = mc_buf_detach(&vpath, NULL);
        goto out;
    }
    hit = look_up(&t, source, &cache, key, mode, &e);
    if (hit)
        res = use_hit(&t, source, &cache, &e, key, &vpath, mode);
    else if (!strcmp(mode, "verify") ||
             (!strcmp(mode, "cache") &&
              !*mc_conf_get(&t.conf, MC_SET_REMOTE)))
        res = mc_strdup(source);
    /* In mode cache with a remote cache, the rule fetches and never
     * searches. */
    else
        res = plan_search(&t, source, key, &vpath, mode);
out:
    if (res && !strcmp(mode, "cache"))
        mc_plugin_cache_mode(hit, !strcmp(res, source));
    mc_entry_release(&e);
    mc_cache_release(&cache);
    mc_target_release(&t);
    if (conf_ok)
        mc_conf_release(&base);
    mc_buf_release(&vpath);
    return res;
}

char *
mc_fn_maxcode(const char *name, unsigned int argc, char **argv)
{
    struct mc_strv args = MC_STRV_INIT;
    char *res = NULL, *out = NULL;
    unsigned int i;

    (void)name;
    /* make frees each argv[i] itself: trim copies, never the pointers. */
    for (i = 0; i < argc; i++) {
        const char *s = argv[i] + strspn(argv[i], " \t\n");
        size_t n = strlen(s);

        while (n && strchr(" \t\n", s[n - 1]))
            n--;
        if (mc_strv_pushn(&args, s, n)) {
            mc_plugin_fail("out of memory");
            goto out;
        }
    }
    if (!args.n) {
        mc_plugin_fail("missing SOURCE: write $(maxcode path/to/file.c)");
        goto out;
    }
    res = expand_unit(args.v[0], args.v + 1, args.n - 1);
    if (!res && mc_plugin_only_cleaning())
        res = mc_strdup(args.v[0]); /* the error was not raised */
    if (res)
        out = mc_plugin_to_make(res);
out:
    mc_free(res);
    mc_strv_release(&args);
    return out;
}

/* Append WORD, or its $(maxcode ...) result when it is a marked source,
 * to OUT. -1 after reporting an error to make. */
static int
expand_word(struct mc_buf *out, const char *word)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_mark m = MC_MARK_INIT;
    enum mc_code rc = MC_ENOENT;
    int marked;
    char *r, *found;

    if (mc_lang_of_path(word)) {
        /* A source (by the language table's extensions) found through
         * VPATH is scanned there. */
        set_vpath();
        found = mc_target_find(word);
        if (!found) {
            mc_plugin_fail("out of memory");
            return -1;
        }
        rc = mc_mark_scan_file(found, &m, &err);
        mc_free(found);
    }
    marked = rc == MC_OK && m.marked;

    mc_mark_release(&m);
    if (rc != MC_OK && rc != MC_ENOENT) {
        mc_plugin_fail("%s", err.msg);
        return -1;
    }
    if (!marked)
        return mc_buf_adds(out, word) ? -1 : 0;
    r = expand_unit(word, NULL, 0);
    if (!r)
        return -1;
    mc_buf_adds(out, r);
    mc_free(r);
    return 0;
}

char *
mc_fn_marked(const char *name, unsigned int argc, char **argv)
{
    struct mc_buf out = MC_BUF_INIT;
    char *p = argv[0], *word, *r = NULL;

    (void)name;
    (void)argc;
    for (;;) {
        p += strspn(p, " \t\n");
        if (!*p)
            break;
        word = p;
        p += strcspn(p, " \t\n");
        if (*p)
            *p++ = '\0';
        if (out.len)
            mc_buf_addc(&out, ' ');
        if (expand_word(&out, word) &&
            (!mc_plugin_only_cleaning() || mc_buf_adds(&out, word)))
            goto out;
    }
    if (mc_buf_status(&out) == MC_OK)
        r = mc_plugin_to_make(out.s);
out:
    mc_buf_release(&out);
    return r;
}
