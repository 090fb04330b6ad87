/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_eval.c: `maxcode eval SOURCE CANDIDATE [KEY=VALUE...] [--json]`
 * judges one candidate file against SOURCE with the executor and prints
 * its feedback record (DESIGN 1.7). Options as for `maxcode optimize`:
 * --cc, --flags, --ld, --ldflags, --ldlibs; --no-time skips the timing. Exit status: 0 the
 * candidate is correct, 3 it is not, 1 it could not be judged, 2 usage.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "commands.h"
#include "conf.h"
#include "eval.h"
#include "file.h"
#include "log.h"
#include "target.h"

#include <cjson/cJSON.h>

#define EXIT_NOT_CORRECT 3

static char *
env_var(const char *name, void *ctx)
{
    const char *v = getenv(name);

    (void)ctx;
    return v ? mc_strdup(v) : NULL;
}

static void
print_human(const char *source, const char *cand,
            const struct mc_feedback *fb)
{
    const struct mc_timing *t = &fb->timing;

    printf("candidate:  %s (against %s)\n", cand, source);
    printf("verdict:    %s\n", mc_verdict_name(fb->verdict));
    if (fb->detail.len)
        printf("detail:     %s\n", fb->detail.s);
    if (t->done) {
        printf("timing:     %zu A/B pairs, %s %.6g vs %.6g (median)\n",
               t->pairs, fb->metric, t->orig_s, t->cand_s);
        printf("speedup:    %.3fx median, 99%% interval [%.3f, %.3f], "
               "%s\n", t->median, t->ci_low, t->ci_high,
               t->confirmed   ? "promoted and confirmed"
               : t->promoted ? "promoted, not confirmed"
                              : "not promoted");
        if (t->confirmed)
            printf("confirmed:  %.3fx\n", t->confirmed_speedup);
    }
    printf("sandbox:    %s\n", fb->sandbox);
}

int
mc_cmd_eval(int argc, char **argv)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_conf conf;
    struct mc_target t;
    struct mc_eval ev;
    struct mc_feedback fb;
    struct mc_buf cand = MC_BUF_INIT;
    struct mc_strv opts = MC_STRV_INIT;
    const char *source = NULL, *cfile = NULL, *cc = NULL, *flags = NULL;
    const char *ld = NULL, *ldflags = NULL, *ldlibs = NULL;
    int json = 0, time_it = 1, status = 1, ev_ok = 0, from_db, i;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "--no-time"))
            time_it = 0;
        else if (!strcmp(argv[i], "--cc") && i + 1 < argc)
            cc = argv[++i];
        else if (!strcmp(argv[i], "--flags") && i + 1 < argc)
            flags = argv[++i];
        else if (!strcmp(argv[i], "--ld") && i + 1 < argc)
            ld = argv[++i];
        else if (!strcmp(argv[i], "--ldflags") && i + 1 < argc)
            ldflags = argv[++i];
        else if (!strcmp(argv[i], "--ldlibs") && i + 1 < argc)
            ldlibs = argv[++i];
        else if (argv[i][0] == '-')
            return mc_usage_error("eval: unknown option '%s'", argv[i]);
        else if (!source)
            source = argv[i];
        else if (!cfile)
            cfile = argv[i];
        else if (mc_strv_push(&opts, argv[i]))
            return 1;
    }
    if (!source || !cfile) {
        mc_strv_release(&opts);
        return mc_usage_error("eval: expected SOURCE CANDIDATE "
                              "[KEY=VALUE...]");
    }
    memset(&t, 0, sizeof(t));
    mc_feedback_init(&fb);
    if (mc_conf_load(&conf, NULL, NULL, &err)) {
        mc_error("%s", err.msg);
        mc_strv_release(&opts);
        return 1;
    }
    if (mc_target_parse_marked(&t, source, opts.v, opts.n, &conf, &err)) {
        mc_error("%s: %s", source, err.msg);
        status = MC_EXIT_USAGE;
        goto out;
    }
    {
        enum mc_log_level level;
        if (!mc_log_parse_level(mc_conf_get(&t.conf, MC_SET_LOG), &level))
            mc_log_set_level(level);
    }
    if (mc_file_read(cfile, &cand, &err)) {
        mc_error("cannot read candidate '%s'%s%s", cfile,
                 err.msg[0] ? ": " : "", err.msg);
        goto out;
    }
    if (mc_target_resolve_build(&t, env_var, NULL, &from_db, &err)) {
        mc_error("%s: %s", source, err.msg);
        goto out;
    }
    if (mc_target_override_build(&t, cc, flags, ld, ldflags, ldlibs,
                                 &err)) {
        mc_error("%s", err.msg);
        status = err.code == MC_ENOMEM ? 1 : MC_EXIT_USAGE;
        goto out;
    }
    if (mc_eval_init(&ev, &t, mc_conf_get(&t.conf, MC_SET_CACHE_DIR), &err)) {
        mc_error("%s", err.msg);
        goto out;
    }
    ev_ok = 1;
    /* A hand-written candidate is untrusted: sanitizers unless told. */
    if (mc_eval_candidate(&ev, cand.s, cand.len,
                          strcmp(mc_target_get(&t, MC_OPT_SANITIZE), "0"),
                          time_it, &fb, &err)) {
        mc_error("%s: cannot judge: %s", source,
                 ev.why.len ? ev.why.s : err.msg);
        goto out;
    }
    if (json) {
        char *text = mc_feedback_json(&fb);
        if (!text) {
            mc_error("out of memory");
            goto out;
        }
        printf("%s\n", text);
        cJSON_free(text);
    } else {
        print_human(source, cfile, &fb);
    }
    status = fb.correct ? 0 : EXIT_NOT_CORRECT;
out:
    if (ev_ok)
        mc_eval_release(&ev);
    mc_feedback_release(&fb);
    mc_target_release(&t);
    mc_conf_release(&conf);
    mc_buf_release(&cand);
    mc_strv_release(&opts);
    return status;
}
