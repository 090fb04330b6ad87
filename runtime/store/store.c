/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * store.c: the registry of store backends (store.h), the choice of one
 * by MAXCODE_REMOTE's scheme, the attributes they share, and the calls
 * that count the bytes.
 */
#include "mc_setup.h"
#include "store.h"
#include "alloc.h"

/* The backends, each declared by its row and nowhere else. The first
 * whose scheme a MAXCODE_REMOTE value starts with takes it. */
extern const struct mc_store_ops mc_store_local, mc_store_http,
    mc_store_file;

static const struct mc_store_ops *const stores[] = {
    &mc_store_local,
    &mc_store_http,
    &mc_store_file,
};

#define N_STORES (sizeof(stores) / sizeof(stores[0]))

const struct mc_store_ops *
mc_store_find(const char *name)
{
    size_t i;

    for (i = 0; i < N_STORES; i++)
        if (!strcmp(stores[i]->name, name))
            return stores[i];
    return NULL;
}

/* The backend whose scheme SPEC starts with, or NULL. */
static const struct mc_store_ops *
by_scheme(const char *spec)
{
    size_t i, j;

    for (i = 0; i < N_STORES; i++)
        for (j = 0; stores[i]->schemes && stores[i]->schemes[j]; j++)
            if (!strncmp(spec, stores[i]->schemes[j],
                         strlen(stores[i]->schemes[j])))
                return stores[i];
    return NULL;
}

void
mc_store_schemes(char *out, size_t cap)
{
    const char *all[16];
    size_t i, j, n = 0, len = 0;

    for (i = 0; i < N_STORES; i++)
        for (j = 0; stores[i]->schemes && stores[i]->schemes[j]; j++)
            if (n < sizeof(all) / sizeof(all[0]))
                all[n++] = stores[i]->schemes[j];
    if (cap)
        out[0] = '\0';
    for (i = 0; i < n && len < cap; i++) {
        int k = snprintf(out + len, cap - len, "%s%s",
                         !i ? "" : i + 1 < n ? ", " : " or ", all[i]);

        if (k < 0)
            break;
        len += (size_t)k;
    }
}

/* Parse the attributes after the URL ("|read-only|layout=flat"). */
static enum mc_code
parse_attrs(struct mc_store *s, const char *p, struct mc_err *err)
{
    while (*p == '|') {
        const char *a = p + 1;
        size_t n = strcspn(a, "|");

        if (n == 9 && !strncmp(a, "read-only", 9))
            s->read_only = 1;
        else if (n == 11 && !strncmp(a, "layout=flat", 11))
            s->flat = 1;
        else if (n == 14 && !strncmp(a, "layout=subdirs", 14))
            s->flat = 0;
        else
            return mc_err_set(err, MC_ECONFIG, "MAXCODE_REMOTE: unknown "
                              "attribute '%.*s' (expected read-only, "
                              "layout=subdirs or layout=flat)", (int)n, a);
        p = a + n;
    }
    return MC_OK;
}

enum mc_code
mc_store_open(struct mc_store *s, const char *spec, const struct mc_conf *c,
              struct mc_err *err)
{
    const struct mc_store_ops *ops;
    size_t n = strcspn(spec, "|");
    char *where;
    enum mc_code rc;

    memset(s, 0, sizeof(*s));
    if (!*spec)
        return MC_ENOENT;
    ops = by_scheme(spec);
    if (!ops) {
        char schemes[160];

        mc_store_schemes(schemes, sizeof(schemes));
        return mc_err_set(err, MC_ECONFIG, "MAXCODE_REMOTE: '%.*s' is not "
                          "an %s URL", (int)n, spec, schemes);
    }
    while (n && spec[n - 1] == '/')
        n--;
    where = mc_strndup(spec, n);
    if (!where)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    rc = parse_attrs(s, spec + strcspn(spec, "|"), err);
    if (!rc) {
        s->ops = ops;
        rc = ops->open(s, where, c, err);
    }
    mc_free(where);
    return rc;
}

enum mc_code
mc_store_open_with(struct mc_store *s, const struct mc_store_ops *ops,
                   const char *where, const struct mc_conf *c,
                   struct mc_err *err)
{
    memset(s, 0, sizeof(*s));
    s->ops = ops;
    return ops->open(s, where, c, err);
}

enum mc_code
mc_store_get(struct mc_store *s, const char *key, struct mc_buf *out,
             struct mc_err *err)
{
    enum mc_code rc = s->ops->get(s, key, out, err);

    s->bytes_in += out->len;
    return rc;
}

enum mc_code
mc_store_put(struct mc_store *s, const char *key, const void *data,
             size_t len, struct mc_err *err)
{
    enum mc_code rc;

    if (s->read_only)
        return mc_err_set(err, MC_EINVAL, "the remote is read-only");
    rc = s->ops->put(s, key, data, len, err);
    if (!rc)
        s->bytes_out += len;
    return rc;
}

void
mc_store_describe(const struct mc_store *s, char *out, size_t cap)
{
    if (s->ops)
        s->ops->describe(s, out, cap);
    else if (cap)
        out[0] = '\0';
}

void
mc_store_close(struct mc_store *s)
{
    if (s->ops)
        s->ops->close(s);
    memset(s, 0, sizeof(*s));
}

enum mc_code
mc_store_object(const struct mc_store *s, const char *key, struct mc_buf *b)
{
    if (s->flat)
        mc_buf_adds(b, key);
    else
        mc_buf_addf(b, "%.2s/%s", key, key);
    return mc_buf_status(b);
}
