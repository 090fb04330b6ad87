/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-mark.c: '#pragma maxcode' marks: options of optimize lines, fence
 * counting, syntax errors that name their line, the fence check on
 * candidates, and reading marks from a file.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "mark.h"
#include "ctext.h"
#include "tap.h"
#include "testfs.h"

/* Scan the string TEXT into M, expecting success. */
static int
scan_ok(const char *text, struct mc_mark *m, const char *name)
{
    struct mc_err err = MC_ERR_INIT;
    int good;

    good = is_long(mc_mark_scan(text, strlen(text), m, &err), MC_OK, name);
    if (!good)
        printf("#   message: %s\n", err.msg);
    return good;
}

/* Scan TEXT, expecting MC_ESYNTAX and a message that contains WANT. */
static void
scan_bad(const char *text, const char *want, const char *name)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_mark m = MC_MARK_INIT;

    is_long(mc_mark_scan(text, strlen(text), &m, &err), MC_ESYNTAX, name);
    if (!contains(err.msg, want, "and the message names the line"))
        printf("#   message: %s\n#   want:    %s\n", err.msg, want);
    ok(!m.marked && m.options.n == 0 && m.n_fences == 0,
       "and the mark is left empty");
    mc_mark_release(&m);
}

/* Check CAND against ORIG; return the code and leave the message in
 * ERR. */
static enum mc_code
check(const char *orig, const char *cand, struct mc_err *err)
{
    mc_err_clear(err);
    return mc_mark_check_fences(orig, strlen(orig), cand, strlen(cand),
                                err);
}

static void
test_mark__unmarked(void)
{
    struct mc_mark m = MC_MARK_INIT;

    if (scan_ok("#include <stdio.h>\n#pragma once\n#pragma omp parallel\n"
                "int main(void) { return 0; }\n", &m, "scans"))
        ok(!m.marked && m.options.n == 0 && m.n_fences == 0,
           "a file without maxcode pragmas is not marked");
    mc_mark_release(&m);
    if (scan_ok("", &m, "an empty text scans"))
        ok(!m.marked, "and is not marked");
    mc_mark_release(&m);
    if (scan_ok("#pragma maxcodes optimize\n#pragmamaxcode optimize\n", &m,
                "look-alike pragmas scan"))
        ok(!m.marked, "and do not mark");
    mc_mark_release(&m);
}

static void
test_mark__options_and_spacing(void)
{
    struct mc_mark m = MC_MARK_INIT;

    if (scan_ok("int x;\n#pragma maxcode optimize budget=4 "
                "args=\"-n 5\" x=\"a\\\"b\"\n", &m, "scans")) {
        ok(m.marked, "an optimize line marks the file");
        is_long(m.options.n, 3, "three options");
        is_str(m.options.v[0], "budget=4", "a plain option");
        is_str(m.options.v[1], "args=-n 5", "a quoted value keeps blanks");
        is_str(m.options.v[2], "x=a\"b", "\\\" in quotes is a quote");
    }
    mc_mark_release(&m);
    if (scan_ok("  #  pragma \t maxcode   optimize\tmetric=time  \r\n", &m,
                "spaced-out pragma with CRLF scans")) {
        ok(m.marked, "whitespace after '#' and between words is fine");
        is_long(m.options.n, 1, "one option");
        is_str(m.options.v[0], "metric=time", "blanks and \\r are trimmed");
    }
    mc_mark_release(&m);
    if (scan_ok("#pragma maxcode optimize\n", &m, "bare optimize scans"))
        ok(m.marked && m.options.n == 0, "marked, with no options");
    mc_mark_release(&m);
    if (scan_ok("#pragma maxcode optimize a=1 // b=2\n", &m,
                "a trailing comment scans"))
        ok(m.options.n == 1 && !strcmp(m.options.v[0], "a=1"),
           "and the comment is not an option");
    mc_mark_release(&m);
}

static void
test_mark__continued_lines(void)
{
    struct mc_mark m = MC_MARK_INIT;

    if (scan_ok("#pragma maxcode optimize a=1 \\\n    b=2\nint y;\n", &m,
                "a continued optimize line scans")) {
        is_long(m.options.n, 2, "the continuation belongs to the pragma");
        ok(m.options.n == 2 && !strcmp(m.options.v[1], "b=2"),
           "and gives the second option");
    }
    mc_mark_release(&m);
    if (scan_ok("#define X 1 \\\n#pragma maxcode end\n// note \\\n"
                "#pragma maxcode bogus\n", &m,
                "pragmas on continued lines scan"))
        ok(!m.marked && m.n_fences == 0,
           "a line that continues another is not a pragma");
    mc_mark_release(&m);
}

static void
test_mark__accumulates(void)
{
    struct mc_mark m = MC_MARK_INIT;

    if (scan_ok("#pragma maxcode optimize a=1 b=2\nint z;\n"
                "#pragma maxcode optimize c=3 a=4\n", &m, "scans")) {
        is_long(m.options.n, 4, "options of both lines are kept");
        ok(m.options.n == 4 && !strcmp(m.options.v[0], "a=1") &&
               !strcmp(m.options.v[2], "c=3") &&
               !strcmp(m.options.v[3], "a=4"),
           "in file order");
    }
    mc_mark_release(&m);
}

static void
test_mark__fences_counted(void)
{
    struct mc_mark m = MC_MARK_INIT;

    if (scan_ok("#pragma maxcode optimize\n"
                "#pragma maxcode begin\nint a;\n#pragma maxcode end\n"
                "int b;\n"
                "# pragma maxcode begin // hot\n#pragma maxcode end\n",
                &m, "scans"))
        is_long(m.n_fences, 2, "two begin/end pairs");
    mc_mark_release(&m);
}

static void
test_mark__errors_name_the_line(void)
{
    scan_bad("int a;\n\n#pragma maxcode end\n",
             "3: '#pragma maxcode end' without begin", "end without begin");
    scan_bad("#pragma maxcode begin\nint a;\n#pragma maxcode begin\n",
             "3: nested '#pragma maxcode begin'", "nested begin");
    scan_bad("#pragma maxcode begin\n#pragma maxcode end\n\n"
             "#pragma maxcode begin\nint a;\n",
             "4: '#pragma maxcode begin' is not closed at end of file",
             "begin not closed");
    scan_bad("int a;\n#pragma maxcode optimise\n",
             "2: unknown '#pragma maxcode optimise'", "unknown word");
    scan_bad("#pragma maxcode\n", "1: '#pragma maxcode' without a directive",
             "no word");
    scan_bad("\n#pragma maxcode optimize a=1 fast\n",
             "2: malformed option 'fast'", "an option without '='");
    scan_bad("#pragma maxcode optimize =3\n", "1: malformed option '=3'",
             "an option with an empty key");
    scan_bad("#pragma maxcode optimize args=\"-n 5\n",
             "1: unterminated '\"'", "an unterminated quote");
    scan_bad("#pragma maxcode begin now\n#pragma maxcode end\n",
             "1: unexpected 'now' after '#pragma maxcode begin'",
             "junk after begin");
}

static const char fenced[] =
    "#include <math.h>\n"                  /* 1 */
    "#pragma maxcode optimize budget=4\n"  /* 2 */
    "#pragma maxcode begin\n"              /* 3 */
    "double f(double x) { return x; }\n"   /* 4 */
    "#pragma maxcode end\n"                /* 5 */
    "int keep;\n"                          /* 6 */
    "#pragma maxcode begin\n"              /* 7 */
    "int g(void) { return 1; }\n"          /* 8 */
    "#pragma maxcode end\n"                /* 9 */
    "int tail;\n";                         /* 10 */

static void
test_mark__check_fences_accepts_fenced_changes(void)
{
    struct mc_err err = MC_ERR_INIT;

    is_long(check(fenced, fenced, &err), MC_OK, "an identical text passes");
    is_long(check(fenced,
                  "#include <math.h>\n"
                  "#pragma maxcode optimize budget=4\n"
                  "#pragma maxcode begin\n"
                  "static inline double\nf(double x)\n{\n    return x;\n}\n"
                  "#pragma maxcode end\n"
                  "int keep;\n"
                  "#pragma maxcode begin\n"
                  "#pragma maxcode end\n"
                  "int tail;\n",
                  &err),
            MC_OK, "fenced bodies may change and grow or shrink");
    if (err.code)
        printf("#   message: %s\n", err.msg);
}

static void
test_mark__check_fences_rejects_outside_changes(void)
{
    struct mc_err err = MC_ERR_INIT;
    char *cand = mc_strdup(fenced), *p;

    if (!ok(cand != NULL, "copied"))
        return;
    p = strstr(cand, "math");
    *p = 'M';
    is_long(check(fenced, cand, &err), MC_EINVAL,
            "a change before the first fence fails");
    is_str(err.msg,
           "text outside '#pragma maxcode begin/end' changed at line 1",
           "and names line 1");
    *p = 'm';
    p = strstr(cand, "keep");
    *p = 'K';
    is_long(check(fenced, cand, &err), MC_EINVAL,
            "a change between fences fails");
    contains(err.msg, "changed at line 6", "and names line 6");
    *p = 'k';
    p = strstr(cand, "tail");
    *p = 'T';
    is_long(check(fenced, cand, &err), MC_EINVAL,
            "a change after the last fence fails");
    contains(err.msg, "changed at line 10", "and names line 10");
    mc_free(cand);

    is_long(check(fenced,
                  "#include <math.h>\n"
                  "#pragma maxcode optimize budget=4\n"
                  "#pragma maxcode begin\n"
                  "double f(double x)\n{\n    return x;\n}\n"
                  "#pragma maxcode end\n"
                  "int keep;\n"
                  "#pragma maxcode begin\n"
                  "int g(void) { return 1; }\n"
                  "#pragma maxcode end\n"
                  "int tails;\n",
                  &err),
            MC_EINVAL, "a change after a grown fence fails");
    contains(err.msg, "changed at line 10", "and names ORIG's line");
    is_long(check(fenced, "#include <math.h>\n", &err), MC_EINVAL,
            "a truncated text fails");
    is_long(check(fenced, "int x;\n", &err), MC_EINVAL,
            "a wholly different text fails");
    contains(err.msg, "changed at line 1", "at line 1");
    {
        char *longer = mc_malloc(sizeof(fenced) + 8);

        if (longer) {
            snprintf(longer, sizeof(fenced) + 8, "%sint x;\n", fenced);
            is_long(check(fenced, longer, &err), MC_EINVAL,
                    "text added after the end fails");
            contains(err.msg, "changed at line 11", "at line 11");
        }
        mc_free(longer);
    }
}

static void
test_mark__check_fences_rejects_removed_pragma(void)
{
    struct mc_err err = MC_ERR_INIT;

    is_long(check(fenced,
                  "#include <math.h>\n"
                  "#pragma maxcode optimize budget=4\n"
                  "#pragma maxcode begin\n"
                  "double f(double x) { return x; }\n"
                  "int keep;\n"
                  "#pragma maxcode begin\n"
                  "int g(void) { return 1; }\n"
                  "#pragma maxcode end\n"
                  "int tail;\n",
                  &err),
            MC_EINVAL, "a removed end line fails");
    contains(err.msg, "changed at line 5", "and names the end line");
    is_long(check(fenced,
                  "#include <math.h>\n"
                  "#pragma maxcode optimize budget=4\n"
                  "double f(double x) { return x; }\n"
                  "#pragma maxcode end\n"
                  "int keep;\n"
                  "#pragma maxcode begin\n"
                  "int g(void) { return 1; }\n"
                  "#pragma maxcode end\n"
                  "int tail;\n",
                  &err),
            MC_EINVAL, "a removed begin line fails");
    contains(err.msg, "changed at line 3", "and names the begin line");
    is_long(check(fenced,
                  "#include <math.h>\n"
                  "#pragma maxcode optimize budget=4\n"
                  "#pragma maxcode begin\n"
                  "double f(double x) { return x; }\n"
                  "#pragma maxcode end\n"
                  "#pragma maxcode begin\n"
                  "#pragma maxcode end\n"
                  "int keep;\n"
                  "#pragma maxcode begin\n"
                  "int g(void) { return 1; }\n"
                  "#pragma maxcode end\n"
                  "int tail;\n",
                  &err),
            MC_EINVAL, "an added fence fails");
    contains(err.msg, "changed at line 6", "where the texts part");
}

static void
test_mark__check_fences_without_fences(void)
{
    struct mc_err err = MC_ERR_INIT;

    is_long(check("#pragma maxcode optimize\nint a;\n", "anything at all",
                  &err),
            MC_OK, "with no fences anything goes");
    is_long(check("int a;\n", "", &err), MC_OK, "even an empty candidate");
    is_long(check("#pragma maxcode end\n", "x", &err), MC_ESYNTAX,
            "an ORIG that does not scan is a syntax error");
    contains(err.msg, "1: '#pragma maxcode end' without begin",
             "with the scan's message");
}


/* A .cu text with host code, a template kernel, the kernel `scale` and a
 * declaration-only kernel. */
static const char kern_orig[] =
    "#include <cstdio>\n"
    "// host helper: scale(\n"
    "static int twice(int v) { return 2 * v; }\n"
    "__global__ void decl_only(float *p);\n"
    "template <int N>\n"
    "__global__ void tile(float *p) { p[threadIdx.x] *= N; }\n"
    "__global__ void scale(float *y, const float *x, int n)\n"
    "{\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x; /* } */\n"
    "    if (i < n) { y[i] = 2.0f * x[i]; }\n"
    "}\n"
    "int host(void) { return twice(3); }\n";

/* KERN_ORIG with FROM replaced by TO, into a static buffer. */
static const char *
kern_edit(const char *from, const char *to)
{
    static char out[2048];
    const char *p = strstr(kern_orig, from);
    size_t a = (size_t)(p - kern_orig);

    snprintf(out, sizeof(out), "%.*s%s%s", (int)a, kern_orig, to,
             p + strlen(from));
    return out;
}

static enum mc_code
check_kernel(const char *cand, const char *name, struct mc_err *err)
{
    mc_err_clear(err);
    return mc_mark_check_kernel(kern_orig, strlen(kern_orig), cand,
                                strlen(cand), name, err);
}

static void
test_mark__ctext_kernels(void)
{
    char *c = mc_ctext_blank(kern_orig, strlen(kern_orig));
    struct mc_kernel k[4];
    size_t n = mc_ctext_kernels(c, strlen(kern_orig), k, 4);

    is_long(n, 2, "two kernels with bodies (a declaration is none)");
    ok(n == 2 && !strncmp(kern_orig + k[0].name, "tile", k[0].name_len),
       "the template kernel is one");
    ok(n == 2 && !strncmp(kern_orig + k[0].start, "template <int N>", 16),
       "its template line belongs to it");
    ok(n == 2 && !strncmp(kern_orig + k[1].name, "scale", k[1].name_len),
       "scale is the other");
    ok(n == 2 && kern_orig[k[1].end - 1] == '}' &&
       !strncmp(kern_orig + k[1].end, "\nint host", 9),
       "its span ends at its body's brace (a brace in a comment is none)");
    mc_free(c);
}

static void
test_mark__check_kernel(void)
{
    struct mc_err err = MC_ERR_INIT;

    is_long(check_kernel(kern_orig, "scale", &err), MC_OK,
            "the original passes");
    is_long(check_kernel(kern_edit("    if (i < n) { y[i] = 2.0f * x[i]; }\n",
                                   "    if (i < n)\n        y[i] = x[i] + "
                                   "x[i];\n"),
                         "scale", &err),
            MC_OK, "the kernel's body may change, its lines too");
    is_long(check_kernel(kern_edit("void scale(float *y, const float *x",
                                   "void __launch_bounds__(256, 2) scale("
                                   "float *__restrict__ y, const float "
                                   "*__restrict__ x"),
                         "scale", &err),
            MC_OK, "its signature may take qualifiers");
    is_long(check_kernel(kern_edit("return twice(3);", "return 6;"),
                         "scale", &err),
            MC_EINVAL, "host code after it may not change");
    contains(err.msg, "text outside kernel 'scale' changed at line 12",
             "the message names the kernel and the line");
    is_long(check_kernel(kern_edit("return 2 * v;", "return v + v;"),
                         "scale", &err),
            MC_EINVAL, "nor host code before it");
    contains(err.msg, "changed at line 3", "at its line");
    is_long(check_kernel(kern_edit("*= N;", "*= 2 * N;"), "scale", &err),
            MC_EINVAL, "nor another kernel");
    is_long(check_kernel(kern_edit("scale(float *y", "scale2(float *y"),
                         "scale", &err),
            MC_EINVAL, "a renamed kernel is gone");
    contains(err.msg, "kernel 'scale' is gone", "so it says");
    is_long(check_kernel(kern_orig, "decl_only", &err), MC_EINVAL,
            "a declaration is not a kernel to fence");
    contains(err.msg, "defines no kernel 'decl_only'", "so it says");
    is_long(check_kernel(kern_edit("*= N;", "*= 2 * N;"), "tile", &err),
            MC_OK, "kernel=tile lets tile change");
    is_long(check_kernel(kern_edit("*= N;", "*= 2 * N;"), NULL, &err),
            MC_OK, "without a name, every kernel may change");
    is_long(check_kernel(kern_edit("2.0f * x[i]", "x[i] + x[i]"), NULL,
                         &err),
            MC_OK, "scale too");
    is_long(check_kernel(kern_edit("return twice(3);", "return 6;"), NULL,
                         &err),
            MC_EINVAL, "but not the host code");
    contains(err.msg, "text outside the kernels changed at line 12",
             "so it says");
    is_long(check_kernel(kern_edit("template <int N>\n__global__ void "
                                   "tile(float *p) { p[threadIdx.x] *= N; }"
                                   "\n", ""),
                         NULL, &err),
            MC_EINVAL, "nor may a kernel go");
    contains(err.msg, "the kernels changed: 1 instead of 2", "so it says");
    mc_err_clear(&err);
    is_long(mc_mark_check_kernel("int main(void) { return 0; }\n", 29,
                                 "int main(void) { return 1; }\n", 29,
                                 NULL, &err),
            MC_OK, "a .cu file without kernels is not fenced");
}

static void
test_mark__scan_file(void)
{
    char path[] = "/tmp/mc-mark-XXXXXX";
    struct mc_err err = MC_ERR_INIT;
    struct mc_mark m = MC_MARK_INIT;
    char want[64];
    int fd;

    is_long(mc_mark_scan_file("/nonexistent/hot.c", &m, &err), MC_ENOENT,
            "a missing file is MC_ENOENT");
    is_str(err.msg,
           "cannot open '/nonexistent/hot.c': No such file or directory",
           "and the message quotes the path");

    fd = mkstemp(path);
    if (!ok(fd >= 0, "a scratch file"))
        return;
    close(fd);
    write_file(path, "#pragma maxcode optimize a=1\n\n#pragma maxcode end\n");
    mc_err_clear(&err);
    is_long(mc_mark_scan_file(path, &m, &err), MC_ESYNTAX,
            "a bad file is a syntax error");
    snprintf(want, sizeof(want), "%s:3: '#pragma maxcode end'", path);
    contains(err.msg, want, "named PATH:LINE");

    write_file(path, "#pragma maxcode optimize a=1\n");
    mc_err_clear(&err);
    if (is_long(mc_mark_scan_file(path, &m, &err), MC_OK,
                "a good file scans"))
        ok(m.marked && m.options.n == 1, "and is marked with its option");
    mc_mark_release(&m);
    unlink(path);
}

int
main(void)
{
    TAP_RUN(test_mark__unmarked);
    TAP_RUN(test_mark__options_and_spacing);
    TAP_RUN(test_mark__continued_lines);
    TAP_RUN(test_mark__accumulates);
    TAP_RUN(test_mark__fences_counted);
    TAP_RUN(test_mark__errors_name_the_line);
    TAP_RUN(test_mark__check_fences_accepts_fenced_changes);
    TAP_RUN(test_mark__check_fences_rejects_outside_changes);
    TAP_RUN(test_mark__check_fences_rejects_removed_pragma);
    TAP_RUN(test_mark__check_fences_without_fences);
    TAP_RUN(test_mark__ctext_kernels);
    TAP_RUN(test_mark__check_kernel);
    TAP_RUN(test_mark__scan_file);
    return tap_done();
}
