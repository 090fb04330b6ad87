/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * key.c: the content key of one marked unit (mc_target_key_with(),
 * whose contract is in target.h beside the target it keys), this build's
 * key versions, and mc_target_key(), which keys a target with them.
 * Here, not in target.c, so that the target module depends on neither
 * the cache, nor the prompts, nor the registries whose rows say what
 * they add to a key (proposer.h, ranker.h).
 */
#include "mc_setup.h"
#include "key.h"
#include "cache.h"
#include "compiler.h"
#include "paths.h"
#include "prompt.h"
#include "proposer.h"
#include "ranker.h"
#include "strategy.h"
#include "tree.h"
#include "value.h"

/* MC_ENTRY_VERSION as a string literal: "1". */
#define STR_(x) #x
#define STR(x)  STR_(x)

void
mc_key_versions_current(struct mc_key_versions *v)
{
    v->entry_format = STR(MC_ENTRY_VERSION);
    v->prompt_version = mc_prompt_version();
    v->value_model = mc_value_identity;
}

enum mc_code
mc_target_key(const struct mc_target *t, int trace,
              char hex[MC_KEY_HEX + 1], struct mc_err *err)
{
    struct mc_key_versions v;

    mc_key_versions_current(&v);
    return mc_target_key_with(t, &v, trace, hex, err);
}


/* One entry of a files= tree into the hash ARG: a file by name and
 * content, a directory by name, a link (inside the tree) by name and
 * where it leads. */
static enum mc_code
hash_entry(const struct mc_tree_entry *e, void *arg, struct mc_err *err)
{
    struct mc_hash *h = arg;

    switch (e->kind) {
    case MC_TREE_FILE:
        mc_hash_field_str(h, "file-name", e->path);
        return mc_hash_field_fd(h, "file", e->fd, e->path, err);
    case MC_TREE_DIR:
        mc_hash_field_str(h, "dir-name", e->path);
        return MC_OK;
    case MC_TREE_LINK:
        mc_hash_field_str(h, "link-name", e->path);
        mc_hash_field_str(h, "link", e->target);
        return MC_OK;
    }
    return mc_err_set(err, MC_EINTERNAL, "'%s': unknown entry", e->path);
}

/* Hash the files= entry PATH (a file, or a directory with everything
 * under it, in name order) under the rule of tree.h. */
static enum mc_code
hash_tree(struct mc_hash *h, const char *path, struct mc_err *err)
{
    return mc_tree_walk(path, hash_entry, h, err);
}

/* The identity of the compiler COMPILER of T into *OUT. */
static enum mc_code
identity(const struct mc_target *t, const char *compiler, const char **out,
         struct mc_err *err)
{
    return mc_compiler_identity(compiler,
                                mc_conf_get(&t->conf, MC_SET_COMPILER_CHECK),
                                mc_conf_get(&t->conf, MC_SET_CACHE_DIR), out,
                                err);
}

/* Whether WORD at I starts a path (the word's first '/', or one after
 * '=', ',' or ':') that is ROOT or lies below it. */
static int
root_at(const char *word, size_t i, const char *root, size_t rlen)
{
    char after;

    if (i > 0 && !strchr("=,:", word[i - 1]) &&
        memchr(word, '/', i) != NULL)
        return 0;
    if (strncmp(word + i, root, rlen))
        return 0;
    after = word[i + rlen];
    return after == '\0' || after == '/' || after == ',' || after == ':';
}

/* T's MAXCODE_ROOT without trailing slashes, its length in *LEN; NULL
 * when it is unset, relative or "/" (no path is keyed from it). */
static const char *
root_of(const struct mc_target *t, size_t *len)
{
    const char *root = mc_conf_get(&t->conf, MC_SET_ROOT);

    *len = strlen(root);
    while (*len > 1 && root[*len - 1] == '/')
        (*len)--;
    return root[0] == '/' && *len > 1 ? root : NULL;
}

/* WORD hashed as field NAME, with each path at or below ROOT (RLEN
 * bytes; root_of()) written from the root ("-I${ROOT}/include"), so that
 * a checkout at another path, or on another machine, keys the same. */
static void
hash_word(struct mc_hash *h, const char *root, size_t rlen,
          const char *name, const char *word)
{
    struct mc_buf b = MC_BUF_INIT;
    size_t i;

    if (!root || !memmem(word, strlen(word), root, rlen)) {
        mc_hash_field_str(h, name, word);
        return;
    }
    for (i = 0; word[i]; i++) {
        if (word[i] == '/' && root_at(word, i, root, rlen)) {
            mc_buf_adds(&b, "${ROOT}");
            i += rlen - 1;
            continue;
        }
        mc_buf_addc(&b, word[i]);
    }
    mc_hash_field_str(h, name, b.s ? b.s : "");
    mc_buf_release(&b);
}

/* Whether link file I of T is built from its compile DB entry with
 * another compiler or other flags than SOURCE's. */
static int
link_differs(const struct mc_target *t, size_t i)
{
    const struct mc_link_build *lb = &t->link_build[i];
    size_t j;

    if (lb->from != MC_LINK_FROM_DB)
        return 0;
    if (strcmp(mc_target_link_compiler(t, i), t->compiler ? t->compiler
                                                          : "") ||
        lb->flags.n != t->flags.n)
        return 1;
    for (j = 0; j < lb->flags.n; j++)
        if (strcmp(lb->flags.v[j], t->flags.v[j]))
            return 1;
    return 0;
}

/* The link files' own builds from the compile DB, where they differ
 * from SOURCE's (the same flags key as before: a unit keyed before
 * link files had their own builds keeps its key). The link-flags=
 * option is hashed with the options, when given. */
static enum mc_code
hash_link_builds(struct mc_hash *h, const struct mc_target *t,
                 struct mc_err *err)
{
    const char *ident;
    enum mc_code rc;
    size_t i, j, rlen;
    const char *root = root_of(t, &rlen);

    for (i = 0; t->link_build && i < t->link.n; i++) {
        if (!link_differs(t, i))
            continue;
        if ((rc = identity(t, mc_target_link_compiler(t, i), &ident, err)))
            return rc;
        mc_hash_field_str(h, "link-compiler", ident);
        for (j = 0; j < t->link_build[i].flags.n; j++)
            hash_word(h, root, rlen, "link-flag",
                      t->link_build[i].flags.v[j]);
    }
    return MC_OK;
}

/* The build: compiler, GPU or native architecture, flags, linker. */
static enum mc_code
hash_build(struct mc_hash *h, const struct mc_target *t, struct mc_err *err)
{
    const char *ident;
    enum mc_code rc;
    size_t i, rlen;
    const char *root = root_of(t, &rlen);

    if ((rc = identity(t, t->compiler ? t->compiler : "", &ident, err)))
        return rc;
    mc_hash_field_str(h, "compiler", ident);
    if (mc_lang_get(t->lang)->kernels)
        /* A variant tuned on one GPU is not served on another. */
        mc_hash_field_str(h, "gpu", t->gpu ? t->gpu : "unprobed");
    if (!strcmp(mc_target_get(t, MC_OPT_ISA), "native"))
        /* Nor one tuned for one CPU on another. */
        mc_hash_field_str(h, "native-arch", t->native_arch
                                                ? t->native_arch
                                                : MC_NATIVE_UNRESOLVED);
    for (i = 0; i < t->flags.n; i++)
        hash_word(h, root, rlen, "flag", t->flags.v[i]);
    if (t->linker) {
        if ((rc = identity(t, t->linker, &ident, err)))
            return rc;
        mc_hash_field_str(h, "linker", ident);
    }
    for (i = 0; i < t->ldflags.n; i++)
        hash_word(h, root, rlen, "ldflag", t->ldflags.v[i]);
    for (i = 0; i < t->ldlibs.n; i++)
        mc_hash_field_str(h, "ldlib", t->ldlibs.v[i]);
    return hash_link_builds(h, t, err);
}

/* Each file of LIST by name (relative to CWD when inside it) and
 * contents, as fields NAME-name and NAME; one of T's made files (not
 * there yet) by its name alone, as a field "made" (target.h). */
static enum mc_code
hash_files(struct mc_hash *h, const struct mc_target *t, const char *name,
           const struct mc_strv *list, const char *cwd, struct mc_err *err)
{
    char field[32];
    enum mc_code rc = MC_OK;
    size_t i;

    if (list->n) /* a unit without such files pays no printf */
        snprintf(field, sizeof(field), "%s-name", name);
    for (i = 0; i < list->n && !rc; i++) {
        mc_hash_field_str(h, field, mc_path_in_dir(list->v[i], cwd));
        if (mc_strv_contains(&t->made, list->v[i]))
            mc_hash_field_str(h, "made", name);
        else
            rc = mc_hash_field_file(h, name, list->v[i], err);
    }
    return rc;
}

/* SOURCE, link files, inputs and files= trees. */
static enum mc_code
hash_sources(struct mc_hash *h, const struct mc_target *t,
             struct mc_err *err)
{
    char cwd[PATH_MAX] MC_NOINIT;
    enum mc_code rc;
    size_t i;

    if (!mc_path_cwd(cwd, sizeof(cwd)))
        cwd[0] = '\0';
    /* The path matters: the variant's #line and include rewriting name
     * it, and two copies of a file in two directories are two units.
     * Where the checkout is does not. */
    mc_hash_field_str(h, "source-name", mc_path_in_dir(t->source, cwd));
    if (t->text.cap)
        mc_hash_field(h, "source", t->text.s, t->text.len);
    else if ((rc = mc_hash_field_file(h, "source", t->source, err)))
        return rc;
    if ((rc = hash_build(h, t, err)) ||
        (rc = hash_files(h, t, "link", &t->link, cwd, err)) ||
        (rc = hash_files(h, t, "input", &t->inputs, cwd, err)) ||
        (rc = hash_files(h, t, "bench-input", &t->bench_inputs, cwd, err)))
        return rc;
    for (i = 0; i < t->files.n && !rc; i++) {
        if (mc_strv_contains(&t->made, t->files.v[i])) {
            mc_hash_field_str(h, "files-made", t->files.v[i]);
            continue;
        }
        rc = hash_tree(h, t->files.v[i], err);
    }
    return rc;
}

/* Every other option's effective value, the model, and what the
 * proposer and the strategy's ranker say their output depends on (their
 * identity operations: the model's API, critic and prompt version for
 * proposer=llm; the value model for a ranker by values). */
static enum mc_code
hash_options(struct mc_hash *h, const struct mc_target *t,
             const struct mc_key_versions *v, struct mc_err *err)
{
    const char *strategy = mc_target_get(t, MC_OPT_STRATEGY);
    const struct mc_proposer *p = mc_proposer_of(t);
    const struct mc_strategy *s = mc_strategy_find(strategy);
    const struct mc_ranker *r = s ? mc_ranker_find(s->ranker) : NULL;
    size_t i;

    if (!p)
        return mc_err_set(err, MC_ECONFIG, "unknown proposer '%s'",
                          mc_target_get(t, MC_OPT_PROPOSER));
    if (!p->identity)
        return mc_err_set(err, MC_EINTERNAL, "proposer '%s' has no identity "
                          "operation: what would its key hold?", p->name);
    if (!s)
        return mc_err_set(err, MC_ECONFIG, "unknown strategy '%s'",
                          strategy);
    if (!r)
        return mc_err_set(err, MC_EINTERNAL, "strategy '%s': no ranker "
                          "'%s'", strategy, s->ranker);
    for (i = 0; i < MC_OPT__COUNT; i++) {
        if (i == MC_OPT_LINK || i == MC_OPT_INPUTS ||
            i == MC_OPT_BENCH_INPUTS || i == MC_OPT_CFLAGS ||
            i == MC_OPT_FILES)
            continue; /* hashed by content */
        if (i == MC_OPT_LINK_FLAGS && !t->opt[i])
            continue; /* newer than the key: hashed only when given */
        mc_hash_field_str(h, mc_target_opt_name((enum mc_opt)i),
                          mc_target_get(t, (enum mc_opt)i));
    }
    mc_hash_field_str(h, "model", mc_conf_get(&t->conf, MC_SET_MODEL));
    p->identity(t, v, h);
    mc_ranker_identity(r, t, v, h);
    return MC_OK;
}

enum mc_code
mc_target_key_with(const struct mc_target *t, const struct mc_key_versions *v,
                   int trace, char hex[MC_KEY_HEX + 1], struct mc_err *err)
{
    struct mc_digest d;
    struct mc_hash h MC_NOINIT;
    enum mc_code rc;

    if (!v || !v->entry_format || !v->prompt_version)
        return mc_err_set(err, MC_EINTERNAL, "the key's versions are "
                          "not given");
    if (mc_hash_init(&h))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    mc_hash_set_trace(&h, trace);
    mc_hash_field_str(&h, "entry-format", v->entry_format);
    mc_hash_field_str(&h, "lang", mc_lang_get(t->lang)->key_name);
    rc = hash_sources(&h, t, err);
    if (!rc)
        rc = hash_options(&h, t, v, err);
    if (!rc) {
        mc_hash_digest(&h, &d);
        mc_digest_hex(&d, hex);
    }
    mc_hash_release(&h);
    return rc;
}
