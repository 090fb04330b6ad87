/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * share.c: the copy of an entry that leaves this machine, its manifest
 * without the absolute paths of make's directory (share.h says what is
 * rewritten and why).
 */
#include "mc_setup.h"
#include "share.h"
#include "alloc.h"
#include "cache.h"
#include "paths.h"
#include "sign.h"

#include <cjson/cJSON.h>

/* Whether C separates words a path may start after ("-I/x" starts one
 * after its option letters, "a=/x" after '='). */
static int
is_sep(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '=' || c == ':' ||
           c == ',' || c == ';' || c == '"' || c == '\'' || c == '(' ||
           c == ')';
}

/* Whether an absolute path starts at S + I: no '/' between it and the
 * separator before it ("/x/home/u" holds "/home/u", yet not as a path). */
static int
path_starts(const char *s, size_t i)
{
    for (; i > 0 && !is_sep(s[i - 1]); i--)
        if (s[i - 1] == '/')
            return 0;
    return 1;
}

/* S with each path inside DIR (DLEN bytes, absolute, no trailing '/')
 * made relative to it, into B (emptied first): "DIR/a" is "a", DIR
 * itself ".". 1 when anything changed. */
static int
relative_in(const char *s, const char *dir, size_t dlen, struct mc_buf *b)
{
    size_t i = 0, j;
    int changed = 0;

    mc_buf_reset(b);
    while (s[i]) {
        if (!strncmp(s + i, dir, dlen) &&
            (s[i + dlen] == '/' || !s[i + dlen] || is_sep(s[i + dlen])) &&
            path_starts(s, i)) {
            for (j = i + dlen; s[j] == '/'; j++)
                ;
            if (!s[j] || is_sep(s[j]))
                mc_buf_addc(b, '.');
            i = j;
            changed = 1;
            continue;
        }
        mc_buf_addc(b, s[i++]);
    }
    return changed;
}

/* Every string under NODE with relative_in(); *CHANGED set when one
 * changed. */
static enum mc_code
walk(cJSON *node, const char *dir, size_t dlen, struct mc_buf *b,
     int *changed)
{
    cJSON *c;

    if (cJSON_IsString(node) && node->valuestring) {
        if (!relative_in(node->valuestring, dir, dlen, b))
            return MC_OK;
        /* Never longer than before: set in place. */
        if (mc_buf_status(b) || !cJSON_SetValuestring(node, b->s))
            return MC_ENOMEM;
        *changed = 1;
        return MC_OK;
    }
    cJSON_ArrayForEach(c, node)
    {
        if (walk(c, dir, dlen, b, changed))
            return MC_ENOMEM;
    }
    return MC_OK;
}

/* Make's directory as the manifest tells it: SOURCE_PATH (absolute)
 * with SOURCE (relative) taken off its end, else SOURCE_PATH's own
 * directory. The caller frees it; NULL when out of memory. */
static char *
manifest_make_dir(const char *source, const char *sp)
{
    size_t ls = strlen(source), lr = strlen(sp);
    const char *slash = strrchr(sp, '/');

    if (source[0] != '/' && lr > ls + 1 && sp[lr - ls - 1] == '/' &&
        !strcmp(sp + lr - ls, source) && !strstr(source, "../"))
        return mc_strndup(sp, lr - ls - 1);
    return mc_strndup(sp, slash == sp ? 1 : (size_t)(slash - sp));
}

/* SP (absolute) relative to DIR, into B. */
static enum mc_code
relative_source(const char *dir, const char *sp, struct mc_buf *b)
{
    const char *base = strrchr(sp, '/') + 1;
    size_t n = base - 1 == sp ? 1 : (size_t)(base - 1 - sp);
    char *parent = mc_strndup(sp, n);
    char *rel = parent ? mc_path_relative(dir, parent) : NULL;

    mc_buf_reset(b);
    if (rel && strcmp(rel, "."))
        mc_buf_addf(b, "%s/", rel);
    mc_buf_adds(b, base);
    mc_free(parent);
    mc_free(rel);
    return rel ? mc_buf_status(b) : MC_ENOMEM;
}

/* M's paths inside make's directory made relative (share.h). */
static enum mc_code
rewrite(cJSON *m, const char *make_dir, int *changed)
{
    cJSON *sp = cJSON_GetObjectItemCaseSensitive(m, "source_path");
    cJSON *src = cJSON_GetObjectItemCaseSensitive(m, "source");
    struct mc_buf b = MC_BUF_INIT;
    enum mc_code rc = MC_OK;
    char *dir = NULL;
    size_t dlen;

    if (!cJSON_IsString(sp) || sp->valuestring[0] != '/')
        return MC_OK; /* none, or relative already (a pulled entry) */
    dir = make_dir && make_dir[0] == '/'
              ? mc_strdup(make_dir)
              : manifest_make_dir(cJSON_IsString(src) ? src->valuestring
                                                      : "",
                                  sp->valuestring);
    if (!dir)
        return MC_ENOMEM;
    dlen = strlen(dir);
    while (dlen > 1 && dir[dlen - 1] == '/')
        dir[--dlen] = '\0';
    rc = relative_source(dir, sp->valuestring, &b);
    if (!rc && !cJSON_ReplaceItemInObjectCaseSensitive(
                   m, "source_path", cJSON_CreateString(b.s)))
        rc = MC_ENOMEM;
    if (!rc)
        *changed = 1;
    if (!rc && dlen > 1)
        rc = walk(m, dir, dlen, &b, changed);
    mc_buf_release(&b);
    mc_free(dir);
    return rc;
}

enum mc_code
mc_share_entry(const void *data, size_t len, const char *make_dir,
               const struct mc_sign_keys *keys, struct mc_buf *out,
               int *changed, struct mc_err *err)
{
    struct mc_entry e;
    enum mc_code rc;
    cJSON *m = NULL;
    char *text = NULL;

    *changed = 0;
    mc_buf_reset(out);
    mc_entry_init(&e);
    rc = mc_entry_decode(data, len, &e, err);
    if (rc)
        goto out;
    m = cJSON_ParseWithLength(e.manifest.s, e.manifest.len);
    if (!cJSON_IsObject(m))
        goto out; /* no manifest to rewrite: the entry goes as it is */
    rc = rewrite(m, make_dir, changed);
    if (!rc && *changed) {
        text = cJSON_Print(m);
        mc_buf_reset(&e.manifest);
        if (!text || mc_buf_adds(&e.manifest, text) ||
            mc_entry_encode(&e, out))
            rc = MC_ENOMEM;
    }
    if (rc)
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    else if (*changed && keys && keys->can_sign)
        rc = mc_entry_sign(out, keys, err);
out:
    if (rc || !*changed) {
        *changed = 0;
        mc_buf_reset(out);
    }
    cJSON_free(text);
    cJSON_Delete(m);
    mc_entry_release(&e);
    return rc;
}
