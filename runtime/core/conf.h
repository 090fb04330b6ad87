/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * conf.h: maxcode's settings and where each value came from.
 *
 * Precedence, highest first (DESIGN 1.4):
 *   argument     a KEY=VALUE of $(maxcode ...) or of the command line
 *   make         a make variable (not one make imported from the env)
 *   environment  MAXCODE_* in the environment
 *   project      ./maxcode.conf
 *   user         $XDG_CONFIG_HOME/maxcode/maxcode.conf, by default
 *                ~/.config/maxcode/maxcode.conf
 *   default      built in
 * A value set from a lower origin never replaces one from a higher origin,
 * so the layers may be applied in any order.
 *
 * Each setting has a variable name (MAXCODE_MODE). Settings that are also
 * per-target options of $(maxcode ...) have a key too (budget), and
 * MAXCODE_BUDGET then sets that option's default.
 *
 * maxcode.conf grammar:
 *   file    = *line
 *   line    = ws [ setting ws "=" ws value ws ] [ "#" comment ] EOL
 *             ; a "#" starts a comment only as the first non-blank byte
 *   setting = "MAXCODE_" NAME / key      ; MAXCODE_MIN_SPEEDUP, min-speedup
 *   value   = bare text / DQUOTE text DQUOTE
 * A line that is not blank, a comment or a known setting with a valid
 * value is an error naming FILE:LINE.
 */
#ifndef MC_CONF_H
#define MC_CONF_H

#include "status.h"

enum mc_setting_id {
    MC_SET_MODE,
    MC_SET_CACHE_DIR,
    MC_SET_MAX_SIZE,
    MC_SET_REMOTE,
    MC_SET_COMPDB,
    MC_SET_ROOT,
    MC_SET_LLM_URL,
    MC_SET_LLM_API,
    MC_SET_MODEL,
    MC_SET_CRITIC_MODEL,
    MC_SET_GVF_MODEL,
    MC_SET_GVF_URL,
    MC_SET_GVF_API_KEY,
    MC_SET_API_KEY,
    MC_SET_LLM_TIMEOUT,
    MC_SET_LLM_CONNECT_TIMEOUT,
    MC_SET_LLM_RETRIES,
    MC_SET_LLM_MAX_TOKENS,
    MC_SET_LLM_TEMPERATURE,
    MC_SET_PRICE_IN,
    MC_SET_PRICE_OUT,
    MC_SET_LLM_RECORD,
    MC_SET_LLM_REPLAY,
    MC_SET_LLM_N,
    MC_SET_STRICT,
    MC_SET_LOG,
    MC_SET_BUDGET,
    MC_SET_STRATEGY,
    MC_SET_PROPOSER,
    MC_SET_METRIC,
    MC_SET_MIN_SPEEDUP,
    MC_SET_FIELDS,
    MC_SET_CRITIQUE,
    MC_SET_TIME_LIMIT,
    MC_SET_GAMMA,
    MC_SET_TIMING_CAP,
    MC_SET_REMOTE_TOKEN,
    MC_SET_REMOTE_TIMEOUT,
    MC_SET_REMOTE_CONNECT_TIMEOUT,
    MC_SET_REMOTE_INSECURE,
    MC_SET_SIGNING_KEY,
    MC_SET_TRUSTED_KEYS,
    MC_SET_COMPILER_CHECK,
    MC_SET_LAUNCHER,
    MC_SET_TIMING_LOCK,
    MC_SET_TIMING_CPU,
    MC_SET_RUN_MEMORY,
    MC_SET_STATS,
    MC_SET__COUNT
};

enum mc_origin {
    MC_FROM_DEFAULT = 0,
    MC_FROM_USER,
    MC_FROM_PROJECT,
    MC_FROM_ENV,
    MC_FROM_MAKE,
    MC_FROM_ARG
};

struct mc_setting {
    char *value;           /* never NULL after init; "" when unset */
    enum mc_origin origin;
    char *where;           /* "maxcode.conf:3", "environment (...)", ... */
    int in_block;          /* VALUE and WHERE lie in the conf's BLOCK */
};

struct mc_conf {
    struct mc_setting v[MC_SET__COUNT];
    /* The strings mc_conf_copy() wrote, in one allocation: a copy is
     * made at every $(maxcode ...) call. */
    char *block;
};

/*
 * Where make variables come from. LOOKUP returns a newly allocated value
 * (freed by the caller with mc_free()) when NAME is set in make by the
 * makefile or command line, or NULL when it is not.
 */
typedef char *(*mc_conf_lookup_fn)(const char *name, void *ctx);

/* The variable name (MAXCODE_MODE) of ID. */
const char *mc_conf_name(enum mc_setting_id id);

/* The option key (budget) of ID, or NULL for a global-only setting. */
const char *mc_conf_key(enum mc_setting_id id);

/* A one-line description of ID, for `maxcode config` and --help. */
const char *mc_conf_help(enum mc_setting_id id);

/* Whether ID holds a secret that must never be printed. */
int mc_conf_is_secret(enum mc_setting_id id);

/* The name of ORIGIN: "default", "user config", "project config", ... */
const char *mc_origin_name(enum mc_origin origin);

/*
 * Find a setting by variable name (MAXCODE_MIN_SPEEDUP) or, when KEYS_OK,
 * by option key or short name (min-speedup, min_speedup). Returns 0 and
 * sets *ID, or -1.
 */
int mc_conf_lookup(const char *name, int keys_ok, enum mc_setting_id *id);

/*
 * Set C to the built-in defaults. The default cache directory depends on
 * XDG_CACHE_HOME and HOME. Release with mc_conf_release().
 */
enum mc_code mc_conf_init(struct mc_conf *c, struct mc_err *err);

/* Make DST (not initialised) a deep copy of SRC. Release DST later. */
enum mc_code mc_conf_copy(struct mc_conf *dst, const struct mc_conf *src,
                          struct mc_err *err);

/* Free the contents of C. */
void mc_conf_release(struct mc_conf *c);

/* The value of ID; never NULL; owned by C. */
const char *mc_conf_get(const struct mc_conf *c, enum mc_setting_id id);

/* The origin of ID's value. */
enum mc_origin mc_conf_origin(const struct mc_conf *c,
                                enum mc_setting_id id);

/* Where ID's value came from, for humans ("./maxcode.conf:3"). */
const char *mc_conf_where(const struct mc_conf *c,
                            enum mc_setting_id id);

/*
 * Check VALUE for ID. On a bad value return MC_ECONFIG with a message in
 * ERR that starts with WHERE (if not NULL) and says what is expected.
 */
enum mc_code mc_conf_check(enum mc_setting_id id, const char *value,
                             const char *where, struct mc_err *err);

/*
 * Set ID to VALUE from ORIGIN (WHERE says exactly where, for humans; NULL
 * uses the origin's name). The value is checked first. It replaces the
 * current value only when ORIGIN is at least as high as the current one.
 */
enum mc_code mc_conf_set(struct mc_conf *c, enum mc_setting_id id,
                           const char *value, enum mc_origin origin,
                           const char *where, struct mc_err *err);

/*
 * Read a maxcode.conf at PATH as ORIGIN. A missing file is not an error.
 * A bad line gives MC_ECONFIG and "PATH:LINE: ..." in ERR.
 */
enum mc_code mc_conf_read_file(struct mc_conf *c, const char *path,
                                 enum mc_origin origin, struct mc_err *err);

/* Apply the MAXCODE_* environment variables (and the API key fallbacks
 * OPENAI_API_KEY / ANTHROPIC_API_KEY). */
enum mc_code mc_conf_read_env(struct mc_conf *c, struct mc_err *err);

/* Apply make variables through LOOKUP. */
enum mc_code mc_conf_read_make(struct mc_conf *c,
                                 mc_conf_lookup_fn lookup, void *ctx,
                                 struct mc_err *err);

/*
 * The standard load: defaults, the user file, ./maxcode.conf, the
 * environment and (if LOOKUP is not NULL) make variables. C must not be
 * initialised yet; on error it is released.
 */
enum mc_code mc_conf_load(struct mc_conf *c, mc_conf_lookup_fn lookup,
                            void *ctx, struct mc_err *err);

/* Parse a size with an optional K, M, G or T suffix (powers of 1024).
 * Returns 0 and sets *OUT, or -1. */
int mc_conf_parse_size(const char *s, unsigned long long *out);

/*
 * The names of the registries that choose a setting's values, which the
 * settings table checks strategy= and proposer= against. They are
 * declared here and defined by the registries themselves (strategy.c,
 * proposer.c: the search layer, above conf), so that conf names them
 * without including the layer above it (doc/ARCHITECTURE.md, "Layers").
 * The I-th name, NULL past the last; static storage.
 */
const char *mc_strategy_name(size_t i);
const char *mc_proposer_name(size_t i);

#endif /* MC_CONF_H */
