/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * profile.c: gcov's JSON intermediate format read into line and
 * function counts (see profile.h). The part of the format read here
 * (format_version "1", GCC 9 to 14; other members are ignored):
 *
 *   document = { "files": [ file, ... ], "format_version": "1",
 *                "gcc_version": TEXT, "data_file": TEXT,
 *                "current_working_directory": TEXT }
 *   file     = { "file": PATH,          the source as the compiler
 *                                       was given it
 *                "lines": [ line, ... ],  only lines with code
 *                "functions": [ function, ... ] }
 *   line     = { "line_number": N >= 1, "count": N,
 *                "function_name": MANGLED,   absent for code outside
 *                                            any function gcov knows
 *                "unexecuted_block": BOOL, "branches": [ ... ] }
 *   function = { "name": MANGLED, "demangled_name": TEXT,
 *                "start_line": N, "end_line": N,
 *                "execution_count": N, "start_column": N,
 *                "end_column": N, "blocks": N, "blocks_executed": N }
 *
 * A line that several functions share (the instances of a template)
 * is listed once per function, each with that function's name.
 */
#include "mc_setup.h"
#include "profile.h"
#include "alloc.h"

#include <cjson/cJSON.h>
#include <math.h>

#define MAX_LINE (1u << 24)   /* a larger line number is not a source's */

/* The parse of one file entry: the profile, and the gcov names of its
 * functions (they point into the document). */
struct parse {
    struct mc_profile *p;
    const char **mangled;     /* P->fn[i]'s "name" */
};

void
mc_profile_init(struct mc_profile *p)
{
    memset(p, 0, sizeof(*p));
}

void
mc_profile_release(struct mc_profile *p)
{
    size_t i;

    for (i = 0; i < p->nfn; i++)
        mc_free(p->fn[i].name);
    mc_free(p->fn);
    mc_free(p->count);
    mc_profile_init(p);
}

enum mc_code
mc_profile_set_lines(struct mc_profile *p, size_t nlines)
{
    double *c;
    size_t i;

    if (p->count && nlines <= p->nlines)
        return MC_OK;
    if (nlines < p->nlines)
        nlines = p->nlines;
    c = mc_realloc(p->count, (nlines + 1) * sizeof(*c));
    if (!c)
        return MC_ENOMEM;
    for (i = p->count ? p->nlines + 1 : 0; i <= nlines; i++)
        c[i] = -1;
    p->count = c;
    p->nlines = nlines;
    return MC_OK;
}

static const char *
base_name(const char *path)
{
    const char *slash = strrchr(path, '/');

    return slash ? slash + 1 : path;
}

/* Member NAME of O as a string, or NULL. */
static const char *
text(const cJSON *o, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, name);

    return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Member NAME of O as a finite number into *V: 0, or -1 when it is
 * missing or not one. */
static int
number(const cJSON *o, const char *name, double *v)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(o, name);

    if (!cJSON_IsNumber(n) || !isfinite(n->valuedouble))
        return -1;
    *v = n->valuedouble;
    return 0;
}

/* Member NAME of O as a line number (a whole number from 1 to
 * MAX_LINE) into *LINE: 0, or -1. */
static int
line_number(const cJSON *o, const char *name, size_t *line)
{
    double v;

    if (number(o, name, &v) || v < 1 || v > MAX_LINE || v != floor(v))
        return -1;
    *line = (size_t)v;
    return 0;
}

/* Whether gcov's PATH is SOURCE: the same string, or, for a relative
 * SOURCE (a leading "./" aside), PATH ends with "/SOURCE". */
static int
same_path(const char *path, const char *source)
{
    size_t lp = strlen(path), ls;

    if (!strcmp(path, source))
        return 1;
    while (source[0] == '.' && source[1] == '/')
        source += 2;
    ls = strlen(source);
    return source[0] != '/' && lp > ls && path[lp - ls - 1] == '/' &&
           !strcmp(path + lp - ls, source);
}

/* The entry of FILES (gcov's "files") for SOURCE into *OUT. */
static enum mc_code
pick_file(const cJSON *files, const char *source, const cJSON **out,
          struct mc_err *err)
{
    const char *want = base_name(source);
    const cJSON *f, *first = NULL, *exact = NULL;
    size_t named = 0, same = 0;

    if (!cJSON_IsArray(files))
        return mc_err_set(err, MC_ESYNTAX, "gcov's output has no "
                          "\"files\" list");
    cJSON_ArrayForEach(f, files) {
        const char *path = text(f, "file");

        if (!path || strcmp(base_name(path), want))
            continue;
        named++;
        first = first ? first : f;
        if (same_path(path, source)) {
            same++;
            exact = f;
        }
    }
    if (!named)
        return mc_err_set(err, MC_ENOENT, "no file '%s' in gcov's output",
                          want);
    if (named > 1 && same != 1)
        return mc_err_set(err, MC_EINVAL, "%zu files named '%s' in gcov's "
                          "output, and %s '%s'", named, want,
                          same ? "several are" : "none is", source);
    *out = named == 1 ? first : exact;
    return MC_OK;
}

/* The "functions" of FILE into PS. */
static enum mc_code
read_functions(const cJSON *file, struct parse *ps, struct mc_err *err)
{
    const cJSON *fns = cJSON_GetObjectItemCaseSensitive(file, "functions");
    const cJSON *f;
    struct mc_profile *p = ps->p;
    size_t n = (size_t)cJSON_GetArraySize(fns);

    if (fns && !cJSON_IsArray(fns))
        return mc_err_set(err, MC_ESYNTAX, "gcov's \"functions\" is not "
                          "a list");
    if (!n)
        return MC_OK;
    p->fn = mc_calloc(n, sizeof(*p->fn));
    ps->mangled = mc_calloc(n, sizeof(*ps->mangled));
    if (!p->fn || !ps->mangled)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    cJSON_ArrayForEach(f, fns) {
        struct mc_profile_fn *fn = &p->fn[p->nfn];
        const char *name = text(f, "name");
        const char *shown = text(f, "demangled_name");

        if (!name || line_number(f, "start_line", &fn->start_line) ||
            line_number(f, "end_line", &fn->end_line) ||
            fn->end_line < fn->start_line ||
            number(f, "execution_count", &fn->count))
            return mc_err_set(err, MC_ESYNTAX, "gcov's function '%.80s' "
                              "lacks its lines or its count",
                              name ? name : "?");
        if (!(fn->name = mc_strdup(shown ? shown : name)))
            return mc_err_set(err, MC_ENOMEM, "out of memory");
        ps->mangled[p->nfn++] = name;
        if (fn->end_line > p->nlines)
            p->nlines = fn->end_line;
    }
    return MC_OK;
}

/* Add COUNT, the count of LINE, to its function: the one gcov names
 * (FNAME, may be NULL), else the innermost one that holds LINE. */
static void
attribute(struct parse *ps, size_t line, const char *fname, double count)
{
    struct mc_profile *p = ps->p;
    size_t i, best = p->nfn;

    for (i = 0; fname && i < p->nfn; i++)
        if (!strcmp(fname, ps->mangled[i])) {
            p->fn[i].lines += count;
            return;
        }
    for (i = 0; i < p->nfn; i++)
        if (p->fn[i].start_line <= line && line <= p->fn[i].end_line &&
            (best == p->nfn || p->fn[i].end_line - p->fn[i].start_line <
                               p->fn[best].end_line - p->fn[best].start_line))
            best = i;
    if (best < p->nfn)
        p->fn[best].lines += count;
}

/* The "lines" of FILE into PS (after its functions). */
static enum mc_code
read_lines(const cJSON *file, struct parse *ps, struct mc_err *err)
{
    const cJSON *lines = cJSON_GetObjectItemCaseSensitive(file, "lines");
    const cJSON *l;
    struct mc_profile *p = ps->p;
    size_t line = 0;
    double count = 0;

    if (!cJSON_IsArray(lines))
        return mc_err_set(err, MC_ESYNTAX, "gcov's output has no "
                          "\"lines\" list for the source");
    cJSON_ArrayForEach(l, lines) {
        if (line_number(l, "line_number", &line) ||
            number(l, "count", &count))
            return mc_err_set(err, MC_ESYNTAX, "a line of gcov's output "
                              "lacks its number or its count");
        if (line > p->nlines)
            p->nlines = line;
    }
    if (mc_profile_set_lines(p, p->nlines))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    cJSON_ArrayForEach(l, lines) {
        if (line_number(l, "line_number", &line) ||
            number(l, "count", &count))
            continue; /* not so: checked above */
        if (count < 0)
            count = 0; /* solved from counters that threads raced on */
        p->count[line] = (p->count[line] < 0 ? 0 : p->count[line]) + count;
        attribute(ps, line, text(l, "function_name"), count);
    }
    return MC_OK;
}

enum mc_code
mc_profile_parse(const char *json, size_t len, const char *source,
                 struct mc_profile *p, struct mc_err *err)
{
    struct parse ps = {p, NULL};
    const cJSON *file = NULL;
    cJSON *doc;
    enum mc_code rc;

    mc_profile_release(p);
    doc = cJSON_ParseWithLength(json, len);
    if (!doc)
        return mc_err_set(err, MC_ESYNTAX, "gcov's output is not JSON "
                          "(or memory ran out)");
    rc = pick_file(cJSON_GetObjectItemCaseSensitive(doc, "files"), source,
                   &file, err);
    if (!rc)
        rc = read_functions(file, &ps, err);
    if (!rc)
        rc = read_lines(file, &ps, err);
    mc_free(ps.mangled);
    cJSON_Delete(doc);
    if (rc)
        mc_profile_release(p);
    return rc;
}
