/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ctext.c: source text read as code (see ctext.h).
 */
#include "mc_setup.h"
#include "ctext.h"
#include "alloc.h"

#include <ctype.h>

char *
mc_ctext_blank(const char *text, size_t len)
{
    char *c = mc_malloc(len + 1);
    size_t i = 0;
    int line_start = 1;

    if (!c)
        return NULL;
    memcpy(c, text, len);
    c[len] = '\0';
    while (i < len) {
        if (line_start) {
            size_t j = i;
            while (j < len && (c[j] == ' ' || c[j] == '\t'))
                j++;
            if (j < len && c[j] == '#') {
                while (j < len && c[j] != '\n') {
                    if (c[j] == '\\' && j + 1 < len && c[j + 1] == '\n')
                        c[j++] = ' ';
                    c[j++] = ' ';
                }
                i = j;
                continue;
            }
        }
        line_start = 0;
        if (c[i] == '\n') {
            line_start = 1;
            i++;
        } else if (c[i] == '/' && i + 1 < len && c[i + 1] == '/') {
            while (i < len && c[i] != '\n')
                c[i++] = ' ';
        } else if (c[i] == '/' && i + 1 < len && c[i + 1] == '*') {
            c[i++] = ' ';
            c[i++] = ' ';
            for (; i < len && !(c[i] == '*' && i + 1 < len &&
                                  c[i + 1] == '/');
                 i++)
                if (c[i] != '\n')
                    c[i] = ' ';
            if (i < len)
                c[i++] = ' ';
            if (i < len)
                c[i++] = ' ';
        } else if (c[i] == '"' || c[i] == '\'') {
            char q = c[i++];
            while (i < len && c[i] != q && c[i] != '\n') {
                if (c[i] == '\\' && i + 1 < len)
                    c[i++] = ' ';
                c[i++] = ' ';
            }
            if (i < len && c[i] == q)
                i++;
        } else {
            i++;
        }
    }
    return c;
}

int
mc_ctext_word_at(const char *c, size_t len, size_t i, const char *w)
{
    size_t n = strlen(w);

    return i + n <= len && !strncmp(c + i, w, n) &&
           (i == 0 || !(isalnum((unsigned char)c[i - 1]) || c[i - 1] == '_')) &&
           (i + n == len ||
            !(isalnum((unsigned char)c[i + n]) || c[i + n] == '_'));
}

size_t
mc_ctext_skip_statement(const char *c, size_t len, size_t i)
{
    int depth = 0;

    while (i < len && isspace((unsigned char)c[i]))
        i++;
    if (i < len && c[i] == '{') {
        for (; i < len; i++) {
            depth += c[i] == '{';
            depth -= c[i] == '}';
            if (!depth)
                return i + 1;
        }
        return len;
    }
    for (; i < len; i++) {
        depth += c[i] == '(' || c[i] == '{';
        depth -= c[i] == ')' || c[i] == '}';
        if (c[i] == ';' && depth <= 0)
            return i + 1;
    }
    return len;
}

static int
is_ident(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

size_t
mc_ctext_match(const char *c, size_t len, size_t i, char open, char close)
{
    int depth = 0;

    for (; i < len; i++) {
        depth += c[i] == open;
        depth -= c[i] == close;
        if (!depth)
            return i + 1;
    }
    return len;
}

size_t
mc_ctext_line(const size_t *line_off, size_t nlines, size_t off)
{
    size_t lo = 1, hi = nlines;

    while (lo < hi) {
        size_t mid = (lo + hi + 1) / 2;
        if (line_off[mid] <= off)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The start of the line holding offset I. */
static size_t
line_start(const char *c, size_t i)
{
    while (i > 0 && c[i - 1] != '\n')
        i--;
    return i;
}

/* The start of a `template <...>` line right before the line at LS, or
 * LS. */
static size_t
template_line(const char *c, size_t ls)
{
    size_t prev, i;

    if (ls == 0)
        return ls;
    prev = line_start(c, ls - 1);
    for (i = prev; i < ls && isspace((unsigned char)c[i]); i++)
        ;
    return i < ls && mc_ctext_word_at(c, ls, i, "template") ? prev : ls;
}

/* The kernel whose __global__ is at C[G], into *K: 1 when it has a name,
 * parameters and a body. */
static int
kernel_at(const char *c, size_t len, size_t g, struct mc_kernel *k)
{
    size_t i = g + strlen("__global__"), id = 0, id_len = 0;

    for (; i < len && c[i] != '(' && c[i] != ';' && c[i] != '{'; i++) {
        if (is_ident(c[i]) && (i == 0 || !is_ident(c[i - 1]))) {
            size_t j = i;
            while (j < len && is_ident(c[j]))
                j++;
            if (!isdigit((unsigned char)c[i])) {
                id = i;
                id_len = j - i;
            }
            /* __launch_bounds__(...) comes before the name */
            if (j - i == strlen("__launch_bounds__") &&
                !strncmp(c + i, "__launch_bounds__", j - i)) {
                while (j < len && isspace((unsigned char)c[j]))
                    j++;
                if (j < len && c[j] == '(')
                    j = mc_ctext_match(c, len, j, '(', ')');
                id_len = 0;
            }
            i = j - 1;
        }
    }
    if (i >= len || c[i] != '(' || !id_len)
        return 0;
    k->global = g;
    k->start = template_line(c, line_start(c, g));
    k->name = id;
    k->name_len = id_len;
    k->params = i;
    k->params_end = mc_ctext_match(c, len, i, '(', ')');
    for (i = k->params_end; i < len && c[i] != '{' && c[i] != ';'; i++)
        ;
    if (i >= len || c[i] != '{')
        return 0;
    k->body = i;
    k->end = mc_ctext_match(c, len, i, '{', '}');
    return 1;
}

size_t
mc_ctext_kernels(const char *c, size_t len, struct mc_kernel *out,
                 size_t max)
{
    struct mc_kernel k;
    size_t i, n = 0;

    for (i = 0; i < len; i++) {
        if (!mc_ctext_word_at(c, len, i, "__global__"))
            continue;
        if (kernel_at(c, len, i, &k)) {
            if (n < max)
                out[n] = k;
            n++;
            i = k.end - 1;
        }
    }
    return n;
}

int
mc_ctext_kernel(const char *c, size_t len, const char *name,
                struct mc_kernel *k)
{
    struct mc_kernel all[64];
    size_t n = mc_ctext_kernels(c, len, all, MC_ARRAY_SIZE(all)), i;

    for (i = 0; i < n && i < MC_ARRAY_SIZE(all); i++)
        if (all[i].name_len == strlen(name) &&
            !strncmp(c + all[i].name, name, all[i].name_len)) {
            *k = all[i];
            return 1;
        }
    return 0;
}
