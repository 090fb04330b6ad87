/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * strv.c: string vectors, and shell quoting and splitting.
 */
#include "mc_setup.h"
#include "strv.h"
#include "alloc.h"
#include "buf.h"

void
mc_strv_init(struct mc_strv *sv)
{
    sv->v = NULL;
    sv->n = 0;
    sv->cap = 0;
    sv->oom = 0;
}

void
mc_strv_release(struct mc_strv *sv)
{
    size_t i;

    for (i = 0; i < sv->n; i++)
        mc_free(sv->v[i]);
    mc_free(sv->v);
    mc_strv_init(sv);
}

enum mc_code
mc_strv_status(const struct mc_strv *sv)
{
    return sv->oom ? MC_ENOMEM : MC_OK;
}

enum mc_code
mc_strv_push_owned(struct mc_strv *sv, char *s)
{
    if (!s || sv->oom)
        goto fail;
    if (sv->n + 2 > sv->cap) {
        size_t cap = sv->cap ? sv->cap * 2 : 8;
        char **v = cap <= SIZE_MAX / sizeof(*v)
                       ? mc_realloc(sv->v, cap * sizeof(*v))
                       : NULL;

        if (!v)
            goto fail;
        sv->v = v;
        sv->cap = cap;
    }
    sv->v[sv->n++] = s;
    sv->v[sv->n] = NULL;
    return MC_OK;
fail:
    mc_free(s);
    sv->oom = 1;
    return MC_ENOMEM;
}

enum mc_code
mc_strv_push(struct mc_strv *sv, const char *s)
{
    return mc_strv_push_owned(sv, mc_strdup(s));
}

enum mc_code
mc_strv_pushn(struct mc_strv *sv, const char *s, size_t len)
{
    return mc_strv_push_owned(sv, mc_strndup(s, len));
}

enum mc_code
mc_strv_extend(struct mc_strv *sv, const struct mc_strv *other)
{
    size_t i;

    for (i = 0; i < other->n; i++)
        if (mc_strv_push(sv, other->v[i]))
            return MC_ENOMEM;
    return MC_OK;
}

int
mc_strv_contains(const struct mc_strv *sv, const char *s)
{
    size_t i;

    for (i = 0; i < sv->n; i++)
        if (!strcmp(sv->v[i], s))
            return 1;
    return 0;
}

enum mc_code
mc_shell_quote(struct mc_buf *b, const char *s)
{
    const char *p;

    if (*s && strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                        "0123456789_-+=/.,:@%") == strlen(s))
        return mc_buf_adds(b, s);
    mc_buf_addc(b, '\'');
    for (p = s; *p; p++) {
        if (*p == '\'')
            mc_buf_adds(b, "'\\''");
        else
            mc_buf_addc(b, *p);
    }
    return mc_buf_addc(b, '\'');
}

enum mc_code
mc_strv_join_shell(const struct mc_strv *sv, struct mc_buf *b)
{
    size_t i;

    for (i = 0; i < sv->n; i++) {
        if (i)
            mc_buf_addc(b, ' ');
        mc_shell_quote(b, sv->v[i]);
    }
    return mc_buf_status(b);
}

enum mc_code
mc_shell_split(const char *command, struct mc_strv *out, struct mc_err *err)
{
    struct mc_buf w = MC_BUF_INIT;
    enum mc_code rc = MC_OK;
    const char *p = command;
    int in_word = 0;

    for (;;) {
        char c = *p;
        size_t plain;

        /* A word without quotes or backslashes, the usual flag ("-O2"),
         * is pushed as it is, not built a character at a time. */
        if (!in_word && (plain = strcspn(p, " \t\n'\"\\")) > 0 &&
            (!p[plain] || strchr(" \t\n", p[plain]))) {
            if ((rc = mc_strv_pushn(out, p, plain)))
                goto oom;
            p += plain;
            continue;
        }
        if (c == '\0' || c == ' ' || c == '\t' || c == '\n') {
            if (in_word) {
                rc = mc_strv_pushn(out, w.s, w.len);
                if (rc)
                    goto oom;
                mc_buf_reset(&w);
                in_word = 0;
            }
            if (!c)
                break;
            p++;
            continue;
        }
        in_word = 1;
        if (c == '\'') {
            const char *end = strchr(p + 1, '\'');
            if (!end) {
                rc = mc_err_set(err, MC_ESYNTAX,
                                "unterminated ' in '%.80s'", command);
                goto out;
            }
            mc_buf_add(&w, p + 1, (size_t)(end - p - 1));
            p = end + 1;
        } else if (c == '"') {
            for (p++; *p && *p != '"'; p++) {
                if (*p == '\\' && p[1] && strchr("\\\"$`\n", p[1]))
                    p++;
                mc_buf_addc(&w, *p);
            }
            if (!*p) {
                rc = mc_err_set(err, MC_ESYNTAX,
                                "unterminated \" in '%.80s'", command);
                goto out;
            }
            p++;
        } else if (c == '\\' && p[1]) {
            mc_buf_addc(&w, p[1]);
            p += 2;
        } else {
            mc_buf_addc(&w, c);
            p++;
        }
        if (mc_buf_status(&w))
            goto oom;
    }
    goto out;
oom:
    out->oom = 1;
    rc = mc_err_set(err, MC_ENOMEM, "out of memory");
out:
    mc_buf_release(&w);
    return rc;
}
