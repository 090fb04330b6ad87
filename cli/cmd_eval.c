/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_eval.c: `maxcode eval SOURCE CANDIDATE [KEY=VALUE...] [--json]`
 * judges one candidate file against SOURCE with the executor and prints
 * its feedback record (DESIGN 1.7). Options as for `maxcode optimize`:
 * --cc, --flags, --ld, --ldflags, --ldlibs; --no-time skips the timing.
 * Exit status: 0 the candidate is correct, 3 it is not, 1 it could not be
 * judged, 2 usage.
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
#include "target_setup.h"

#include <cjson/cJSON.h>

#define EXIT_NOT_CORRECT 3

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

/* Print fb as --json asks, or for a person. Returns the exit status. */
static int
print_feedback(const char *source, const char *cand,
               const struct mc_feedback *fb, int json)
{
    char *text;

    if (!json) {
        print_human(source, cand, fb);
        return 0;
    }
    text = mc_feedback_json(fb);
    return mc_put_json_text(text);
}

int
mc_cmd_eval(int argc, char **argv)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_target_setup ts;
    struct mc_target_setup_build b = {NULL, NULL, NULL, NULL, NULL};
    struct mc_eval ev;
    struct mc_feedback fb;
    struct mc_buf cand = MC_BUF_INIT;
    struct mc_strv opts = MC_STRV_INIT;
    const char *source = NULL, *cfile = NULL;
    int json = 0, time_it = 1, status = 1, ev_ok = 0, i;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "--no-time"))
            time_it = 0;
        else if (!strcmp(argv[i], "--cc") && i + 1 < argc)
            b.cc = argv[++i];
        else if (!strcmp(argv[i], "--flags") && i + 1 < argc)
            b.flags = argv[++i];
        else if (!strcmp(argv[i], "--ld") && i + 1 < argc)
            b.ld = argv[++i];
        else if (!strcmp(argv[i], "--ldflags") && i + 1 < argc)
            b.ldflags = argv[++i];
        else if (!strcmp(argv[i], "--ldlibs") && i + 1 < argc)
            b.ldlibs = argv[++i];
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
    mc_feedback_init(&fb);
    status = mc_target_setup_load(&ts, source, opts.v, opts.n);
    if (status)
        goto out;
    status = 1;
    if (mc_file_read(cfile, &cand, &err)) {
        mc_error("cannot read candidate '%s'%s%s", cfile,
                 err.msg[0] ? ": " : "", err.msg);
        goto out;
    }
    status = mc_target_setup_build(&ts, &b);
    if (status)
        goto out;
    status = 1;
    if (mc_eval_init(&ev, &ts.t, mc_conf_get(&ts.t.conf, MC_SET_CACHE_DIR),
                     &err)) {
        mc_error("%s", err.msg);
        goto out;
    }
    ev_ok = 1;
    /* A hand-written candidate is untrusted: sanitizers unless told. */
    if (mc_eval_candidate(&ev, cand.s, cand.len,
                          strcmp(mc_target_get(&ts.t, MC_OPT_SANITIZE), "0"),
                          time_it, &fb, &err)) {
        mc_error("%s: cannot judge: %s", source,
                 ev.why.len ? ev.why.s : err.msg);
        goto out;
    }
    status = print_feedback(source, cfile, &fb, json);
    if (!status && !fb.correct)
        status = EXIT_NOT_CORRECT;
out:
    if (ev_ok)
        mc_eval_release(&ev);
    mc_feedback_release(&fb);
    mc_target_setup_release(&ts);
    mc_buf_release(&cand);
    mc_strv_release(&opts);
    return status;
}
