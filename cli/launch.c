/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * launch.c: a search run through MAXCODE_LAUNCHER (launch.h).
 */
#include "mc_setup.h"
#include "launch.h"
#include "log.h"
#include "native.h"
#include "spawn.h"
#include "strv.h"

extern char **environ;

/* Into WHY, the line of ERR that S starts, up to END: control bytes
 * shown as '?', 240 bytes at most. */
static void
add_line(const char *s, const char *end, struct mc_buf *why)
{
    const char *e;

    for (e = s; e < end && *e != '\n' && e - s < 240; e++)
        mc_buf_addc(why, (unsigned char)*e < ' ' ? '?' : *e);
}

/* The scheduler's message in the launcher's stderr ERR (LEN bytes): its
 * last notice between "***" (Slurm's "*** STEP ... CANCELLED AT ... DUE
 * TO TIME LIMIT ***") if any, else its last line that is not maxcode's
 * own (the node's search says "maxcode: ..."); with ERRORS_ONLY, a line
 * that says "error" (srun: error: Node failure on NODE). */
static int
scheduler_line(const char *err, size_t len, int errors_only,
               struct mc_buf *why)
{
    const char *end = err + len, *s, *nl, *notice = NULL, *last = NULL;
    size_t n;

    for (s = err; s < end; s = nl ? nl + 1 : end) {
        nl = memchr(s, '\n', (size_t)(end - s));
        n = nl ? (size_t)(nl - s) : (size_t)(end - s);
        if (!n || !strncmp(s, "maxcode:", 8) ||
            (errors_only && !memmem(s, n, "error", 5)))
            continue;
        last = s;
        if (memmem(s, n, "***", 3))
            notice = s;
    }
    if (!notice && !last)
        return 0;
    add_line(notice ? notice : last, end, why);
    return 1;
}

/* Our environment less MAXCODE_LAUNCHER into ENV. */
static enum mc_code
node_env(struct mc_strv *env)
{
    char **e;

    for (e = environ; *e; e++)
        if (strncmp(*e, "MAXCODE_LAUNCHER=", 17) &&
            mc_strv_push(env, *e))
            return MC_ENOMEM;
    return MC_OK;
}

void
mc_launch_run(const char *launcher, char *const *argv, struct mc_buf *out,
              struct mc_launch *l)
{
    struct mc_strv words = MC_STRV_INIT, env = MC_STRV_INIT;
    static char *none[] = {NULL};
    struct mc_spawn_opts o = {0};
    struct mc_spawn_result res;
    struct mc_err err = MC_ERR_INIT;
    char self[PATH_MAX];
    ssize_t n;
    int oom;

    l->failed = 1;
    mc_spawn_result_init(&res);
    n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) {
        mc_buf_adds(&l->why, "cannot tell this program's path");
        goto out;
    }
    self[n] = '\0';
    if (mc_shell_split(launcher, &words, &err) || !words.n) {
        mc_buf_addf(&l->why, "MAXCODE_LAUNCHER '%s' is not a command",
                    launcher);
        goto out;
    }
    oom = mc_strv_push(&words, self) != MC_OK || node_env(&env) != MC_OK;
    for (; argv && *argv; argv++)
        oom |= mc_strv_push(&words, *argv) != MC_OK;
    if (oom) {
        mc_buf_adds(&l->why, "out of memory");
        goto out;
    }
    o.envp = env.v ? env.v : none;
    if (mc_spawn(words.v, &o, &res, &err)) {
        mc_buf_addf(&l->why, "%s", err.msg);
        goto out;
    }
    if (res.err.len)
        fwrite(res.err.s, 1, res.err.len, stderr);
    if (out && res.out.len)
        mc_buf_add(out, res.out.s, res.out.len);
    if (res.exited && res.status == 0) {
        /* srun may end well after a node failure: what it said is the
         * reason should nothing have been stored. */
        l->failed = 0;
        scheduler_line(res.err.s ? res.err.s : "", res.err.len, 1, &l->why);
        goto out;
    }
    if (!scheduler_line(res.err.s ? res.err.s : "", res.err.len, 0,
                        &l->why)) {
        if (res.exited)
            mc_buf_addf(&l->why, "'%s' exited with status %d", words.v[0],
                        res.status);
        else
            mc_buf_addf(&l->why, "'%s' was killed by signal %d",
                        words.v[0], res.sig);
    }
out:
    mc_spawn_result_release(&res);
    mc_strv_release(&words);
    mc_strv_release(&env);
}

/*
 * The words a node runs for --launch: ARGV (its options before FIRST)
 * less --launch, with KEY for --key's value (NULL: as given) and
 * --print-native after the command name when PROBE, into OUT.
 */
static enum mc_code
node_argv(int argc, char **argv, int first, const char *key, int probe,
          struct mc_strv *out)
{
    int i, opt;

    for (i = 0; i < argc; i++) {
        opt = i > 0 && i < first; /* an option, not SOURCE's words */
        if (opt && !strcmp(argv[i], "--launch"))
            continue;
        if (mc_strv_push(out, key && opt && !strcmp(argv[i - 1], "--key")
                                  ? key
                                  : argv[i]))
            return MC_ENOMEM;
        if (i == 0 && probe && mc_strv_push(out, "--print-native"))
            return MC_ENOMEM;
    }
    return MC_OK;
}

/* Run, through LAUNCHER, the words node_argv() makes of ARGV (KEY and
 * PROBE as there), stdout into OUT (NULL: discarded); fills L. */
static void
run_node(const char *launcher, int argc, char **argv, int first,
         const char *key, int probe, struct mc_buf *out, struct mc_launch *l)
{
    struct mc_strv words = MC_STRV_INIT;

    if (node_argv(argc, argv, first, key, probe, &words)) {
        mc_buf_adds(&l->why, "out of memory");
        l->failed = 1;
    } else {
        mc_launch_run(launcher, words.v, out, l);
    }
    mc_strv_release(&words);
}

int
mc_launch_native(struct mc_target *t, const char *launcher, int argc,
                 char **argv, int first)
{
    struct mc_buf out = MC_BUF_INIT;
    struct mc_launch l = {0, MC_BUF_INIT};
    struct mc_err err = MC_ERR_INIT;
    int known = 0;

    run_node(launcher, argc, argv, first, NULL, 1, &out, &l);
    mc_buf_rtrim(&out);
    if (!l.failed && out.len &&
        !mc_native_remember(t, out.s, &err) &&
        !mc_native_set_target(t, 0, NULL, &err)) {
        mc_verbose("%s: the launcher's nodes resolve -march=native to %s",
                   t->source, out.s);
        known = 1;
    } else {
        mc_info("%s: the native architecture of the launcher's nodes is "
                "unknown (%s)", t->source,
                l.failed && l.why.s ? l.why.s
                : err.code          ? err.msg
                                    : "no answer");
    }
    mc_buf_release(&out);
    mc_buf_release(&l.why);
    return known;
}

void
mc_launch_search(const char *launcher, int argc, char **argv, int first,
                 const char *key, struct mc_launch *l)
{
    run_node(launcher, argc, argv, first, key, 0, NULL, l);
}
