/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * eval_prep.c: setting the executor up (mc_eval_init()) and preparing
 * the original (mc_eval_prepare()): its text, its build, its reference
 * runs, its own check= and why they cannot judge when they cannot. Part of the
 * executor (eval_priv.h).
 */
#include "mc_setup.h"
#include "eval_priv.h"
#include "alloc.h"
#include "file.h"
#include "lang.h"
#include "mark.h"

#include <ctype.h>

#define LOADER_EXIT  127         /* status when the dynamic loader (or
                                  * exec) failed */
#define MEMORY_MIN   (16ULL << 20) /* MAXCODE_RUN_MEMORY's least */

/* Running and judging. */
#define REF_TIMEOUT_S   120      /* each reference run of the original */

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
        rc = mc_eval_allow_project_reads(ev, err);
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
        mc_eval_run_out_release(&ev->ref[i]);
    mc_free(ev->ref);
    mc_sandbox_release(&ev->sb);
    mc_buf_release(&ev->orig_text);
    mc_free(ev->orig_test);
    mc_free(ev->orig_time);
    mc_free(ev->orig_san);
    mc_free(ev->orig_san_report);
    mc_free(ev->cache_dir);
    mc_free(ev->make_dir);
    mc_buf_release(&ev->build_cmd);
    mc_buf_release(&ev->why);
    mc_buf_release(&ev->outside);
    memset(ev, 0, sizeof(*ev));
}

void
mc_eval_original_path(const struct mc_eval *ev, struct mc_buf *src)
{
    char cwd[PATH_MAX];

    if (ev->t->source[0] != '/' && getcwd(cwd, sizeof(cwd)))
        mc_buf_addf(src, "%s/", cwd);
    mc_buf_adds(src, ev->t->source);
}

/*
 * When DIAG, the original's failed build, says that the program has no
 * main() ("undefined reference to `main'", lld's "undefined symbol:
 * main") and no link= is given: append to B that link= names the files
 * linked with SOURCE, with the compile DB entry's other inputs as the
 * example when it had some (a one-line compile-and-link).
 */
static void
link_hint(const struct mc_eval *ev, const struct mc_buf *diag,
          struct mc_buf *b)
{
    const struct mc_strv *o = &ev->t->db_others;
    size_t i;

    if (ev->t->link.n || !diag->s ||
        (!strstr(diag->s, "reference to `main'") &&
         !strstr(diag->s, "reference to 'main'") &&
         !strstr(diag->s, "undefined symbol: main")))
        return;
    mc_buf_adds(b, "; nothing linked with SOURCE defines main: name the "
                "files that complete the program with link=");
    if (!o->n) {
        mc_buf_addf(b, "FILES, e.g. $(maxcode %s, link=main.c)",
                    ev->t->source);
        return;
    }
    for (i = 0; i < o->n; i++)
        mc_buf_addf(b, "%s%s", i ? "+" : "", o->v[i]);
    mc_buf_adds(b, " (the other inputs of SOURCE's compile database "
                "entry)");
}

/* Build the original (SOURCE made absolute) into DIR; on a build
 * failure, EV->why gives the command, the directory and the first
 * errors, and where main() is missing, a link= hint. */
static enum mc_code
build_original(struct mc_eval *ev, const char *dir, struct mc_err *err)
{
    struct mc_buf diag = MC_BUF_INIT, src = MC_BUF_INIT, first = MC_BUF_INIT;
    struct mc_buf hint = MC_BUF_INIT;
    enum mc_code rc;

    mc_eval_original_path(ev, &src);
    rc = mc_eval_build_pair(ev, src.s, dir, &ev->orig_test, &ev->orig_time,
                            &diag, err);
    if (rc == MC_EINVAL) {
        mc_eval_first_errors(&diag, &first);
        mc_buf_reset(&ev->why);
        mc_buf_addf(&ev->why, "the original does not build: %s (in %s): "
                    "%s", ev->build_cmd.s ? ev->build_cmd.s : "",
                    ev->make_dir, first.s ? first.s : "");
        link_hint(ev, &diag, &hint);
        mc_buf_adds(&ev->why, hint.s ? hint.s : "");
        rc = mc_err_set(err, MC_EINVAL, "the original does not build: "
                        "%.200s%s", first.s ? first.s : "",
                        hint.s ? hint.s : "");
    }
    mc_buf_release(&hint);
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

/* Why the original's two runs A and B on input I cannot be a reference,
 * into EV->why; MC_EINVAL then, MC_OK when they can. */
static enum mc_code
judge_reference(struct mc_eval *ev, const struct mc_run_result *a,
                const struct mc_run_result *b, size_t i)
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
                    "%.*s", mc_eval_input_name(ev, i),
                    (int)(cuda_len > 200 ? 200 : cuda_len), cuda);
    } else if (loader) {
        /* The dynamic loader failed: nothing of the program ran. */
        mc_buf_addf(&ev->why, "the original cannot start in its runs: "
                    "%.*s%s", (int)strcspn(loader, "\n"), loader,
                    ev->sb.drop ? " (runs are the user nobody: every "
                    "directory on the way to the library must be "
                    "readable by others)" : "");
    } else if (a->oom) {
        mc_buf_addf(&ev->why, "the original ran out of memory on %s: ",
                    mc_eval_input_name(ev, i));
        mc_eval_out_of_memory(ev, 1, &ev->why);
        mc_buf_adds(&ev->why, "; raise MAXCODE_RUN_MEMORY");
    } else if (unseen) {
        mc_buf_addf(&ev->why, "the original fails in its runs (%s %d "
                    "on %s): its args name '%s', which each run's "
                    "directory lacks; add files=%s", a->signaled ?
                    "signal" : "exit status", a->signaled ? a->sig :
                    a->o.status, mc_eval_input_name(ev, i), unseen, unseen);
    } else if (a->timed_out) {
        mc_buf_addf(&ev->why, "the original timed out on %s",
                    mc_eval_input_name(ev, i));
        describe_run(ev, &a->o, &ev->why);
    } else if (a->signaled) {
        mc_buf_addf(&ev->why, "the original crashed (signal %d) on %s",
                    a->sig, mc_eval_input_name(ev, i));
        describe_run(ev, &a->o, &ev->why);
    } else if (a->o.file_refused || b->o.file_refused) {
        mc_buf_addf(&ev->why, "the original leaves no file that "
                    "compare=file: can read on %s: %s (a regular file of "
                    "at most %u MiB is needed)", mc_eval_input_name(ev, i),
                    a->o.file_refused ? a->o.file_refused
                                      : b->o.file_refused,
                    CMP_FILE_CAP >> 20);
    } else if (!mc_eval_same_output(ev, &a->o, &b->o, &diff)) {
        mc_buf_addf(&ev->why, "the original's output differs "
                    "between two runs on %s (%s): it cannot judge "
                    "a candidate; if that line changes on every "
                    "run (a time, a date, an address), drop it "
                    "with ignore=REGEX, or allow numeric noise "
                    "with tolerance=REL", mc_eval_input_name(ev, i), diff.s);
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
    struct mc_run_result a, b;
    enum mc_code rc;

    rc = mc_eval_run_inputs(ev, ev->orig_test, 1, 0, REF_TIMEOUT_S, &a, i,
                            err);
    if (rc)
        return rc;
    rc = mc_eval_run_inputs(ev, ev->orig_test, 1, 0, REF_TIMEOUT_S, &b, i,
                            err);
    if (rc) {
        mc_eval_result_release(&a);
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
    mc_eval_result_release(&b);
    return rc;
}

/*
 * The check= command on the original's run of input I: the original
 * must pass its own check, or it is no reference (every candidate that
 * matches it would fail the check too, and the search would learn the
 * wrong thing). EV->why then quotes the check, the input and what the
 * check printed; MC_EINVAL. The original's own exit status is no
 * failure: it is what candidates must match.
 */
static enum mc_code
check_original(struct mc_eval *ev, size_t i, struct mc_err *err)
{
    const char *check = mc_target_get(ev->t, MC_OPT_CHECK);
    struct mc_buf how = MC_BUF_INIT;
    struct mc_run_result res;
    enum mc_code rc;

    if (!*check)
        return MC_OK;
    rc = mc_eval_run_check(ev, check, ev->orig_test, i, &res, err);
    if (rc)
        return rc;
    if (!mc_eval_check_passed(&res, &how)) {
        mc_buf_reset(&ev->why);
        mc_buf_addf(&ev->why, "the original fails its own check on %s, "
                    "so it is no reference and no candidate was judged: "
                    "check '%s' %s", mc_eval_input_name(ev, i), check,
                    how.s);
        rc = mc_err_set(err, MC_EINVAL, "%s", ev->why.s);
    }
    mc_eval_result_release(&res);
    mc_buf_release(&how);
    return rc;
}

enum mc_code
mc_eval_read_original(struct mc_eval *ev, struct mc_err *err)
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
    rc = mc_eval_read_original(ev, err);
    if (rc)
        return rc;
    rc = check_kernel_option(ev, err);
    if (!rc)
        rc = mc_sandbox_dir(&ev->sb, "original", 0, &dir, err);
    if (!rc)
        rc = mc_eval_allow_original_reads(ev, dir, err);
    if (!rc)
        rc = build_original(ev, dir, err);
    for (i = 0; !rc && i < ev->n_runs; i++)
        rc = reference_run(ev, i, err);
    for (i = 0; !rc && i < ev->n_runs; i++)
        rc = check_original(ev, i, err);
    if (!rc)
        rc = mc_eval_time_original(ev, err);
    if (!rc)
        ev->ready = 1;
    mc_free(dir);
    return rc;
}
