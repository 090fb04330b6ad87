/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * conf.c: the settings table, value checks, and the configuration layers
 * (defaults, user file, project file, environment, make, arguments).
 */
#include "mc_setup.h"
#include "conf.h"
#include "alloc.h"
#include "buf.h"
#include "log.h"

#include <ctype.h>
#include <math.h>

enum kind {
    K_STRING, /* any text */
    K_PATH,   /* non-empty text */
    K_ENUM,   /* one of CHOICES, or of a registry's names (below) */
    K_LIST,   /* a set drawn from CHOICES, joined by spaces, '+' or ',' */
    K_INT,    /* an integer in [MIN, MAX] */
    K_FLOAT,  /* a number >= MIN */
    K_SIZE,   /* a size: digits with an optional K/M/G/T suffix */
    K_URL,    /* text; a URL in it holds no user name or password */
    K_SECRET  /* any text, never shown */
};

struct def {
    const char *name;    /* MAXCODE_... */
    const char *key;     /* option key of $(maxcode ...), or NULL */
    enum kind kind;
    const char *dflt;    /* NULL: computed at init */
    const char *choices; /* K_ENUM, K_LIST: space-separated */
    double min, max;
    const char *help;
};

static const struct def defs[MC_SET__COUNT] = {
    [MC_SET_MODE] = {"MAXCODE_MODE", NULL, K_ENUM, "optimize",
                     "optimize cache verify refresh off", 0, 0,
                     "what $(maxcode ...) does on a hit and a miss"},
    [MC_SET_CACHE_DIR] = {"MAXCODE_CACHE_DIR", NULL, K_PATH, NULL, NULL, 0, 0,
                          "local cache directory"},
    [MC_SET_MAX_SIZE] = {"MAXCODE_MAX_SIZE", NULL, K_SIZE, "2G", NULL, 0, 0,
                         "local cache size before it is trimmed"},
    [MC_SET_REMOTE] = {"MAXCODE_REMOTE", NULL, K_URL, "", NULL, 0, 0,
                       "remote cache: a URL that a store backend takes "
                       "(store.h)[|read-only][|layout=flat]"},
    [MC_SET_COMPDB] = {"MAXCODE_COMPDB", NULL, K_STRING, "", NULL, 0, 0,
                       "compile_commands.json to take flags from"},
    [MC_SET_ROOT] = {"MAXCODE_ROOT", NULL, K_STRING, "", NULL, 0, 0,
                     "project root: paths in flags below it are keyed "
                     "relative to it"},
    [MC_SET_LLM_URL] = {"MAXCODE_LLM_URL", NULL, K_STRING, "", NULL, 0, 0,
                        "base URL of the model endpoint"},
    [MC_SET_LLM_API] = {"MAXCODE_LLM_API", NULL, K_ENUM, "openai",
                        "openai anthropic", 0, 0, "model endpoint protocol"},
    [MC_SET_MODEL] = {"MAXCODE_MODEL", NULL, K_STRING, "", NULL, 0, 0,
                      "model that proposes variants"},
    [MC_SET_CRITIC_MODEL] = {"MAXCODE_CRITIC_MODEL", NULL, K_STRING, "", NULL,
                             0, 0, "model that critiques (default: MODEL)"},
    [MC_SET_GVF_MODEL] = {"MAXCODE_GVF_MODEL", NULL, K_STRING, "", NULL, 0, 0,
                          "value model for strategy=gvf (default: MODEL)"},
    [MC_SET_GVF_URL] = {"MAXCODE_GVF_URL", NULL, K_STRING, "", NULL, 0, 0,
                        "served value model for strategy=gvf (OpenAI API)"},
    [MC_SET_GVF_API_KEY] = {"MAXCODE_GVF_API_KEY", NULL, K_SECRET, "", NULL,
                            0, 0, "value endpoint's API key (default: none)"},
    [MC_SET_API_KEY] = {"MAXCODE_API_KEY", NULL, K_SECRET, "", NULL, 0, 0,
                        "model API key (else OPENAI_/ANTHROPIC_API_KEY)"},
    [MC_SET_LLM_TIMEOUT] = {"MAXCODE_LLM_TIMEOUT", NULL, K_FLOAT, "300", NULL,
                            0.1, 0, "seconds for one model request attempt"},
    [MC_SET_LLM_CONNECT_TIMEOUT] = {"MAXCODE_LLM_CONNECT_TIMEOUT", NULL,
                                    K_FLOAT, "10", NULL, 0.1, 0,
                                    "seconds to connect to the endpoint"},
    [MC_SET_LLM_RETRIES] = {"MAXCODE_LLM_RETRIES", NULL, K_INT, "4", NULL, 0,
                            20, "retries of a failed model request"},
    [MC_SET_LLM_MAX_TOKENS] = {"MAXCODE_LLM_MAX_TOKENS", NULL, K_INT, "8192",
                               NULL, 16, 1000000,
                               "max_tokens of each model answer"},
    [MC_SET_LLM_TEMPERATURE] = {"MAXCODE_LLM_TEMPERATURE", NULL, K_FLOAT,
                                "0.6", NULL, 0, 0, "sampling temperature"},
    [MC_SET_PRICE_IN] = {"MAXCODE_PRICE_IN", NULL, K_FLOAT, "0", NULL, 0, 0,
                         "price per million input tokens"},
    [MC_SET_PRICE_OUT] = {"MAXCODE_PRICE_OUT", NULL, K_FLOAT, "0", NULL, 0, 0,
                          "price per million output tokens"},
    [MC_SET_LLM_RECORD] = {"MAXCODE_LLM_RECORD", NULL, K_STRING, "", NULL, 0,
                           0, "directory to record model exchanges in"},
    [MC_SET_LLM_REPLAY] = {"MAXCODE_LLM_REPLAY", NULL, K_STRING, "", NULL, 0,
                           0, "directory to replay model exchanges from"},
    [MC_SET_LLM_N] = {"MAXCODE_LLM_N", NULL, K_ENUM, "0", "0 1", 0, 0,
                      "1: a round's proposals as one request with n"},
    [MC_SET_STRICT] = {"MAXCODE_STRICT", NULL, K_ENUM, "0", "0 1", 0, 0,
                       "1: a failed search fails the build"},
    [MC_SET_LOG] = {"MAXCODE_LOG", NULL, K_ENUM, "normal",
                    "quiet normal verbose", 0, 0, "how much maxcode says"},
    [MC_SET_BUDGET] = {"MAXCODE_BUDGET", "budget", K_INT, "16", NULL, 1,
                       100000, "most candidates to evaluate per target"},
    [MC_SET_STRATEGY] = {"MAXCODE_STRATEGY", "strategy", K_ENUM, "cuda-llm",
                         NULL, 0, 0, "search strategy"},
    [MC_SET_PROPOSER] = {"MAXCODE_PROPOSER", "proposer", K_ENUM, "auto",
                         NULL, 0, 0, "who writes variants"},
    [MC_SET_METRIC] = {"MAXCODE_METRIC", "metric", K_ENUM, "time",
                       "time instructions", 0, 0, "what is minimised"},
    [MC_SET_MIN_SPEEDUP] = {"MAXCODE_MIN_SPEEDUP", "min-speedup", K_FLOAT,
                            "1.03", NULL, 1.0, 0,
                            "smallest confirmed speedup worth keeping"},
    [MC_SET_FIELDS] = {"MAXCODE_FIELDS", "fields", K_LIST,
                       "best+critique+traj", "best critique traj", 0, 0,
                       "policy-prompt fields"},
    [MC_SET_CRITIQUE] = {"MAXCODE_CRITIQUE", "critique", K_ENUM, "on",
                         "on off", 0, 0, "critic call per candidate"},
    [MC_SET_TIME_LIMIT] = {"MAXCODE_TIME_LIMIT", NULL, K_INT, "1800", NULL,
                           0, 1e9,
                           "seconds of search per target (0: no limit)"},
    [MC_SET_GAMMA] = {"MAXCODE_GAMMA", NULL, K_FLOAT, "1", NULL, 0.001, 1,
                      "discount of the best reward along a path (u)"},
    [MC_SET_TIMING_CAP] = {"MAXCODE_TIMING_CAP", NULL, K_FLOAT, "20", NULL,
                           0.1, 0,
                           "most seconds of A/B timing per candidate"},
    [MC_SET_REMOTE_TOKEN] = {"MAXCODE_REMOTE_TOKEN", NULL, K_SECRET, "", NULL,
                             0, 0, "bearer token for MAXCODE_REMOTE"},
    [MC_SET_REMOTE_TIMEOUT] = {"MAXCODE_REMOTE_TIMEOUT", NULL, K_FLOAT, "30",
                               NULL, 0.1, 0,
                               "seconds for one remote cache transfer"},
    [MC_SET_REMOTE_CONNECT_TIMEOUT] = {"MAXCODE_REMOTE_CONNECT_TIMEOUT", NULL,
                                       K_FLOAT, "2", NULL, 0.1, 0,
                                       "seconds to connect to the remote"},
    [MC_SET_REMOTE_INSECURE] = {"MAXCODE_REMOTE_INSECURE", NULL, K_ENUM, "0",
                                "0 1", 0, 0, "1: send the token over http:// "
                                "beyond the loopback"},
    [MC_SET_SIGNING_KEY] = {"MAXCODE_SIGNING_KEY", NULL, K_STRING, "", NULL,
                            0, 0, "secret key file: sign every entry "
                            "stored"},
    [MC_SET_TRUSTED_KEYS] = {"MAXCODE_TRUSTED_KEYS", NULL, K_STRING, "",
                             NULL, 0, 0, "public keys file: entries from "
                             "outside must be signed by one"},
    [MC_SET_COMPILER_CHECK] = {"MAXCODE_COMPILER_CHECK", NULL, K_STRING,
                               "content", NULL, 0, 0,
                               "compiler identity: mtime, content, none, "
                               "string:TEXT or a command"},
    [MC_SET_LAUNCHER] = {"MAXCODE_LAUNCHER", NULL, K_STRING, "", NULL, 0, 0,
                         "command prefix of the search recipes (srun ...)"},
    [MC_SET_TIMING_LOCK] = {"MAXCODE_TIMING_LOCK", NULL, K_STRING, "", NULL,
                            0, 0, "the machine's timing lock file (default: "
                            "/run/lock/maxcode-timing.lock)"},
    [MC_SET_TIMING_CPU] = {"MAXCODE_TIMING_CPU", NULL, K_STRING, "last", NULL,
                           0, 0, "the CPU timing runs are pinned to: last, "
                           "a number, or none"},
    [MC_SET_RUN_MEMORY] = {"MAXCODE_RUN_MEMORY", NULL, K_SIZE, "4G", NULL,
                           0, 0, "memory bound of each run of candidate "
                           "code (cgroup, else rlimits)"},
    [MC_SET_STATS] = {"MAXCODE_STATS", NULL, K_ENUM, "1", "0 1", 0, 0,
                      "0: this make run's calls add nothing to the "
                      "counters"},
};

/* The I-th name of a registry, NULL past the last. */
typedef const char *(*names_fn)(size_t i);

/* The K_ENUM settings whose choices are a registry's names, in its
 * order. Their CHOICES in defs[] are NULL. */
static const struct {
    enum mc_setting_id id;
    names_fn names;
} registry_names[] = {
    {MC_SET_STRATEGY, mc_strategy_name},
    {MC_SET_PROPOSER, mc_proposer_name},
};

static const char *const origin_names[] = {
    [MC_FROM_DEFAULT] = "default",
    [MC_FROM_USER] = "user config",
    [MC_FROM_PROJECT] = "project config",
    [MC_FROM_ENV] = "environment",
    [MC_FROM_MAKE] = "make variable",
    [MC_FROM_ARG] = "argument",
};

const char *
mc_conf_name(enum mc_setting_id id)
{
    return defs[id].name;
}

const char *
mc_conf_key(enum mc_setting_id id)
{
    return defs[id].key;
}

const char *
mc_conf_help(enum mc_setting_id id)
{
    return defs[id].help;
}

int
mc_conf_is_secret(enum mc_setting_id id)
{
    return defs[id].kind == K_SECRET;
}

const char *
mc_origin_name(enum mc_origin origin)
{
    return origin_names[origin];
}

/* Compare NAME with the short form of a variable name: "min-speedup" and
 * "min_speedup" match MAXCODE_MIN_SPEEDUP, case-insensitively. */
static int
short_name_matches(const char *name, const char *var)
{
    const char *s = var + strlen("MAXCODE_");

    for (; *name && *s; name++, s++) {
        char a = *name == '-' ? '_' : (char)toupper((unsigned char)*name);
        if (a != *s)
            return 0;
    }
    return !*name && !*s;
}

int
mc_conf_lookup(const char *name, int keys_ok, enum mc_setting_id *id)
{
    size_t i;

    for (i = 0; i < MC_SET__COUNT; i++) {
        if (!strcmp(name, defs[i].name) ||
            (keys_ok && short_name_matches(name, defs[i].name))) {
            *id = (enum mc_setting_id)i;
            return 0;
        }
    }
    return -1;
}

/* Is WORD (of length LEN) one of the space-separated CHOICES? */
static int
is_choice(const char *choices, const char *word, size_t len)
{
    const char *p = choices;

    while (*p) {
        size_t n = strcspn(p, " ");
        if (n == len && !strncmp(p, word, len))
            return 1;
        p += n;
        p += strspn(p, " ");
    }
    return 0;
}

/* The registry that names the choices of setting ID, or NULL. */
static names_fn
names_of(enum mc_setting_id id)
{
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(registry_names); i++)
        if (registry_names[i].id == id)
            return registry_names[i].names;
    return NULL;
}

/* Is WORD (of length LEN) one of setting ID's choices? */
static int
is_choice_of(enum mc_setting_id id, const char *word, size_t len)
{
    names_fn names = names_of(id);
    const char *name;
    size_t i;

    if (!names)
        return is_choice(defs[id].choices, word, len);
    for (i = 0; (name = names(i)) != NULL; i++)
        if (strlen(name) == len && !strncmp(name, word, len))
            return 1;
    return 0;
}

/* Setting ID's choices, space-separated: static storage, or BUF of SIZE
 * bytes (cut to fit). */
static const char *
choices_of(enum mc_setting_id id, char *buf, size_t size)
{
    names_fn names = names_of(id);
    const char *name;
    size_t i, len = 0;

    if (!names)
        return defs[id].choices;
    buf[0] = '\0';
    for (i = 0; (name = names(i)) != NULL && len < size; i++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? " " : "",
                                name);
    return buf;
}

int
mc_conf_parse_size(const char *s, unsigned long long *out)
{
    unsigned long long v, mult = 1;
    char *end;

    if (!isdigit((unsigned char)*s))
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno)
        return -1;
    switch (toupper((unsigned char)*end)) {
    case '\0':
        break;
    case 'K':
        mult = 1ULL << 10;
        break;
    case 'M':
        mult = 1ULL << 20;
        break;
    case 'G':
        mult = 1ULL << 30;
        break;
    case 'T':
        mult = 1ULL << 40;
        break;
    default:
        return -1;
    }
    if (*end) {
        end++;
        if (toupper((unsigned char)*end) == 'B' ||
            (toupper((unsigned char)*end) == 'I' &&
             toupper((unsigned char)end[1]) == 'B'))
            end += toupper((unsigned char)*end) == 'B' ? 1 : 2;
        if (*end)
            return -1;
    }
    if (v > ULLONG_MAX / mult)
        return -1;
    *out = v * mult;
    return 0;
}

/*
 * A URL (the text up to the first '|') whose authority, between "://"
 * and the path, holds a user name or password ("user:pw@host") is
 * refused: a setting is shown by `maxcode config` and, from make, put on
 * the recipe's command line (make -n, ps). The message shows the URL
 * with "***" for them.
 */
static enum mc_code
check_url(const struct def *d, const char *value, const char *where,
          struct mc_err *err)
{
    const char *auth = strstr(value, "://"), *at = NULL;
    size_t n, i;

    if (!auth || auth > value + strcspn(value, "|"))
        return MC_OK;
    auth += 3;
    n = strcspn(auth, "/?#|");
    for (i = 0; i < n; i++)
        if (auth[i] == '@')
            at = auth + i;
    if (!at)
        return MC_OK;
    return mc_err_set(err, MC_ECONFIG, "%s%s%s=%.*s***%.*s: a user name or "
                      "password in the URL is refused (make -n, ps and "
                      "`maxcode config` would show it); put a bearer token "
                      "in MAXCODE_REMOTE_TOKEN instead",
                      where ? where : "", where ? ": " : "", d->name,
                      (int)(auth - value), value,
                      (int)(auth + n - at), at);
}

static enum mc_code
bad_value(const struct def *d, const char *value, const char *where,
          const char *expected, struct mc_err *err)
{
    return mc_err_set(err, MC_ECONFIG, "%s%s%s=%s: expected %s",
                      where ? where : "", where ? ": " : "", d->name,
                      d->kind == K_SECRET ? "***" : value, expected);
}

enum mc_code
mc_conf_check(enum mc_setting_id id, const char *value, const char *where,
              struct mc_err *err)
{
    const struct def *d = &defs[id];
    char expected[160], list[128];
    unsigned long long size;
    char *end;

    switch (d->kind) {
    case K_STRING:
    case K_SECRET:
        return MC_OK;
    case K_URL:
        return check_url(d, value, where, err);
    case K_PATH:
        if (!*value)
            return bad_value(d, value, where, "a non-empty path", err);
        return MC_OK;
    case K_ENUM:
        if (!is_choice_of(id, value, strlen(value))) {
            snprintf(expected, sizeof(expected), "one of: %s",
                     choices_of(id, list, sizeof(list)));
            return bad_value(d, value, where, expected, err);
        }
        return MC_OK;
    case K_LIST: {
        const char *p = value;
        snprintf(expected, sizeof(expected),
                 "some of '%s', separated by '+', ',' or spaces",
                 d->choices);
        p += strspn(p, " +,");
        if (!*p)
            return bad_value(d, value, where, expected, err);
        while (*p) {
            size_t n = strcspn(p, " +,");
            if (!is_choice(d->choices, p, n))
                return bad_value(d, value, where, expected, err);
            p += n;
            p += strspn(p, " +,");
        }
        return MC_OK;
    }
    case K_INT: {
        long long v;
        errno = 0;
        v = strtoll(value, &end, 10);
        if (errno || end == value || *end || v < (long long)d->min ||
            v > (long long)d->max) {
            snprintf(expected, sizeof(expected),
                     "a whole number from %.0f to %.0f", d->min, d->max);
            return bad_value(d, value, where, expected, err);
        }
        return MC_OK;
    }
    case K_FLOAT: {
        double v;
        errno = 0;
        v = strtod(value, &end);
        if (errno || end == value || *end || !isfinite(v) || v < d->min ||
            (d->max > 0 && v > d->max)) {
            if (d->max > 0)
                snprintf(expected, sizeof(expected), "a number from %g to "
                         "%g", d->min, d->max);
            else
                snprintf(expected, sizeof(expected), "a number >= %g",
                         d->min);
            return bad_value(d, value, where, expected, err);
        }
        return MC_OK;
    }
    case K_SIZE:
        if (mc_conf_parse_size(value, &size))
            return bad_value(d, value, where,
                             "a size such as 500M or 2G", err);
        return MC_OK;
    }
    return mc_err_set(err, MC_EINTERNAL, "setting %s has no kind", d->name);
}

static enum mc_code
store(struct mc_setting *s, const char *value, enum mc_origin origin,
      const char *where, struct mc_err *err)
{
    char *v = mc_strdup(value);
    char *w = mc_strdup(where ? where : origin_names[origin]);

    if (!v || !w) {
        mc_free(v);
        mc_free(w);
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    }
    if (!s->in_block) {
        mc_free(s->value);
        mc_free(s->where);
    }
    s->value = v;
    s->where = w;
    s->in_block = 0;
    s->origin = origin;
    return MC_OK;
}

enum mc_code
mc_conf_set(struct mc_conf *c, enum mc_setting_id id, const char *value,
            enum mc_origin origin, const char *where, struct mc_err *err)
{
    enum mc_code rc = mc_conf_check(id, value, where, err);

    if (rc)
        return rc;
    if (c->v[id].value && origin < c->v[id].origin)
        return MC_OK;
    if (defs[id].kind == K_SECRET)
        mc_log_add_secret(value); /* masked in logs, kept from children */
    return store(&c->v[id], value, origin, where, err);
}

const char *
mc_conf_get(const struct mc_conf *c, enum mc_setting_id id)
{
    return c->v[id].value;
}

enum mc_origin
mc_conf_origin(const struct mc_conf *c, enum mc_setting_id id)
{
    return c->v[id].origin;
}

const char *
mc_conf_where(const struct mc_conf *c, enum mc_setting_id id)
{
    return c->v[id].where;
}

/* $XDG_CACHE_HOME/maxcode, else $HOME/.cache/maxcode, else a path under
 * /tmp that names the user. The caller frees the result. */
static char *
default_cache_dir(void)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    struct mc_buf b = MC_BUF_INIT;

    if (xdg && *xdg == '/')
        mc_buf_addf(&b, "%s/maxcode", xdg);
    else if (home && *home)
        mc_buf_addf(&b, "%s/.cache/maxcode", home);
    else
        mc_buf_addf(&b, "/tmp/maxcode-%lu", (unsigned long)getuid());
    return mc_buf_detach(&b, NULL);
}

enum mc_code
mc_conf_init(struct mc_conf *c, struct mc_err *err)
{
    enum mc_code rc = MC_OK;
    char *cache_dir = NULL;
    size_t i;

    memset(c, 0, sizeof(*c));
    cache_dir = default_cache_dir();
    if (!cache_dir) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    for (i = 0; i < MC_SET__COUNT && !rc; i++) {
        const char *v = defs[i].dflt ? defs[i].dflt : cache_dir;
        rc = store(&c->v[i], v, MC_FROM_DEFAULT, NULL, err);
    }
out:
    mc_free(cache_dir);
    if (rc)
        mc_conf_release(c);
    return rc;
}

enum mc_code
mc_conf_copy(struct mc_conf *dst, const struct mc_conf *src,
             struct mc_err *err)
{
    enum mc_code rc = MC_OK;
    size_t i, total = 0, n;
    char *p;

    memset(dst, 0, sizeof(*dst));
    /* Every string in one block; a setting without a value (a conf not
     * set up) goes through store() as it did. */
    for (i = 0; i < MC_SET__COUNT; i++)
        if (src->v[i].value)
            total += strlen(src->v[i].value) + 1 +
                     strlen(src->v[i].where ? src->v[i].where
                                            : origin_names[src->v[i].origin])
                     + 1;
    if (total && !(dst->block = mc_malloc(total)))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    p = dst->block;
    for (i = 0; i < MC_SET__COUNT && !rc; i++) {
        const struct mc_setting *s = &src->v[i];
        const char *where = s->where ? s->where : origin_names[s->origin];

        if (!s->value) {
            rc = store(&dst->v[i], s->value, s->origin, s->where, err);
            continue;
        }
        n = strlen(s->value) + 1;
        dst->v[i].value = memcpy(p, s->value, n);
        p += n;
        n = strlen(where) + 1;
        dst->v[i].where = memcpy(p, where, n);
        p += n;
        dst->v[i].origin = s->origin;
        dst->v[i].in_block = 1;
    }
    if (rc)
        mc_conf_release(dst);
    return rc;
}

void
mc_conf_release(struct mc_conf *c)
{
    size_t i;

    for (i = 0; i < MC_SET__COUNT; i++) {
        if (!c->v[i].in_block) {
            mc_free(c->v[i].value);
            mc_free(c->v[i].where);
        }
        c->v[i].value = NULL;
        c->v[i].where = NULL;
        c->v[i].in_block = 0;
        c->v[i].origin = MC_FROM_DEFAULT;
    }
    mc_free(c->block);
    c->block = NULL;
}

static char *
trim(char *s)
{
    char *e;

    while (isspace((unsigned char)*s))
        s++;
    e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

/* Parse one maxcode.conf line (already stripped of its newline). */
static enum mc_code
parse_line(struct mc_conf *c, char *line, const char *where,
           enum mc_origin origin, struct mc_err *err)
{
    char *eq, *name, *value;
    enum mc_setting_id id;
    size_t n;

    line = trim(line);
    if (!*line || *line == '#')
        return MC_OK;
    eq = strchr(line, '=');
    if (!eq)
        return mc_err_set(err, MC_ECONFIG,
                          "%s: expected 'KEY = VALUE', got '%.60s'", where,
                          line);
    *eq = '\0';
    name = trim(line);
    value = trim(eq + 1);
    n = strlen(value);
    if (n >= 2 && value[0] == '"' && value[n - 1] == '"') {
        value[n - 1] = '\0';
        value++;
    }
    if (!*name)
        return mc_err_set(err, MC_ECONFIG, "%s: missing setting name before "
                          "'='", where);
    if (mc_conf_lookup(name, 1, &id))
        return mc_err_set(err, MC_ECONFIG,
                          "%s: unknown setting '%.60s' (see `maxcode "
                          "config` for the list)", where, name);
    return mc_conf_set(c, id, value, origin, where, err);
}

enum mc_code
mc_conf_read_file(struct mc_conf *c, const char *path, enum mc_origin origin,
                  struct mc_err *err)
{
    enum mc_code rc = MC_OK;
    char *line = NULL;
    size_t cap = 0;
    unsigned long lineno = 0;
    ssize_t n;
    FILE *f;

    f = fopen(path, "r");
    if (!f) {
        if (errno == ENOENT || errno == ENOTDIR)
            return MC_OK;
        return mc_err_set(err, MC_EIO, "cannot open '%s': %s", path,
                          strerror(errno));
    }
    while ((n = getline(&line, &cap, f)) >= 0) {
        char where[PATH_MAX + 32];

        lineno++;
        if (n > 0 && line[n - 1] == '\n')
            line[--n] = '\0';
        snprintf(where, sizeof(where), "%s:%lu", path, lineno);
        if (strlen(line) != (size_t)n) {
            rc = mc_err_set(err, MC_ECONFIG, "%s: NUL byte in line", where);
            goto out;
        }
        rc = parse_line(c, line, where, origin, err);
        if (rc)
            goto out;
    }
    if (ferror(f))
        rc = mc_err_set(err, MC_EIO, "cannot read '%s': %s", path,
                        strerror(errno));
out:
    free(line); /* from getline(), not mc_malloc() */
    fclose(f);
    return rc;
}

enum mc_code
mc_conf_read_env(struct mc_conf *c, struct mc_err *err)
{
    enum mc_code rc = MC_OK;
    const char *v;
    size_t i;

    for (i = 0; i < MC_SET__COUNT && !rc; i++) {
        v = getenv(defs[i].name);
        if (v)
            rc = mc_conf_set(c, (enum mc_setting_id)i, v, MC_FROM_ENV,
                             "environment", err);
    }
    if (rc || c->v[MC_SET_API_KEY].origin != MC_FROM_DEFAULT)
        return rc;
    /* The vendor's own variable, when MAXCODE_API_KEY is set nowhere
     * (a configuration file's key wins over it). */
    {
        int anthropic = !strcmp(c->v[MC_SET_LLM_API].value, "anthropic");
        const char *first = anthropic ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY";
        const char *second = anthropic ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY";
        char where[64];

        if ((v = getenv(first)) == NULL || !*v)
            first = second;
        if ((v = getenv(first)) != NULL && *v) {
            snprintf(where, sizeof(where), "environment (%s)", first);
            rc = mc_conf_set(c, MC_SET_API_KEY, v, MC_FROM_ENV, where, err);
        }
    }
    return rc;
}

enum mc_code
mc_conf_read_make(struct mc_conf *c, mc_conf_lookup_fn lookup, void *ctx,
                  struct mc_err *err)
{
    enum mc_code rc = MC_OK;
    size_t i;

    for (i = 0; i < MC_SET__COUNT && !rc; i++) {
        char *v = lookup(defs[i].name, ctx);
        char where[64];

        if (!v)
            continue;
        snprintf(where, sizeof(where), "make variable %s", defs[i].name);
        rc = mc_conf_set(c, (enum mc_setting_id)i, v, MC_FROM_MAKE, where,
                         err);
        mc_free(v);
    }
    return rc;
}

/* The user config file: $XDG_CONFIG_HOME/maxcode/maxcode.conf, else
 * $HOME/.config/maxcode/maxcode.conf; NULL when neither is known. */
static char *
user_conf_path(void)
{
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    struct mc_buf b = MC_BUF_INIT;

    if (xdg && *xdg == '/')
        mc_buf_addf(&b, "%s/maxcode/maxcode.conf", xdg);
    else if (home && *home)
        mc_buf_addf(&b, "%s/.config/maxcode/maxcode.conf", home);
    else
        return NULL;
    return mc_buf_detach(&b, NULL);
}

enum mc_code
mc_conf_load(struct mc_conf *c, mc_conf_lookup_fn lookup, void *ctx,
             struct mc_err *err)
{
    enum mc_code rc;
    char *user = NULL;

    rc = mc_conf_init(c, err);
    if (rc)
        return rc;
    user = user_conf_path();
    if (user)
        rc = mc_conf_read_file(c, user, MC_FROM_USER, err);
    if (!rc)
        rc = mc_conf_read_file(c, "maxcode.conf", MC_FROM_PROJECT, err);
    if (!rc)
        rc = mc_conf_read_env(c, err);
    if (!rc && lookup)
        rc = mc_conf_read_make(c, lookup, ctx, err);
    mc_free(user);
    if (rc)
        mc_conf_release(c);
    return rc;
}
