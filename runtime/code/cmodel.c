/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmodel.c: functions, loops and branches of a C or C++ source, read
 * from its blanked text (see cmodel.h).
 */
#include "mc_setup.h"
#include "cmodel.h"
#include "alloc.h"
#include "ctext.h"

#include <ctype.h>

/* The <math.h> functions that may set errno (with f and l variants):
 * -fno-math-errno lets them inline and vectorize. */
static const char *const errno_math[] = {
    "sqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
    "pow", "sin", "cos", "tan", "asin", "acos", "atan2", "hypot", "cbrt",
    "fmod", "sinh", "cosh", "tanh"};

static int
is_ident(char ch)
{
    return isalnum((unsigned char)ch) || ch == '_';
}

size_t
mc_cmodel_skip_space(const char *c, size_t len, size_t i)
{
    while (i < len && isspace((unsigned char)c[i]))
        i++;
    return i;
}

/* The bracket opening the CLOSE at C[I], not before FROM; or I. */
static size_t
match_back(const char *c, size_t from, size_t i, char open, char close)
{
    size_t j = i + 1;
    int depth = 0;

    while (j-- > from) {
        depth += c[j] == close;
        depth -= c[j] == open;
        if (!depth)
            return j;
    }
    return i;
}

/* The word ending just before C[I] (I > FROM) into [*W, I): its length. */
static size_t
word_before(const char *c, size_t from, size_t i, size_t *w)
{
    size_t j = i;

    while (j > from && is_ident(c[j - 1]))
        j--;
    *w = j;
    return i - j;
}

static int
word_is(const char *c, size_t w, size_t n, const char *word)
{
    return n == strlen(word) && !strncmp(c + w, word, n);
}

int
mc_cmodel_has_word(const char *c, size_t from, size_t to, const char *w)
{
    size_t i;

    for (i = from; *w && i < to; i++)
        if (mc_ctext_word_at(c, to, i, w))
            return 1;
    return 0;
}

size_t
mc_cmodel_line(const struct mc_cmodel *m, size_t off)
{
    return mc_ctext_line(m->line_off, m->nlines, off);
}

/* V (N items of SIZE bytes) with room for one more, or NULL (then V
 * is untouched) when out of memory. */
static void *
grow(void *v, size_t n, size_t size)
{
    return mc_realloc(v, (n + 1) * size);
}

/* ---- functions ---- */

/* Whether the '{' at C[B] opens a function body in the scope starting at
 * FROM; its declaration into F. */
static int
fn_at(const char *c, size_t from, size_t b, struct mc_cfunc *f)
{
    size_t i = b, w, n, open, k;

    for (;;) {
        while (i > from && isspace((unsigned char)c[i - 1]))
            i--;
        n = word_before(c, from, i, &w);
        if (!n)
            break;
        if (!word_is(c, w, n, "const") && !word_is(c, w, n, "noexcept") &&
            !word_is(c, w, n, "override") && !word_is(c, w, n, "final"))
            return 0;
        i = w;
    }
    if (i == from || c[i - 1] != ')')
        return 0;
    open = match_back(c, from, i - 1, '(', ')');
    if (open == i - 1)
        return 0;
    for (k = open; k > from && isspace((unsigned char)c[k - 1]); k--)
        ;
    n = word_before(c, from, k, &w);
    if (!n || isdigit((unsigned char)c[w]) || word_is(c, w, n, "if") ||
        word_is(c, w, n, "while") || word_is(c, w, n, "for") ||
        word_is(c, w, n, "switch") || word_is(c, w, n, "sizeof"))
        return 0;
    f->name = w;
    f->name_len = n;
    f->params = open;
    f->params_end = i;
    for (k = w; k > from && c[k - 1] != ';' && c[k - 1] != '}' &&
                c[k - 1] != '{';
         k--)
        ;
    f->start = mc_cmodel_skip_space(c, w, k);
    return 1;
}

/* Whether the '{' at C[B] opens a namespace or extern "C" block, whose
 * contents are file scope too. */
static int
transparent(const char *c, size_t from, size_t b)
{
    size_t i = b, w, n;

    while (i > from && isspace((unsigned char)c[i - 1]))
        i--;
    if (i > from + 1 && c[i - 1] == '"') { /* extern "C" */
        for (i--; i > from && c[i - 1] != '"'; i--)
            ;
        if (i == from)
            return 0;
        for (i--; i > from && isspace((unsigned char)c[i - 1]); i--)
            ;
        n = word_before(c, from, i, &w);
        return word_is(c, w, n, "extern");
    }
    n = word_before(c, from, i, &w);
    if (word_is(c, w, n, "namespace") || word_is(c, w, n, "extern"))
        return 1;
    while (w > from && isspace((unsigned char)c[w - 1]))
        w--;
    n = word_before(c, from, w, &i);
    return n && (word_is(c, i, n, "namespace") || word_is(c, i, n, "extern"));
}

static void
scan_scope(const char *c, size_t from, size_t to, struct mc_cmodel *m,
           int *oom)
{
    size_t i = from;

    while (i < to && !*oom) {
        struct mc_cfunc f, *nv;
        size_t end;

        if (c[i] != '{') {
            i++;
            continue;
        }
        end = mc_ctext_match(c, to, i, '{', '}');
        memset(&f, 0, sizeof(f));
        if (fn_at(c, from, i, &f)) {
            f.body = i;
            f.end = end;
            if ((nv = grow(m->fn, m->nfn, sizeof(*nv))) == NULL)
                *oom = 1;
            else
                (m->fn = nv)[m->nfn++] = f;
        } else if (transparent(c, from, i) && end > i + 1) {
            scan_scope(c, i + 1, end - 1, m, oom);
        }
        i = end;
    }
}

/* ---- loops ---- */

/* The induction variable of the header at C[HEAD, END) into VAR (of
 * SIZE bytes): the word before the first '=' of the init part, when the
 * condition names it. */
static void
induction_var(const char *c, size_t head, size_t end, char *var,
              size_t size)
{
    size_t i, semi = 0, semi2 = 0, w, n;

    var[0] = '\0';
    for (i = head + 1; i < end && !semi2; i++)
        if (c[i] == ';') {
            if (semi)
                semi2 = i;
            else
                semi = i;
        }
    if (!semi2)
        return;
    for (i = head + 1; i < semi; i++)
        if (c[i] == '=' && c[i + 1] != '=' && c[i - 1] != '=' &&
            c[i - 1] != '!' && c[i - 1] != '<' && c[i - 1] != '>')
            break;
    if (i >= semi)
        return;
    while (i > head + 1 && isspace((unsigned char)c[i - 1]))
        i--;
    n = word_before(c, head + 1, i, &w);
    if (!n || n >= size || isdigit((unsigned char)c[w]))
        return;
    memcpy(var, c + w, n);
    var[n] = '\0';
    if (!mc_cmodel_has_word(c, semi + 1, semi2, var))
        var[0] = '\0';
}

/* Whether VAR is next to a '*' in C[FROM, TO), where it occurs. */
static int
multiplied(const char *c, size_t from, size_t to, const char *var)
{
    size_t i, j, n = strlen(var);

    for (i = from; i < to; i++) {
        if (!mc_ctext_word_at(c, to, i, var))
            continue;
        for (j = i; j > from && isspace((unsigned char)c[j - 1]); j--)
            ;
        if (j > from && c[j - 1] == '*')
            return 1;
        j = mc_cmodel_skip_space(c, to, i + n);
        if (j < to && c[j] == '*')
            return 1;
    }
    return 0;
}

/* Count the subscripts in C[FROM, TO) that index with VAR as the last
 * subscript alone into *UNIT, and otherwise into *STRIDED. */
static void
strides(const char *c, size_t from, size_t to, const char *var, int *unit,
        int *strided)
{
    size_t i, close, next;

    for (i = from; var[0] && i < to; i++) {
        if (c[i] != '[')
            continue;
        close = mc_ctext_match(c, to, i, '[', ']');
        if (!mc_cmodel_has_word(c, i + 1, close - 1, var))
            continue;
        next = mc_cmodel_skip_space(c, to, close);
        if ((next < to && c[next] == '[') ||
            multiplied(c, i + 1, close - 1, var))
            (*strided)++;
        else
            (*unit)++;
    }
}

static const char *const math_suffix[] = {"", "f", "l"};

/* The calls of NAME in C[FROM, TO): the whole word, then '('. */
static size_t
calls(const char *c, size_t from, size_t to, const char *name)
{
    size_t i, j, n = 0;

    for (i = from; i < to; i++) {
        if (!mc_ctext_word_at(c, to, i, name))
            continue;
        j = mc_cmodel_skip_space(c, to, i + strlen(name));
        n += j < to && c[j] == '(';
    }
    return n;
}

/* errno_math[F] with suffix S (math_suffix[]) into NAME. */
static void
math_name(size_t f, size_t s, char *name, size_t size)
{
    snprintf(name, size, "%s%s", errno_math[f], math_suffix[s]);
}

static int
count_math(const char *c, size_t from, size_t to)
{
    size_t f, s, n = 0;
    char name[16];

    for (f = 0; f < MC_ARRAY_SIZE(errno_math); f++)
        for (s = 0; s < MC_ARRAY_SIZE(math_suffix); s++) {
            math_name(f, s, name, sizeof(name));
            n += calls(c, from, to, name);
        }
    return (int)n;
}

/* Whether errno_math[F] takes two arguments. */
static int
two_args(size_t f)
{
    static const char *const two[] = {"pow", "atan2", "hypot", "fmod"};
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(two); i++)
        if (!strcmp(errno_math[f], two[i]))
            return 1;
    return 0;
}

void
mc_cmodel_math_decls(const char *c, size_t len, struct mc_buf *out)
{
    static const char *const type[] = {"double", "float", "long double"};
    size_t f, s;
    int any = 0;
    char name[16];

    for (f = 0; f < MC_ARRAY_SIZE(errno_math); f++)
        for (s = 0; s < MC_ARRAY_SIZE(math_suffix); s++) {
            math_name(f, s, name, sizeof(name));
            if (!calls(c, 0, len, name))
                continue;
            if (!any++)
                mc_buf_adds(out, "#ifndef __cplusplus\n");
            mc_buf_addf(out, "%s %s(%s%s%s) __attribute__((__const__));\n",
                        type[s], name, type[s], two_args(f) ? ", " : "",
                        two_args(f) ? type[s] : "");
        }
    if (any)
        mc_buf_adds(out, "#endif\n");
}

int
mc_cmodel_has_loop(const char *c, size_t from, size_t to)
{
    return mc_cmodel_has_word(c, from, to, "for") ||
           mc_cmodel_has_word(c, from, to, "while") ||
           mc_cmodel_has_word(c, from, to, "do");
}

/* The loop whose keyword is at C[I] in function FN into L: 1 when it
 * has a header. */
static int
loop_at(const char *c, const struct mc_cmodel *m, int fn, size_t i,
        struct mc_cloop *l)
{
    const struct mc_cfunc *f = &m->fn[fn];
    size_t j = mc_cmodel_skip_space(c, f->end, i + 3), k;

    if (j >= f->end || c[j] != '(')
        return 0;
    l->kw = i;
    l->fn = fn;
    l->line = mc_cmodel_line(m, i);
    l->head = j;
    l->head_end = mc_ctext_match(c, f->end, j, '(', ')');
    l->body = mc_cmodel_skip_space(c, f->end, l->head_end);
    l->end = mc_ctext_skip_statement(c, f->end, l->head_end);
    l->body_line = mc_cmodel_line(m, l->body);
    l->innermost = !mc_cmodel_has_loop(c, l->body, l->end);
    for (k = i, l->first_on_line = 1; k > 0 && c[k - 1] != '\n'; k--)
        if (!isspace((unsigned char)c[k - 1]))
            l->first_on_line = 0;
    induction_var(c, l->head, l->head_end, l->var, sizeof(l->var));
    strides(c, l->body, l->end, l->var, &l->unit, &l->strided);
    l->math = count_math(c, l->body, l->end);
    l->fp = mc_cmodel_has_word(c, f->body, f->end, "double") ||
            mc_cmodel_has_word(c, f->body, f->end, "float") ||
            mc_cmodel_has_word(c, f->params, f->params_end, "double") ||
            mc_cmodel_has_word(c, f->params, f->params_end, "float");
    return 1;
}

static void
find_loops(const char *c, struct mc_cmodel *m, int fn, int *oom)
{
    const struct mc_cfunc *f = &m->fn[fn];
    size_t i, first = m->nloop;

    for (i = f->body + 1; i < f->end && !*oom; i++) {
        struct mc_cloop l, *nv;
        size_t k;

        if (!mc_ctext_word_at(c, f->end, i, "for"))
            continue;
        memset(&l, 0, sizeof(l));
        if (!loop_at(c, m, fn, i, &l))
            continue;
        l.parent = -1;
        for (k = m->nloop; k-- > first;)
            if (m->loop[k].body <= i && i < m->loop[k].end) {
                l.parent = (int)k;
                l.depth = m->loop[k].depth + 1;
                strides(c, l.body, l.end, m->loop[k].var, &l.pv_unit,
                        &l.pv_strided);
                break;
            }
        if ((nv = grow(m->loop, m->nloop, sizeof(*nv))) == NULL)
            *oom = 1;
        else
            (m->loop = nv)[m->nloop++] = l;
    }
}

/* ---- branches ---- */

static void
find_branches(const char *c, struct mc_cmodel *m, int fn, int *oom)
{
    const struct mc_cfunc *f = &m->fn[fn];
    size_t i;

    for (i = f->body + 1; i < f->end && !*oom; i++) {
        struct mc_cbranch b, *nv;
        size_t j, s;

        if (!mc_ctext_word_at(c, f->end, i, "if"))
            continue;
        j = mc_cmodel_skip_space(c, f->end, i + 2);
        if (j >= f->end || c[j] != '(')
            continue;
        memset(&b, 0, sizeof(b));
        b.kw = i;
        b.fn = fn;
        b.cond = j;
        b.cond_end = mc_ctext_match(c, f->end, j, '(', ')');
        b.line = mc_cmodel_line(m, i);
        s = mc_cmodel_skip_space(c, f->end, b.cond_end);
        if (s < f->end && c[s] == '{')
            s = mc_cmodel_skip_space(c, f->end, s + 1);
        if (s < f->end && mc_cmodel_line(m, s) > b.line)
            b.then_line = mc_cmodel_line(m, s);
        if ((nv = grow(m->br, m->nbr, sizeof(*nv))) == NULL)
            *oom = 1;
        else
            (m->br = nv)[m->nbr++] = b;
    }
}

static enum mc_code
index_lines(const char *c, size_t len, struct mc_cmodel *m)
{
    size_t i, n = 1;

    for (i = 0; i < len; i++)
        n += c[i] == '\n';
    m->line_off = mc_calloc(n + 2, sizeof(*m->line_off));
    if (!m->line_off)
        return MC_ENOMEM;
    m->nlines = n;
    m->line_off[1] = 0;
    for (i = 0, n = 1; i < len; i++)
        if (c[i] == '\n')
            m->line_off[++n] = i + 1;
    return MC_OK;
}

enum mc_code
mc_cmodel_build(const char *c, size_t len, struct mc_cmodel *m)
{
    int oom = 0;
    size_t f;

    memset(m, 0, sizeof(*m));
    if (index_lines(c, len, m))
        return MC_ENOMEM;
    scan_scope(c, 0, len, m, &oom);
    for (f = 0; f < m->nfn && !oom; f++) {
        m->fn[f].line = mc_cmodel_line(m, m->fn[f].start);
        m->fn[f].end_line = mc_cmodel_line(m, m->fn[f].end - 1);
        find_loops(c, m, (int)f, &oom);
        find_branches(c, m, (int)f, &oom);
    }
    if (oom) {
        mc_cmodel_release(m);
        return MC_ENOMEM;
    }
    return MC_OK;
}

void
mc_cmodel_release(struct mc_cmodel *m)
{
    mc_free(m->fn);
    mc_free(m->loop);
    mc_free(m->br);
    mc_free(m->line_off);
    memset(m, 0, sizeof(*m));
}

/* Whether C[FROM, TO) holds a word that jumps out of a loop body. */
static int
has_jump(const char *c, size_t from, size_t to)
{
    return mc_cmodel_has_word(c, from, to, "break") ||
           mc_cmodel_has_word(c, from, to, "continue") ||
           mc_cmodel_has_word(c, from, to, "return") ||
           mc_cmodel_has_word(c, from, to, "goto");
}

/* Whether a statement in C[FROM, TO) declares a variable: it starts
 * with a type word, or with two words ("T x = ...", "T *p"). */
static int
declares(const char *c, size_t from, size_t to)
{
    static const char *const types[] = {
        "int", "long", "short", "char", "float", "double", "unsigned",
        "signed", "const", "volatile", "static", "register", "auto",
        "struct", "union", "enum", "bool", "_Bool", "size_t"};
    size_t i = from, j, w, k;

    while (i < to) {
        i = mc_cmodel_skip_space(c, to, i);
        for (w = i; w < to && is_ident(c[w]); w++)
            ;
        for (k = 0; w > i && k < MC_ARRAY_SIZE(types); k++)
            if (word_is(c, i, w - i, types[k]))
                return 1;
        j = mc_cmodel_skip_space(c, to, w);
        if (w > i && j < to && (is_ident(c[j]) || c[j] == '*'))
            return 1;
        while (i < to && c[i] != ';' && c[i] != '{' && c[i] != '}')
            i++;
        i++;
    }
    return 0;
}

/* Whether the statements in C[FROM, TO) may go to a loop of their own:
 * no jump, no loop, no case label, no declaration, no use of VAR. */
static int
movable(const char *c, size_t from, size_t to, const char *var)
{
    return from >= to ||
           (!has_jump(c, from, to) && !mc_cmodel_has_loop(c, from, to) &&
            !mc_cmodel_has_word(c, from, to, var) &&
            !mc_cmodel_has_word(c, from, to, "case") &&
            !declares(c, from, to));
}

int
mc_cmodel_nest(const char *c, const struct mc_cmodel *m, int outer,
               int inner, size_t *pre, size_t *post, int *block)
{
    const struct mc_cloop *o = &m->loop[outer], *in = &m->loop[inner];

    if (in->parent != outer || !in->innermost || !o->var[0] ||
        !in->var[0] || !strcmp(o->var, in->var) ||
        mc_cmodel_has_word(c, in->head, in->head_end, o->var) ||
        mc_cmodel_has_word(c, o->head, o->head_end, in->var) ||
        has_jump(c, in->body, in->end))
        return 0;
    *block = c[o->body] == '{';
    if (!*block) {
        *pre = in->kw;
        *post = o->end;
        return o->body == in->kw;
    }
    *pre = mc_cmodel_skip_space(c, o->end, o->body + 1);
    *post = mc_cmodel_skip_space(c, o->end, in->end);
    if (*post >= o->end)
        return 0;
    return movable(c, *pre, in->kw, in->var) &&
           movable(c, *post, o->end - 1, in->var);
}

/* ---- where directives may go ---- */

/* Whether lines FROM..TO of PP hold no directive and lie in one branch
 * of the conditionals. */
static int
one_branch(const struct mc_ctext_pp *pp, size_t from, size_t to)
{
    size_t l;

    if (!from || to < from || to > pp->nlines)
        return 0;
    for (l = from; l <= to; l++)
        if (pp->directive[l] || pp->group[l] != pp->group[from])
            return 0;
    return 1;
}

/* Whether the code before the keyword at C[KW] (in function F) ends a
 * statement or opens one, so that a statement starts at KW. */
static int
statement_starts(const char *c, const struct mc_cfunc *f, size_t kw)
{
    size_t i = kw, w, n, open;

    while (i > f->body && isspace((unsigned char)c[i - 1]))
        i--;
    if (i <= f->body)
        return 0;
    switch (c[i - 1]) {
    case ';':
    case '{':
    case '}':
        return 1;
    case ':':
        return i < 2 || c[i - 2] != ':';
    case ')':
        open = match_back(c, f->body, i - 1, '(', ')');
        if (open == i - 1)
            return 0;
        while (open > f->body && isspace((unsigned char)c[open - 1]))
            open--;
        n = word_before(c, f->body, open, &w);
        return word_is(c, w, n, "if") || word_is(c, w, n, "for") ||
               word_is(c, w, n, "while") || word_is(c, w, n, "switch");
    default:
        n = word_before(c, f->body, i, &w);
        return word_is(c, w, n, "else") || word_is(c, w, n, "do");
    }
}

/* Whether C[START, NAME) is what a declaration may have before its
 * name: words, '*', '&', '::', <...> and the parentheses of
 * __attribute__ and __declspec; at least one word, and not `template`
 * first. */
static int
plain_specifiers(const char *c, size_t start, size_t name)
{
    size_t i = start, w;
    int words = 0;

    if (mc_ctext_word_at(c, name, start, "template"))
        return 0;
    while (i < name) {
        if (is_ident(c[i])) {
            for (w = i; i < name && is_ident(c[i]); i++)
                ;
            words++;
            if (word_is(c, w, i - w, "__attribute__") ||
                word_is(c, w, i - w, "__attribute") ||
                word_is(c, w, i - w, "__declspec")) {
                i = mc_cmodel_skip_space(c, name, i);
                if (i >= name || c[i] != '(')
                    return 0;
                i = mc_ctext_match(c, name, i, '(', ')');
            }
        } else if (isspace((unsigned char)c[i]) || c[i] == '*' ||
                   c[i] == '&' || c[i] == ':' || c[i] == '<' ||
                   c[i] == '>' || c[i] == ',') {
            i++;
        } else {
            return 0;
        }
    }
    return words > 0;
}

/* Whether the header at C[HEAD, END) of a for loop has a condition
 * (GCC takes no loop pragma on `for (;;)`), or is a range-for. */
static int
has_condition(const char *c, size_t head, size_t end)
{
    size_t i, semi = 0;
    int depth = 0;

    for (i = head + 1; i + 1 < end; i++) {
        depth += c[i] == '(' || c[i] == '[' || c[i] == '{';
        depth -= c[i] == ')' || c[i] == ']' || c[i] == '}';
        if (depth || c[i] != ';')
            continue;
        if (semi) {
            for (semi++; semi < i && isspace((unsigned char)c[semi]);
                 semi++)
                ;
            return semi < i;
        }
        semi = i;
    }
    return !semi;
}

/* Whether a #pragma line comes before line LINE of C with only lines
 * blank in C (comments, directives, branches not read) between. */
static int
pragma_before(const struct mc_cmodel *m, const char *c,
              const struct mc_ctext_pp *pp, size_t line)
{
    size_t l, i;

    for (l = line; l-- > 1;) {
        if (l < pp->nlines + 1 && pp->directive[l] == 2)
            return 1;
        for (i = m->line_off[l]; i < m->line_off[l + 1]; i++)
            if (!isspace((unsigned char)c[i]))
                return 0;
    }
    return 0;
}

void
mc_cmodel_place(struct mc_cmodel *m, const char *c,
                const struct mc_ctext_pp *pp)
{
    size_t i, l;

    for (i = 0; i < m->nfn; i++) {
        struct mc_cfunc *f = &m->fn[i];
        size_t body = mc_cmodel_line(m, f->body);
        int first = 1;

        for (l = m->line_off[f->line]; l < f->start; l++)
            first &= isspace((unsigned char)c[l]) != 0;
        f->placeable = !pp->tangled && first &&
                       plain_specifiers(c, f->start, f->name) &&
                       one_branch(pp, f->line, body) &&
                       pp->group[mc_cmodel_line(m, f->end - 1)] ==
                           pp->group[f->line];
    }
    for (i = 0; i < m->nloop; i++) {
        struct mc_cloop *lp = &m->loop[i];
        size_t end = mc_cmodel_line(m, lp->end - 1);

        lp->plain = !pp->tangled && one_branch(pp, lp->line, end);
        lp->pragma = pragma_before(m, c, pp, lp->line);
        lp->placeable =
            !pp->tangled && lp->first_on_line &&
            lp->end > lp->head_end &&
            has_condition(c, lp->head, lp->head_end) &&
            statement_starts(c, &m->fn[lp->fn], lp->kw) &&
            one_branch(pp, lp->line, mc_cmodel_line(m, lp->head_end - 1)) &&
            pp->group[end] == pp->group[lp->line];
    }
    for (i = 0; i < m->nbr; i++) {
        struct mc_cbranch *b = &m->br[i];

        b->placeable = !pp->tangled &&
                       one_branch(pp, b->line,
                                  mc_cmodel_line(m, b->cond_end - 1));
    }
}

/* ---- object types ---- */

/* Words that may come before a pointer parameter's '*' and name an
 * object type (or qualify one): C's type keywords and qualifiers. */
static const char *const type_words[] = {
    "void", "char", "short", "int", "long", "float", "double", "signed",
    "unsigned", "_Bool", "bool", "_Complex", "__int128", "const",
    "volatile", "register", "wchar_t", "char16_t", "char32_t", "size_t",
    "ssize_t", "ptrdiff_t", "intptr_t", "uintptr_t", "intmax_t",
    "uintmax_t", "off_t", "FILE"};

/* Whether C[W, W+N) is a type word, or a standard integer typedef:
 * [u]intN_t, [u]int_leastN_t, [u]int_fastN_t. */
static int
known_type_word(const char *c, size_t w, size_t n)
{
    size_t i, p = w;

    for (i = 0; i < MC_ARRAY_SIZE(type_words); i++)
        if (word_is(c, w, n, type_words[i]))
            return 1;
    if (n > 1 && c[p] == 'u')
        p++;
    if (w + n - p < 6 || strncmp(c + p, "int", 3) ||
        strncmp(c + w + n - 2, "_t", 2))
        return 0;
    p += 3;
    if (!strncmp(c + p, "_least", 6))
        p += 6;
    else if (!strncmp(c + p, "_fast", 5))
        p += 5;
    for (i = p; i < w + n - 2; i++)
        if (!isdigit((unsigned char)c[i]))
            return 0;
    return i > p;
}

static int object_words(const char *c, size_t len, size_t from,
                        size_t to, int depth);

/* How a typedef in C[0, LEN) declares the name C[W, W+N): 1 as an
 * object type (a struct, union or enum body, a pointer, or specifiers
 * that object_words() takes, and no parenthesis in the declarator),
 * -1 as anything else (a function type, a pointer to one, a type the
 * reading does not follow), 0 not at all. DEPTH bounds the typedefs of
 * typedefs followed. */
static int
typedef_kind(const char *c, size_t len, size_t w, size_t n, int depth)
{
    size_t i, d, e, k;
    int found = 0;

    if (depth > 8)
        return -1;
    for (i = 0; i < len; i++) {
        size_t spec = 0, spec_end = 0;
        int body = 0, first = 1;

        if (!mc_ctext_word_at(c, len, i, "typedef"))
            continue;
        /* the declarators: from past the last body of the specifiers
         * (or the keyword) to the ';', split at commas outside
         * brackets */
        for (d = i + 7, e = d; e < len && c[e] != ';'; e++)
            if (c[e] == '{') {
                e = mc_ctext_match(c, len, e, '{', '}') - 1;
                d = e + 1;
                body = 1;
            }
        for (; d < e; d = k + 1, first = 0) {
            int paren = 0, ptr = 0, br = 0;
            size_t last = 0, lastn = 0;

            for (k = d; k < e && (br || c[k] != ','); k++) {
                br += c[k] == '(' || c[k] == '[';
                br -= c[k] == ')' || c[k] == ']';
                paren |= c[k] == '(';
                ptr |= c[k] == '*';
                if (is_ident(c[k]) && !is_ident(c[k - 1]) && !br &&
                    !isdigit((unsigned char)c[k]))
                    last = k;
            }
            while (last && last + lastn < k && is_ident(c[last + lastn]))
                lastn++;
            if (first && !paren) {
                spec = d; /* the specifiers before the first name */
                spec_end = last;
            }
            if (paren) {
                size_t j;
                for (j = d; j + n <= k; j++)
                    if (!strncmp(c + j, c + w, n) && !is_ident(c[j - 1]) &&
                        (j + n == k || !is_ident(c[j + n])))
                        return -1;
            } else if (lastn == n && !strncmp(c + last, c + w, n)) {
                if (!ptr && !body &&
                    (!spec_end ||
                     !object_words(c, len, spec, spec_end, depth + 1)))
                    return -1;
                found = 1;
            }
        }
        i = e;
    }
    return found;
}

/* Whether the words of C[FROM, TO) (blanks and '*' between them) are
 * specifiers of an object type: type keywords and qualifiers, a
 * struct, union or enum tag, standard typedefs, and names that a
 * typedef of C[0, LEN) declares as an object type; at least one. With
 * a '*' among them they are a pointer type, an object type whatever
 * the words are. */
static int
object_words(const char *c, size_t len, size_t from, size_t to, int depth)
{
    size_t i = from, w;
    int words = 0, tag = 0, inner = 0;

    for (i = from; i < to; i++)
        inner |= c[i] == '*';
    for (i = from; i < to;) {
        if (isspace((unsigned char)c[i]) || c[i] == '*') {
            i++;
            continue;
        }
        if (!is_ident(c[i]) || isdigit((unsigned char)c[i]))
            return 0;
        for (w = i; i < to && is_ident(c[i]); i++)
            ;
        if (inner)
            ; /* a pointer's words: any object or function type */
        else if (tag)
            tag = 0; /* struct TAG: an object type, seen or not */
        else if (word_is(c, w, i - w, "struct") ||
                 word_is(c, w, i - w, "union") ||
                 word_is(c, w, i - w, "enum"))
            tag = 1;
        else if (!known_type_word(c, w, i - w) &&
                 typedef_kind(c, len, w, i - w, depth) != 1)
            return 0;
        words++;
    }
    return words > 0 && !tag;
}

int
mc_cmodel_object_pointer(const char *c, size_t len, size_t from, size_t to)
{
    size_t i, star = 0;

    for (i = from; i < to; i++) {
        if (c[i] == '(' || c[i] == '<' || c[i] == ':')
            return 0; /* a function pointer's "(*f)(...)", C++ */
        if (c[i] == '[')
            i = mc_ctext_match(c, to, i, '[', ']') - 1;
        else if (c[i] == '*')
            star = i;
    }
    return star && object_words(c, len, from, star, 0);
}
