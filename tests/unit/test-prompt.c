/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-prompt.c: the prompt templates' rendering (variables, kept and
 * dropped sections, nesting, literal text), their version string, and
 * the extraction of a new source file from a model's answer: fenced and
 * bare code around prose, unclosed fences, answers without code, and
 * answers fitted to the '#pragma maxcode begin/end' regions of the
 * original.
 */
#include "mc_setup.h"
#include "buf.h"
#include "prompt.h"
#include "tap.h"

#include <ctype.h>

/* Render TMPL with VARS into a fresh buffer and compare with WANT. */
static void
render_is(const char *tmpl, const struct mc_prompt_var *vars, size_t n,
          const char *want, const char *name)
{
    struct mc_buf out = MC_BUF_INIT;
    enum mc_code rc = mc_prompt_render(tmpl, vars, n, &out);

    if (rc != MC_OK)
        printf("# render returned %d\n", (int)rc);
    is_str(out.s, want, name);
    mc_buf_release(&out);
}

/* Extract from ANSWER for ORIG, expecting success and the text WANT. */
static void
extract_is(const char *answer, const char *orig, const char *want,
           const char *name)
{
    struct mc_buf out = MC_BUF_INIT, why = MC_BUF_INIT;
    int rc = mc_prompt_extract(answer, orig, strlen(orig), &out, &why);

    if (rc != 0)
        printf("# extract returned %d: %s\n", rc, why.s);
    is_str(rc == 0 ? out.s : NULL, want, name);
    mc_buf_release(&out);
    mc_buf_release(&why);
}

/* Extract from ANSWER for ORIG, expecting -1 with a reason that holds
 * NEEDLE (any reason when NEEDLE is ""). */
static void
extract_fails(const char *answer, const char *orig, const char *needle,
              const char *name)
{
    struct mc_buf out = MC_BUF_INIT, why = MC_BUF_INIT;
    int rc = mc_prompt_extract(answer, orig, strlen(orig), &out, &why);

    if (!ok(rc == -1 && why.len > 0 && strstr(why.s, needle), name))
        printf("#   rc: %d\n#   why: '%s'\n#   out: '%s'\n", rc, why.s,
               out.s);
    mc_buf_release(&out);
    mc_buf_release(&why);
}

/* ---- rendering ---- */

static void
test_prompt__render_variables(void)
{
    const struct mc_prompt_var v[] = {
        {"lang", "C"}, {"name", "sum"}, {"none", NULL}};

    render_is("Optimise {{name}} in {{lang}}.", v, 3,
              "Optimise sum in C.", "variables are replaced");
    render_is("a{{missing}}b", v, 3, "ab",
              "an unknown variable renders empty");
    render_is("a{{none}}b", v, 3, "ab", "a NULL value renders empty");
    render_is("{{name}}{{name}}", v, 3, "sumsum",
              "a variable may be used twice");
    render_is("no tags at all\n{ braces } stay\n", v, 3,
              "no tags at all\n{ braces } stay\n",
              "text with no tags passes through unchanged");
    render_is("keep {{name}} and {{ this", v, 3, "keep sum and {{ this",
              "an unterminated {{ is copied literally");
    render_is("", v, 3, "", "an empty template renders empty");
}

static void
test_prompt__render_sections(void)
{
    const struct mc_prompt_var v[] = {
        {"full", "yes"}, {"empty", ""}, {"null", NULL}, {"x", "X"}};

    render_is("[{{#full}}in {{x}}{{/full}}]", v, 4, "[in X]",
              "{{#x}} is kept when x is not empty");
    render_is("[{{#empty}}in{{/empty}}]", v, 4, "[]",
              "{{#x}} is dropped when x is empty");
    render_is("[{{#null}}in{{/null}}]", v, 4, "[]",
              "{{#x}} is dropped when x is NULL");
    render_is("[{{#absent}}in{{/absent}}]", v, 4, "[]",
              "{{#x}} is dropped when x is absent");
    render_is("[{{^full}}in{{/full}}]", v, 4, "[]",
              "{{^x}} is dropped when x is not empty");
    render_is("[{{^empty}}a{{/empty}}{{^null}}b{{/null}}"
              "{{^absent}}c{{/absent}}]", v, 4, "[abc]",
              "{{^x}} is kept when x is empty, NULL or absent");
    render_is("[{{#null}}no {{x}} here{{/null}}]", v, 4, "[]",
              "a variable inside a dropped section does not appear");
    render_is("<{{#full}}a{{#x}}b{{^empty}}c{{/empty}}{{/x}}"
              "{{#empty}}d{{/empty}}e{{/full}}>", v, 4, "<abce>",
              "nested sections are kept and dropped independently");
    render_is("<{{#empty}}a{{#full}}b{{/full}}c{{/empty}}d>", v, 4, "<d>",
              "a kept section nested in a dropped one is dropped");
}

/* ---- version ---- */

static void
test_prompt__version(void)
{
    const char *v = mc_prompt_version();
    char copy[32];
    size_t i;
    int hex = 1;

    ok(v && !strncmp(v, "p1-", 3), "the version starts with p1-");
    is_long(v ? strlen(v) : 0, 3 + 16, "and has 3+16 characters");
    for (i = 3; v && v[i]; i++)
        if (!isxdigit((unsigned char)v[i]))
            hex = 0;
    ok(v && hex, "and ends in hex digits");
    snprintf(copy, sizeof(copy), "%s", v ? v : "");
    is_str(mc_prompt_version(), copy, "and is stable across calls");
}

/* ---- extraction, original without regions ---- */

static const char plain[] =
    "#include <stddef.h>\n"
    "\n"
    "int sum(const int *a, size_t n)\n"
    "{\n"
    "    int s = 0;\n"
    "    for (size_t i = 0; i < n; i++)\n"
    "        s += a[i];\n"
    "    return s;\n"
    "}\n";

/* The new version of PLAIN the model proposes. */
#define NEW_PLAIN                                                            \
    "#include <stddef.h>\n"                                                  \
    "\n"                                                                     \
    "int sum(const int *a, size_t n)\n"                                      \
    "{\n"                                                                    \
    "    int s0 = 0, s1 = 0;\n"                                              \
    "    size_t i;\n"                                                        \
    "    for (i = 0; i + 1 < n; i += 2) {\n"                                 \
    "        s0 += a[i];\n"                                                  \
    "        s1 += a[i + 1];\n"                                              \
    "    }\n"                                                                \
    "    if (i < n)\n"                                                       \
    "        s0 += a[i];\n"                                                  \
    "    return s0 + s1;\n"                                                  \
    "}\n"

static void
test_prompt__extract_fenced(void)
{
    extract_is("Here is a faster version:\n\n```c\n" NEW_PLAIN "```\n\n"
               "It unrolls the loop by two.\n",
               plain, NEW_PLAIN, "a ```c block amid prose gives its body");
    extract_is("Sure.\n```\n" NEW_PLAIN "```\nThat is all.", plain,
               NEW_PLAIN, "a fence without a language tag");
    extract_is("Sure:\n```c\nint sum(const int *a, size_t n)\n{\n"
               "    return 0; }\n```", plain,
               "int sum(const int *a, size_t n)\n{\n    return 0; }\n",
               "a block ending at the answer's end, closed without newline");
    extract_is("First the helper:\n```c\nstatic int k;\n```\n"
               "Then the file:\n```cpp\n" NEW_PLAIN "```\nDone.\n",
               plain, NEW_PLAIN, "of two blocks, the larger one");
    extract_is("The file:\n```c\n" NEW_PLAIN "```\nand a note:\n"
               "```\nstatic int k;\n```\n",
               plain, NEW_PLAIN, "of two blocks, the larger one also first");
    extract_is("Here it is:\n```c\n#include <stddef.h>\n"
               "int sum(const int *a, size_t n)\n{\n    return (int)n;",
               plain,
               "#include <stddef.h>\nint sum(const int *a, size_t n)\n{\n"
               "    return (int)n;\n",
               "an unclosed final fence runs to the end of the answer");
}

static void
test_prompt__extract_bare(void)
{
    extract_is("Here is the code:\n" NEW_PLAIN "Hope this helps.\n", plain,
               NEW_PLAIN, "bare code loses the prose before and after");
    extract_is(NEW_PLAIN, plain, NEW_PLAIN,
               "bare code alone is taken whole");
    extract_fails("I cannot help with that.", plain, "",
                  "an answer without code fails with a reason");
    extract_fails("", plain, "", "an empty answer fails with a reason");
}

/* ---- extraction, original with one region ---- */

#define R1_HEAD                                                              \
    "#include <math.h>\n"                                                    \
    "#pragma maxcode optimize budget=4\n"                                    \
    "static const double k = 2.0;\n"                                         \
    "#pragma maxcode begin\n"
#define R1_BODY                                                              \
    "double f(double x)\n"                                                   \
    "{\n"                                                                    \
    "    return k * pow(x, 2.0);\n"                                          \
    "}\n"
#define R1_TAIL                                                              \
    "#pragma maxcode end\n"                                                  \
    "int untouched(void) { return 0; }\n"
#define R1_NEW_BODY                                                          \
    "double f(double x)\n"                                                   \
    "{\n"                                                                    \
    "    return k * x * x;\n"                                                \
    "}\n"

static const char one_region[] = R1_HEAD R1_BODY R1_TAIL;

static void
test_prompt__extract_one_region(void)
{
    struct mc_buf want = MC_BUF_INIT;

    extract_is("The whole file:\n```c\n" R1_HEAD R1_NEW_BODY R1_TAIL
               "```\nThis avoids pow().\n",
               one_region, R1_HEAD R1_NEW_BODY R1_TAIL,
               "a block with the pragmas is the whole file, as is");
    extract_is(R1_HEAD R1_NEW_BODY R1_TAIL, one_region,
               R1_HEAD R1_NEW_BODY R1_TAIL,
               "a bare whole file with the pragmas is returned as is");

    /* The expected splice, built from the original's bytes. */
    mc_buf_add(&want, one_region, strlen(R1_HEAD));
    mc_buf_adds(&want, R1_NEW_BODY);
    mc_buf_adds(&want, strstr(one_region, "#pragma maxcode end"));
    extract_is("Replace the region with:\n```c\n" R1_NEW_BODY "```\n"
               "It avoids the call to pow().\n",
               one_region, want.s,
               "a region body is spliced, the rest byte-identical");
    extract_is("```c\n" R1_NEW_BODY "```", one_region, want.s,
               "a lone region body without prose is spliced the same");
    extract_is("Only the region changes:\n```c\n#pragma maxcode begin\n"
               R1_NEW_BODY "#pragma maxcode end\n```\n",
               one_region, want.s,
               "a region echoed with its pragmas gives its body");
    extract_fails("```c\n\n  \n```\nDone.", one_region, "empty",
                  "an empty code block is no code");
    mc_buf_release(&want);
}

/* ---- extraction, original with two regions ---- */

#define R2_A                                                                 \
    "#include <stddef.h>\n"                                                  \
    "#pragma maxcode optimize\n"                                             \
    "#pragma maxcode begin\n"
#define R2_BODY1 "static int scale = 3;\n"
#define R2_B                                                                 \
    "#pragma maxcode end\n"                                                  \
    "int keep_me;\n"                                                         \
    "  #pragma maxcode begin // second\n"
#define R2_BODY2                                                             \
    "void mul(int *a, size_t n)\n"                                           \
    "{\n"                                                                    \
    "    for (size_t i = 0; i < n; i++)\n"                                   \
    "        a[i] *= scale;\n"                                               \
    "}\n"
#define R2_C                                                                 \
    "#pragma maxcode end\n"                                                  \
    "int tail;\n"
#define R2_NEW1 "static const int scale = 3;\n"
#define R2_NEW2                                                              \
    "void mul(int *restrict a, size_t n)\n"                                  \
    "{\n"                                                                    \
    "    size_t i;\n"                                                        \
    "    for (i = 0; i < n; i++)\n"                                          \
    "        a[i] = a[i] * 3;\n"                                             \
    "}\n"

static const char two_regions[] = R2_A R2_BODY1 R2_B R2_BODY2 R2_C;

static void
test_prompt__extract_two_regions(void)
{
    extract_is("First region:\n```c\n" R2_NEW1 "```\nSecond region:\n"
               "```c\n" R2_NEW2 "```\n",
               two_regions, R2_A R2_NEW1 R2_B R2_NEW2 R2_C,
               "two blocks go into the two regions in order");
    extract_is("```c\n" R2_NEW2 "```\n```c\n" R2_NEW1 "```\n",
               two_regions, R2_A R2_NEW2 R2_B R2_NEW1 R2_C,
               "the order of the blocks, not their size, decides");
    extract_fails("```c\n" R2_NEW1 "```\n```c\n" R2_NEW2 "```\n"
                  "```c\nint extra;\n```\n",
                  two_regions, "3 code blocks",
                  "three blocks for two regions fail, naming the count");
    extract_fails("Only this:\n```c\n" R2_NEW2 "```\n", two_regions,
                  "1 code blocks",
                  "one block for two regions fails, naming the count");
    extract_is("The file:\n```c\n" R2_A R2_NEW1 R2_B R2_NEW2 R2_C "```\n",
               two_regions, R2_A R2_NEW1 R2_B R2_NEW2 R2_C,
               "one block with the whole file is returned as is");
    extract_is("```c\nstatic int x;\n```\nThe file:\n```c\n" R2_A R2_NEW1
               R2_B R2_NEW2 R2_C "```\n```c\nint y;\n```\n",
               two_regions, R2_A R2_NEW1 R2_B R2_NEW2 R2_C,
               "the whole file among three blocks is returned as is");
}

int
main(void)
{
    TAP_RUN(test_prompt__render_variables);
    TAP_RUN(test_prompt__render_sections);
    TAP_RUN(test_prompt__version);
    TAP_RUN(test_prompt__extract_fenced);
    TAP_RUN(test_prompt__extract_bare);
    TAP_RUN(test_prompt__extract_one_region);
    TAP_RUN(test_prompt__extract_two_regions);
    return tap_done();
}
