/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * launcher_scan.c: what a compile command is to the launcher and whether
 * its source is marked (launcher.h), read from the words and the text
 * alone. Both maxcode programs use it: the launcher (launcher.c) and
 * the front (front.c), which runs without the C library, so this file
 * calls no more of it than strcmp(), strncmp(), memcmp(), memchr() and
 * memmem(), and mc_lang_of_path().
 */
#include "mc_setup.h"
#include "lang.h"
#include "launcher.h"

/* Options whose argument is the next word, besides those of flags.h
 * (gcc, clang and nvcc). */
static const char *const takes_next[] = {
    "-o", "-MF", "-MT", "-MQ", "-I", "-isystem", "-iquote", "-idirafter",
    "-include", "-imacros", "-iprefix", "-iwithprefix",
    "-iwithprefixbefore", "-isysroot", "-x", "-Xlinker", "-Xpreprocessor",
    "-Xassembler", "-Xclang", "-L", "-D", "-U", "-aux-info", "--param",
    "-T", "-u", "-z", "-B", "-target", "-arch", "-ccbin", "-Xcompiler",
    "-Xptxas", "-Xnvlink", "-gencode", "--compiler-options",
    "--compiler-bindir", "--generate-code", "--gpu-architecture", "-MJ",
    "--serialize-diagnostics", "-dumpdir", "-dumpbase"};

/* Words after which maxcode leaves the command alone: it does not
 * compile to an object, or reads what the launcher cannot see. */
static const char *const not_ours[] = {
    "-E", "-S", "-M", "-MM", "-fsyntax-only", "-", "-x", "--version",
    "-###", "-emit-llvm", "-dM", "--preprocess", "-ptx", "-cubin",
    "--ptx", "--cubin", "-fatbin", "--fatbin", "-fdump-tree-all"};

static int
in_list(const char *w, const char *const *list, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (!strcmp(w, list[i]))
            return 1;
    return 0;
}

void
mc_launcher_classify(int argc, char *const *argv, struct mc_launcher_cmd *c)
{
    int i, compile = 0, sources = 0, other = 0;

    c->source = -1;
    c->output = -1;
    for (i = 1; i < argc; i++) {
        const char *w = argv[i];

        if (!strcmp(w, "-c")) {
            compile = 1;
        } else if (in_list(w, not_ours, MC_ARRAY_SIZE(not_ours)) ||
                   w[0] == '@') {
            return;
        } else if (in_list(w, takes_next, MC_ARRAY_SIZE(takes_next))) {
            if (!strcmp(w, "-o"))
                c->output = i + 1;
            i++;
        } else if (!strncmp(w, "-o", 2) && strcmp(w, "-odir")) {
            c->output = i; /* -oFILE */
        } else if (w[0] != '-') {
            if (mc_lang_of_path(w)) {
                sources++;
                c->source = i;
            } else {
                other++;
            }
        }
    }
    if (!compile || sources != 1 || other || c->output >= argc)
        c->source = -1;
}

/* The blanks of mark.h's grammar. */
static int
blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\v' || ch == '\f' ||
           ch == '\r';
}

/* Whether the line of TEXT that holds "pragma" at P reads
 * "#pragma maxcode optimize" from its start; *EOL gets its end. */
static int
pragma_line(const char *text, size_t len, size_t p, size_t *eol)
{
    size_t s = p, e = p + 6;
    const char *nl;

    while (s > 0 && blank(text[s - 1]))
        s--;
    if (s == 0 || text[s - 1] != '#')
        return 0;
    s--;
    while (s > 0 && blank(text[s - 1]))
        s--;
    nl = memchr(text + p, '\n', len - p);
    *eol = nl ? (size_t)(nl - text) : len;
    if (s > 0 && text[s - 1] != '\n')
        return 0;
    if (e >= *eol || !blank(text[e]))
        return 0;
    while (e < *eol && blank(text[e]))
        e++;
    if (*eol - e < 7 || memcmp(text + e, "maxcode", 7))
        return 0;
    e += 7;
    if (e >= *eol || !blank(text[e]))
        return 0;
    while (e < *eol && blank(text[e]))
        e++;
    return *eol - e >= 8 && !memcmp(text + e, "optimize", 8) &&
           (e + 8 == *eol || blank(text[e + 8]) || text[e + 8] == '/');
}

/* The offset of each "#pragma maxcode optimize" line of TEXT from
 * *FROM on, or LEN when none is left; *FROM moves past it. */
static size_t
next_pragma(const char *text, size_t len, size_t *from, size_t *eol)
{
    const char *p;

    while (*from < len &&
           (p = memmem(text + *from, len - *from, "pragma", 6))) {
        size_t at = (size_t)(p - text);

        *from = at + 6;
        if (pragma_line(text, len, at, eol)) {
            *from = *eol;
            return at;
        }
    }
    *from = len;
    return len;
}

int
mc_launcher_marked(const char *text, size_t len)
{
    size_t from = 0, eol;

    return next_pragma(text, len, &from, &eol) < len;
}

size_t
mc_launcher_open_comment(const char *text, size_t len)
{
    size_t from = 0, at, eol;

    while ((at = next_pragma(text, len, &from, &eol)) < len) {
        size_t i, line = 1;
        int quoted = 0, open = 0;

        for (i = at; i + 1 < eol; i++) {
            if (text[i] == '"')
                quoted = !quoted;
            else if (!quoted && !open && text[i] == '/' &&
                     text[i + 1] == '*')
                open = 1, i++;
            else if (open && text[i] == '*' && text[i + 1] == '/')
                open = 0, i++;
        }
        if (open) {
            for (i = 0; i < at; i++)
                line += text[i] == '\n';
            return line;
        }
    }
    return 0;
}
