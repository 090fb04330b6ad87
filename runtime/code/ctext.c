/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ctext.c: source text read as code (see ctext.h).
 */
#include "mc_setup.h"
#include "ctext.h"
#include "alloc.h"

#include <ctype.h>

static int
is_ident(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

/* mc_ctext_blank(), and, unless DIR is NULL, DIR[L] set for each line
 * L that is part of a directive. */
static char *
blank(const char *text, size_t len, unsigned char *dir)
{
    char *c = mc_malloc(len + 1);
    size_t i = 0, pos = 0, line = 1;
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
                /* The directive and its continuation lines, whose
                 * newlines stay: the lines of the model are the
                 * lines of the text. */
                while (dir && pos < j)
                    line += text[pos++] == '\n';
                while (j < len && c[j] != '\n') {
                    if (c[j] == '\\' && j + 1 < len && c[j + 1] == '\n') {
                        c[j] = ' ';
                        if (dir)
                            dir[line++] = 1;
                        j += 2;
                        pos = j;
                        continue;
                    }
                    c[j++] = ' ';
                }
                if (dir)
                    dir[line] = 1;
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
                if (c[i] == '\\' && i + 1 < len) {
                    c[i++] = ' ';
                    if (c[i] == '\n') { /* a continued literal */
                        i++;
                        continue;
                    }
                }
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

char *
mc_ctext_blank(const char *text, size_t len)
{
    return blank(text, len, NULL);
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
mc_ctext_name_len(const char *c, size_t w)
{
    size_t n = 0;

    if (isdigit((unsigned char)c[w]))
        return 0;
    while (isalnum((unsigned char)c[w + n]) || c[w + n] == '_')
        n++;
    return n;
}

/* I past the blanks at C[I]. */
static size_t
skip_space(const char *c, size_t len, size_t i)
{
    while (i < len && isspace((unsigned char)c[i]))
        i++;
    return i;
}

/* Past the keyword W at C[I] and the parenthesized head after it, or 0
 * when C[I] does not start the word W followed by '('. */
static size_t
past_head(const char *c, size_t len, size_t i, const char *w)
{
    if (!mc_ctext_word_at(c, len, i, w))
        return 0;
    i = skip_space(c, len, i + strlen(w));
    return i < len && c[i] == '(' ? mc_ctext_match(c, len, i, '(', ')') : 0;
}

/* mc_ctext_skip_statement() at nesting DEPTH: a statement that starts
 * with if, for, while, switch or do ends where the statement it governs
 * does (an if's with its else, a do's at the ';' after its while), so a
 * body in braces inside one ends it; any other ends at its ';' outside
 * brackets. Past 64 levels, the ';' rule alone. */
static size_t
skip_statement(const char *c, size_t len, size_t i, int depth)
{
    size_t h;
    int open = 0;

    i = skip_space(c, len, i);
    if (i < len && c[i] == '{')
        return mc_ctext_match(c, len, i, '{', '}');
    if (depth < 64) {
        if ((h = past_head(c, len, i, "if"))) {
            i = skip_statement(c, len, h, depth + 1);
            h = skip_space(c, len, i);
            return mc_ctext_word_at(c, len, h, "else")
                       ? skip_statement(c, len, h + 4, depth + 1)
                       : i;
        }
        if ((h = past_head(c, len, i, "for")) ||
            (h = past_head(c, len, i, "while")) ||
            (h = past_head(c, len, i, "switch")))
            return skip_statement(c, len, h, depth + 1);
        if (mc_ctext_word_at(c, len, i, "do")) {
            i = skip_statement(c, len, i + 2, depth + 1);
            h = past_head(c, len, skip_space(c, len, i), "while");
            if (h)
                i = h;
        }
    }
    for (; i < len; i++) {
        open += c[i] == '(' || c[i] == '{';
        open -= c[i] == ')' || c[i] == '}';
        if (c[i] == ';' && open <= 0)
            return i + 1;
    }
    return len;
}

size_t
mc_ctext_skip_statement(const char *c, size_t len, size_t i)
{
    return skip_statement(c, len, i, 0);
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

/* ---- preprocessor conditionals ---- */

/* The directive word of the directive line at TEXT[I] (LEN bytes) into
 * W (SIZE bytes); *ZERO whether its condition is a plain 0. */
static void
directive_word(const char *text, size_t len, size_t i, char *w,
               size_t size, int *zero)
{
    size_t n = 0;

    w[0] = '\0';
    *zero = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\t'))
        i++;
    if (i >= len || text[i] != '#')
        return;
    for (i++; i < len && (text[i] == ' ' || text[i] == '\t'); i++)
        ;
    while (i < len && is_ident(text[i]) && n + 1 < size)
        w[n++] = text[i++];
    w[n] = '\0';
    while (i < len && (text[i] == ' ' || text[i] == '\t'))
        i++;
    *zero = i < len && text[i] == '0' &&
            (i + 1 >= len || !is_ident(text[i + 1]));
}

enum mc_code
mc_ctext_pp(const char *text, size_t len, char *c, struct mc_ctext_pp *pp)
{
    /* Per open conditional: its branch's number, whether one of its
     * branches was kept, whether the current one is kept (and so all
     * that enclose it). */
    unsigned stack[64], next = 0;
    unsigned char kept[64], live[64];
    size_t depth = 0, line = 1, i = 0, n = 1, k;
    long braces = 0;
    char *scratch;
    int head = 1; /* the line starts a directive, not continues one */

    memset(pp, 0, sizeof(*pp));
    for (k = 0; k < len; k++)
        n += text[k] == '\n';
    pp->nlines = n;
    pp->group = mc_calloc(n + 2, sizeof(*pp->group));
    pp->directive = mc_calloc(n + 2, 1);
    if (!pp->group || !pp->directive)
        return MC_ENOMEM;
    if (!(scratch = blank(text, len, pp->directive)))
        return MC_ENOMEM;
    mc_free(scratch);
    for (; i <= len && line <= n; i = k + 1, line++) {
        char w[16] = "";
        int zero = 0, outer = depth < 2 || live[depth - 2];

        for (k = i; k < len && text[k] != '\n'; k++)
            ;
        if (pp->directive[line] && head) {
            directive_word(text, len, i, w, sizeof(w), &zero);
            if (!strcmp(w, "pragma"))
                pp->directive[line] = 2;
        }
        head = !pp->directive[line] || k == i || text[k - 1] != '\\';
        if (!strcmp(w, "if") || !strcmp(w, "ifdef") ||
            !strcmp(w, "ifndef")) {
            if (depth == MC_ARRAY_SIZE(stack))
                break;
            stack[depth] = ++next;
            live[depth] = (depth == 0 || live[depth - 1]) && !zero;
            kept[depth] = live[depth];
            depth++;
        } else if (!strcmp(w, "elif") || !strcmp(w, "else")) {
            if (!depth)
                break;
            stack[depth - 1] = ++next;
            live[depth - 1] = outer && !kept[depth - 1] &&
                              !(zero && !strcmp(w, "elif"));
            kept[depth - 1] |= live[depth - 1];
        } else if (!strcmp(w, "endif")) {
            if (!depth)
                break;
            depth--;
        }
        pp->group[line] = depth ? stack[depth - 1] : 0;
        if (depth && !live[depth - 1] && !pp->directive[line])
            memset(c + i, ' ', k - i);
        for (; i < k; i++) {
            braces += c[i] == '{';
            braces -= c[i] == '}';
            if (braces < 0)
                break;
        }
        if (braces < 0)
            break;
    }
    pp->tangled = line <= n || depth != 0 || braces != 0;
    return MC_OK;
}

void
mc_ctext_pp_release(struct mc_ctext_pp *pp)
{
    mc_free(pp->group);
    mc_free(pp->directive);
    memset(pp, 0, sizeof(*pp));
}
