/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * eval.c: building, differential checking and timing of candidates.
 * See eval.h for the sequence and doc/internals/eval.md for why.
 */
#include "mc_setup.h"
#include "eval.h"
#include "cuda.h"
#include "alloc.h"
#include "file.h"
#include "log.h"
#include "flags.h"
#include "lang.h"
#include "mark.h"
#include "profile.h"
#include "reads.h"
#include "variant.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <fcntl.h>
#include <math.h>
#include <time.h>

#define OUT_CAP      (4u << 20)  /* bytes of output kept per stream */
#define CMP_FILE_CAP (64u << 20) /* most bytes of a compare=file: file */
#define DIAG_LINES   30          /* compiler diagnostics kept */
#define MIN_PAIRS    8           /* the first 99% interval needs 8 */
#define MAX_PAIRS    40
#define ALPHA        0.01        /* two-sided: 99% intervals */
#define SAN_EXIT     86          /* exit status of a sanitizer report */
#define CUDA_SANITIZER "compute-sanitizer" /* memcheck of CUDA candidates */
#define TIMING_LOCK_DIR  "/run/lock"       /* the machine's lock files */
#define TIMING_LOCK_NAME "maxcode-timing.lock"
#define SAN_MAX_ALLOC_MB 4096    /* ASan: a larger malloc is a report */
#define SAN_SLOWDOWN 4           /* sanitized runs get this many times
                                  * the timeout */
#define SIG_STATUS   128         /* status of a run killed by signal N:
                                  * 128 + N, as the shell says it */
#define LOADER_EXIT  127         /* status when the dynamic loader (or
                                  * exec) failed */
#define MEMORY_MIN   (16ULL << 20) /* MAXCODE_RUN_MEMORY's least */
#define MIB          (1ULL << 20)
/* ASan's report when its own watch of resident memory (hard_rss_limit_mb,
 * set where no cgroup bounds a sanitizer run) fires. */
#define SAN_RSS_REPORT "hard rss limit exhausted"

/* A number macro as a string literal, for the sanitizers' options. */
#define STR_(x) #x
#define STR(x)  STR_(x)

/* Building. */
#define BUILD_TIMEOUT_S 300      /* one compiler command */
#define BUILD_OUT_CAP   (1u << 20) /* compiler output kept per stream */

/* Running and judging. */
#define REF_TIMEOUT_S   120      /* each reference run of the original */
#define CHECK_TIMEOUT_S 120      /* the check= command */
#define RUN_TIMEOUT_X   10       /* a candidate's run may take this many */
#define RUN_TIMEOUT_PAD_S 5      /* times the original's, plus this */
#define LINE_CUT        120      /* bytes of a differing line shown */
#define FIRST_LINES     3        /* error or stderr lines in a summary */

/* Timing. */
#define BASELINE_SAMPLES 5       /* timed runs of the original alone */
#define WARM_PAIRS      4        /* warm-up pairs at most ... */
#define WARM_AGREE      0.05     /* ... until the original's last two
                                    samples agree within this share */
#define TIMING_TIMEOUT_X 20      /* a timed run may take this many times
                                  * the original's runs */
#define TIMING_TIMEOUT_MIN_S 10  /* ... and at least this */
#define CI_NARROW       0.03     /* a round stops once its interval is
                                  * this narrow, relative to the median */
#define SPREAD_LOW      0.1      /* spread: (p90 - p10) / median */
#define SPREAD_HIGH     0.9
#define PROBE_TIMEOUT_S 30       /* whether perf can count here */
#define COUNT_TIMEOUT_S 600      /* one run under perf or valgrind */
#define COUNT_NOISE     1e-4     /* instruction counts confirm within
                                  * this part (the environment's size
                                  * moves them by a few) */

/* The source profile (mc_eval_profile()). */
#define PROF_TIMEOUT_X  10       /* a profiled run may take this many
                                  * times the original's slowest run */
#define PROF_TIMEOUT_MIN_S 30    /* ... and at least this */
#define GCOV_TIMEOUT_S  120      /* gcov on the data */
#define GCOV_OUT_CAP    (64u << 20) /* bytes of gcov's JSON kept */
#define VERSION_TIMEOUT_S 60     /* `CC --version` */
#define PROF_STRIP_ALL  "4096"   /* GCOV_PREFIX_STRIP: more directories
                                  * than a path has; libgcov then keeps
                                  * the file name alone */

/* Reads outside the project (doc/internals/eval.md, "Reads"). */
#define OUTSIDE_REASON  "candidate reads a file outside the project"

/* How a timed or counted run failed (bench_runs()' *FAILED). */
enum { RUN_FAILED = 1, RUN_OOM = 2 };

/* What counts instructions: ev->instr_tool (eval.h). */
enum { TOOL_UNKNOWN = 0, TOOL_PERF = 1, TOOL_VALGRIND = 2 };

const char *
mc_verdict_name(enum mc_verdict v)
{
    static const char *const names[] = {"correct", "incorrect",
                                        "compile-error", "timeout",
                                        "crash", "rejected"};
    return names[v];
}

static double
wall_now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
mc_feedback_init(struct mc_feedback *fb)
{
    memset(fb, 0, sizeof(*fb));
    mc_buf_init(&fb->detail);
    mc_buf_init(&fb->diagnostics);
    fb->verdict = MC_VERDICT_REJECTED;
}

void
mc_feedback_release(struct mc_feedback *fb)
{
    mc_buf_release(&fb->detail);
    mc_buf_release(&fb->diagnostics);
    mc_feedback_init(fb);
}

static void
run_out_release(struct mc_run_out *o)
{
    mc_buf_release(&o->out);
    mc_buf_release(&o->err);
    mc_buf_release(&o->file);
    mc_free(o->file_refused);
    o->file_refused = NULL;
}

/* ---- output comparison ---- */

double
mc_eval_strip_times(struct mc_buf *b)
{
    static const char tag[] = "maxcode-time:";
    double sum = -1;
    size_t r = 0, w = 0;

    while (r < b->len) {
        const char *line = b->s + r;
        const char *nl = memchr(line, '\n', b->len - r);
        size_t n = nl ? (size_t)(nl - line) + 1 : b->len - r;

        if (n >= sizeof(tag) - 1 && !memcmp(line, tag, sizeof(tag) - 1)) {
            double v = strtod(line + sizeof(tag) - 1, NULL);
            if (isfinite(v) && v >= 0)
                sum = (sum < 0 ? 0 : sum) + v;
        } else {
            memmove(b->s + w, line, n);
            w += n;
        }
        r += n;
    }
    b->len = w;
    if (b->cap)
        b->s[w] = '\0';
    return sum;
}

/* Line number (1-based) at offset OFF of S. */
static size_t
line_at(const char *s, size_t off)
{
    size_t i, line = 1;

    for (i = 0; i < off; i++)
        line += s[i] == '\n';
    return line;
}

/* Append the line of S (LEN bytes) that holds OFF, cut to 120 bytes. */
static void
add_line(struct mc_buf *b, const char *s, size_t len, size_t off)
{
    size_t start = off, end = off;

    while (start > 0 && s[start - 1] != '\n')
        start--;
    while (end < len && s[end] != '\n')
        end++;
    mc_buf_addc(b, '\'');
    mc_buf_add(b, s + start,
               end - start > LINE_CUT ? LINE_CUT : end - start);
    mc_buf_adds(b, end - start > LINE_CUT ? "...'" : "'");
}

/* A number starts at S[I]: an optional sign, digits or '.', or inf/nan. */
static int
number_at(const char *s, size_t len, size_t i, double *v, size_t *n)
{
    char tmp[64], *end;
    size_t k;

    if (i > 0 && (isalnum((unsigned char)s[i - 1]) || s[i - 1] == '.' ||
                  s[i - 1] == '_'))
        return 0;
    for (k = 0; k + 1 < sizeof(tmp) && i + k < len; k++) {
        char c = s[i + k];
        if (!(isalnum((unsigned char)c) || c == '.' || c == '+' || c == '-'))
            break;
        tmp[k] = c;
    }
    tmp[k] = '\0';
    if (!k || !(isdigit((unsigned char)tmp[0]) || tmp[0] == '.' ||
                tmp[0] == '-' || tmp[0] == '+' || tmp[0] == 'i' ||
                tmp[0] == 'n' || tmp[0] == 'I' || tmp[0] == 'N'))
        return 0;
    *v = strtod(tmp, &end);
    if (end == tmp)
        return 0;
    *n = (size_t)(end - tmp);
    return 1;
}

int
mc_eval_compare(const char *orig, size_t olen, const char *cand,
                size_t clen, double rel, double abs_tol, struct mc_buf *diff)
{
    size_t i = 0, j = 0;

    while (i < olen && j < clen) {
        double a, b;
        size_t na, nb;

        if (rel >= 0 && number_at(orig, olen, i, &a, &na) &&
            number_at(cand, clen, j, &b, &nb)) {
            int ok;
            if (isfinite(a))
                ok = isfinite(b) && (fabs(a - b) <= abs_tol ||
                                     fabs(a - b) <= rel * fmax(fabs(a),
                                                               fabs(b)));
            else
                ok = (isnan(a) && isnan(b)) || a == b;
            if (!ok)
                goto differ;
            i += na;
            j += nb;
            continue;
        }
        if (orig[i] != cand[j])
            goto differ;
        i++;
        j++;
    }
    if (i == olen && j == clen)
        return 1;
differ:
    if (diff) {
        mc_buf_addf(diff, "line %zu: expected ", line_at(orig, i));
        if (i < olen)
            add_line(diff, orig, olen, i);
        else
            mc_buf_adds(diff, "end of output");
        mc_buf_adds(diff, ", got ");
        if (j < clen)
            add_line(diff, cand, clen, j);
        else
            mc_buf_adds(diff, "end of output");
    }
    return 0;
}

/* ---- statistics ---- */

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

int
mc_eval_median_ci(double *x, size_t n, double alpha, double *median,
                  double *low, double *high)
{
    double tail = 0, p;
    size_t k = 0, i;

    if (!n)
        return -1;
    qsort(x, n, sizeof(*x), cmp_double);
    *median = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;
    /* Largest k with P(Bin(n, 1/2) < k) <= alpha/2: the interval
     * [x_(k), x_(n-k+1)] (1-based) covers the median with 1 - alpha. */
    p = pow(0.5, (double)n); /* P(X = 0) */
    for (i = 0; i < n / 2; i++) {
        if (tail + p > alpha / 2)
            break;
        tail += p;
        k = i + 1;
        p = p * (double)(n - i) / (double)(i + 1);
    }
    if (!k) {
        *low = x[0];
        *high = x[n - 1];
        return -1;
    }
    *low = x[k - 1];
    *high = x[n - k];
    return 0;
}

/* (p90 - p10) / median of N sorted values. */
static double
spread(const double *x, size_t n)
{
    double med = n % 2 ? x[n / 2] : (x[n / 2 - 1] + x[n / 2]) / 2;

    if (n < 2 || med <= 0)
        return 0;
    return (x[(size_t)(SPREAD_HIGH * (double)(n - 1))] -
            x[(size_t)(SPREAD_LOW * (double)(n - 1))]) / med;
}

/* ---- building ---- */

/* Whether PATH, relative to make's directory (where compiles run) when
 * not absolute, is a file outside what builds may read; then
 * EV->outside gets SHOWN, the name as the candidate or the compiler
 * wrote it (PATH when NULL). */
static int
outside(struct mc_eval *ev, const char *path, const char *shown)
{
    struct mc_buf p = MC_BUF_INIT;
    struct stat st;
    int out;

    if (*path != '/')
        mc_buf_addf(&p, "%s/", ev->make_dir);
    mc_buf_adds(&p, path);
    /* Files only: "/" or a directory in a message is no content. */
    out = !mc_buf_status(&p) && stat(p.s, &st) == 0 &&
          !S_ISDIR(st.st_mode) && !mc_sandbox_may_read(&ev->sb, p.s);
    mc_buf_release(&p);
    if (out) {
        mc_buf_reset(&ev->outside);
        mc_buf_adds(&ev->outside, shown ? shown : path);
    }
    return out;
}

/* Whether NAMES holds a file outside (see outside()). */
static int
any_outside(struct mc_eval *ev, const struct mc_strv *names)
{
    size_t i;

    for (i = 0; i < names->n; i++)
        if (outside(ev, names->v[i], NULL))
            return 1;
    return 0;
}

/* Whether compiler output DIAG names a file outside what builds may
 * read (the compiler quotes lines of the files it reports on). */
static int
outside_named(struct mc_eval *ev, const struct mc_buf *diag)
{
    struct mc_strv words = MC_STRV_INIT;
    int found;

    mc_reads_paths_in(diag->s ? diag->s : "", diag->len, &words);
    found = any_outside(ev, &words);
    mc_strv_release(&words);
    return found;
}

/* Keep the first DIAG_LINES lines of compiler output in B. */
static void
trim_diagnostics(const struct mc_buf *in, struct mc_buf *b)
{
    size_t i, lines = 0;

    for (i = 0; i < in->len && lines < DIAG_LINES; i++) {
        mc_buf_addc(b, in->s[i]);
        lines += in->s[i] == '\n';
    }
    if (i < in->len)
        mc_buf_adds(b, "[... more diagnostics cut ...]\n");
}

/* Run the compiler command ARGV with make's directory as the working
 * directory and DIR as the only writable one (READ_ALL: reads not
 * limited) into R, which the caller releases. */
static enum mc_code
run_compiler(struct mc_eval *ev, char *const argv[], const char *dir,
             int read_all, struct mc_spawn_result *r, struct mc_err *err)
{
    struct mc_sandbox_opts so;

    mc_spawn_result_init(r);
    memset(&so, 0, sizeof(so));
    so.cwd = dir;
    so.workdir = ev->make_dir;
    so.timeout_s = BUILD_TIMEOUT_S;
    so.out_cap = BUILD_OUT_CAP;
    so.read_all = read_all;
    return mc_sandbox_run(&ev->sb, argv, &so, r, err);
}

/* Run the build command ARGV (see run_compiler()). 0 when it
 * succeeded; else DIAG gets the trimmed compiler output and
 * EV->build_cmd the command. */
static enum mc_code
run_build(struct mc_eval *ev, struct mc_strv *argv, const char *dir,
          struct mc_buf *diag, struct mc_err *err)
{
    struct mc_spawn_result r;
    enum mc_code rc;

    if (mc_strv_status(argv))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    rc = run_compiler(ev, argv->v, dir, 0, &r, err);
    if (!rc && (r.timed_out || !r.exited || r.status)) {
        mc_buf_reset(diag);
        if (r.timed_out)
            mc_buf_adds(diag, "the compiler timed out\n");
        trim_diagnostics(&r.err, diag);
        trim_diagnostics(&r.out, diag);
        mc_buf_reset(&ev->build_cmd);
        mc_strv_join_shell(argv, &ev->build_cmd);
        rc = MC_EINVAL;
    }
    mc_spawn_result_release(&r);
    return rc;
}

/* Append the words of COMMAND and of LIST to ARGV: LIST as
 * mc_flags_for_build() leaves it for a build in scratch directory DIR, with
 * its run-time paths (a relative rpath) made absolute, as make's
 * directory sees them. */
static enum mc_code
add_words(struct mc_eval *ev, struct mc_strv *argv, const char *command,
          const struct mc_strv *list, const char *dir, struct mc_err *err)
{
    struct mc_strv abs = MC_STRV_INIT;
    enum mc_code rc;

    if (command && (rc = mc_shell_split(command, argv, err)))
        return rc;
    rc = list ? mc_flags_rebase(list, ev->make_dir, NULL, MC_FLAGS_RUNTIME,
                                &abs)
              : MC_OK;
    if (!rc && list)
        rc = mc_flags_for_build(&abs, dir, argv);
    mc_strv_release(&abs);
    return rc ? mc_err_set(err, MC_ENOMEM, "out of memory") : MC_OK;
}

/*
 * Build SRC (with the target's link files) into EXE with EXTRA flags (a
 * NULL-terminated list, may be NULL), as make would: in make's
 * directory, so that every relative path in the flags means what it
 * means there, with only DIR writable. One compiler command compiles and
 * links; when the link driver is another compiler (a C source with a C++
 * link file), SRC is compiled to an object first. The link has
 * $(LDFLAGS) before the files and ldlibs=, $(LDLIBS) and, for C and C++,
 * -lm after them. On a compiler error, DIAG gets its trimmed output and
 * MC_EINVAL is returned.
 */
static enum mc_code
build(struct mc_eval *ev, const char *src, const char *exe,
      const char *const *extra, const char *dir, struct mc_buf *diag,
      struct mc_err *err)
{
    struct mc_target *t = ev->t;
    struct mc_strv argv = MC_STRV_INIT;
    struct mc_buf obj = MC_BUF_INIT;
    enum mc_code rc;
    size_t i;

    /* Pushes are checked once, by run_build(): a strv's errors stick. */
    rc = add_words(ev, &argv, t->compiler, &t->flags, dir, err);
    if (!rc && !argv.n)
        rc = mc_err_set(err, MC_EINVAL, "empty compiler command");
    for (i = 0; !rc && extra && extra[i]; i++)
        mc_strv_push(&argv, extra[i]);
    if (!rc && t->linker) {
        /* Compile alone, then link with the other driver. */
        mc_buf_addf(&obj, "%s/%s.o", dir, mc_target_name(t));
        mc_strv_push(&argv, "-c");
        mc_strv_push(&argv, "-o");
        mc_strv_push_owned(&argv, mc_buf_status(&obj) ? NULL
                                                      : mc_strdup(obj.s));
        mc_strv_push(&argv, src);
        rc = run_build(ev, &argv, dir, diag, err);
        mc_strv_release(&argv);
        if (!rc)
            rc = add_words(ev, &argv, t->linker, &t->flags, dir, err);
        for (i = 0; !rc && extra && extra[i]; i++)
            mc_strv_push(&argv, extra[i]);
    }
    if (rc)
        goto out;
    rc = add_words(ev, &argv, NULL, &t->ldflags, dir, err);
    mc_strv_push(&argv, "-o");
    mc_strv_push(&argv, exe);
    mc_strv_push(&argv, t->linker ? obj.s : src);
    mc_strv_extend(&argv, &t->link);
    if (!rc)
        rc = add_words(ev, &argv, mc_target_get(t, MC_OPT_LDLIBS), NULL,
                       dir, err);
    if (!rc)
        rc = add_words(ev, &argv, NULL, &t->ldlibs, dir, err);
    if (mc_lang_get(t->lang)->link_libm)
        mc_strv_push(&argv, "-lm");
    if (!rc)
        rc = run_build(ev, &argv, dir, diag, err);
out:
    mc_strv_release(&argv);
    mc_buf_release(&obj);
    return rc;
}

/*
 * The files that compiling SRC reads, as `CC FLAGS TEST-CPPFLAGS -M SRC`
 * lists them (with make's directory as the working directory and DIR
 * the writable one), into DEPS. READ_ALL lifts the limit on reads (the
 * original's listing: it is the user's code). MC_EINVAL when the
 * listing failed (the build will say why).
 */
static enum mc_code
list_deps(struct mc_eval *ev, const char *src, const char *dir,
          int read_all, struct mc_strv *deps, struct mc_err *err)
{
    struct mc_strv argv = MC_STRV_INIT, tf = MC_STRV_INIT;
    struct mc_spawn_result r;
    enum mc_code rc;

    rc = add_words(ev, &argv, ev->t->compiler, &ev->t->flags, dir, err);
    if (rc)
        goto out;
    mc_shell_split(mc_target_get(ev->t, MC_OPT_TEST_CPPFLAGS), &tf, NULL);
    mc_strv_extend(&argv, &tf);
    mc_strv_push(&argv, "-M");
    mc_strv_push(&argv, src);
    if (mc_strv_status(&argv) || mc_strv_status(&tf)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    rc = run_compiler(ev, argv.v, dir, read_all, &r, err);
    if (!rc && (r.timed_out || !r.exited || r.status || r.truncated))
        rc = MC_EINVAL;
    if (!rc && mc_reads_deps(r.out.s, r.out.len, deps))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    mc_spawn_result_release(&r);
out:
    mc_strv_release(&argv);
    mc_strv_release(&tf);
    return rc;
}

/* ---- running ---- */

struct run_spec {
    const char *exe;
    const char *input;    /* stdin, or NULL */
    double timeout_s;
    int untrusted;
    int sanitized;        /* ASan/UBSan build */
    const char *tool;     /* "perf", "valgrind" or NULL */
    const char *shell_cmd;/* run `sh -c` this with MAXCODE_EXE=exe */
    int pinned;           /* a timing run: on the timing CPU */
};

struct run_result {
    struct mc_run_out o;
    int timed_out, signaled, sig, truncated;
    int oom;              /* killed at the memory bound */
    double seconds;       /* harness time, else wall time */
    double wall;          /* wall time */
    int harness;          /* maxcode-time lines were printed */
    double instructions;  /* with a tool */
};

/*
 * The instruction count in the tool's report TEXT (perf -x, or
 * valgrind's "Collected :"). The report shares stderr with the program,
 * so a program could print a fake one: the tool writes exactly one such
 * line, and any other makes the count void (-1).
 */
static double
parse_instructions(const char *text, const char *tool)
{
    const char *p, *found = NULL;
    int lines = 0;

    for (p = text; *p; p += strcspn(p, "\n"), p += *p == '\n') {
        const char *nl = p + strcspn(p, "\n");
        int hit;

        if (!strcmp(tool, "perf"))
            hit = isdigit((unsigned char)*p) &&
                  memmem(p, (size_t)(nl - p), "instructions", 12);
        else
            hit = memmem(p, (size_t)(nl - p), "Collected : ", 12) != NULL;
        if (hit) {
            lines++;
            found = p;
        }
    }
    if (lines != 1)
        return -1;
    if (!strcmp(tool, "perf"))
        return strtod(found, NULL);
    return strtod(strstr(found, "Collected : ") + 12, NULL);
}

/* LD_LIBRARY_PATH, when make's environment has one, into ENV, with its
 * relative directories made absolute as make's directory sees them. */
static enum mc_code
add_library_path(struct mc_eval *ev, struct mc_strv *env)
{
    const char *v = getenv("LD_LIBRARY_PATH"), *p;
    struct mc_buf b = MC_BUF_INIT;
    enum mc_code rc;

    if (!v || !*v)
        return MC_OK;
    mc_buf_adds(&b, "LD_LIBRARY_PATH=");
    for (p = v;; p++) {
        size_t n = strcspn(p, ":");

        if (n && *p != '/')
            mc_buf_addf(&b, "%s/", ev->make_dir);
        mc_buf_add(&b, p, n);
        p += n;
        if (!*p)
            break;
        mc_buf_addc(&b, ':');
    }
    rc = mc_buf_status(&b) ? MC_ENOMEM : mc_strv_push(env, b.s);
    mc_buf_release(&b);
    return rc;
}

/* SPEC's command line into ARGV and its extra environment into ENV
 * (errors stick in both). */
static void
run_command(const struct mc_eval *ev, const struct run_spec *spec,
            struct mc_strv *argv, struct mc_strv *env)
{
    struct mc_buf b = MC_BUF_INIT;
    char cwd[PATH_MAX];

    if (spec->shell_cmd) {
        mc_strv_push(argv, "/bin/sh");
        mc_strv_push(argv, "-c");
        mc_strv_push(argv, spec->shell_cmd);
        mc_buf_addf(&b, "MAXCODE_EXE=%s", spec->exe);
        mc_strv_push_owned(env, mc_buf_detach(&b, NULL));
        if (getcwd(cwd, sizeof(cwd))) {
            mc_buf_addf(&b, "MAXCODE_SRCDIR=%s", cwd);
            mc_strv_push_owned(env, mc_buf_detach(&b, NULL));
        }
    } else {
        if (spec->tool && !strcmp(spec->tool, "perf")) {
            mc_strv_push(argv, "perf");
            mc_strv_push(argv, "stat");
            mc_strv_push(argv, "-x,");
            mc_strv_push(argv, "-e");
            mc_strv_push(argv, "instructions:u");
            mc_strv_push(argv, "--");
        } else if (spec->tool) {
            mc_strv_push(argv, "valgrind");
            mc_strv_push(argv, "--tool=callgrind");
            mc_strv_push(argv, "--callgrind-out-file=/dev/null");
        }
        if (spec->sanitized && mc_lang_get(ev->t->lang)->kernels) {
            mc_strv_push(argv, CUDA_SANITIZER);
            mc_strv_push(argv, "--tool=memcheck");
            mc_strv_push(argv, "--error-exitcode=" STR(SAN_EXIT));
            mc_strv_push(argv, "--print-limit=10");
        }
        mc_strv_push(argv, spec->exe);
        /* args= quotes were checked at parse: only memory fails here */
        if (mc_shell_split(mc_target_get(ev->t, MC_OPT_ARGS), argv, NULL))
            argv->oom = 1;
    }
    if (spec->sanitized && !mc_lang_get(ev->t->lang)->kernels) {
        mc_buf_adds(&b, "ASAN_OPTIONS=detect_leaks=0:exitcode="
                        STR(SAN_EXIT) ":allocator_may_return_null=0:"
                        "max_allocation_size_mb=" STR(SAN_MAX_ALLOC_MB));
        /* No cgroup: nothing the kernel enforces bounds this run (its
         * shadow rules RLIMIT_AS out); ASan's own watch of its resident
         * memory, every 100 ms, is what there is. */
        if (!ev->sb.cg.dir)
            mc_buf_addf(&b, ":hard_rss_limit_mb=%llu",
                        ev->sb.memory / MIB);
        mc_strv_push_owned(env, mc_buf_detach(&b, NULL));
        mc_strv_push(env, "UBSAN_OPTIONS=halt_on_error=1:exitcode="
                          STR(SAN_EXIT) ":print_stacktrace=0");
    }
    mc_buf_release(&b);
}

/* RES from the finished run R of SPEC in DIR: status, time, the output
 * that is compared (harness time lines and ignore= lines dropped) and
 * the compared file. MC_ENOMEM when out of memory. */
static enum mc_code
take_result(struct mc_eval *ev, const struct run_spec *spec,
            const char *dir, struct mc_spawn_result *r,
            struct run_result *res)
{
    const char *cmp = mc_target_get(ev->t, MC_OPT_COMPARE);

    res->timed_out = r->timed_out;
    res->signaled = r->signaled;
    res->sig = r->sig;
    res->truncated = r->truncated;
    res->oom = r->oom;
    res->o.status = r->exited ? r->status : SIG_STATUS + r->sig;
    res->seconds = res->wall = r->wall_s;
    if (spec->tool) {
        res->instructions = parse_instructions(r->err.s, spec->tool);
        mc_buf_reset(&r->err); /* the tool's report is not the output */
    }
    /* Harness time counts only when the original reports it (its
     * reference runs tell, while the original is prepared): otherwise a
     * candidate could print its own. Then the lines are output like any. */
    if (!ev->ready || ev->harness) {
        double t1 = mc_eval_strip_times(&r->out);
        double t2 = mc_eval_strip_times(&r->err);
        if (t1 >= 0 || t2 >= 0) {
            res->harness = 1;
            res->seconds = (t1 > 0 ? t1 : 0) + (t2 > 0 ? t2 : 0);
        }
    }
    mc_target_drop_ignored(ev->t, &r->out);
    mc_target_drop_ignored(ev->t, &r->err);
    mc_buf_add(&res->o.out, r->out.s, r->out.len);
    mc_buf_add(&res->o.err, r->err.s, r->err.len);
    if (!strncmp(cmp, "file:", 5)) {
        /* What the run left: maybe a link out, a FIFO, /dev/zero. */
        struct mc_err why = MC_ERR_INIT;
        enum mc_code rc = mc_file_read_beneath(dir, cmp + 5, CMP_FILE_CAP,
                                               &res->o.file, NULL, &why);

        if (rc == MC_ENOENT)
            res->o.file_missing = 1;
        else if (rc == MC_ENOMEM)
            return MC_ENOMEM;
        else if (rc && !(res->o.file_refused = mc_strdup(why.msg)))
            return MC_ENOMEM;
        else if (!rc)
            mc_target_drop_ignored(ev->t, &res->o.file);
    }
    if (mc_buf_status(&res->o.out) || mc_buf_status(&res->o.err) ||
        mc_buf_status(&res->o.file))
        return MC_ENOMEM;
    return MC_OK;
}

/* Run SPEC in a fresh directory that has the files= files; what
 * `compare=file:NAME` names is read back before the directory goes. */
static enum mc_code
run_once(struct mc_eval *ev, const struct run_spec *spec,
         struct run_result *res, struct mc_err *err)
{
    struct mc_strv argv = MC_STRV_INIT, env = MC_STRV_INIT;
    struct mc_sandbox_opts so;
    struct mc_spawn_result r;
    enum mc_code rc;
    char *dir = NULL;
    size_t i;

    memset(res, 0, sizeof(*res));
    mc_buf_init(&res->o.out);
    mc_buf_init(&res->o.err);
    mc_buf_init(&res->o.file);
    mc_spawn_result_init(&r);
    rc = mc_sandbox_dir(&ev->sb, "run", spec->untrusted, &dir, err);
    for (i = 0; !rc && i < ev->t->files.n; i++)
        rc = mc_sandbox_copy_in(&ev->sb, dir, ev->t->files.v[i], err);
    if (!rc)
        rc = add_library_path(ev, &env);
    if (rc)
        goto out;
    run_command(ev, spec, &argv, &env);
    if (mc_strv_status(&argv) || mc_strv_status(&env)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    memset(&so, 0, sizeof(so));
    so.cwd = dir;
    so.stdin_path = spec->input;
    so.timeout_s = spec->timeout_s;
    so.untrusted = spec->untrusted;
    /* perf and valgrind run within RLIMIT_AS (without a cgroup, it
     * bounds the program and the tool together); ASan's shadow does
     * not. */
    so.no_as_limit = spec->sanitized;
    so.gpu = mc_lang_get(ev->t->lang)->kernels;
    so.env = env.v;
    so.out_cap = OUT_CAP;
    so.cpus = spec->pinned && ev->pin ? &ev->timing_cpus : NULL;
    rc = mc_sandbox_run(&ev->sb, argv.v, &so, &r, err);
    if (!rc && take_result(ev, spec, dir, &r, res))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
out:
    if (dir) {
        mc_sandbox_rmtree(dir); /* nothing a run leaves reaches another */
        mc_free(dir);
    }
    mc_spawn_result_release(&r);
    mc_strv_release(&argv);
    mc_strv_release(&env);
    return rc;
}

/* Compare run output CAND with the reference REF as `compare` says;
 * on a difference, DIFF tells the first one. */
static int
same_output(struct mc_eval *ev, const struct mc_run_out *ref,
            const struct mc_run_out *cand, struct mc_buf *diff)
{
    const char *cmp = mc_target_get(ev->t, MC_OPT_COMPARE);
    const char *tol = mc_target_get(ev->t, MC_OPT_TOLERANCE);
    double rel = -1, abs_tol = 0;

    if (*tol) {
        rel = strtod(tol, NULL);
        if (strchr(tol, '/'))
            abs_tol = strtod(strchr(tol, '/') + 1, NULL);
    }
    if (ref->status != cand->status) {
        mc_buf_addf(diff, "exit status %d, expected %d", cand->status,
                    ref->status);
        return 0;
    }
    if ((!strcmp(cmp, "stdout") || !strcmp(cmp, "both")) &&
        !mc_eval_compare(ref->out.s, ref->out.len, cand->out.s,
                         cand->out.len, rel, abs_tol, diff)) {
        mc_buf_adds(diff, " (stdout)");
        return 0;
    }
    if ((!strcmp(cmp, "stderr") || !strcmp(cmp, "both")) &&
        !mc_eval_compare(ref->err.s, ref->err.len, cand->err.s,
                         cand->err.len, rel, abs_tol, diff)) {
        mc_buf_adds(diff, " (stderr)");
        return 0;
    }
    if (!strncmp(cmp, "file:", 5)) {
        if (cand->file_refused || ref->file_refused) {
            mc_buf_addf(diff, "file %s", cand->file_refused
                                             ? cand->file_refused
                                             : ref->file_refused);
            return 0;
        }
        if (cand->file_missing != ref->file_missing) {
            mc_buf_addf(diff, "file '%s' %s", cmp + 5,
                        cand->file_missing ? "was not written"
                                           : "was written unexpectedly");
            return 0;
        }
        if (!mc_eval_compare(ref->file.s, ref->file.len, cand->file.s,
                             cand->file.len, rel, abs_tol, diff)) {
            mc_buf_addf(diff, " (file %s)", cmp + 5);
            return 0;
        }
    }
    return 1;
}

/* The input of run I, or NULL (one run, no stdin). */
static const char *
input_of(struct mc_eval *ev, size_t i)
{
    return ev->t->inputs.n ? ev->t->inputs.v[i] : NULL;
}

static const char *
input_name(struct mc_eval *ev, size_t i)
{
    return ev->t->inputs.n ? ev->t->inputs.v[i] : "(no input)";
}

/* Whether compiler output LINE (LEN bytes) reports an error rather than
 * a warning or a note: "error:", "fatal error:", an undefined reference,
 * a library the linker cannot find. */
static int
is_error_line(const char *line, size_t len)
{
    static const char *const marks[] = {
        "error:", "error :", "undefined reference", "cannot find -l",
        "No such file", "ld returned", "not found",
    };
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(marks); i++)
        if (memmem(line, len, marks[i], strlen(marks[i])))
            return 1;
    return 0;
}

/* The first error lines of compiler output DIAG (at most 3; its first
 * lines when none looks like an error) into OUT, joined by " | ". */
static void
first_errors(const struct mc_buf *diag, struct mc_buf *out)
{
    const char *p = diag->s ? diag->s : "";
    int pass, n = 0;

    for (pass = 0; pass < 2 && !n; pass++) {
        const char *q;

        for (q = p; *q && n < FIRST_LINES;
             q += strcspn(q, "\n"), q += *q == '\n') {
            size_t len = strcspn(q, "\n");

            if (!len || (pass == 0 && !is_error_line(q, len)))
                continue;
            if (n++)
                mc_buf_adds(out, " | ");
            mc_buf_add(out, q, len);
        }
    }
    if (!n)
        mc_buf_adds(out, "(no compiler output)");
}

/* Whether relative PATH is, or is under, one of T's files=. */
static int
in_files(const struct mc_target *t, const char *path)
{
    size_t i, n;

    for (i = 0; i < t->files.n; i++) {
        n = strlen(t->files.v[i]);
        if (!strncmp(path, t->files.v[i], n) &&
            (!path[n] || path[n] == '/'))
            return 1;
    }
    return 0;
}

/*
 * The first word of args= (for "--opt=PATH" what follows '=') that names
 * an existing file or directory relative to make's directory which
 * files= does not bring into the runs; NULL when none. The caller frees
 * it with mc_free().
 */
static char *
unseen_arg(struct mc_eval *ev)
{
    struct mc_strv words = MC_STRV_INIT;
    char *res = NULL;
    size_t i;

    mc_shell_split(mc_target_get(ev->t, MC_OPT_ARGS), &words, NULL);
    for (i = 0; i < words.n && !res; i++) {
        const char *w = words.v[i], *eq = strchr(w, '=');
        struct stat st;

        if (w[0] == '-')
            w = eq ? eq + 1 : "";
        while (w[0] == '.' && w[1] == '/')
            w += 2;
        if (*w && *w != '/' && *w != '-' && strcmp(w, ".") &&
            !stat(w, &st) && !in_files(ev->t, w))
            res = mc_strdup(w);
    }
    mc_strv_release(&words);
    return res;
}

/* Append to B how the original ran (its command line and directory)
 * and the first lines of what it printed on stderr (O). */
static void
describe_run(struct mc_eval *ev, const struct mc_run_out *o,
             struct mc_buf *b)
{
    const char *args = mc_target_get(ev->t, MC_OPT_ARGS);
    const char *p = o->err.s ? o->err.s : "";
    int n;

    mc_buf_addf(b, " (ran: %s%s%s, in a fresh directory%s)",
                mc_target_name(ev->t), *args ? " " : "", args,
                ev->t->files.n ? " with the files= files" : "");
    for (n = 0; *p && n < FIRST_LINES; n++) {
        size_t len = strcspn(p, "\n");
        mc_buf_addf(b, "%s%.*s", n ? " | " : ": ", (int)len, p);
        p += len;
        p += *p == '\n';
    }
}

/* ---- what builds and runs read ---- */

static void original_path(const struct mc_eval *ev, struct mc_buf *src);

/* The directory of PATH (relative to make's directory when it is not
 * absolute) into OUT. */
static void
push_dir_of(struct mc_eval *ev, const char *path, struct mc_strv *out)
{
    struct mc_buf b = MC_BUF_INIT;
    const char *slash = strrchr(path, '/');

    if (*path != '/')
        mc_buf_addf(&b, "%s/", ev->make_dir);
    if (slash)
        mc_buf_add(&b, path, (size_t)(slash - path) + (slash == path));
    mc_strv_push_owned(out, mc_buf_detach(&b, NULL));
}

/* Where the programs of COMMAND are installed, into OUT: for each word
 * that PATH resolves to a program, its real directory, or that
 * directory's parent when it is a "bin" (/opt/cuda/bin/nvcc: /opt/cuda,
 * whose include/ and lib/ the compiler reads). */
static void
push_prefixes(const char *command, struct mc_strv *out)
{
    struct mc_strv words = MC_STRV_INIT;
    size_t i;

    mc_shell_split(command ? command : "", &words, NULL);
    for (i = 0; i < words.n; i++) {
        char *exe, *real = NULL, *slash;

        if (words.v[i][0] == '-' || strchr(words.v[i], '='))
            continue;
        exe = mc_spawn_which(words.v[i]);
        if (exe)
            real = realpath(exe, NULL);
        mc_free(exe);
        if (!real)
            continue;
        slash = strrchr(real, '/');
        *slash = '\0';
        if (!strcmp(slash > real ? strrchr(real, '/') + 1 : "", "bin"))
            *strrchr(real, '/') = '\0';
        if (*real)
            mc_strv_push(out, real);
        free(real);
    }
    if (mc_strv_status(&words))
        out->oom = 1;
    mc_strv_release(&words);
}

/* The words of the shell text TEXT as flags, their paths into OUT. */
static void
push_flag_paths(struct mc_eval *ev, const char *text, struct mc_strv *out)
{
    struct mc_strv words = MC_STRV_INIT;

    mc_shell_split(text, &words, NULL);
    mc_flags_paths(&words, ev->make_dir, out);
    if (mc_strv_status(&words))
        out->oom = 1;
    mc_strv_release(&words);
}

/*
 * Limit what builds and runs read (doc/internals/eval.md, "Reads") to
 * make's directory, SOURCE's, the link files' and their directories,
 * every path the flags name (include and library directories, forced
 * includes), where the compiler and linker are installed, the absolute
 * paths in args=, the directories of LD_LIBRARY_PATH, the scratch
 * directory and the system's.
 */
static enum mc_code
allow_project_reads(struct mc_eval *ev, struct mc_err *err)
{
    const char *ld = getenv("LD_LIBRARY_PATH"), *p;
    struct mc_strv paths = MC_STRV_INIT, args = MC_STRV_INIT;
    struct mc_target *t = ev->t;
    enum mc_code rc = MC_OK;
    size_t i;

    mc_strv_push(&paths, ev->make_dir);
    push_dir_of(ev, t->source_real ? t->source_real : t->source, &paths);
    for (i = 0; i < t->link.n; i++) {
        push_dir_of(ev, t->link.v[i], &paths);
        mc_strv_push(&paths, t->link.v[i]);
    }
    mc_flags_paths(&t->flags, ev->make_dir, &paths);
    mc_flags_paths(&t->ldflags, ev->make_dir, &paths);
    mc_flags_paths(&t->ldlibs, ev->make_dir, &paths);
    push_flag_paths(ev, mc_target_get(t, MC_OPT_LDLIBS), &paths);
    push_flag_paths(ev, mc_target_get(t, MC_OPT_TEST_CPPFLAGS), &paths);
    push_prefixes(t->compiler, &paths);
    push_prefixes(t->linker, &paths);
    mc_shell_split(mc_target_get(t, MC_OPT_ARGS), &args, NULL);
    for (i = 0; i < args.n; i++) {
        const char *eq = strchr(args.v[i], '=');

        if (args.v[i][0] == '/')
            mc_strv_push(&paths, args.v[i]);
        else if (args.v[i][0] == '-' && eq && eq[1] == '/')
            mc_strv_push(&paths, eq + 1);
    }
    for (p = ld ? ld : ""; *p; p += *p == ':') {
        size_t n = strcspn(p, ":");
        struct mc_buf b = MC_BUF_INIT;

        if (n && *p != '/')
            mc_buf_addf(&b, "%s/", ev->make_dir);
        mc_buf_add(&b, p, n);
        if (n)
            mc_strv_push_owned(&paths, mc_buf_detach(&b, NULL));
        mc_buf_release(&b);
        p += n;
    }
    if (mc_strv_status(&paths) || mc_strv_status(&args))
        rc = MC_ENOMEM;
    for (i = 0; !rc && i < paths.n; i++)
        rc = mc_sandbox_allow_read(&ev->sb, paths.v[i]);
    mc_strv_release(&paths);
    mc_strv_release(&args);
    return rc ? mc_err_set(err, rc, "out of memory") : MC_OK;
}

/*
 * Let builds read what the original's compile reads: the dependency
 * lists of SOURCE and of each link file in a language (headers reached
 * through a symbolic link, or found where the flags do not say), listed
 * in DIR without the limit. A listing that fails is no error: the
 * original's build then says what is wrong.
 */
static enum mc_code
allow_original_reads(struct mc_eval *ev, const char *dir,
                     struct mc_err *err)
{
    struct mc_strv deps = MC_STRV_INIT;
    struct mc_buf src = MC_BUF_INIT;
    enum mc_code rc = MC_OK;
    size_t i;

    original_path(ev, &src);
    if (mc_buf_status(&src))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    for (i = 0; !rc && i <= ev->t->link.n; i++) {
        const char *f = i ? ev->t->link.v[i - 1] : src.s;

        if (i && !mc_lang_of_path(f))
            continue;
        rc = list_deps(ev, f, dir, 1, &deps, err);
        if (rc == MC_EINVAL) {
            mc_err_clear(err);
            rc = MC_OK;
        }
    }
    for (i = 0; !rc && i < deps.n; i++)
        if (!mc_sandbox_may_read(&ev->sb, deps.v[i]))
            rc = mc_sandbox_allow_read(&ev->sb, deps.v[i]);
    if (rc == MC_ENOMEM || mc_strv_status(&deps))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    mc_strv_release(&deps);
    mc_buf_release(&src);
    return rc;
}

/* The directories where a candidate's relative names may be found,
 * into OUT: SOURCE's (its quote includes are rewritten to reach it),
 * make's, the candidate's DIR and the paths the flags name. */
static void
name_bases(struct mc_eval *ev, const char *dir, struct mc_strv *out)
{
    push_dir_of(ev, ev->t->source_real ? ev->t->source_real
                                       : ev->t->source, out);
    mc_strv_push(out, ev->make_dir);
    mc_strv_push(out, dir);
    mc_flags_paths(&ev->t->flags, ev->make_dir, out);
    push_flag_paths(ev, mc_target_get(ev->t, MC_OPT_TEST_CPPFLAGS), out);
}

/*
 * Whether the candidate TEXT (LEN bytes, as the model wrote it; PATH in
 * DIR holds it rewritten) reads a file outside what builds may read;
 * EV->outside then names it. Two checks that hold with or without Landlock: the files its
 * directives name (#include, #embed, #line, .incbin...), each tried
 * where the compiler would look; and its dependency list (`CC -M`),
 * which also has the names that macros build.
 */
static enum mc_code
reads_outside(struct mc_eval *ev, const char *path, const char *dir,
              const char *text, size_t len, int *found, struct mc_err *err)
{
    struct mc_strv names = MC_STRV_INIT, bases = MC_STRV_INIT;
    struct mc_strv deps = MC_STRV_INIT;
    struct mc_buf p = MC_BUF_INIT;
    enum mc_code rc;
    size_t i, k;

    *found = 0;
    rc = mc_reads_directives(text, len, &names);
    name_bases(ev, dir, &bases);
    if (rc || mc_strv_status(&bases))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    for (i = 0; !rc && !*found && i < names.n; i++) {
        const char *n = names.v[i];

        if (*n == '/') {
            *found = outside(ev, n, n);
            continue;
        }
        for (k = 0; !*found && k < bases.n; k++) {
            mc_buf_reset(&p);
            mc_buf_addf(&p, "%s/%s", bases.v[k], n);
            *found = !mc_buf_status(&p) && outside(ev, p.s, n);
        }
    }
    if (!rc && !*found) {
        rc = list_deps(ev, path, dir, 0, &deps, err);
        if (rc == MC_EINVAL) {
            /* It does not preprocess: the build will say why. */
            mc_err_clear(err);
            rc = MC_OK;
        } else if (!rc) {
            *found = any_outside(ev, &deps);
        }
    }
    mc_strv_release(&names);
    mc_strv_release(&bases);
    mc_strv_release(&deps);
    mc_buf_release(&p);
    return rc;
}

/* FB says that the candidate reads a file outside the project (named
 * in EV->outside), and carries no compiler output: the compiler may
 * have quoted the file. */
static void
reject_outside(struct mc_eval *ev, struct mc_feedback *fb)
{
    fb->verdict = MC_VERDICT_REJECTED;
    fb->compiled = 0;
    mc_buf_reset(&fb->diagnostics);
    mc_buf_reset(&fb->detail);
    mc_buf_addf(&fb->detail, OUTSIDE_REASON ": '%s'", ev->outside.s);
}

/* ---- the original ---- */

/*
 * The CPU the timing runs are pinned to, as VALUE (MAXCODE_TIMING_CPU)
 * says: "last", the highest-numbered CPU this process may run on;
 * a number, that CPU (one this process may run on); "none", no pin.
 * Both programs of every pair run on the same CPU: on a machine whose
 * CPUs are not alike (a VM's vCPUs beside other tenants' work, big and
 * little cores), a pair split across two of them measures the
 * difference between the CPUs as a speedup.
 */
static enum mc_code
timing_cpu(struct mc_eval *ev, const char *value, struct mc_err *err)
{
    cpu_set_t allowed;
    char *end;
    long cpu = -1, i;

    ev->pin = 0;
    if (!strcmp(value, "none"))
        return MC_OK;
    if (sched_getaffinity(0, sizeof(allowed), &allowed))
        return MC_OK; /* nothing known to pin to */
    if (!strcmp(value, "last") || !*value) {
        for (i = CPU_SETSIZE - 1; i >= 0 && cpu < 0; i--)
            if (CPU_ISSET((int)i, &allowed))
                cpu = i;
    } else {
        errno = 0;
        cpu = strtol(value, &end, 10);
        if (errno || *end || end == value || cpu < 0 ||
            cpu >= CPU_SETSIZE || !CPU_ISSET((int)cpu, &allowed))
            return mc_err_set(err, MC_EINVAL, "MAXCODE_TIMING_CPU '%s' is "
                              "not last, none or a CPU maxcode may run on",
                              value);
    }
    if (cpu < 0)
        return MC_OK;
    CPU_ZERO(&ev->timing_cpus);
    CPU_SET((int)cpu, &ev->timing_cpus);
    ev->pin = 1;
    return MC_OK;
}

/* The memory bound of a run, as VALUE (MAXCODE_RUN_MEMORY) says, into
 * *BYTES; MC_ECONFIG when it is not a size or below MEMORY_MIN. */
static enum mc_code
run_memory(const char *value, unsigned long long *bytes, struct mc_err *err)
{
    if (mc_conf_parse_size(value, bytes) || *bytes < MEMORY_MIN)
        return mc_err_set(err, MC_ECONFIG, "MAXCODE_RUN_MEMORY '%s' is not "
                          "a memory bound: a size of at least 16M, such as "
                          "256M or 4G", value);
    return MC_OK;
}

enum mc_code
mc_eval_init(struct mc_eval *ev, struct mc_target *t, const char *cache_dir,
             struct mc_err *err)
{
    unsigned long long memory = 0;
    enum mc_code rc;

    char cwd[PATH_MAX];

    memset(ev, 0, sizeof(*ev));
    ev->t = t;
    mc_buf_init(&ev->orig_text);
    mc_buf_init(&ev->build_cmd);
    mc_buf_init(&ev->why);
    mc_buf_init(&ev->outside);
    if (!getcwd(cwd, sizeof(cwd)))
        return mc_err_set(err, MC_EIO, "cannot get the current directory: "
                          "%s", strerror(errno));
    ev->cache_dir = mc_strdup(cache_dir);
    ev->make_dir = mc_strdup(cwd);
    if (!ev->cache_dir || !ev->make_dir)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    ev->n_runs = t->inputs.n ? t->inputs.n : 1;
    ev->timing_cap_s = atof(mc_conf_get(&t->conf, MC_SET_TIMING_CAP));
    rc = timing_cpu(ev, mc_conf_get(&t->conf, MC_SET_TIMING_CPU), err);
    if (!rc)
        rc = run_memory(mc_conf_get(&t->conf, MC_SET_RUN_MEMORY), &memory,
                        err);
    if (!rc)
        rc = mc_sandbox_init(&ev->sb, err);
    if (!rc)
        mc_sandbox_set_memory(&ev->sb, memory);
    if (!rc)
        rc = allow_project_reads(ev, err);
    if (rc)
        return rc;
    ev->ref = mc_calloc(ev->n_runs, sizeof(*ev->ref));
    if (!ev->ref)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    return MC_OK;
}

void
mc_eval_release(struct mc_eval *ev)
{
    size_t i;

    for (i = 0; ev->ref && i < ev->n_runs; i++)
        run_out_release(&ev->ref[i]);
    mc_free(ev->ref);
    mc_sandbox_release(&ev->sb);
    mc_buf_release(&ev->orig_text);
    mc_free(ev->orig_test);
    mc_free(ev->orig_time);
    mc_free(ev->cache_dir);
    mc_free(ev->make_dir);
    mc_buf_release(&ev->build_cmd);
    mc_buf_release(&ev->why);
    mc_buf_release(&ev->outside);
    memset(ev, 0, sizeof(*ev));
}

/* The test-cppflags as a NULL-terminated list in SV (SV.v may be NULL:
 * then the list is empty). */
static const char *const *
test_flags(struct mc_eval *ev, struct mc_strv *sv)
{
    static const char *const none[] = {NULL};

    mc_shell_split(mc_target_get(ev->t, MC_OPT_TEST_CPPFLAGS), sv, NULL);
    return sv->n ? (const char *const *)sv->v : none;
}

/* Build SRC for tests and for timing into DIR; the two are one
 * executable when there are no test-cppflags. */
static enum mc_code
build_pair(struct mc_eval *ev, const char *src, const char *dir,
           char **test_exe, char **time_exe, struct mc_buf *diag,
           struct mc_err *err)
{
    struct mc_strv tf = MC_STRV_INIT;
    struct mc_buf p = MC_BUF_INIT;
    enum mc_code rc;

    *test_exe = *time_exe = NULL;
    mc_buf_addf(&p, "%s/test.exe", dir);
    *test_exe = mc_buf_detach(&p, NULL);
    rc = *test_exe ? build(ev, src, *test_exe, test_flags(ev, &tf), dir,
                           diag, err)
                   : MC_ENOMEM;
    if (!rc && tf.n) {
        mc_buf_addf(&p, "%s/time.exe", dir);
        *time_exe = mc_buf_detach(&p, NULL);
        rc = *time_exe ? build(ev, src, *time_exe, NULL, dir, diag, err)
                       : MC_ENOMEM;
    } else if (!rc) {
        *time_exe = mc_strdup(*test_exe);
    }
    mc_strv_release(&tf);
    if (rc == MC_ENOMEM || (!rc && !*time_exe))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    return rc;
}

/* Run EXE once per input; the outputs go to OUTS (may be NULL) and the
 * slowest run's seconds to *SLOWEST. */
static enum mc_code
run_inputs(struct mc_eval *ev, const char *exe, int untrusted,
           int sanitized, double timeout, struct run_result *res,
           size_t i, struct mc_err *err)
{
    struct run_spec spec;

    memset(&spec, 0, sizeof(spec));
    spec.exe = exe;
    spec.input = input_of(ev, i);
    spec.timeout_s = timeout;
    spec.untrusted = untrusted;
    spec.sanitized = sanitized;
    return run_once(ev, &spec, res, err);
}

static void
result_release(struct run_result *res)
{
    run_out_release(&res->o);
}

/*
 * Run EXE once per bench input, under TOOL ("perf", "valgrind") when it
 * is not NULL: the sum of the seconds, or of the instructions counted,
 * into *TOTAL. *FAILED tells a run that timed out or was killed
 * (RUN_FAILED), or was killed at the memory bound (RUN_OOM).
 */
static enum mc_code
bench_runs(struct mc_eval *ev, const char *exe, const char *tool,
           double timeout, double *total, int *failed, struct mc_err *err)
{
    const struct mc_strv *bench = &ev->t->bench_inputs;
    size_t i, n = bench->n ? bench->n : 1;
    enum mc_code rc = MC_OK;

    *total = 0;
    *failed = 0;
    for (i = 0; i < n && !rc; i++) {
        struct run_spec spec;
        struct run_result res;

        memset(&spec, 0, sizeof(spec));
        spec.exe = exe;
        spec.input = bench->n ? bench->v[i] : NULL;
        spec.timeout_s = timeout;
        spec.untrusted = 1;
        spec.tool = tool;
        spec.pinned = !tool;
        rc = run_once(ev, &spec, &res, err);
        if (!rc && res.oom)
            *failed = RUN_OOM;
        else if (!rc && (res.timed_out || res.signaled) && !*failed)
            *failed = RUN_FAILED;
        if (!rc && tool && res.instructions < 0 && !res.oom)
            rc = mc_err_set(err, MC_EIO, "%s reported no instruction count "
                            "(or more than one)", tool);
        *total += tool ? res.instructions : res.seconds;
        result_release(&res);
    }
    return rc;
}

/* One timing sample of EXE: the sum over the bench inputs. */
static enum mc_code
time_sample(struct mc_eval *ev, const char *exe, double timeout,
            double *seconds, int *failed, struct mc_err *err)
{
    return bench_runs(ev, exe, NULL, timeout, seconds, failed, err);
}

/* Instructions of EXE over the bench inputs, with perf or valgrind;
 * *FAILED as bench_runs() says. */
static enum mc_code
count_instructions(struct mc_eval *ev, const char *exe, double *count,
                   int *failed, struct mc_err *err)
{
    if (ev->instr_tool == TOOL_UNKNOWN) {
        /* Probe once: perf counts only where the kernel lets it. */
        struct run_spec spec;
        struct run_result res;

        memset(&spec, 0, sizeof(spec));
        spec.exe = "/bin/true";
        spec.tool = "perf";
        spec.timeout_s = PROBE_TIMEOUT_S;
        ev->instr_tool = TOOL_VALGRIND;
        if (run_once(ev, &spec, &res, err) == MC_OK &&
            res.instructions > 0)
            ev->instr_tool = TOOL_PERF;
        result_release(&res);
        mc_err_clear(err);
    }
    return bench_runs(ev, exe,
                      ev->instr_tool == TOOL_PERF ? "perf" : "valgrind",
                      COUNT_TIMEOUT_S, count, failed, err);
}

static int
metric_is_instructions(struct mc_eval *ev)
{
    return !strcmp(mc_target_get(ev->t, MC_OPT_METRIC), "instructions");
}

static int timing_lock(struct mc_eval *ev);
static double timing_timeout(struct mc_eval *ev);

/* The baseline: the original alone, under the timing lock; the median
 * of 5 samples after a warm-up (or its instruction count). */
static enum mc_code
time_original(struct mc_eval *ev, struct mc_err *err)
{
    double s[BASELINE_SAMPLES], med, lo, hi;
    enum mc_code rc = MC_OK;
    int lock, failed = 0, i;

    lock = timing_lock(ev);
    if (metric_is_instructions(ev)) {
        rc = count_instructions(ev, ev->orig_time, &ev->baseline_s,
                                &failed, err);
        if (!rc && failed == RUN_OOM)
            rc = mc_err_set(err, MC_EINVAL, "the original ran out of "
                            "memory while its instructions were counted "
                            "(the bound is %llu MiB: MAXCODE_RUN_MEMORY)",
                            ev->sb.memory / MIB);
    } else {
        rc = time_sample(ev, ev->orig_time, timing_timeout(ev), &s[0],
                         &failed, err);
        for (i = 0; !rc && !failed && i < BASELINE_SAMPLES; i++)
            rc = time_sample(ev, ev->orig_time, timing_timeout(ev), &s[i],
                             &failed, err);
        if (!rc && failed == RUN_OOM)
            rc = mc_err_set(err, MC_EINVAL, "the original's timing build "
                            "ran out of memory on its bench inputs (the "
                            "bound is %llu MiB: MAXCODE_RUN_MEMORY)",
                            ev->sb.memory / MIB);
        else if (!rc && failed)
            rc = mc_err_set(err, MC_EINVAL, "the original's timing build "
                            "timed out or crashed on its bench inputs");
        if (!rc) {
            mc_eval_median_ci(s, BASELINE_SAMPLES, ALPHA, &med, &lo, &hi);
            ev->baseline_s = med;
        }
    }
    mc_file_unlock(lock);
    return rc;
}

/* The original's SOURCE as builds name it, made absolute, into SRC
 * (errors stick in SRC). */
static void
original_path(const struct mc_eval *ev, struct mc_buf *src)
{
    char cwd[PATH_MAX];

    if (ev->t->source[0] != '/' && getcwd(cwd, sizeof(cwd)))
        mc_buf_addf(src, "%s/", cwd);
    mc_buf_adds(src, ev->t->source);
}

/* Build the original (SOURCE made absolute) into DIR; on a build
 * failure, EV->why gives the command, the directory and the first
 * errors. */
static enum mc_code
build_original(struct mc_eval *ev, const char *dir, struct mc_err *err)
{
    struct mc_buf diag = MC_BUF_INIT, src = MC_BUF_INIT, first = MC_BUF_INIT;
    enum mc_code rc;

    original_path(ev, &src);
    rc = build_pair(ev, src.s, dir, &ev->orig_test, &ev->orig_time, &diag,
                    err);
    if (rc == MC_EINVAL) {
        first_errors(&diag, &first);
        mc_buf_reset(&ev->why);
        mc_buf_addf(&ev->why, "the original does not build: %s (in %s): "
                    "%s", ev->build_cmd.s ? ev->build_cmd.s : "",
                    ev->make_dir, first.s ? first.s : "");
        rc = mc_err_set(err, MC_EINVAL, "the original does not build: "
                        "%.200s", first.s ? first.s : "");
    }
    mc_buf_release(&first);
    mc_buf_release(&src);
    mc_buf_release(&diag);
    return rc;
}

/* The first line of B that reports a CUDA error ("CUDA error: ...",
 * "cudaErrorMemoryAllocation", "CUDA_ERROR_NO_DEVICE"), into *LEN; NULL
 * when none does. */
static const char *
cuda_error_line(const struct mc_buf *b, size_t *len)
{
    const char *l = b->s, *e = b->s + b->len, *nl;

    for (; l && l < e; l = nl ? nl + 1 : NULL) {
        char line[256];
        size_t n, i;

        nl = memchr(l, '\n', (size_t)(e - l));
        n = (size_t)((nl ? nl : e) - l);
        for (i = 0; i < n && i + 1 < sizeof(line); i++)
            line[i] = (char)tolower((unsigned char)l[i]);
        line[i] = '\0';
        if (strstr(line, "cudaerror") || strstr(line, "cuda_error") ||
            (strstr(line, "cuda") && strstr(line, "error"))) {
            *len = n;
            return l;
        }
    }
    return NULL;
}

/* Why a run was stopped at the memory bound, into B: killed in its
 * cgroup (CGROUP), else by ASan's watch of its resident memory. */
static void
out_of_memory(const struct mc_eval *ev, int cgroup, struct mc_buf *b)
{
    mc_buf_addf(b, "%s at the run's bound of %llu MiB "
                "(MAXCODE_RUN_MEMORY)", cgroup ? "killed in its cgroup"
                : "stopped by ASan's resident-memory limit",
                ev->sb.memory / MIB);
}

/* Why the original's two runs A and B on input I cannot be a reference,
 * into EV->why; MC_EINVAL then, MC_OK when they can. */
static enum mc_code
judge_reference(struct mc_eval *ev, const struct run_result *a,
                const struct run_result *b, size_t i)
{
    struct mc_buf diff = MC_BUF_INIT;
    const char *loader, *cuda = NULL;
    size_t cuda_len = 0;
    char *unseen;
    enum mc_code rc = MC_EINVAL;

    unseen = a->timed_out || a->signaled || a->o.status ? unseen_arg(ev)
                                                        : NULL;
    loader = a->o.status == LOADER_EXIT && a->o.err.s
                 ? strstr(a->o.err.s, "error while loading shared")
                 : NULL;
    if (!loader && mc_lang_get(ev->t->lang)->kernels &&
        (a->o.status || a->signaled)) {
        cuda = cuda_error_line(&a->o.err, &cuda_len);
        if (!cuda)
            cuda = cuda_error_line(&a->o.out, &cuda_len);
    }
    if (cuda) {
        /* A CUDA program that cannot use its device: failing the same
         * way faster is no speedup. */
        mc_buf_addf(&ev->why, "the original fails with a CUDA error on %s: "
                    "%.*s", input_name(ev, i), (int)(cuda_len > 200 ? 200
                    : cuda_len), cuda);
    } else if (loader) {
        /* The dynamic loader failed: nothing of the program ran. */
        mc_buf_addf(&ev->why, "the original cannot start in its runs: "
                    "%.*s%s", (int)strcspn(loader, "\n"), loader,
                    ev->sb.drop ? " (runs are the user nobody: every "
                    "directory on the way to the library must be "
                    "readable by others)" : "");
    } else if (a->oom) {
        mc_buf_addf(&ev->why, "the original ran out of memory on %s: ",
                    input_name(ev, i));
        out_of_memory(ev, 1, &ev->why);
        mc_buf_adds(&ev->why, "; raise MAXCODE_RUN_MEMORY");
    } else if (unseen) {
        mc_buf_addf(&ev->why, "the original fails in its runs (%s %d "
                    "on %s): its args name '%s', which each run's "
                    "directory lacks; add files=%s", a->signaled ?
                    "signal" : "exit status", a->signaled ? a->sig :
                    a->o.status, input_name(ev, i), unseen, unseen);
    } else if (a->timed_out) {
        mc_buf_addf(&ev->why, "the original timed out on %s",
                    input_name(ev, i));
        describe_run(ev, &a->o, &ev->why);
    } else if (a->signaled) {
        mc_buf_addf(&ev->why, "the original crashed (signal %d) on %s",
                    a->sig, input_name(ev, i));
        describe_run(ev, &a->o, &ev->why);
    } else if (a->o.file_refused || b->o.file_refused) {
        mc_buf_addf(&ev->why, "the original leaves no file that "
                    "compare=file: can read on %s: %s (a regular file of "
                    "at most %u MiB is needed)", input_name(ev, i),
                    a->o.file_refused ? a->o.file_refused
                                      : b->o.file_refused,
                    CMP_FILE_CAP >> 20);
    } else if (!same_output(ev, &a->o, &b->o, &diff)) {
        mc_buf_addf(&ev->why, "the original's output differs "
                    "between two runs on %s (%s): it cannot judge "
                    "a candidate; if that line changes on every "
                    "run (a time, a date, an address), drop it "
                    "with ignore=REGEX, or allow numeric noise "
                    "with tolerance=REL", input_name(ev, i), diff.s);
    } else {
        rc = MC_OK;
    }
    mc_free(unseen);
    mc_buf_release(&diff);
    return rc;
}

/* Run the original twice on input I, exactly as candidates will run;
 * its output becomes the reference EV->ref[I]. */
static enum mc_code
reference_run(struct mc_eval *ev, size_t i, struct mc_err *err)
{
    struct run_result a, b;
    enum mc_code rc;

    rc = run_inputs(ev, ev->orig_test, 1, 0, REF_TIMEOUT_S, &a, i, err);
    if (rc)
        return rc;
    rc = run_inputs(ev, ev->orig_test, 1, 0, REF_TIMEOUT_S, &b, i, err);
    if (rc) {
        result_release(&a);
        return rc;
    }
    ev->harness |= a.harness;
    rc = judge_reference(ev, &a, &b, i);
    if (rc == MC_EINVAL && ev->why.len)
        mc_err_set(err, rc, "%s", ev->why.s);
    if (a.wall > ev->orig_run_s)
        ev->orig_run_s = a.wall; /* timeouts go by the wall clock */
    ev->ref[i] = a.o;
    memset(&a.o, 0, sizeof(a.o));
    result_release(&b);
    return rc;
}

/* The original's text into EV->orig_text, once. */
static enum mc_code
read_original(struct mc_eval *ev, struct mc_err *err)
{
    struct mc_mark m = MC_MARK_INIT;
    enum mc_code rc;

    if (ev->text_read)
        return MC_OK;
    mc_buf_reset(&ev->orig_text);
    if (ev->t->text.cap)
        rc = mc_buf_add(&ev->orig_text, ev->t->text.s, ev->t->text.len);
    else
        rc = mc_file_read(ev->t->source, &ev->orig_text, err);
    if (rc)
        return mc_err_set(err, rc, "cannot read '%s'", ev->t->source);
    if (mc_mark_scan(ev->orig_text.s, ev->orig_text.len, &m, NULL) == MC_OK)
        ev->orig_fenced = m.n_fences > 0;
    mc_mark_release(&m);
    ev->text_read = 1;
    return MC_OK;
}

/* kernel=NAME must name a kernel the original defines. */
static enum mc_code
check_kernel_option(struct mc_eval *ev, struct mc_err *err)
{
    const char *kernel = mc_target_get(ev->t, MC_OPT_KERNEL);
    struct mc_err e2 = MC_ERR_INIT;

    if (!*kernel ||
        !mc_mark_check_kernel(ev->orig_text.s, ev->orig_text.len,
                              ev->orig_text.s, ev->orig_text.len, kernel,
                              &e2))
        return MC_OK;
    mc_buf_addf(&ev->why, "kernel=%s: %s", kernel, e2.msg);
    return mc_err_set(err, e2.code, "%s", ev->why.s);
}

enum mc_code
mc_eval_prepare(struct mc_eval *ev, struct mc_err *err)
{
    enum mc_code rc;
    char *dir = NULL;
    size_t i;

    if (ev->ready)
        return MC_OK;
    mc_buf_reset(&ev->why);
    rc = read_original(ev, err);
    if (rc)
        return rc;
    rc = check_kernel_option(ev, err);
    if (!rc)
        rc = mc_sandbox_dir(&ev->sb, "original", 0, &dir, err);
    if (!rc)
        rc = allow_original_reads(ev, dir, err);
    if (!rc)
        rc = build_original(ev, dir, err);
    for (i = 0; !rc && i < ev->n_runs; i++)
        rc = reference_run(ev, i, err);
    if (!rc)
        rc = time_original(ev, err);
    if (!rc)
        ev->ready = 1;
    mc_free(dir);
    return rc;
}

/* ---- the source profile of the original ---- */

/* Whether the original can be profiled with gcov: C or C++ that gcc
 * builds (not nvcc, not clang, whose --version says it is clang). */
static enum mc_code
profile_supported(struct mc_eval *ev, struct mc_err *err)
{
    struct mc_spawn_opts so = {.timeout_s = VERSION_TIMEOUT_S};
    struct mc_strv argv = MC_STRV_INIT;
    struct mc_spawn_result r;
    enum mc_code rc;

    if (ev->t->lang == MC_LANG_CUDA)
        return mc_err_set(err, MC_EINVAL, "no source profile of CUDA "
                          "code: gcov reads what gcc writes");
    if (mc_shell_split(ev->t->compiler, &argv, NULL) || !argv.n ||
        mc_strv_push(&argv, "--version")) {
        mc_strv_release(&argv);
        return mc_err_set(err, MC_EINVAL, "bad compiler command '%s'",
                          ev->t->compiler);
    }
    mc_spawn_result_init(&r);
    rc = mc_spawn(argv.v, &so, &r, err);
    if (!rc && (!r.exited || r.status))
        rc = mc_err_set(err, MC_EINVAL, "'%s --version' failed",
                        ev->t->compiler);
    else if (!rc && strstr(r.out.s, "clang"))
        rc = mc_err_set(err, MC_EINVAL, "no source profile with clang: "
                        "gcov reads what gcc writes");
    mc_spawn_result_release(&r);
    mc_strv_release(&argv);
    return rc;
}

/* The gcov that goes with the compiler: its first word that names gcc
 * or g++ ("x86_64-linux-gnu-gcc-12") with that part made "gcov", when
 * PATH has it; else gcov. NULL when there is none; free with
 * mc_free(). */
static char *
gcov_tool(const struct mc_eval *ev)
{
    struct mc_strv words = MC_STRV_INIT;
    struct mc_buf b = MC_BUF_INIT;
    char *tool = NULL;
    size_t i;

    mc_shell_split(ev->t->compiler, &words, NULL);
    for (i = 0; i < words.n; i++) {
        const char *w = words.v[i], *base = strrchr(w, '/'), *at;

        base = base ? base + 1 : w;
        if (!(at = strstr(base, "gcc")) && !(at = strstr(base, "g++")))
            continue;
        mc_buf_addf(&b, "%.*sgcov%s", (int)(at - w), w, at + 3);
        tool = mc_buf_status(&b) ? NULL : mc_spawn_which(b.s);
        break;
    }
    mc_buf_release(&b);
    mc_strv_release(&words);
    return tool ? tool : mc_spawn_which("gcov");
}

/*
 * The file name, less .gcno or .gcda, of the coverage data of the
 * profile build in its directory, as GCC 11 and later name it: after
 * the one command `-o DIR/prof SRC`, "prof-STEM" (STEM: SRC's name less
 * its suffix); after `-c -o DIR/NAME.o SRC` (a build with another link
 * driver), "NAME". The data file's path is absolute in the program
 * (DIR/prof-STEM.gcda). Free with mc_free().
 */
static char *
profile_data(const struct mc_eval *ev)
{
    const char *name = mc_target_name(ev->t), *dot = strrchr(name, '.');
    struct mc_buf b = MC_BUF_INIT;

    if (ev->t->linker)
        mc_buf_adds(&b, name);
    else
        mc_buf_addf(&b, "prof-%.*s", (int)(dot && dot > name
                                           ? (size_t)(dot - name)
                                           : strlen(name)), name);
    return mc_buf_detach(&b, NULL);
}

/* Per-run timeout of profiled runs: generous against the original. */
static double
profile_timeout(const struct mc_eval *ev)
{
    double t = PROF_TIMEOUT_X * ev->orig_run_s;

    return t < PROF_TIMEOUT_MIN_S ? PROF_TIMEOUT_MIN_S : t;
}

/* Run the profile build EXE on input I in directory RUN (trusted: it
 * is the user's code), with libgcov told to write its data there. */
static enum mc_code
profile_spawn(struct mc_eval *ev, const char *exe, const char *run,
              size_t i, struct mc_err *err)
{
    struct mc_strv argv = MC_STRV_INIT, env = MC_STRV_INIT;
    struct mc_buf prefix = MC_BUF_INIT;
    struct mc_sandbox_opts so;
    struct mc_spawn_result r;
    struct run_spec spec;
    enum mc_code rc;

    memset(&spec, 0, sizeof(spec));
    spec.exe = exe;
    run_command(ev, &spec, &argv, &env);
    /* Writes go only to RUN: the data's absolute path is stripped to
     * its file name and put under RUN. */
    mc_buf_addf(&prefix, "GCOV_PREFIX=%s", run);
    mc_strv_push_owned(&env, mc_buf_detach(&prefix, NULL));
    mc_strv_push(&env, "GCOV_PREFIX_STRIP=" PROF_STRIP_ALL);
    if (add_library_path(ev, &env) || mc_strv_status(&argv) ||
        mc_strv_status(&env)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    mc_spawn_result_init(&r);
    memset(&so, 0, sizeof(so));
    so.cwd = run;
    so.stdin_path = input_of(ev, i);
    so.timeout_s = profile_timeout(ev);
    so.env = env.v;
    so.out_cap = OUT_CAP;
    rc = mc_sandbox_run(&ev->sb, argv.v, &so, &r, err);
    if (!rc && r.timed_out)
        rc = mc_err_set(err, MC_EINVAL, "the profiled original timed out "
                        "on %s", input_name(ev, i));
    else if (!rc && r.signaled)
        rc = mc_err_set(err, MC_EINVAL, "the profiled original crashed "
                        "(signal %d) on %s", r.sig, input_name(ev, i));
    mc_spawn_result_release(&r);
out:
    mc_strv_release(&argv);
    mc_strv_release(&env);
    return rc;
}

/*
 * Run the profile build EXE in DIR on input I as the reference runs
 * go, in a fresh directory with the files= files. The data DATA.gcda
 * that earlier runs left in DIR moves into that directory for the run
 * (libgcov adds to it) and back after it.
 */
static enum mc_code
profile_run(struct mc_eval *ev, const char *exe, const char *dir,
            const char *data, size_t i, struct mc_err *err)
{
    struct mc_buf kept = MC_BUF_INIT, ran = MC_BUF_INIT;
    char *run = NULL;
    enum mc_code rc;
    size_t k;

    rc = mc_sandbox_dir(&ev->sb, "run", 0, &run, err);
    for (k = 0; !rc && k < ev->t->files.n; k++)
        rc = mc_sandbox_copy_in(&ev->sb, run, ev->t->files.v[k], err);
    if (rc)
        goto out;
    mc_buf_addf(&kept, "%s/%s.gcda", dir, data);
    mc_buf_addf(&ran, "%s/%s.gcda", run, data);
    if (mc_buf_status(&kept) || mc_buf_status(&ran))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    else if (rename(kept.s, ran.s) && errno != ENOENT)
        rc = mc_err_set(err, MC_EIO, "cannot move '%s': %s", kept.s,
                        strerror(errno));
    if (!rc)
        rc = profile_spawn(ev, exe, run, i, err);
    if (!rc && rename(ran.s, kept.s))
        rc = mc_err_set(err, MC_EINVAL, "the profiled original wrote no "
                        "coverage data on %s (it ends without exit()?)",
                        input_name(ev, i));
out:
    if (run) {
        mc_sandbox_rmtree(run);
        mc_free(run);
    }
    mc_buf_release(&kept);
    mc_buf_release(&ran);
    return rc;
}

/* `GCOV --json-format --stdout DATA.gcda` in DIR; its output appended
 * to JSON. */
static enum mc_code
run_gcov(struct mc_eval *ev, const char *gcov, const char *dir,
         const char *data, struct mc_buf *json, struct mc_err *err)
{
    struct mc_strv argv = MC_STRV_INIT;
    struct mc_buf gcda = MC_BUF_INIT;
    struct mc_sandbox_opts so;
    struct mc_spawn_result r;
    enum mc_code rc;

    mc_buf_addf(&gcda, "%s.gcda", data);
    mc_strv_push(&argv, gcov);
    mc_strv_push(&argv, "--json-format");
    mc_strv_push(&argv, "--stdout");
    mc_strv_push_owned(&argv, mc_buf_detach(&gcda, NULL));
    if (mc_strv_status(&argv))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    mc_spawn_result_init(&r);
    memset(&so, 0, sizeof(so));
    so.cwd = dir;
    so.timeout_s = GCOV_TIMEOUT_S;
    so.out_cap = GCOV_OUT_CAP;
    rc = mc_sandbox_run(&ev->sb, argv.v, &so, &r, err);
    if (!rc && (r.timed_out || !r.exited || r.status || !r.out.len))
        rc = mc_err_set(err, MC_EINVAL, "%s failed on the profile: %.*s",
                        gcov, (int)strcspn(r.err.s, "\n"), r.err.s);
    else if (!rc && r.truncated)
        rc = mc_err_set(err, MC_EINVAL, "%s wrote more than %u MiB",
                        gcov, GCOV_OUT_CAP >> 20);
    else if (!rc && mc_buf_add(json, r.out.s, r.out.len))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    mc_spawn_result_release(&r);
    mc_strv_release(&argv);
    return rc;
}

/* Build the original for the profile into EXE in DIR: its test build
 * with gcc's coverage instrumentation. */
static enum mc_code
build_profiled(struct mc_eval *ev, const char *dir, const char *exe,
               struct mc_err *err)
{
    static const char *const cov[] = {"-fprofile-arcs", "-ftest-coverage",
                                      "-fprofile-update=single"};
    struct mc_strv flags = MC_STRV_INIT;
    struct mc_buf src = MC_BUF_INIT, diag = MC_BUF_INIT, first = MC_BUF_INIT;
    enum mc_code rc;
    size_t i;

    original_path(ev, &src);
    test_flags(ev, &flags);
    for (i = 0; i < MC_ARRAY_SIZE(cov); i++)
        mc_strv_push(&flags, cov[i]);
    if (mc_buf_status(&src) || mc_strv_status(&flags))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    else
        rc = build(ev, src.s, exe, (const char *const *)flags.v, dir,
                   &diag, err);
    if (rc == MC_EINVAL) {
        first_errors(&diag, &first);
        rc = mc_err_set(err, MC_EINVAL, "the profile build failed: %.200s",
                        first.s);
    }
    mc_strv_release(&flags);
    mc_buf_release(&src);
    mc_buf_release(&diag);
    mc_buf_release(&first);
    return rc;
}

enum mc_code
mc_eval_profile(struct mc_eval *ev, struct mc_buf *gcov_json,
                struct mc_err *err)
{
    char *dir = NULL, *data = NULL, *gcov = NULL;
    struct mc_buf exe = MC_BUF_INIT;
    enum mc_code rc;
    size_t i;

    if (!ev->ready)
        return mc_err_set(err, MC_EINVAL, "no source profile: the "
                          "original is not prepared");
    rc = profile_supported(ev, err);
    if (!rc && !(gcov = gcov_tool(ev)))
        rc = mc_err_set(err, MC_EINVAL, "no source profile: no gcov on "
                        "PATH");
    if (!rc)
        rc = mc_sandbox_dir(&ev->sb, "prof", 0, &dir, err);
    if (!rc && (!(data = profile_data(ev)) ||
                mc_buf_addf(&exe, "%s/prof", dir)))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    if (!rc)
        rc = build_profiled(ev, dir, exe.s, err);
    for (i = 0; !rc && i < ev->n_runs; i++)
        rc = profile_run(ev, exe.s, dir, data, i, err);
    if (!rc)
        rc = run_gcov(ev, gcov, dir, data, gcov_json, err);
    if (dir) {
        mc_sandbox_rmtree(dir); /* the build and its data go */
        mc_free(dir);
    }
    mc_buf_release(&exe);
    mc_free(data);
    mc_free(gcov);
    return rc;
}

/* Lines of TEXT: newlines, and one more when it does not end with
 * one. */
static size_t
count_lines(const struct mc_buf *text)
{
    size_t i, n = 0;

    for (i = 0; i < text->len; i++)
        n += text->s[i] == '\n';
    return n + (text->len && text->s[text->len - 1] != '\n');
}

enum mc_code
mc_eval_profile_parsed(struct mc_eval *ev, struct mc_profile *p,
                       struct mc_err *err)
{
    struct mc_buf json = MC_BUF_INIT, src = MC_BUF_INIT;
    enum mc_code rc;

    mc_profile_release(p);
    rc = mc_eval_profile(ev, &json, err);
    if (!rc) {
        original_path(ev, &src);
        rc = mc_buf_status(&src)
                 ? mc_err_set(err, MC_ENOMEM, "out of memory")
                 : mc_profile_parse(json.s, json.len, src.s, p, err);
    }
    if (!rc && mc_profile_set_lines(p, count_lines(&ev->orig_text)))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    if (rc)
        mc_profile_release(p);
    mc_buf_release(&json);
    mc_buf_release(&src);
    return rc;
}

/* The machine's timing lock file into P: MAXCODE_TIMING_LOCK, else in
 * /run/lock (machine-wide, for every user), else in $XDG_RUNTIME_DIR,
 * else in /tmp. Never in the cache directory, which may be shared
 * between machines (NFS): machines do not disturb each other's timing. */
static void
timing_lock_path(const struct mc_eval *ev, struct mc_buf *p)
{
    const char *set = mc_conf_get(&ev->t->conf, MC_SET_TIMING_LOCK);
    const char *xdg = getenv("XDG_RUNTIME_DIR");

    if (*set)
        mc_buf_adds(p, set);
    else if (access(TIMING_LOCK_DIR, W_OK) == 0)
        mc_buf_adds(p, TIMING_LOCK_DIR "/" TIMING_LOCK_NAME);
    else if (xdg && *xdg == '/' && access(xdg, W_OK) == 0)
        mc_buf_addf(p, "%s/" TIMING_LOCK_NAME, xdg);
    else
        mc_buf_adds(p, "/tmp/" TIMING_LOCK_NAME);
}

/* The timing phase's machine-wide lock (blocking): the descriptor to
 * pass to mc_file_unlock(), or -1 (said, and timing goes on unlocked). */
static int
timing_lock(struct mc_eval *ev)
{
    struct mc_buf p = MC_BUF_INIT;
    int fd = -1;

    timing_lock_path(ev, &p);
    if (mc_buf_status(&p) || mc_file_lock(p.s, 1, &fd, NULL))
        mc_info("cannot take the timing lock '%s': %s; timing unlocked",
                p.s, strerror(errno));
    mc_buf_release(&p);
    return fd;
}

/* Per-run timeout of timing runs: generous against the original. */
static double
timing_timeout(struct mc_eval *ev)
{
    double t = TIMING_TIMEOUT_X * ev->orig_run_s *
               (double)(ev->t->bench_inputs.n ? ev->t->bench_inputs.n : 1);

    return t < TIMING_TIMEOUT_MIN_S ? TIMING_TIMEOUT_MIN_S : t;
}

/*
 * One interleaved round of A (original) against B (candidate): pairs in
 * ABBA order until the 99% interval decides against MIN_SPEEDUP, MAX_PAIRS
 * pairs, or the time cap, counted from START (the round's first
 * attempt: a round taken again shares its cap). Fills T's figures;
 * returns whether it promotes.
 */
static enum mc_code
ab_round(struct mc_eval *ev, const char *cand, double min_speedup,
         double start, struct mc_timing *t, int *promoted, int *failed,
         struct mc_err *err)
{
    double a[MAX_PAIRS], b[MAX_PAIRS], ratio[MAX_PAIRS], tmp[MAX_PAIRS];
    double timeout = timing_timeout(ev), med, lo, hi;
    enum mc_code rc = MC_OK;
    size_t n = 0;

    *promoted = 0;
    *failed = 0;
    while (n < MAX_PAIRS) {
        int fa = 0, fb = 0;

        if (n % 2 == 0) {
            rc = time_sample(ev, ev->orig_time, timeout, &a[n], &fa, err);
            if (!rc)
                rc = time_sample(ev, cand, timeout, &b[n], &fb, err);
        } else {
            rc = time_sample(ev, cand, timeout, &b[n], &fb, err);
            if (!rc)
                rc = time_sample(ev, ev->orig_time, timeout, &a[n], &fa,
                                 err);
        }
        if (rc)
            return rc;
        if (fa)
            return mc_err_set(err, MC_EINVAL, "the original timed out or "
                              "crashed while it was timed");
        if (fb) {
            *failed = fb;
            return MC_OK;
        }
        ratio[n] = b[n] > 0 ? a[n] / b[n] : 0;
        n++;
        if (n < MIN_PAIRS)
            continue;
        memcpy(tmp, ratio, n * sizeof(*tmp));
        mc_eval_median_ci(tmp, n, ALPHA, &med, &lo, &hi);
        if (lo > min_speedup || hi < min_speedup || hi < 1.0 ||
            (hi - lo) / med < CI_NARROW ||
            wall_now() - start > ev->timing_cap_s)
            break;
    }
    memcpy(tmp, ratio, n * sizeof(*tmp));
    mc_eval_median_ci(tmp, n, ALPHA, &med, &lo, &hi);
    t->pairs = n;
    t->median = med;
    t->ci_low = lo;
    t->ci_high = hi;
    qsort(a, n, sizeof(*a), cmp_double);
    qsort(b, n, sizeof(*b), cmp_double);
    t->orig_s = n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
    t->cand_s = n % 2 ? b[n / 2] : (b[n / 2 - 1] + b[n / 2]) / 2;
    t->orig_spread = spread(a, n);
    t->cand_spread = spread(b, n);
    /* The promotion rule: the whole 99% interval above 1 (the candidate
     * is faster beyond the noise) and the median at least min-speedup. */
    *promoted = lo > 1.0 && med >= min_speedup;
    return MC_OK;
}

/* One A/B round as mc_load_guard() takes it (ROUND_ARG). */
struct round_arg {
    struct mc_eval *ev;
    const char *cand;
    double min_speedup;
    struct mc_timing *t;
    int promoted, failed;
    int attempts;   /* of this round so far */
    double start;   /* of its first attempt */
    struct mc_err *err;
};

/* An attempt at the round; it is kept (not taken again) when its
 * candidate failed, or when the round's time cap, counted from its
 * first attempt, is spent: the repeats share the cap. */
static enum mc_code
guarded_round(void *arg, int *keep)
{
    struct round_arg *a = arg;
    enum mc_code rc;

    if (!a->attempts++)
        a->start = wall_now();
    rc = ab_round(a->ev, a->cand, a->min_speedup, a->start, a->t,
                  &a->promoted, &a->failed, a->err);
    *keep = a->failed || wall_now() - a->start >= a->ev->timing_cap_s;
    return rc;
}

/* FB's verdict: CAND's run was killed at the memory bound while it was
 * WHAT ("timed", "counted"). */
static void
timing_oom(struct mc_eval *ev, const char *what, struct mc_feedback *fb)
{
    fb->verdict = MC_VERDICT_CRASH;
    mc_buf_addf(&fb->detail, "out of memory while it was %s: ", what);
    out_of_memory(ev, 1, &fb->detail);
}

/* Count the instructions of the original once and of CAND twice into
 * FB's timing, the load sampled around them for the record only: counts
 * do not depend on it. A count killed at the memory bound is FB's
 * verdict, crash. */
static enum mc_code
time_by_count(struct mc_eval *ev, const char *cand, double min_speedup,
              struct mc_feedback *fb, struct mc_err *err)
{
    mc_load_fn *sample = ev->load_fn ? ev->load_fn : mc_load_read;
    struct mc_timing *t = &fb->timing;
    double ci = 0, oi = 0, ci2 = 0;
    enum mc_code rc;
    int fo = 0, fc = 0;

    sample(&t->load[0].before, ev->load_ctx);
    rc = count_instructions(ev, ev->orig_time, &oi, &fo, err);
    if (!rc && fo == RUN_OOM)
        rc = mc_err_set(err, MC_EINVAL, "the original ran out of memory "
                        "while its instructions were counted");
    if (!rc)
        rc = count_instructions(ev, cand, &ci, &fc, err);
    if (!rc && fc != RUN_OOM)
        rc = count_instructions(ev, cand, &ci2, &fc, err);
    if (!rc && fc == RUN_OOM) {
        timing_oom(ev, "counted", fb);
        return MC_OK;
    }
    if (rc)
        return rc;
    sample(&t->load[0].after, ev->load_ctx);
    t->load[0].changed = mc_load_changed(&t->load[0].before,
                                         &t->load[0].after);
    t->pairs = 1;
    t->rounds = 1;
    t->orig_s = oi;
    t->cand_s = ci;
    t->median = t->ci_low = t->ci_high = ci > 0 ? oi / ci : 0;
    t->measured = t->measured_low = t->measured_high = t->median;
    t->promoted = t->median > 1.0 && t->median >= min_speedup;
    /* Deterministic: the confirmation is the same count again (to a
     * part in 10^4: the environment's size moves it by a few). */
    t->confirmed = t->promoted && fabs(ci2 - ci) <= COUNT_NOISE * ci;
    t->confirmed_speedup = t->confirmed ? t->median : 0;
    t->confirmed_low = t->confirmed_high = t->confirmed_speedup;
    t->done = 1;
    return MC_OK;
}

/* Before the first timed pair: the builds' dirty pages go to disk now
 * (syncfs of the make directory's file system), so that their
 * write-back does not land in the middle of a round; then pairs of one
 * run of each, discarded, until the original's last two samples agree
 * within WARM_AGREE, at most WARM_PAIRS pairs (caches, page faults, a
 * clock that ramps up after the builds). *FAILED when a run timed out
 * or crashed. */
static enum mc_code
warm_up(struct mc_eval *ev, const char *cand, int *failed,
        struct mc_err *err)
{
    double prev = 0, a = 0, b;
    enum mc_code rc = MC_OK;
    int fd, i;

    fd = open(ev->make_dir ? ev->make_dir : ".", O_RDONLY | O_DIRECTORY |
              O_CLOEXEC);
    if (fd >= 0) {
        (void)syncfs(fd);
        close(fd);
    }
    for (i = 0; i < WARM_PAIRS; i++) {
        prev = a;
        rc = time_sample(ev, ev->orig_time, timing_timeout(ev), &a, failed,
                         err);
        if (!rc && !*failed)
            rc = time_sample(ev, cand, timing_timeout(ev), &b, failed, err);
        if (rc || *failed)
            break;
        if (i > 0 && fabs(a - prev) <= WARM_AGREE * prev)
            break;
    }
    if (!rc && !*failed)
        mc_verbose("timing: warm-up of %d pairs",
                   i < WARM_PAIRS ? i + 1 : i);
    return rc;
}

/* Time CAND against the original: warm-up, a round, and when it
 * promotes, a fresh confirmation round (with EV->rounds set: that many
 * rounds, whatever each decides). Each round is taken again while the
 * machine's load changes around it (mc_load_guard()); a round kept with
 * its load still changing promotes only when its whole interval clears
 * min-speedup. */
static enum mc_code
time_candidate(struct mc_eval *ev, const char *cand, struct mc_feedback *fb,
               struct mc_err *err)
{
    struct mc_timing *t = &fb->timing, again;
    struct round_arg a;
    double min_speedup = atof(mc_target_get(ev->t, MC_OPT_MIN_SPEEDUP));
    enum mc_code rc;
    size_t want = ev->rounds > 0 ? (size_t)ev->rounds : 1, r;
    int lock, wf = 0, later_promoted = 1;

    if (want > MC_TIMING_ROUNDS)
        want = MC_TIMING_ROUNDS;
    lock = timing_lock(ev);
    t->start = wall_now();
    mc_verbose("timing: start %.6f %s", t->start, ev->t->source);
    if (metric_is_instructions(ev)) {
        rc = time_by_count(ev, cand, min_speedup, fb, err);
        goto out;
    }
    rc = warm_up(ev, cand, &wf, err);
    if (rc)
        goto out;
    if (wf == RUN_OOM) {
        timing_oom(ev, "timed", fb);
        goto out;
    }
    if (wf) {
        fb->verdict = MC_VERDICT_TIMEOUT;
        mc_buf_adds(&fb->detail, "the timing build timed out or crashed");
        goto out;
    }
    memset(&a, 0, sizeof(a));
    a.ev = ev;
    a.cand = cand;
    a.min_speedup = min_speedup;
    a.err = err;
    for (r = 0; r < want; r++) {
        memset(&again, 0, sizeof(again));
        a.t = r ? &again : t;
        a.attempts = 0;
        rc = mc_load_guard(ev->load_fn, ev->load_ctx, guarded_round, &a,
                           &t->load[r]);
        if (rc)
            goto out;
        if (a.failed == RUN_OOM && !r) {
            timing_oom(ev, "timed", fb);
            goto out;
        }
        if (a.failed && !r) {
            fb->verdict = MC_VERDICT_TIMEOUT;
            mc_buf_adds(&fb->detail, "a timing run timed out or crashed");
            goto out;
        }
        if (a.failed) {
            later_promoted = 0;
            break;
        }
        if (t->load[r].changed) {
            /* The machine changed under the round even when taken
             * again. Its pairs still decide, conservatively: only a win
             * whose whole interval clears min-speedup promotes. (A busy
             * build machine changes all the time; refusing every such
             * round would keep nothing there, and a load that starts
             * mid-round moves some pairs, not the interval of all.) */
            const struct mc_timing *rt = r ? &again : t;

            a.promoted = a.promoted && rt->ci_low > min_speedup;
            t->load_changed = 1;
        }
        t->rounds = r + 1;
        if (!r) {
            t->done = 1;
            t->promoted = a.promoted;
            t->measured = t->median;
            t->measured_low = t->ci_low;
            t->measured_high = t->ci_high;
            if (!ev->rounds && a.promoted)
                want = 2;
            continue;
        }
        later_promoted &= a.promoted;
        t->measured = fmin(t->measured, again.median);
        t->measured_low = fmin(t->measured_low, again.ci_low);
        t->measured_high = fmax(t->measured_high, again.ci_high);
    }
    t->confirmed = t->promoted && t->rounds >= 2 && later_promoted;
    if (t->confirmed) {
        /* The headline is the worse of the rounds, taken apart in time,
         * and its interval spans theirs: a figure the next measurement
         * should not fall below. */
        t->confirmed_speedup = t->measured;
        t->confirmed_low = t->measured_low;
        t->confirmed_high = t->measured_high;
    }
out:
    t->end = wall_now();
    mc_verbose("timing: end %.6f %s", t->end, ev->t->source);
    mc_file_unlock(lock);
    return rc;
}

/* Run EXE on every input and compare with the reference; sets FB's
 * verdict and detail on the first failure. Returns 1 if all match. */
static int
check_runs(struct mc_eval *ev, const char *exe, int sanitized,
           struct mc_feedback *fb, const char *when, struct mc_err *err)
{
    double timeout = RUN_TIMEOUT_X * ev->orig_run_s + RUN_TIMEOUT_PAD_S;
    size_t i;

    for (i = 0; i < ev->n_runs; i++) {
        struct run_result res;
        struct mc_buf diff = MC_BUF_INIT;
        int ok = 1;

        if (run_inputs(ev, exe, 1, sanitized,
                       sanitized ? SAN_SLOWDOWN * timeout : timeout, &res, i,
                       err))
            return 0;
        if (res.oom || (sanitized && strstr(res.o.err.s, SAN_RSS_REPORT))) {
            fb->verdict = MC_VERDICT_CRASH;
            mc_buf_addf(&fb->detail, "%s: out of memory%s: ",
                        input_name(ev, i),
                        sanitized && !*when ? " in the sanitizer run" : "");
            out_of_memory(ev, res.oom, &fb->detail);
            mc_buf_adds(&fb->detail, when);
            ok = 0;
        } else if (res.timed_out) {
            fb->verdict = MC_VERDICT_TIMEOUT;
            mc_buf_addf(&fb->detail, "%s: timed out after %.1f s%s",
                        input_name(ev, i),
                        sanitized ? SAN_SLOWDOWN * timeout : timeout,
                        when);
            ok = 0;
        } else if (sanitized && (res.o.status == SAN_EXIT ||
                                 strstr(res.o.err.s, "runtime error:") ||
                                 strstr(res.o.err.s, "Sanitizer"))) {
            const char *rep = strstr(res.o.err.s, "runtime error:");
            if (!rep)
                rep = strstr(res.o.err.s, "ERROR: ");
            fb->verdict = MC_VERDICT_INCORRECT;
            mc_buf_addf(&fb->detail, "%s: sanitizer report: %.200s",
                        input_name(ev, i), rep ? rep : res.o.err.s);
            ok = 0;
        } else if (res.signaled &&
                   !(ev->ref[i].status == SIG_STATUS + res.sig)) {
            fb->verdict = MC_VERDICT_CRASH;
            mc_buf_addf(&fb->detail, "%s: killed by signal %d (%s)%s",
                        input_name(ev, i), res.sig, strsignal(res.sig),
                        when);
            ok = 0;
        } else if (!sanitized && !same_output(ev, &ev->ref[i], &res.o,
                                              &diff)) {
            fb->verdict = MC_VERDICT_INCORRECT;
            mc_buf_addf(&fb->detail, "%s: %s%s", input_name(ev, i), diff.s,
                        when);
            ok = 0;
        }
        mc_buf_release(&diff);
        result_release(&res);
        if (!ok)
            return 0;
    }
    return 1;
}

/* The user's check command, with MAXCODE_EXE naming the candidate. */
static int
run_check(struct mc_eval *ev, const char *exe, struct mc_feedback *fb,
          struct mc_err *err)
{
    const char *check = mc_target_get(ev->t, MC_OPT_CHECK);
    struct run_spec spec;
    struct run_result res;
    int ok;

    if (!*check)
        return 1;
    memset(&spec, 0, sizeof(spec));
    spec.exe = exe;
    spec.shell_cmd = check;
    spec.timeout_s = CHECK_TIMEOUT_S;
    spec.untrusted = 1;
    if (run_once(ev, &spec, &res, err))
        return 0;
    ok = !res.timed_out && res.o.status == 0;
    if (!ok) {
        mc_buf_rtrim(&res.o.err);
        fb->verdict = MC_VERDICT_INCORRECT;
        mc_buf_addf(&fb->detail, "check '%s' %s: %.200s", check,
                    res.timed_out ? "timed out" : "failed", res.o.err.s);
    }
    result_release(&res);
    return ok;
}

/* No API key leaves through a feedback record, even if a candidate
 * managed to read one and print it. */
static void
mask_secrets(const struct mc_eval *ev, struct mc_feedback *fb)
{
    static const char *const vars[] = {"MAXCODE_API_KEY", "OPENAI_API_KEY",
                                       "ANTHROPIC_API_KEY"};
    size_t i;

    mc_log_mask(&fb->detail, mc_conf_get(&ev->t->conf, MC_SET_API_KEY));
    mc_log_mask(&fb->diagnostics,
                mc_conf_get(&ev->t->conf, MC_SET_API_KEY));
    for (i = 0; i < MC_ARRAY_SIZE(vars); i++) {
        mc_log_mask(&fb->detail, getenv(vars[i]));
        mc_log_mask(&fb->diagnostics, getenv(vars[i]));
    }
}

/* Build the candidate at PATH with the sanitizers in DIR and run it on
 * the inputs; *WRONG when a run failed (FB says how). A compiler without
 * a sanitizer runtime is said in the diagnostics, and judging goes on. */
static enum mc_code
sanitized_runs(struct mc_eval *ev, const char *path, const char *dir,
               struct mc_feedback *fb, int *wrong, struct mc_err *err)
{
    static const char *const san[] = {
        "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
        "-fno-omit-frame-pointer", "-g", NULL};
    struct mc_buf sp = MC_BUF_INIT;
    enum mc_code rc;
    char *san_exe;

    mc_buf_addf(&sp, "%s/san.exe", dir);
    san_exe = mc_buf_detach(&sp, NULL);
    rc = san_exe ? build(ev, path, san_exe, san, dir, &fb->diagnostics, err)
                 : MC_ENOMEM;
    if (rc == MC_EINVAL && outside_named(ev, &fb->diagnostics)) {
        reject_outside(ev, fb);
        *wrong = 1;
        rc = MC_OK;
    } else if (rc == MC_EINVAL) {
        /* No sanitizer runtime for this compiler: say so, go on. */
        mc_buf_adds(&fb->diagnostics, "(the sanitizer build failed; no "
                    "sanitizer run)\n");
        rc = MC_OK;
    } else if (!rc && !check_runs(ev, san_exe, 1, fb, "", err)) {
        *wrong = 1;
    }
    mc_free(san_exe);
    return rc;
}

/* The CUDA candidate EXE's correctness runs again under compute-sanitizer
 * (memcheck), where it is installed and a device is there; otherwise the
 * diagnostics say it was not run. Returns 0 when a run failed (FB says
 * how), as check_runs(). */
static int
cuda_sanitizer_runs(struct mc_eval *ev, const char *exe,
                    struct mc_feedback *fb, struct mc_err *err)
{
    char *tool = mc_spawn_which_in(CUDA_SANITIZER, getenv("PATH"));
    struct mc_cuda_probe p;
    int ok = 1;

    memset(&p, 0, sizeof(p));
    mc_cuda_probe_read(ev->cache_dir, &p, NULL);
    if (!tool)
        mc_buf_adds(&fb->diagnostics, "(" CUDA_SANITIZER " not run: it is "
                    "not installed)\n");
    else if (!p.n)
        mc_buf_adds(&fb->diagnostics, "(" CUDA_SANITIZER " not run: no "
                    "CUDA device)\n");
    else
        ok = check_runs(ev, exe, 1, fb, " (" CUDA_SANITIZER ")", err);
    mc_free(tool);
    return ok;
}

/* Steps 3 to 6 of mc_eval_candidate() for the candidate built from
 * PATH in DIR into TEST_EXE and TIME_EXE: FB says correct only when it
 * passed them all; an error only when the judging itself failed. */
static enum mc_code
judge_built(struct mc_eval *ev, const char *path, const char *dir,
            const char *test_exe, const char *time_exe, int sanitize,
            int time_it, struct mc_feedback *fb, struct mc_err *err)
{
    enum mc_code rc;
    int wrong = 0;

    /* 3. Differential runs, 4. check and sanitizers. */
    if (!check_runs(ev, test_exe, 0, fb, "", err) ||
        !run_check(ev, test_exe, fb, err))
        return MC_OK;
    if (sanitize && mc_lang_get(ev->t->lang)->sanitize) {
        rc = sanitized_runs(ev, path, dir, fb, &wrong, err);
        if (rc || wrong)
            return rc;
    } else if (sanitize && mc_lang_get(ev->t->lang)->kernels &&
               !cuda_sanitizer_runs(ev, test_exe, fb, err)) {
        return MC_OK;
    }
    /* 5. Timing, 6. correctness again afterwards. */
    if (time_it) {
        rc = time_candidate(ev, time_exe, fb, err);
        if (rc || fb->verdict == MC_VERDICT_TIMEOUT ||
            fb->verdict == MC_VERDICT_CRASH)
            return rc;
        if (!check_runs(ev, test_exe, 0, fb, " (after timing)", err))
            return MC_OK;
    }
    fb->correct = 1;
    fb->verdict = MC_VERDICT_CORRECT;
    return MC_OK;
}

enum mc_code
mc_eval_candidate(struct mc_eval *ev, const char *text, size_t len,
                  int sanitize, int time_it, struct mc_feedback *fb,
                  struct mc_err *err)
{
    struct mc_err fe = MC_ERR_INIT;
    struct mc_buf src = MC_BUF_INIT, path = MC_BUF_INIT;
    char *dir = NULL, *test_exe = NULL, *time_exe = NULL;
    const char *kernel = mc_target_get(ev->t, MC_OPT_KERNEL);
    enum mc_code rc;
    int outside_read = 0;

    fb->metric = mc_target_get(ev->t, MC_OPT_METRIC);
    fb->sandbox = mc_lang_get(ev->t->lang)->kernels
                      ? mc_sandbox_describe_gpu(&ev->sb)
                      : mc_sandbox_describe(&ev->sb);
    rc = read_original(ev, err);
    if (rc)
        return rc;
    /* 1. Fences: #pragma maxcode begin/end, and kernel=NAME; checked
     * before anything runs. */
    if (mc_mark_check_fences(ev->orig_text.s, ev->orig_text.len, text, len,
                             &fe) ||
        ((*kernel || (mc_lang_get(ev->t->lang)->kernels &&
                      !ev->orig_fenced)) &&
         mc_mark_check_kernel(ev->orig_text.s, ev->orig_text.len, text, len,
                              *kernel ? kernel : NULL, &fe))) {
        fb->verdict = MC_VERDICT_REJECTED;
        mc_buf_adds(&fb->detail, fe.msg);
        return MC_OK;
    }
    rc = mc_eval_prepare(ev, err);
    if (rc)
        return rc;
    fb->baseline_s = ev->baseline_s;
    /* 2. Build, from a file in the sandbox that includes what SOURCE
     * includes (the same rewriting as a variant's). */
    rc = mc_sandbox_dir(&ev->sb, "candidate", 0, &dir, err);
    if (rc)
        goto out;
    mc_buf_addf(&path, "%s/%s", dir, mc_target_name(ev->t));
    rc = mc_variant_rewrite(path.s, ev->t->source, ev->t->source_real, text,
                            len, &src, err);
    if (!rc)
        rc = mc_file_write_atomic(path.s, src.s, src.len, err);
    if (!rc)
        rc = reads_outside(ev, path.s, dir, text, len, &outside_read, err);
    if (rc)
        goto out;
    if (outside_read) {
        reject_outside(ev, fb);
        goto out;
    }
    rc = build_pair(ev, path.s, dir, &test_exe, &time_exe, &fb->diagnostics,
                    err);
    if (rc == MC_EINVAL && outside_named(ev, &fb->diagnostics)) {
        reject_outside(ev, fb);
        rc = MC_OK;
        goto out;
    }
    if (rc == MC_EINVAL) {
        fb->verdict = MC_VERDICT_COMPILE_ERROR;
        mc_buf_add(&fb->detail, fb->diagnostics.s, fb->diagnostics.len);
        mc_buf_rtrim(&fb->detail);
        rc = MC_OK;
        goto out;
    }
    if (rc)
        goto out;
    fb->compiled = 1;
    rc = judge_built(ev, path.s, dir, test_exe, time_exe, sanitize, time_it,
                     fb, err);
out:
    if (err && err->code && !rc && !fb->correct && !fb->detail.len) {
        /* The judging itself failed midway: say so in the record. */
        fb->verdict = MC_VERDICT_REJECTED;
        mc_buf_addf(&fb->detail, "could not judge: %s", err->msg);
    }
    mask_secrets(ev, fb);
    if (dir) {
        mc_sandbox_rmtree(dir);
        mc_free(dir);
    }
    mc_free(test_exe);
    mc_free(time_exe);
    mc_buf_release(&src);
    mc_buf_release(&path);
    return rc;
}

cJSON *
mc_timing_load_json(const struct mc_timing *t)
{
    cJSON *a = cJSON_CreateArray();
    size_t i;

    for (i = 0; a && i < t->rounds && i < MC_TIMING_ROUNDS; i++)
        cJSON_AddItemToArray(a, mc_load_round_json(&t->load[i]));
    return a;
}

char *
mc_feedback_json(const struct mc_feedback *fb)
{
    const struct mc_timing *t = &fb->timing;
    cJSON *o = cJSON_CreateObject(), *tm;
    char *text;

    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "verdict", mc_verdict_name(fb->verdict));
    cJSON_AddBoolToObject(o, "compiled", fb->compiled);
    cJSON_AddBoolToObject(o, "correct", fb->correct);
    if (t->confirmed)
        cJSON_AddNumberToObject(o, "speedup", t->confirmed_speedup);
    else
        cJSON_AddNullToObject(o, "speedup");
    if (t->done)
        cJSON_AddNumberToObject(o, "baseline_seconds", t->orig_s);
    else if (fb->baseline_s > 0)
        cJSON_AddNumberToObject(o, "baseline_seconds", fb->baseline_s);
    else
        cJSON_AddNullToObject(o, "baseline_seconds");
    if (t->done)
        cJSON_AddNumberToObject(o, "candidate_seconds", t->cand_s);
    else
        cJSON_AddNullToObject(o, "candidate_seconds");
    cJSON_AddStringToObject(o, "detail", fb->detail.s);
    cJSON_AddStringToObject(o, "diagnostics", fb->diagnostics.s);
    cJSON_AddStringToObject(o, "metric", fb->metric ? fb->metric : "time");
    cJSON_AddStringToObject(o, "sandbox", fb->sandbox ? fb->sandbox : "");
    tm = cJSON_AddObjectToObject(o, "timing");
    if (tm && t->done) {
        cJSON_AddNumberToObject(tm, "pairs", (double)t->pairs);
        cJSON_AddNumberToObject(tm, "median_speedup", t->median);
        cJSON_AddNumberToObject(tm, "ci99_low", t->ci_low);
        cJSON_AddNumberToObject(tm, "ci99_high", t->ci_high);
        cJSON_AddNumberToObject(tm, "original_spread", t->orig_spread);
        cJSON_AddNumberToObject(tm, "candidate_spread", t->cand_spread);
        cJSON_AddBoolToObject(tm, "promoted", t->promoted);
        cJSON_AddBoolToObject(tm, "confirmed", t->confirmed);
        cJSON_AddNumberToObject(tm, "start", t->start);
        cJSON_AddNumberToObject(tm, "end", t->end);
        cJSON_AddNumberToObject(tm, "rounds", (double)t->rounds);
        cJSON_AddItemToObject(tm, "load", mc_timing_load_json(t));
        cJSON_AddBoolToObject(tm, "load_changed", t->load_changed);
    }
    text = cJSON_Print(o);
    cJSON_Delete(o);
    return text;
}
