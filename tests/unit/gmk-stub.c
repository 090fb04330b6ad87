/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gmk-stub.c: the gmk_* stub. It implements just enough of make's
 * behaviour for the plugin: simple variable assignment with ':=' (the
 * plugin's error path sets MAXCODE__ERROR that way, with '$$' and '\#'
 * escapes) and $(error $(VAR)).
 */
#include "mc_setup.h"
#include "gmk-stub.h"

#define MAX_FUNCS 32
#define MAX_VARS  64

struct var {
    char *name, *value, *origin;
};

static struct stub_function funcs[MAX_FUNCS];
static size_t n_funcs;
static struct var vars[MAX_VARS];
static char evaluated[8192];
static char error_text[1024];
static int have_error;
static long live;

static struct var *
find_var(const char *name)
{
    size_t i;

    for (i = 0; i < MAX_VARS; i++)
        if (vars[i].name && !strcmp(vars[i].name, name))
            return &vars[i];
    return NULL;
}

void
stub_set_var(const char *name, const char *value, const char *origin)
{
    struct var *v = find_var(name);
    size_t i;

    if (!v) {
        if (!value)
            return;
        for (i = 0; i < MAX_VARS && vars[i].name; i++)
            ;
        if (i == MAX_VARS)
            abort();
        v = &vars[i];
        v->name = strdup(name);
    }
    free(v->value);
    free(v->origin);
    v->value = v->origin = NULL;
    if (!value) {
        free(v->name);
        v->name = NULL;
        return;
    }
    v->value = strdup(value);
    v->origin = strdup(origin);
}

void
stub_reset(void)
{
    size_t i;

    for (i = 0; i < MAX_VARS; i++)
        if (vars[i].name)
            stub_set_var(vars[i].name, NULL, NULL);
    evaluated[0] = '\0';
    error_text[0] = '\0';
    have_error = 0;
}

const struct stub_function *
stub_function(const char *name)
{
    size_t i;

    for (i = 0; i < n_funcs; i++)
        if (!strcmp(funcs[i].name, name))
            return &funcs[i];
    return NULL;
}

char *
stub_call(const char *name, unsigned int argc, char **argv)
{
    const struct stub_function *f = stub_function(name);

    if (!f)
        return NULL;
    return f->fn(name, argc, argv);
}

const char *
stub_evaluated(void)
{
    return evaluated;
}

const char *
stub_error(void)
{
    return have_error ? error_text : NULL;
}

long
stub_live_allocs(void)
{
    return live;
}

/* ---- the gmk_* API ---- */

void
gmk_add_function(const char *name, gmk_func_ptr func, unsigned int min_args,
                 unsigned int max_args, unsigned int flags)
{
    if (n_funcs == MAX_FUNCS)
        abort();
    funcs[n_funcs].name = name;
    funcs[n_funcs].fn = func;
    funcs[n_funcs].min_args = min_args;
    funcs[n_funcs].max_args = max_args;
    funcs[n_funcs].flags = flags;
    n_funcs++;
}

char *
gmk_alloc(unsigned int len)
{
    live++;
    return malloc(len);
}

void
gmk_free(char *s)
{
    if (s)
        live--;
    free(s);
}

/* Undo the plugin's escapes for a ':=' value: '$$' -> '$', '\#' -> '#'. */
static void
unescape(const char *in, char *out, size_t cap)
{
    size_t n = 0;

    for (; *in && n + 1 < cap; in++) {
        if ((in[0] == '$' && in[1] == '$') ||
            (in[0] == '\\' && in[1] == '#'))
            in++;
        out[n++] = *in;
    }
    out[n] = '\0';
}

void
gmk_eval(const char *buffer, const gmk_floc *floc)
{
    const char *p;

    (void)floc;
    strncat(evaluated, buffer, sizeof(evaluated) - strlen(evaluated) - 2);
    strcat(evaluated, "\n");
    p = strstr(buffer, " := ");
    if (p && !strchr(buffer, '\n') && buffer[0] != '$') {
        char name[128], value[1024];
        size_t n = (size_t)(p - buffer);

        if (n >= sizeof(name))
            abort();
        memcpy(name, buffer, n);
        name[n] = '\0';
        unescape(p + 4, value, sizeof(value));
        stub_set_var(name, value, "file");
        return;
    }
    if (!strncmp(buffer, "$(error $(", 10)) {
        char name[128];
        struct var *v;
        size_t n = strcspn(buffer + 10, ")");

        if (n >= sizeof(name))
            abort();
        memcpy(name, buffer + 10, n);
        name[n] = '\0';
        v = find_var(name);
        snprintf(error_text, sizeof(error_text), "%s", v ? v->value : "");
        have_error = 1;
    }
}

static char *
dup_make(const char *s)
{
    size_t n = strlen(s);
    char *r = gmk_alloc((unsigned int)n + 1);

    memcpy(r, s, n + 1);
    return r;
}

char *
gmk_expand(const char *str)
{
    char name[128];
    struct var *v;
    size_t n;

    if (!strncmp(str, "$(origin ", 9)) {
        n = strcspn(str + 9, ")");
        if (n >= sizeof(name))
            abort();
        memcpy(name, str + 9, n);
        name[n] = '\0';
        v = find_var(name);
        return dup_make(v ? v->origin : "undefined");
    }
    if (!strncmp(str, "$(", 2)) {
        n = strcspn(str + 2, ")");
        if (n >= sizeof(name))
            abort();
        memcpy(name, str + 2, n);
        name[n] = '\0';
        v = find_var(name);
        return dup_make(v ? v->value : "");
    }
    return dup_make(str);
}
