/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-reads.c: the scanners for what a compile reads: the directives
 * of a candidate (the ways a preprocessor lets one spell them), the
 * prerequisites of `cc -M` output, and the paths in diagnostics.
 */
#include "mc_setup.h"
#include "reads.h"
#include "strv.h"
#include "tap.h"

/* V's strings joined by '|' (static), V released; "(error)" after
 * RC. */
static const char *
joined(enum mc_code rc, struct mc_strv *v)
{
    static char out[1024];
    size_t i;

    out[0] = '\0';
    for (i = 0; i < v->n; i++)
        snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%s",
                 i ? "|" : "", v->v[i]);
    mc_strv_release(v);
    return rc ? "(error)" : out;
}

/* The names of TEXT's directives, joined by '|'. */
static const char *
names(const char *text)
{
    struct mc_strv v = MC_STRV_INIT;

    return joined(mc_reads_directives(text, strlen(text), &v), &v);
}

static void
test_reads__directives(void)
{
    is_str(names("#include <stdio.h>\n#include \"util.h\"\nint x;\n"),
           "stdio.h|util.h", "quote and angle includes");
    is_str(names("  #  include_next \"/x/a.h\"\n#import </x/b.h>\n"
                 "#embed \"/x/c.bin\" limit(4)\n"),
           "/x/a.h|/x/b.h|/x/c.bin", "include_next, import, embed");
    is_str(names("#/**/include /* x */ \"/x/a.h\"\n"),
           "/x/a.h", "comments between the tokens");
    is_str(names("#inc\\\nlude \"/x/a.h\"\n"), "/x/a.h",
           "a backslash-newline inside the keyword");
    is_str(names("%:include \"/x/a.h\"\n?" "?=include \"/x/b.h\"\n"),
           "/x/a.h|/x/b.h", "digraph and trigraph '#'");
    is_str(names("#line 1 \"/x/a.h\"\n# 7 \"/x/b.h\" 2\n#line 9\n"),
           "/x/a.h|/x/b.h", "#line and line markers name a file");
    is_str(names("// #include \"/x/no.h\"\n/* #include \"/x/no2.h\"\n*/\n"
                 "const char *s = \"#include \\\"/x/no3.h\\\"\";\n"),
           "", "not in comments or in strings");
    is_str(names("#include </x//a.h>\n"), "/x//a.h",
           "a header name is not a comment");
    is_str(names("#define X 1\n#if X\n#endif\nint y = 1'000'000;\n"
                 "char c = '\"';\n#include \"/x/a.h\"\n"),
           "/x/a.h", "digit separators and a quote character");
}

static void
test_reads__assembler(void)
{
    is_str(names("asm(\".incbin \\\"/x/s.bin\\\"\");\n"), "/x/s.bin",
           ".incbin in an asm string");
    is_str(names("__asm__(\".inc\" \"bin \\\"/x/s.bin\\\"\");\n"),
           "/x/s.bin", "adjacent literals joined");
    is_str(names("asm(\".inc\"\n  /* c */ \"bin \\\"\\x2fx/s.bin\\\"\");\n"),
           "/x/s.bin", "across lines and comments, escapes decoded");
    is_str(names("asm(\".IncBin \\\"/x/s.bin\\\",0,4\");\n"), "/x/s.bin",
           "directives in any case");
    is_str(names("asm(\"\\t.include \\\"/x/m.s\\\"\\n\");\n"), "/x/m.s",
           ".include");
    is_str(names("asm(R\"(.incbin \"/x/raw.bin\")\");\n"), "/x/raw.bin",
           "a raw string");
    is_str(names("asm(u8\".incbin \\\"/x/u.bin\\\"\");\n"), "/x/u.bin",
           "a prefixed string");
    is_str(names("puts(\".incbinx\"); f(\".inc\", \"bin \\\"/x/no\\\"\");\n"),
           "", "not across a comma, not a longer word");
}

/* The words of mc_reads_deps() or mc_reads_paths_in(), joined by '|'. */
static const char *
words(int deps, const char *text)
{
    struct mc_strv v = MC_STRV_INIT;

    return joined((deps ? mc_reads_deps : mc_reads_paths_in)(
                      text, strlen(text), &v),
                  &v);
}

static void
test_reads__deps(void)
{
    is_str(words(1, "hot.o: /p/hot.c /usr/include/stdio.h \\\n"
                    " /p/my\\ dir/a.h /p/$$x.h\n"),
           "/p/hot.c|/usr/include/stdio.h|/p/my dir/a.h|/p/$x.h",
           "prerequisites, escapes undone, the target left out");
    is_str(words(1, "a.o: a.c\nb.o: b.c \\\r\n c.h\n"), "a.c|b.c|c.h",
           "two rules");
    is_str(words(1, ""), "", "nothing");
}

static void
test_reads__diagnostics(void)
{
    is_str(words(0, "In file included from cand.c:3:\n"
                    "/x/secret.h:1:1: error: unknown type 'S'\n"
                    "    1 | S\n"),
           "cand.c|/x/secret.h", "locations");
    is_str(words(0, "c.c:1:10: fatal error: /x/s.h: Permission denied\n"),
           "c.c|/x/s.h", "a path in the message");
    is_str(words(0, "Error: file not found: ../p/ev.bin\n"), "../p/ev.bin",
           "the assembler's");
    is_str(words(0, "error: expected ';' before 'int'\n"), "",
           "no path");
}

int
main(void)
{
    TAP_RUN(test_reads__directives);
    TAP_RUN(test_reads__assembler);
    TAP_RUN(test_reads__deps);
    TAP_RUN(test_reads__diagnostics);
    return tap_done();
}
