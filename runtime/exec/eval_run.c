/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * eval_run.c: running a program in the sandbox (a fresh directory with
 * the files= files, its command line and environment, what it printed),
 * and comparing its output with the original's as compare=, ignore=
 * and tolerance= say. Part of the executor (eval_priv.h).
 */
#include "mc_setup.h"
#include "eval_priv.h"
#include "alloc.h"
#include "file.h"
#include "lang.h"

#include <ctype.h>
#include <math.h>

#define SAN_MAX_ALLOC_MB 4096    /* ASan: a larger malloc is a report */
#define LINE_CUT        120      /* bytes of a differing line shown */

/* A number macro as a string literal, for the sanitizers' options. */
#define STR_(x) #x
#define STR(x)  STR_(x)

void
mc_eval_run_out_release(struct mc_run_out *o)
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

/* ---- running ---- */

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

enum mc_code
mc_eval_add_library_path(struct mc_eval *ev, struct mc_strv *env)
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

void
mc_eval_run_command(const struct mc_eval *ev,
                    const struct mc_run_spec *spec, struct mc_strv *argv,
                    struct mc_strv *env)
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

enum mc_code
mc_eval_take_result(struct mc_eval *ev, const struct mc_run_spec *spec,
                    const char *dir, struct mc_spawn_result *r,
                    struct mc_run_result *res)
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

enum mc_code
mc_eval_run_once(struct mc_eval *ev, const struct mc_run_spec *spec,
                 struct mc_run_result *res, struct mc_err *err)
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
        rc = mc_eval_add_library_path(ev, &env);
    if (rc)
        goto out;
    mc_eval_run_command(ev, spec, &argv, &env);
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
    if (!rc && mc_eval_take_result(ev, spec, dir, &r, res))
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

enum mc_code
mc_eval_run_inputs(struct mc_eval *ev, const char *exe, int untrusted,
                   int sanitized, double timeout, struct mc_run_result *res,
                   size_t i, struct mc_err *err)
{
    struct mc_run_spec spec;

    memset(&spec, 0, sizeof(spec));
    spec.exe = exe;
    spec.input = mc_eval_input_of(ev, i);
    spec.timeout_s = timeout;
    spec.untrusted = untrusted;
    spec.sanitized = sanitized;
    return mc_eval_run_once(ev, &spec, res, err);
}

void
mc_eval_result_release(struct mc_run_result *res)
{
    mc_eval_run_out_release(&res->o);
}

enum mc_code
mc_eval_run_check(struct mc_eval *ev, const char *check, const char *exe,
                  size_t i, struct mc_run_result *res, struct mc_err *err)
{
    struct mc_run_spec spec;

    memset(&spec, 0, sizeof(spec));
    spec.exe = exe;
    spec.shell_cmd = check;
    spec.input = mc_eval_input_of(ev, i);
    spec.timeout_s = CHECK_TIMEOUT_S;
    spec.untrusted = 1;
    return mc_eval_run_once(ev, &spec, res, err);
}

int
mc_eval_check_passed(const struct mc_run_result *res, struct mc_buf *b)
{
    const struct mc_buf *said = res->o.err.len ? &res->o.err : &res->o.out;
    const char *p = said->len ? said->s : "";
    size_t start;
    int n;

    if (!res->timed_out && !res->signaled && res->o.status == 0)
        return 1;
    if (res->timed_out)
        mc_buf_addf(b, "timed out after %d s", CHECK_TIMEOUT_S);
    else if (res->signaled)
        mc_buf_addf(b, "failed (signal %d)", res->sig);
    else
        mc_buf_addf(b, "failed (exit status %d)", res->o.status);
    start = b->len;
    for (n = 0; *p && n < FIRST_LINES && b->len - start < 200; n++) {
        size_t len = strcspn(p, "\n");

        if (len > 200 - (b->len - start))
            len = 200 - (b->len - start);
        mc_buf_addf(b, "%s%.*s", n ? " | " : ": ", (int)len, p);
        p += strcspn(p, "\n");
        p += *p == '\n';
    }
    if (!n)
        mc_buf_adds(b, ", printing nothing");
    return 0;
}

int
mc_eval_same_output(struct mc_eval *ev, const struct mc_run_out *ref,
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

const char *
mc_eval_input_of(struct mc_eval *ev, size_t i)
{
    return ev->t->inputs.n ? ev->t->inputs.v[i] : NULL;
}

const char *
mc_eval_input_name(struct mc_eval *ev, size_t i)
{
    return ev->t->inputs.n ? ev->t->inputs.v[i] : "(no input)";
}

void
mc_eval_out_of_memory(const struct mc_eval *ev, int cgroup, struct mc_buf *b)
{
    mc_buf_addf(b, "%s at the run's bound of %llu MiB "
                "(MAXCODE_RUN_MEMORY)", cgroup ? "killed in its cgroup"
                : "stopped by ASan's resident-memory limit",
                ev->sb.memory / MIB);
}
