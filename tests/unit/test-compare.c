/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-compare.c: how the executor compares a candidate's run with the
 * original's, as a user sets it up: compare= (stdout, stderr, both, the
 * default, exit, file:NAME), ignore= and tolerance=, and the exit
 * status that every mode compares. A run is made up (no compiler, no
 * process): what it printed, how it ended and the file it left go
 * through mc_eval_take_result(), as a finished run's do, and the
 * verdict is mc_eval_same_output()'s, with the reason a user reads.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "conf.h"
#include "eval_priv.h"
#include "spawn.h"
#include "target.h"
#include "tap.h"
#include "testfs.h"

#include <limits.h>

static char dir[] = "/tmp/mc-test-compare-XXXXXX";

/* A judge for target prog.c with the options ARGS (NULL-terminated). */
struct judge {
    struct mc_target t;
    struct mc_eval ev;
    int ok;
};

static void
judge_init(struct judge *j, const char *const *args)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_conf c;
    size_t n = 0;

    while (args && args[n])
        n++;
    memset(j, 0, sizeof(*j));
    mc_conf_init(&c, NULL);
    j->ok = mc_target_parse(&j->t, "prog.c", (char *const *)args, n, &c,
                            &err) == MC_OK;
    if (!j->ok)
        printf("# %s\n", err.msg);
    mc_conf_release(&c);
    /* What mc_eval_take_result() and mc_eval_same_output() read: the
     * target, and whether the original was prepared (a prepared one
     * that prints no harness time lines: they are output like any). */
    j->ev.t = &j->t;
    j->ev.ready = 1;
}

static void
judge_release(struct judge *j)
{
    mc_target_release(&j->t);
}

/* A finished run as mc_sandbox_run() would give it: OUT and ERR printed,
 * STATUS (or killed by signal SIG when SIG), and FILE (NULL: none) left
 * in its directory as NAME. RES gets what is compared. */
static void
run(struct judge *j, const char *out, const char *err, int status, int sig,
    const char *name, const char *file, struct mc_run_result *res)
{
    static unsigned serial;
    struct mc_spawn_result r;
    struct mc_run_spec spec;
    struct mc_buf rd = MC_BUF_INIT, path = MC_BUF_INIT;

    memset(res, 0, sizeof(*res));
    mc_buf_init(&res->o.out);
    mc_buf_init(&res->o.err);
    mc_buf_init(&res->o.file);
    memset(&spec, 0, sizeof(spec));
    spec.exe = "prog";
    mc_spawn_result_init(&r);
    mc_buf_adds(&r.out, out);
    mc_buf_adds(&r.err, err);
    r.exited = !sig;
    r.status = sig ? 0 : status;
    r.signaled = !!sig;
    r.sig = sig;
    mc_buf_addf(&rd, "%s/run-%u", dir, ++serial);
    if (mkdir(rd.s, 0700))
        printf("# cannot make %s\n", rd.s);
    if (name && file) {
        mc_buf_addf(&path, "%s/%s", rd.s, name);
        if (strchr(name, '/')) {
            /* One directory level: sub/out.txt. */
            char *d = mc_strdup(path.s);
            *strrchr(d, '/') = '\0';
            mkdir(d, 0700);
            mc_free(d);
        }
        write_file(path.s, file);
    }
    if (mc_eval_take_result(&j->ev, &spec, rd.s, &r, res))
        printf("# mc_eval_take_result failed\n");
    mc_spawn_result_release(&r);
    mc_buf_release(&rd);
    mc_buf_release(&path);
}

/* The verdict on CAND against REF: 1 equal, 0 differs, with the reason
 * in REASON (reset first). */
static struct mc_buf reason = MC_BUF_INIT;

static int
same(struct judge *j, const struct mc_run_result *ref,
     const struct mc_run_result *cand)
{
    mc_buf_reset(&reason);
    return mc_eval_same_output(&j->ev, &ref->o, &cand->o, &reason);
}

/* Judge with ARGS the candidate (COUT, CERR, CSTATUS) against the
 * original (OOUT, OERR, status 0), no file: 1 equal, 0 differs. */
static int
judge_outputs(const char *const *args, const char *oout, const char *oerr,
              const char *cout, const char *cerr, int cstatus)
{
    struct judge j;
    struct mc_run_result a, b;
    int res;

    judge_init(&j, args);
    run(&j, oout, oerr, 0, 0, NULL, NULL, &a);
    run(&j, cout, cerr, cstatus, 0, NULL, NULL, &b);
    res = j.ok && same(&j, &a, &b);
    mc_eval_result_release(&a);
    mc_eval_result_release(&b);
    judge_release(&j);
    return res;
}

static void
test_compare__default_is_both(void)
{
    static const char *const none[] = {NULL};
    struct judge j;

    judge_init(&j, none);
    is_str(mc_target_get(&j.t, MC_OPT_COMPARE), "both",
           "compare= not given is both");
    judge_release(&j);
    ok(judge_outputs(none, "42\n", "note\n", "42\n", "note\n", 0),
       "the same stdout, stderr and status: equal");
    ok(!judge_outputs(none, "42\n", "", "41\n", "", 0),
       "another stdout differs");
    is_str(reason.s, "line 1: expected '42', got '41' (stdout)",
           "the reason names the line, both texts and the stream");
    ok(!judge_outputs(none, "42\n", "warn\n", "42\n", "WARN\n", 0),
       "another stderr differs");
    is_str(reason.s, "line 1: expected 'warn', got 'WARN' (stderr)",
           "and names stderr");
    ok(!judge_outputs(none, "1\n2\n", "", "1\n", "", 0),
       "output that stops early differs");
    is_str(reason.s, "line 2: expected '2', got end of output (stdout)",
           "and says where it ended");
}

static void
test_compare__stdout(void)
{
    static const char *const args[] = {"compare=stdout", NULL};

    ok(judge_outputs(args, "42\n", "a\n", "42\n", "b\n", 0),
       "stderr is not compared");
    ok(!judge_outputs(args, "42\n", "", "43\n", "", 0),
       "stdout is");
    is_str(reason.s, "line 1: expected '42', got '43' (stdout)",
           "with the line");
    ok(!judge_outputs(args, "42\n", "", "42\n", "", 1),
       "the exit status is compared too");
    is_str(reason.s, "exit status 1, expected 0", "and said first");
    ok(!judge_outputs(args, "42\n", "", "42", "", 0),
       "a missing final newline differs: exact bytes");
}

static void
test_compare__stderr(void)
{
    static const char *const args[] = {"compare=stderr", NULL};

    ok(judge_outputs(args, "a\n", "msg\n", "b\n", "msg\n", 0),
       "stdout is not compared");
    ok(!judge_outputs(args, "", "msg 1\n", "", "msg 2\n", 0),
       "stderr is");
    is_str(reason.s, "line 1: expected 'msg 1', got 'msg 2' (stderr)",
           "with the line");
}

static void
test_compare__both(void)
{
    static const char *const args[] = {"compare=both", NULL};

    ok(judge_outputs(args, "o\n", "e\n", "o\n", "e\n", 0), "equal");
    ok(!judge_outputs(args, "o\n", "e\n", "O\n", "E\n", 0),
       "both differ");
    is_str(reason.s, "line 1: expected 'o', got 'O' (stdout)",
           "stdout is said first");
    ok(!judge_outputs(args, "o\n", "e\n", "o\n", "E\n", 0),
       "stderr alone differs");
    is_str(reason.s, "line 1: expected 'e', got 'E' (stderr)",
           "and is said");
}

static void
test_compare__exit(void)
{
    static const char *const args[] = {"compare=exit", NULL};
    struct judge j;
    struct mc_run_result a, b;

    ok(judge_outputs(args, "1\n", "x\n", "2\n", "y\n", 0),
       "outputs are not compared, only the status");
    ok(!judge_outputs(args, "1\n", "", "1\n", "", 3),
       "another exit status differs");
    is_str(reason.s, "exit status 3, expected 0", "the reason says both");
    /* A death by signal S is status 128 + S. */
    judge_init(&j, args);
    run(&j, "", "", 0, 0, NULL, NULL, &a);
    run(&j, "", "", 0, 11, NULL, NULL, &b);
    ok(!same(&j, &a, &b), "a candidate killed by a signal differs");
    is_str(reason.s, "exit status 139, expected 0", "as 128 + 11");
    mc_eval_result_release(&a);
    run(&j, "", "", 0, 11, NULL, NULL, &a);
    ok(same(&j, &a, &b), "an original that dies of the same signal: "
       "equal");
    mc_eval_result_release(&a);
    mc_eval_result_release(&b);
    judge_release(&j);
}

/* Judge with compare=file:NAME (and the options ARGS after it) the
 * candidate that left CFILE (NULL: nothing) against the original that
 * left OFILE; both print OUT on stdout. */
static int
judge_file(const char *name, const char *extra, const char *ofile,
           const char *cfile, const char *cout)
{
    const char *args[3] = {NULL, extra, NULL};
    struct mc_buf opt = MC_BUF_INIT;
    struct judge j;
    struct mc_run_result a, b;
    int res;

    mc_buf_addf(&opt, "compare=file:%s", name);
    args[0] = opt.s;
    judge_init(&j, args);
    run(&j, "out\n", "", 0, 0, name, ofile, &a);
    run(&j, cout, "", 0, 0, name, cfile, &b);
    res = j.ok && same(&j, &a, &b);
    mc_eval_result_release(&a);
    mc_eval_result_release(&b);
    judge_release(&j);
    mc_buf_release(&opt);
    return res;
}

static void
test_compare__file(void)
{
    ok(judge_file("out.txt", NULL, "a\nb\n", "a\nb\n", "out\n"),
       "the same file: equal");
    ok(judge_file("out.txt", NULL, "a\nb\n", "a\nb\n", "other\n"),
       "stdout is not compared");
    ok(!judge_file("out.txt", NULL, "a\nb\n", "a\nc\n", "out\n"),
       "another file differs");
    is_str(reason.s, "line 2: expected 'b', got 'c' (file out.txt)",
           "the reason names the line and the file");
    ok(!judge_file("out.txt", NULL, "a\n", NULL, "out\n"),
       "a file the candidate did not write differs");
    is_str(reason.s, "file 'out.txt' was not written", "and says so");
    ok(!judge_file("out.txt", NULL, NULL, "a\n", "out\n"),
       "a file the original did not write differs");
    is_str(reason.s, "file 'out.txt' was written unexpectedly",
           "and says so");
    ok(judge_file("out.txt", NULL, NULL, NULL, "out\n"),
       "neither wrote it: equal");
    ok(judge_file("sub/out.txt", NULL, "1\n", "1\n", "out\n"),
       "NAME may be in a subdirectory");
    ok(!judge_file("sub/out.txt", NULL, "1\n", "2\n", "out\n"),
       "and is compared there");
    is_str(reason.s, "line 1: expected '1', got '2' (file sub/out.txt)",
           "named as given");
    ok(judge_file("out.txt", "tolerance=1e-6", "x 1.0\n", "x 1.0000001\n",
                  "out\n"),
       "tolerance= holds for the file");
}

/* compare=file:out.txt, where the candidate leaves out.txt as a
 * symbolic link to a file with the expected content: refused, never
 * followed. */
static void
test_compare__file_refused(void)
{
    static const char *const args[] = {"compare=file:out.txt", NULL};
    struct mc_buf target = MC_BUF_INIT, link = MC_BUF_INIT;
    struct mc_run_result a, b;
    struct judge j;

    judge_init(&j, args);
    run(&j, "", "", 0, 0, "out.txt", "secret\n", &a);
    ok(!a.o.file_refused && !a.o.file_missing, "the original's file is "
       "read");
    /* Leave a link in a run directory of its own, then read it back as
     * mc_eval_run_once() does. */
    mc_buf_addf(&target, "%s/elsewhere.txt", dir);
    write_file(target.s, "secret\n");
    mc_buf_addf(&link, "%s/linkrun", dir);
    mkdir(link.s, 0700);
    mc_buf_adds(&link, "/out.txt");
    if (symlink(target.s, link.s))
        printf("# cannot link %s\n", link.s);
    {
        struct mc_spawn_result r;
        struct mc_run_spec spec;
        char *slash = strrchr(link.s, '/');

        memset(&spec, 0, sizeof(spec));
        memset(&b, 0, sizeof(b));
        mc_buf_init(&b.o.out);
        mc_buf_init(&b.o.err);
        mc_buf_init(&b.o.file);
        mc_spawn_result_init(&r);
        r.exited = 1;
        *slash = '\0';
        mc_eval_take_result(&j.ev, &spec, link.s, &r, &b);
        mc_spawn_result_release(&r);
    }
    ok(b.o.file_refused != NULL, "a link is refused");
    ok(b.o.file.len == 0, "and what it points to is not read");
    ok(!same(&j, &a, &b), "the candidate differs");
    is_str(reason.s, "file 'out.txt' is a symbolic link",
           "the reason says why");
    mc_eval_result_release(&a);
    mc_eval_result_release(&b);
    judge_release(&j);
    mc_buf_release(&target);
    mc_buf_release(&link);
}

static void
test_compare__ignore(void)
{
    static const char *const ign[] = {"ignore=^elapsed:", NULL};
    static const char *const none[] = {NULL};

    ok(!judge_outputs(none, "r 1\nelapsed: 0.3 s\n", "",
                      "r 1\nelapsed: 0.9 s\n", "", 0),
       "without ignore=, a changing time line differs");
    is_str(reason.s, "line 2: expected 'elapsed: 0.3 s', got 'elapsed: "
           "0.9 s' (stdout)", "on its line");
    ok(judge_outputs(ign, "r 1\nelapsed: 0.3 s\n", "",
                     "r 1\nelapsed: 0.9 s\n", "", 0),
       "with ignore=^elapsed: the lines it matches are dropped: equal");
    ok(judge_outputs(ign, "elapsed: 1\nr 1\n", "", "r 1\n", "", 0),
       "a matched line may be missing from the candidate");
    ok(judge_outputs(ign, "r 1\n", "", "r 1\nelapsed: 2\nelapsed: 3\n", "",
                     0),
       "or be extra");
    ok(judge_outputs(ign, "r 1\nelapsed: 1", "", "r 1\nelapsed: 2", "", 0),
       "a last line without a newline is matched too");
    ok(!judge_outputs(ign, "elapsed: 1\nr 1\n", "", "elapsed: 2\nr 2\n", "",
                      0),
       "a line it does not match is still compared");
    is_str(reason.s, "line 1: expected 'r 1', got 'r 2' (stdout)",
           "counted in the output without the dropped lines");
    ok(!judge_outputs(ign, "r 1\nx elapsed: 1\n", "", "r 1\nx elapsed: 2\n",
                      "", 0),
       "^ anchors at the start of the line: a line elsewhere differs");
    ok(judge_outputs(ign, "r\n", "elapsed: 1\nwarn\n", "r\n",
                     "warn\nelapsed: 2\n", 0),
       "stderr's matched lines are dropped too");
    ok(!judge_outputs(ign, "r\n", "warn\n", "r\n", "WARN\n", 0),
       "and its other lines compared");
    ok(judge_file("out.txt", "ignore=^elapsed:", "1\nelapsed: 4\n",
                  "1\nelapsed: 5\n", "out\n"),
       "the compare=file: file's matched lines are dropped too");
    ok(!judge_outputs(ign, "r\n", "", "r\nelapsed: 1\n", "", 2),
       "ignore= does not hide another exit status");
    is_str(reason.s, "exit status 2, expected 0", "which is said");
    {
        static const char *const alt[] = {"ignore=^(time|date)=", NULL};

        ok(judge_outputs(alt, "time=1\nv\ndate=x\n", "", "v\ndate=y\n", "",
                         0),
           "an extended regular expression: alternation");
    }
}

static void
test_compare__tolerance(void)
{
    static const char *const rel[] = {"tolerance=1e-6", NULL};
    static const char *const both[] = {"tolerance=1e-6/1e-9", NULL};
    static const char *const zero[] = {"tolerance=0", NULL};
    static const char *const none[] = {NULL};

    ok(!judge_outputs(none, "x 1.0\n", "", "x 1.0000001\n", "", 0),
       "exact by default: another digit differs");
    is_str(reason.s, "line 1: expected 'x 1.0', got 'x 1.0000001' (stdout)",
           "with both lines");
    ok(!judge_outputs(none, "1.0\n", "", "1.00\n", "", 0),
       "and 1.0 is not 1.00");
    ok(judge_outputs(rel, "x 1.0\n", "", "x 1.0000001\n", "", 0),
       "tolerance=REL: within it, equal");
    ok(!judge_outputs(rel, "x 1.0\n", "", "x 1.001\n", "", 0),
       "beyond it differs");
    is_str(reason.s, "line 1: expected 'x 1.0', got 'x 1.001' (stdout)",
           "with the line");
    ok(!judge_outputs(rel, "0\n", "", "1e-10\n", "", 0),
       "REL alone: near zero only the same number is within it");
    ok(judge_outputs(both, "0\n", "", "1e-10\n", "", 0),
       "tolerance=REL/ABS: within ABS, equal");
    ok(!judge_outputs(both, "0\n", "", "1e-8\n", "", 0),
       "beyond both differs");
    ok(judge_outputs(zero, "1.0\n", "", "1.00\n", "", 0),
       "tolerance=0: numbers compare by value");
    ok(!judge_outputs(zero, "1.0\n", "", "1.0000001\n", "", 0),
       "and exactly");
    ok(judge_outputs(rel, "", "t=2.0\n", "", "t=2.000000001\n", 0),
       "tolerance= holds for stderr");
    ok(!judge_outputs(rel, "sum: 3\n", "", "sum= 3\n", "", 0),
       "the text between numbers is still exact");
    ok(!judge_outputs(rel, "1.5\n", "", "nan\n", "", 0),
       "NaN where the original has a number differs");
}

/* maxcode-time lines: output like any when the prepared original
 * prints none (a candidate cannot report its own time); dropped, and
 * their sum the run's time, when it does. */
static void
test_compare__harness_lines(void)
{
    static const char *const none[] = {NULL};
    struct judge j;
    struct mc_run_result a, b;

    judge_init(&j, none);
    run(&j, "r\n", "", 0, 0, NULL, NULL, &a);
    run(&j, "r\nmaxcode-time: 0.5\n", "", 0, 0, NULL, NULL, &b);
    ok(!same(&j, &a, &b), "no harness: a time line is output");
    ok(!b.harness, "and no time");
    mc_eval_result_release(&a);
    mc_eval_result_release(&b);
    j.ev.harness = 1;
    run(&j, "r\nmaxcode-time: 0.25\n", "", 0, 0, NULL, NULL, &a);
    run(&j, "maxcode-time: 0.5\nr\n", "maxcode-time: 0.25\n", 0, 0, NULL,
        NULL, &b);
    ok(same(&j, &a, &b), "harness: time lines are not compared");
    ok(b.harness && b.seconds == 0.75, "their sum is the run's time");
    mc_eval_result_release(&a);
    mc_eval_result_release(&b);
    judge_release(&j);
}

int
main(void)
{
    char here[PATH_MAX];

    if (!getcwd(here, sizeof(here)) || !mkdtemp(dir) || chdir(dir)) {
        ok(0, "a scratch directory");
        return tap_done();
    }
    write_file("prog.c", "int main(void) { return 0; }\n");
    TAP_RUN(test_compare__default_is_both);
    TAP_RUN(test_compare__stdout);
    TAP_RUN(test_compare__stderr);
    TAP_RUN(test_compare__both);
    TAP_RUN(test_compare__exit);
    TAP_RUN(test_compare__file);
    TAP_RUN(test_compare__file_refused);
    TAP_RUN(test_compare__ignore);
    TAP_RUN(test_compare__tolerance);
    TAP_RUN(test_compare__harness_lines);
    mc_buf_release(&reason);
    if (chdir(here) == 0)
        nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return tap_done();
}
