/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-launcher.c: what the compiler launcher (cli/launcher.c) reads
 * without a compiler: which commands are a compile of one source it may
 * take, which texts are marked, and which pragma lines open a comment.
 * The end-to-end behaviour is tests/t0119-launcher.sh's.
 */
#include "mc_setup.h"
#include "launcher.h"
#include "tap.h"

/* The launcher's reading of the command in WORDS (blank-separated). */
static void
classify(const char *words, struct mc_launcher_cmd *c)
{
    char buf[256], *argv[32], *save = NULL, *w;
    int argc = 0;

    snprintf(buf, sizeof(buf), "%s", words);
    for (w = strtok_r(buf, " ", &save); w && argc < 31;
         w = strtok_r(NULL, " ", &save))
        argv[argc++] = w;
    argv[argc] = NULL;
    mc_launcher_classify(argc, argv, c);
}

static void
test_launcher__classify(void)
{
    static const struct {
        const char *cmd;
        int source, output;
    } cases[] = {
        {"cc -O2 -c a.c -o a.o", 3, 5},
        {"cc -c -o a.o a.c", 4, 3},
        {"cc -c a.c -oa.o", 2, 3},
        {"cc -I inc -include x.c -D N=1 -c a.c -o a.o", 8, 10},
        {"nvcc -arch sm_80 -c k.cu -o k.o", 4, 6},
        {"g++ -MD -MT a.o -MF a.o.d -o a.o -c ../src/a.cpp", 9, 7},
        {"cc a.c -o prog", -1, -1},        /* a link */
        {"cc -c a.c b.c", -1, -1},         /* two sources */
        {"cc -E -c a.c", -1, -1},          /* preprocessing */
        {"cc -S a.c", -1, -1},
        {"cc -c @args", -1, -1},           /* a response file */
        {"cc -x c -c a.c", -1, -1},        /* a language given */
        {"cc -c -", -1, -1},               /* stdin */
        {"cc -c a.s", -1, -1},             /* no C, C++ or CUDA */
        {"cc -c a.c -o", -1, -1},          /* -o without its file */
        {"cc --version", -1, -1},
    };
    struct mc_launcher_cmd c;
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(cases); i++) {
        classify(cases[i].cmd, &c);
        ok(c.source == cases[i].source &&
               (c.source < 0 || c.output == cases[i].output),
           cases[i].cmd);
        if (c.source != cases[i].source ||
            (c.source >= 0 && c.output != cases[i].output))
            printf("# source %d output %d\n", c.source, c.output);
    }
}

static void
test_launcher__marked(void)
{
    static const struct {
        const char *text;
        int marked;
        const char *why;
    } cases[] = {
        {"#pragma maxcode optimize budget=2\nint x;\n", 1, "first line"},
        {"int x;\n  #  pragma   maxcode\toptimize\n", 1, "blanks"},
        {"int x;\n#pragma maxcode optimize", 1, "no newline at the end"},
        {"#pragma maxcode optimize// c\n", 1, "a comment after it"},
        {"// #pragma maxcode optimize\n", 0, "in a // comment"},
        {"x #pragma maxcode optimize\n", 0, "not at a line's start"},
        {"#pragma maxcode optimizer\n", 0, "another word"},
        {"#pragma maxcode begin\n#pragma maxcode end\n", 0, "fences only"},
        {"#pragma maxcodeoptimize\n", 0, "no blank after maxcode"},
        {"#pragma once\nint pragma;\n", 0, "other pragmas"},
        {"", 0, "an empty file"},
    };
    static const char nul[] = "a\0b\n#pragma maxcode optimize\n";
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(cases); i++)
        ok(mc_launcher_marked(cases[i].text, strlen(cases[i].text)) ==
               cases[i].marked,
           cases[i].why);
    ok(mc_launcher_marked(nul, sizeof(nul) - 1), "a NUL before the pragma");
}

static void
test_launcher__open_comment(void)
{
    static const char glob[] = "int x;\n\n#pragma maxcode optimize "
                               "inputs=t/*.in\nint f(void);\n";
    static const char quoted[] = "#pragma maxcode optimize "
                                 "inputs=\"t/*.in\"\n";
    static const char closed[] = "#pragma maxcode optimize budget=2 "
                                 "/* eight */\n";
    static const char other[] = "#pragma omp parallel /* x\n*/\n";

    ok(mc_launcher_open_comment(glob, strlen(glob)) == 3,
       "an unquoted glob opens a comment: line 3");
    ok(mc_launcher_open_comment(quoted, strlen(quoted)) == 0,
       "quoted, it does not");
    ok(mc_launcher_open_comment(closed, strlen(closed)) == 0,
       "a comment closed on its line is no harm");
    ok(mc_launcher_open_comment(other, strlen(other)) == 0,
       "other pragmas are not maxcode's business");
}

int
main(void)
{
    TAP_RUN(test_launcher__classify);
    TAP_RUN(test_launcher__marked);
    TAP_RUN(test_launcher__open_comment);
    return tap_done();
}
