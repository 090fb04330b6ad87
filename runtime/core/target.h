/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * target.h: one marked unit. It checks the options of
 * $(maxcode SOURCE[, KEY=VALUE]...) (DESIGN 1.2) before any work starts
 * (target.c), expands the `link` and `inputs` lists and resolves the
 * build (target_resolve.c), and computes the content key (key.c).
 *
 * Options whose default is a setting (budget, strategy, proposer, metric,
 * min-speedup, fields, critique) live in the target's own copy of the
 * configuration, at the argument layer, so MAXCODE_BUDGET and friends
 * supply their defaults.
 */
#ifndef MC_TARGET_H
#define MC_TARGET_H

#include "conf.h"
#include "hash.h"
#include "buf.h"
#include "lang.h"
#include "strv.h"

#include <regex.h>

enum mc_opt {
    MC_OPT_LINK,
    MC_OPT_ARGS,
    MC_OPT_INPUTS,
    MC_OPT_BENCH_INPUTS,
    MC_OPT_TEST_CPPFLAGS,
    MC_OPT_COMPARE,
    MC_OPT_TOLERANCE,
    MC_OPT_CHECK,
    MC_OPT_CFLAGS,
    MC_OPT_KERNEL,
    MC_OPT_BUDGET,
    MC_OPT_STRATEGY,
    MC_OPT_PROPOSER,
    MC_OPT_METRIC,
    MC_OPT_MIN_SPEEDUP,
    MC_OPT_SANITIZE,
    MC_OPT_ISA,
    MC_OPT_FIELDS,
    MC_OPT_CRITIQUE,
    MC_OPT_MAX_TOKENS,
    MC_OPT_MAX_COST,
    MC_OPT_BINS,
    MC_OPT_LDLIBS,
    MC_OPT_FILES,
    MC_OPT_IGNORE,
    MC_OPT_LINK_FLAGS,
    MC_OPT__COUNT
};

/* How one link file is compiled (mc_target_resolve_build()). */
enum mc_link_from {
    MC_LINK_FROM_SOURCE = 0, /* with SOURCE's compiler and flags, on the
                              * link line (also every object or library,
                              * which is not compiled) */
    MC_LINK_FROM_DB,         /* its own compile DB entry */
    MC_LINK_FROM_OPTION      /* the link-flags= option */
};

struct mc_link_build {
    enum mc_link_from from;
    char *compiler;            /* MC_LINK_FROM_DB: the entry's compiler;
                                * else NULL: SOURCE's link driver (the
                                * compiler, or T->linker when set) */
    struct mc_strv flags;      /* its flags, unless MC_LINK_FROM_SOURCE */
};

struct mc_target {
    char *source;              /* SOURCE as written */
    char *source_real;         /* its real path */
    enum mc_lang lang;
    char *opt[MC_OPT__COUNT];  /* given values; NULL when not given */
    struct mc_strv link;       /* files, as written, in order */
    struct mc_strv inputs;     /* glob results, sorted */
    struct mc_strv bench_inputs;
    struct mc_strv files;      /* files= globs expanded: files and
                                * directories, relative, sorted */
    struct mc_strv made;       /* the names of link=, inputs=,
                                * bench-inputs= and files= that did not
                                * exist when T was parsed under
                                * mc_target_allow_made(): the build makes
                                * them. Each is in its list too, as
                                * written; the key hashes its name, not
                                * its content */
    struct mc_conf conf;       /* settings with the argument layer */
    struct mc_buf text;        /* SOURCE's bytes, when already read */
    char *compiler;            /* set by the caller before keying */
    struct mc_strv flags;      /* effective compile flags, ditto */
    char *linker;              /* the link driver when it is not the
                                * compiler (a C source with a C++ link
                                * file links with $(CXX)); else NULL */
    struct mc_strv ldflags;    /* $(LDFLAGS), as make's link rule has it,
                                * then the compile DB entry's -L DIR */
    struct mc_strv ldlibs;     /* $(LDLIBS), then the entry's -lNAME */
    struct mc_strv db_others;  /* the compile DB entry's other input
                                * files (sources, objects, libraries),
                                * relative to make's directory: never
                                * compiled with SOURCE, only named where
                                * link= is missing */
    struct mc_link_build *link_build; /* one per link file, in order,
                                * set by mc_target_resolve_build();
                                * NULL before */
    int flags_from_make;       /* the flags are make's variables (no
                                * compile DB entry, no cflags=): the
                                * search recipe can compare them */
    regex_t *ignore;           /* ignore= compiled, or NULL */
    char *gpu;                 /* a CUDA target's GPU identity
                                * (mc_cuda_set_identity()), set by the
                                * caller before keying; NULL: unprobed */
    char *native_arch;         /* isa=native: what -march=native is on
                                * this machine (mc_native_set_target()),
                                * set by the caller before keying; NULL:
                                * unresolved, keyed as
                                * MC_NATIVE_UNRESOLVED */
};

#define MC_NATIVE_UNRESOLVED "native:unresolved"


/*
 * Where SOURCE, link files and input globs that are not found relative
 * to the current directory are looked up next, as make looks up
 * prerequisites: the directories of VPATH (separated by ':' or blanks),
 * in order. NULL or "" clears it. The value is copied; it holds for
 * later mc_target_parse() calls in this process.
 */
enum mc_code mc_target_set_vpath(const char *vpath);

/*
 * PATH as make finds a prerequisite: PATH when it exists or is absolute,
 * else the first VPATH directory's DIR/PATH that exists (see
 * mc_target_set_vpath()), else PATH. Returns a copy the caller frees
 * with mc_free(), or NULL when out of memory.
 */
char *mc_target_find(const char *path);

/*
 * Whether a name in link=, inputs=, bench-inputs= or files= that does
 * not exist may be one the build makes (DESIGN 1.2): with ALLOW set,
 * mc_target_parse() takes such a name when it is a plain name (no glob
 * character '*', '?' or '['), keeps it in its list as written and in
 * T->made, instead of failing with "link file 'NAME' not found" or
 * "inputs 'NAME' matches no file". A glob that matches nothing is an
 * error either way. Off by default (the commands, whose files exist
 * when they run); the plugin turns it on, as make builds those files
 * before the search recipe, which keys the target in full. It holds
 * for later mc_target_parse() calls in this process.
 */
void mc_target_allow_made(int allow);

/* The key of option OPT ("bench-inputs"). */
const char *mc_target_opt_name(enum mc_opt opt);

/*
 * Check SOURCE and the N "KEY=VALUE" strings in ARGS and fill T. BASE is
 * the configuration before the argument layer; it moves into T (BASE is
 * left empty, and releasing it does nothing).
 * Errors are MC_EINVAL with a message that says what to fix, e.g.
 *   unknown option 'budgett' (known: link, args, ...)
 *   option 'budget=0': expected a whole number from 1 to 100000
 *   inputs 'data/x?.in' matches no file
 * Release T with mc_target_release() in every case.
 */
enum mc_code mc_target_parse(struct mc_target *t, const char *source,
                             char *const *args, size_t n,
                             struct mc_conf *base, struct mc_err *err);

/*
 * Like mc_target_parse(), but the options of SOURCE's own
 * '#pragma maxcode optimize' lines come first, and an option in ARGS
 * replaces the pragma's. A bad pragma is MC_ESYNTAX "SOURCE:LINE: ...".
 */
enum mc_code mc_target_parse_marked(struct mc_target *t, const char *source,
                                    char *const *args, size_t n,
                                    struct mc_conf *base,
                                    struct mc_err *err);

void mc_target_release(struct mc_target *t);

/* An option's effective value: the given one, else the setting, else
 * its default ("" when it has none). Owned by T. */
const char *mc_target_get(const struct mc_target *t, enum mc_opt opt);

/* The value OPT has in a call that does not give it: the setting's value
 * in CONF for an option that is a setting (with a CONF from
 * mc_conf_init(), the built-in default), the language LANG's bins for
 * bins=, "both" for compare=, else "". Owned by CONF or static. */
const char *mc_target_opt_default(enum mc_opt opt, const struct mc_conf *conf,
                                  enum mc_lang lang);

/*
 * The versions a content key hashes besides the unit itself: of what
 * reads the cache entry, and of what writes the model's prompts. The
 * target module knows neither (it does not include cache.h or
 * prompt.h): the caller passes them in; mc_key_versions_current() in
 * key.h gives this build's. The strings are the caller's.
 */
struct mc_key_versions {
    const char *entry_format;   /* the cache entry format: "1" for
                                 * MC_ENTRY_VERSION 1 */
    const char *prompt_version; /* the prompt templates' version
                                 * (mc_prompt_version()); hashed only
                                 * for a model-driven search */
    /* What names the value model of a search that ranks by values
     * (strategy=gvf), into OUT (value.h: mc_value_identity()); hashed
     * only for a strategy whose ranker ranks by values (ranker.h).
     * NULL: none is hashed. */
    enum mc_code (*value_model)(const struct mc_target *t,
                                struct mc_buf *out);
};

/*
 * Compute T's content key into HEX: XXH3-128 over V's entry format,
 * the language, SOURCE's name and bytes, the compiler identity
 * (mc_compiler_identity() under T's MAXCODE_COMPILER_CHECK, remembered
 * under its MAXCODE_CACHE_DIR), the GPU or the native architecture
 * where they apply, flags, link files, inputs, and every option's
 * effective value (DESIGN 1.2), the model, then what T's proposer and
 * its strategy's ranker say their output depends on (their identity:
 * proposer.h, ranker.h; for a model-driven search the API, the critic
 * model and V's prompt version, for a ranker by values V's value
 * model). Names of files (SOURCE, link, inputs) written as absolute
 * paths inside the current directory are hashed relative to it, so a
 * checkout keys the same wherever it is. A file of T->made (not made
 * yet) is hashed by its name alone, under a field of its own: such a
 * key is never that of a target whose files exist, and only the search
 * recipe, run once they do, can compute the complete key. T->compiler
 * and T->flags must be set. With TRACE, each field is logged (verbose).
 * A NULL V or a NULL field of V is MC_EINTERNAL; a compiler check
 * command that fails is MC_EINVAL; a proposer= or strategy= that no
 * registry row has (the option checks refuse them first) is
 * MC_ECONFIG. Defined in key.c.
 */
enum mc_code mc_target_key_with(const struct mc_target *t,
                                const struct mc_key_versions *v, int trace,
                                char hex[MC_KEY_HEX + 1],
                                struct mc_err *err);

/*
 * mc_target_key_with() with this build's versions
 * (mc_key_versions_current()). Kept with its old signature for the
 * commands; it is defined in key.c, so that target.c needs neither
 * cache.h nor prompt.h.
 */
enum mc_code mc_target_key(const struct mc_target *t, int trace,
                           char hex[MC_KEY_HEX + 1], struct mc_err *err);

/*
 * The options as "KEY=VALUE" words that reproduce T on a command line:
 * every given option plus the effective value of setting-backed ones.
 */
enum mc_code mc_target_args(const struct mc_target *t, struct mc_strv *out);

/*
 * Where the compiler's variables come from: the value of make variable
 * NAME (CC, CFLAGS, ...), or NULL when unset; an empty value may come as
 * NULL too (every use takes the two alike). The result is freed by the
 * caller with mc_free().
 */
typedef char *(*mc_target_var_fn)(const char *name, void *ctx);

/*
 * Set T->compiler and T->flags, highest first:
 *   flags:    option cflags; SOURCE's compile-DB entry (MAXCODE_COMPDB,
 *             else ./compile_commands.json when it exists); $(CPPFLAGS)
 *             with $(CFLAGS), $(CXXFLAGS) for C++ or $(NVCCFLAGS) for .cu
 *   compiler: the compile-DB entry's; $(CC), $(CXX) or $(NVCC) (default
 *             cc, c++, nvcc)
 * and T->ldflags, T->ldlibs: $(LDFLAGS) and $(LDLIBS), each followed by
 * what the compile-DB entry had of them (-L, -l; see compdb.h), and
 * T->db_others, the entry's other input files (none without an entry).
 * Each link file that is a source of the language table gets its own
 * build in T->link_build: its own compile-DB entry (compiler and
 * flags); else the option link-flags= when given (with SOURCE's
 * driver); else SOURCE's compiler and flags (MC_LINK_FROM_SOURCE).
 * T->flags_from_make says whether T->flags are make's variables.
 * VAR reads the variables. *FROM_DB tells whether the DB was used for
 * SOURCE.
 */
enum mc_code mc_target_resolve_build(struct mc_target *t, mc_target_var_fn var,
                                     void *ctx, int *from_db,
                                     struct mc_err *err);

/*
 * What a command line says instead, for `maxcode optimize` and `maxcode
 * eval`: each of CC (--cc), FLAGS (--flags), LD (--ld), LDFLAGS
 * (--ldflags) and LDLIBS (--ldlibs) that is not NULL replaces what
 * mc_target_resolve_build() found. MC_EINVAL names the option whose
 * quotes do not balance.
 */
enum mc_code mc_target_override_build(struct mc_target *t, const char *cc,
                                      const char *flags, const char *ld,
                                      const char *ldflags,
                                      const char *ldlibs,
                                      struct mc_err *err);

/*
 * The command that compiles link file I of T on its own, as words into
 * OUT (appended): its compiler (or SOURCE's driver) and flags, "-c" and
 * the file; nothing when it is built as SOURCE's flags build it
 * (MC_LINK_FROM_SOURCE). For the manifest and messages. MC_ENOMEM;
 * MC_EINVAL when the compiler command does not split.
 */
enum mc_code mc_target_link_command(const struct mc_target *t, size_t i,
                                    struct mc_strv *out);

/* The compiler command of link file I of T: its compile DB entry's;
 * else SOURCE's compiler for a file in SOURCE's language, and the link
 * driver (T->linker, when set) for another. Owned by T. */
const char *mc_target_link_compiler(const struct mc_target *t, size_t i);

/* The name of how link file I of T is compiled: "compile DB",
 * "link-flags" or "SOURCE's flags". Static. */
const char *mc_target_link_from(const struct mc_target *t, size_t i);

/*
 * Drop from B every line that the ignore= expression of T matches (a
 * POSIX extended regular expression). Does nothing when T has none.
 */
void mc_target_drop_ignored(const struct mc_target *t, struct mc_buf *b);

/*
 * The name of who writes T's variants: proposer= as given, and for
 * proposer=auto the first proposer of the registry that takes T ("llm"
 * when a model endpoint (MAXCODE_LLM_URL) or a replay directory
 * (MAXCODE_LLM_REPLAY) is configured, "builtin" otherwise). Never
 * another proposer's name: a name the registry lacks comes back as
 * given, and mc_proposer_find() of it is NULL. Static storage or T's.
 * Defined in proposer.c, beside the registry (mc_proposer_of()).
 */
const char *mc_target_proposer(const struct mc_target *t);

/* The basename of T's source (the variant's file name). */
const char *mc_target_name(const struct mc_target *t);

#endif /* MC_TARGET_H */
