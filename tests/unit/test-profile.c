/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-profile.c: gcov's JSON read into a source profile (line counts,
 * -1 where a line has no code, functions with their calls and the sum
 * of their lines, template instances summed, the file picked by name
 * and path, errors on what is not gcov's JSON), and the executor's
 * profile of a real original built by gcc and run on two inputs
 * (mc_eval_profile_parsed()), whose counts the program fixes exactly.
 * A missing gcc or gcov fails the end-to-end case: CI never skips.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "eval.h"
#include "profile.h"
#include "target.h"
#include "tap.h"
#include "testfs.h"

#include <dirent.h>

static char dir[] = "/tmp/mc-profile-XXXXXX";

/*
 * What gcov 12 printed for this C++ file, built at -O0 as
 * /w/src/hot.cc (the lines of twice<T> once per instance), one line
 * with code outside every function added (19), and two more files: a
 * header, and another hot.cc.
 *
 *    1  #include <cstdio>
 *    2  template <typename T>
 *    3  T twice(T x)
 *    4  {
 *    5      return x + x;
 *    6  }
 *    7  int main()
 *    8  {
 *    9      int s = 0;
 *   10      for (int i = 0; i < 5; i++)
 *   11          s += twice(i);
 *   12      double d = 0;
 *   13      for (int i = 0; i < 7; i++)
 *   14          d += twice(1.5);
 *   15      printf("%d %g\n", s, d);
 *   16      return 0;
 *   17  }
 */
#define LINE(n, c, fn)                                                       \
    "{\"branches\": [], \"count\": " #c ", \"line_number\": " #n ", "         \
    "\"unexecuted_block\": false, \"function_name\": \"" fn "\"}"
#define FUNC(name, shown, start, end, calls)                                 \
    "{\"blocks\": 2, \"end_column\": 1, \"start_line\": " #start ", "         \
    "\"name\": \"" name "\", \"blocks_executed\": 2, "                        \
    "\"execution_count\": " #calls ", \"demangled_name\": \"" shown "\", "    \
    "\"start_column\": 1, \"end_line\": " #end "}"

static const char cpp_doc[] =
    "{\"gcc_version\": \"12.2.0\", \"files\": ["
    "{\"lines\": [" LINE(90, 12, "_ZSt3maxIiERKT_S2_S2_") "], "
    "\"functions\": [" FUNC("_ZSt3maxIiERKT_S2_S2_",
                            "int const& std::max<int>(int const&, "
                            "int const&)", 88, 95, 12) "], "
    "\"file\": \"/usr/include/c++/12/bits/stl_algobase.h\"}, "
    "{\"lines\": ["
    LINE(3, 7, "_Z5twiceIdET_S0_") ", " LINE(5, 7, "_Z5twiceIdET_S0_") ", "
    LINE(3, 5, "_Z5twiceIiET_S0_") ", " LINE(5, 5, "_Z5twiceIiET_S0_") ", "
    LINE(7, 1, "main") ", " LINE(9, 1, "main") ", " LINE(10, 6, "main") ", "
    LINE(11, 5, "main") ", " LINE(12, 1, "main") ", "
    LINE(13, 8, "main") ", " LINE(14, 7, "main") ", "
    LINE(15, 1, "main") ", " LINE(16, 1, "main") ", "
    "{\"branches\": [], \"count\": 4, \"line_number\": 19, "
    "\"unexecuted_block\": false}], "
    "\"functions\": ["
    FUNC("_Z5twiceIdET_S0_", "double twice<double>(double)", 3, 6, 7) ", "
    FUNC("_Z5twiceIiET_S0_", "int twice<int>(int)", 3, 6, 5) ", "
    FUNC("main", "main", 7, 17, 1) "], "
    "\"file\": \"/w/src/hot.cc\"}, "
    "{\"lines\": [" LINE(1, 99, "main") "], "
    "\"functions\": [" FUNC("main", "main", 1, 2, 99) "], "
    "\"file\": \"/w/test/hot.cc\"}], "
    "\"format_version\": \"1\", \"current_working_directory\": \"/w\", "
    "\"data_file\": \"prof-hot.gcda\"}";

/* A C file in the shape of an older gcov, without "function_name": the
 * lines go by the functions' lines, to the innermost (the lambda). */
static const char old_doc[] =
    "{\"format_version\": \"1\", \"files\": [{\"file\": \"/w/old.c\", "
    "\"functions\": ["
    "{\"name\": \"f\", \"start_line\": 2, \"end_line\": 5, "
    "\"execution_count\": 3}, "
    "{\"name\": \"main\", \"start_line\": 7, \"end_line\": 12, "
    "\"execution_count\": 1}, "
    "{\"name\": \"_ZZ4mainENKUlvE_clEv\", \"demangled_name\": "
    "\"main::{lambda()#1}::operator()() const\", \"start_line\": 8, "
    "\"end_line\": 9, \"execution_count\": 3}], "
    "\"lines\": [{\"line_number\": 2, \"count\": 3}, "
    "{\"line_number\": 3, \"count\": 30}, "
    "{\"line_number\": 7, \"count\": 1}, "
    "{\"line_number\": 8, \"count\": 3}, "
    "{\"line_number\": 10, \"count\": 1}, "
    "{\"line_number\": 14, \"count\": 2}]}]}";

static enum mc_code
parse(const char *json, const char *source, struct mc_profile *p,
      struct mc_err *err)
{
    mc_err_clear(err);
    return mc_profile_parse(json, strlen(json), source, p, err);
}

static void
test_profile__lines_and_functions(void)
{
    struct mc_profile p = MC_PROFILE_INIT;
    struct mc_err err = MC_ERR_INIT;

    is_long(parse(cpp_doc, "/w/src/hot.cc", &p, &err), MC_OK, "parses");
    is_long(p.nlines, 19, "lines up to the last gcov knows");
    ok(p.count[0] == -1, "index 0 has no code");
    ok(p.count[1] == -1 && p.count[4] == -1 && p.count[17] == -1,
       "lines without code are -1");
    ok(p.count[3] == 12 && p.count[5] == 12,
       "a template's line sums its instances (7 + 5)");
    ok(p.count[10] == 6 && p.count[11] == 5,
       "for line 6 (5 + 1 tests), body 5");
    ok(p.count[13] == 8 && p.count[14] == 7, "for line 8, body 7");
    ok(p.count[19] == 4, "a line outside the functions counts too");
    is_long(p.nfn, 3, "three functions");
    is_str(p.fn[0].name, "double twice<double>(double)", "demangled");
    ok(p.fn[0].count == 7 && p.fn[0].lines == 14, "twice<double>: 7, 14");
    ok(p.fn[0].start_line == 3 && p.fn[0].end_line == 6, "its lines");
    is_str(p.fn[1].name, "int twice<int>(int)", "the other instance");
    ok(p.fn[1].count == 5 && p.fn[1].lines == 10, "twice<int>: 5, 10");
    is_str(p.fn[2].name, "main", "main");
    ok(p.fn[2].count == 1 && p.fn[2].lines == 31,
       "main: called once, its lines sum to 31 (not line 19)");
    mc_profile_release(&p);
    ok(p.count == NULL && p.fn == NULL && !p.nlines && !p.nfn,
       "release leaves it empty");
}

static void
test_profile__function_by_lines(void)
{
    struct mc_profile p = MC_PROFILE_INIT;
    struct mc_err err = MC_ERR_INIT;

    is_long(parse(old_doc, "old.c", &p, &err), MC_OK, "parses");
    is_long(p.nfn, 3, "three functions");
    is_str(p.fn[0].name, "f", "without demangled_name, the name");
    ok(p.fn[0].lines == 33, "f's lines");
    ok(p.fn[1].lines == 2, "main's lines: 7 and 10");
    ok(p.fn[2].lines == 3, "line 8 goes to the lambda, the innermost");
    ok(p.count[14] == 2 && p.count[13] == -1, "lines past the functions");
    is_long(mc_profile_set_lines(&p, 20), MC_OK, "extends");
    is_long(p.nlines, 20, "to 20 lines");
    ok(p.count[20] == -1 && p.count[15] == -1 && p.count[14] == 2,
       "the new lines have no code; the old keep theirs");
    mc_profile_set_lines(&p, 5);
    is_long(p.nlines, 20, "never shrinks");
    mc_profile_release(&p);
}

static void
test_profile__file_choice(void)
{
    struct mc_profile p = MC_PROFILE_INIT;
    struct mc_err err = MC_ERR_INIT;

    is_long(parse(cpp_doc, "src/hot.cc", &p, &err), MC_OK,
            "a relative source picks the file whose path ends with it");
    ok(p.count && p.count[3] == 12, "the right one");
    is_long(parse(cpp_doc, "./src/hot.cc", &p, &err), MC_OK, "./ aside");
    is_long(parse(cpp_doc, "/w/test/hot.cc", &p, &err), MC_OK,
            "the other file by its path");
    ok(p.count[1] == 99 && p.nlines == 2, "is the other one");
    is_long(parse(cpp_doc, "hot.cc", &p, &err), MC_EINVAL,
            "two files named hot.cc and neither is the source");
    contains(err.msg, "2 files named 'hot.cc'", "says so");
    ok(p.count == NULL && p.nfn == 0, "a failed parse leaves P empty");
    is_long(parse(cpp_doc, "/elsewhere/cold.cc", &p, &err), MC_ENOENT,
            "no file of that name");
    is_str(err.msg, "no file 'cold.cc' in gcov's output", "says which");
    is_long(parse(old_doc, "/other/dir/old.c", &p, &err), MC_OK,
            "one file of that name is taken whatever its directory");
    mc_profile_release(&p);
}

static void
test_profile__malformed(void)
{
    static const struct {
        const char *json, *why;
    } bad[] = {
        {"{\"files\": [", "truncated JSON"},
        {"not json", "not JSON"},
        {"{}", "no files"},
        {"{\"files\": 3}", "files not a list"},
        {"{\"files\": [{\"file\": \"/w/a.c\"}]}", "no lines"},
        {"{\"files\": [{\"file\": \"/w/a.c\", \"lines\": "
         "[{\"line_number\": 0, \"count\": 1}]}]}", "line 0"},
        {"{\"files\": [{\"file\": \"/w/a.c\", \"lines\": "
         "[{\"line_number\": 1e12, \"count\": 1}]}]}", "a huge line"},
        {"{\"files\": [{\"file\": \"/w/a.c\", \"lines\": "
         "[{\"line_number\": 2.5, \"count\": 1}]}]}", "line 2.5"},
        {"{\"files\": [{\"file\": \"/w/a.c\", \"lines\": "
         "[{\"line_number\": 2}]}]}", "a line without a count"},
        {"{\"files\": [{\"file\": \"/w/a.c\", \"lines\": [], "
         "\"functions\": [{\"name\": \"f\", \"start_line\": 5, "
         "\"end_line\": 2, \"execution_count\": 1}]}]}",
         "a function that ends before it starts"},
        {"{\"files\": [{\"file\": \"/w/a.c\", \"lines\": [], "
         "\"functions\": {}}]}", "functions not a list"},
    };
    struct mc_profile p = MC_PROFILE_INIT;
    struct mc_err err = MC_ERR_INIT;
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(bad); i++) {
        is_long(parse(bad[i].json, "/w/a.c", &p, &err), MC_ESYNTAX,
                bad[i].why);
        ok(p.count == NULL && p.fn == NULL, "and P is empty");
    }
    is_long(parse("{\"files\": [{\"file\": \"/w/a.c\", \"lines\": []}]}",
                  "/w/a.c", &p, &err), MC_OK, "a file without code is one");
    ok(p.nlines == 0 && p.count && p.count[0] == -1, "with no lines");
    mc_profile_release(&p);
}

/* ---- end to end: the executor's profile of a real original ---- */

/*
 * Two inputs, n = 3000 and n = 2000; the loop's tests run n + 1 times,
 * its body n times, and the if's then-line once in 1000: 3 + 2.
 */
static const char prog[] =
    "#include <stdio.h>\n"                                       /*  1 */
    "\n"                                                         /*  2 */
    "int\n"                                                      /*  3 */
    "main(void)\n"                                               /*  4 */
    "{\n"                                                        /*  5 */
    "    long sum = 0;\n"                                        /*  6 */
    "    int i, n = 0, rare = 0, factor = 0;\n"                  /*  7 */
    "    FILE *f = fopen(\"factor.txt\", \"r\");\n"              /*  8 */
    "\n"                                                         /*  9 */
    "    if (!f || fscanf(f, \"%d\", &factor) != 1 ||\n"         /* 10 */
    "        scanf(\"%d\", &n) != 1)\n"                          /* 11 */
    "        return 1;\n"                                        /* 12 */
    "    fclose(f);\n"                                           /* 13 */
    "    for (i = 0; i < n; i++) {\n"                            /* 14 */
    "        sum += i % 7;\n"                                    /* 15 */
    "        if (i % 1000 == 999)\n"                             /* 16 */
    "            rare++;\n"                                      /* 17 */
    "    }\n"                                                    /* 18 */
    "    printf(\"%ld %d\\n\", sum * factor, rare);\n"           /* 19 */
    "    return 0;\n"                                            /* 20 */
    "}\n";                                                       /* 21 */

/* Entries of directory PATH whose names start with PREFIX. */
static int
entries(const char *path, const char *prefix)
{
    DIR *d = opendir(path);
    struct dirent *e;
    int n = 0;

    while (d && (e = readdir(d)))
        n += !strncmp(e->d_name, prefix, strlen(prefix));
    if (d)
        closedir(d);
    return n;
}

/* Target T for prog.c in the current directory, built by gcc -O2. */
static enum mc_code
setup(struct mc_target *t, struct mc_err *err)
{
    char *args[] = {"inputs=in*.txt", "files=factor.txt"};
    struct mc_buf lock = MC_BUF_INIT;
    struct mc_conf c;
    enum mc_code rc;

    write_file("prog.c", prog);
    write_file("factor.txt", "3\n");
    write_file("in1.txt", "3000\n");
    write_file("in2.txt", "2000\n");
    /* A private timing lock: the machine's may be held by others. */
    mc_buf_addf(&lock, "%s/timing.lock", dir);
    mc_conf_init(&c, NULL);
    rc = mc_conf_set(&c, MC_SET_TIMING_LOCK, lock.s, MC_FROM_ARG, NULL,
                     err);
    if (!rc)
        rc = mc_target_parse(t, "prog.c", args, 2, &c, err);
    mc_conf_release(&c);
    mc_buf_release(&lock);
    if (!rc)
        rc = mc_target_override_build(t, "gcc", "-O2", NULL, NULL, NULL,
                                      err);
    return rc;
}

static void
check_counts(const struct mc_profile *p)
{
    is_long(p->nlines, 21, "every line of the source");
    ok(p->count[14] == 5002, "the for line: n + 1 tests per run");
    ok(p->count[15] == 5000, "the loop body: 3000 + 2000");
    ok(p->count[16] == 5000, "the if line: once per iteration");
    ok(p->count[17] == 5, "the then-line: once in 1000 (3 + 2)");
    ok(p->count[12] == 0, "code that never ran is 0");
    ok(p->count[9] == -1 && p->count[21] == -1, "lines without code: -1");
    is_long(p->nfn, 1, "one function");
    ok(p->nfn == 1 && !strcmp(p->fn[0].name, "main") &&
       p->fn[0].count == 2, "main, called once per run");
    if (p->count[17] != 5 || p->count[15] != 5000)
        printf("# counts: for %g, body %g, if %g, then %g\n", p->count[14],
               p->count[15], p->count[16], p->count[17]);
}

static void
test_profile__eval_end_to_end(void)
{
    static char fake_clang[] = "./fake-clang";
    struct mc_profile p = MC_PROFILE_INIT;
    struct mc_err err = MC_ERR_INIT;
    struct mc_target t;
    struct mc_eval ev;
    struct mc_buf cache = MC_BUF_INIT;
    char *compiler;

    memset(&t, 0, sizeof(t)); /* both release safely when zero */
    memset(&ev, 0, sizeof(ev));
    mc_buf_addf(&cache, "%s/cache", dir);
    if (!ok(setup(&t, &err) == MC_OK, "the target parses") ||
        !ok(mc_eval_init(&ev, &t, cache.s, &err) == MC_OK, "eval init")) {
        printf("# %s\n", err.msg);
        mc_eval_release(&ev);
        mc_target_release(&t);
        mc_buf_release(&cache);
        return;
    }
    is_long(mc_eval_profile_parsed(&ev, &p, &err), MC_EINVAL,
            "an original not prepared has no profile");
    mc_err_clear(&err);
    if (!ok(mc_eval_prepare(&ev, &err) == MC_OK, "the original prepares"))
        printf("# %s\n", err.msg);
    mc_err_clear(&err);
    if (!ok(mc_eval_profile_parsed(&ev, &p, &err) == MC_OK, "profiled"))
        printf("# %s\n", err.msg);
    else
        check_counts(&p);
    is_long(entries(ev.sb.root, "prof"), 0, "no profile directory left");
    is_long(entries(ev.sb.root, "run"), 0, "no run directory left");

    /* Not for clang: the compiler says what it is. */
    write_file("fake-clang", "#!/bin/sh\necho 'clang version 99.0'\n");
    chmod("fake-clang", 0755);
    compiler = t.compiler;
    t.compiler = fake_clang;
    is_long(mc_eval_profile_parsed(&ev, &p, &err), MC_EINVAL,
            "clang: no profile");
    contains(err.msg, "clang", "says clang");
    ok(p.count == NULL && p.nfn == 0, "and P is empty");
    t.compiler = compiler;
    t.lang = MC_LANG_CUDA;
    mc_err_clear(&err);
    is_long(mc_eval_profile_parsed(&ev, &p, &err), MC_EINVAL,
            "CUDA: no profile");
    contains(err.msg, "CUDA", "says CUDA");
    t.lang = MC_LANG_C;
    mc_eval_release(&ev);
    mc_target_release(&t);
    mc_buf_release(&cache);
}

int
main(void)
{
    char here[PATH_MAX];

    TAP_RUN(test_profile__lines_and_functions);
    TAP_RUN(test_profile__function_by_lines);
    TAP_RUN(test_profile__file_choice);
    TAP_RUN(test_profile__malformed);
    if (!getcwd(here, sizeof(here)) || !mkdtemp(dir) || chdir(dir)) {
        ok(0, "a scratch directory");
        return tap_done();
    }
    TAP_RUN(test_profile__eval_end_to_end);
    if (chdir(here) == 0)
        nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return tap_done();
}
