/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-search-loop.c: the search loop itself (search.c), with a fake
 * executor (S->exec) that reads its verdict from the candidate's code
 * and a scripted proposer that writes fixed codes and records the plans
 * it was given: the exact budget, repairs when nothing is correct, the
 * best-so-far (the best confirmed node, not the last), duplicates,
 * resume from a journal, and each strategy's path through a scripted
 * tree of verdicts. No compiler, no process, no network.
 *
 * A code is "#ID VERDICT [X] [fade]":
 *   ok X     correct, and confirmed at speedup X
 *   slow X   correct, not confirmed: its median speedup is X
 *   wrong    incorrect output
 *   cc       does not compile
 *   fade     (with ok) confirmed when first judged only: the final
 *            confirmation does not hold
 *   wide     (with ok) its interval is [1.04, 3.50] and the program
 *            runs 6 ms (the kernel): too wide to state X
 * The proposer's script is a list of codes taken in order; "!CODE" is
 * proposed with the sanitizers (a rewrite), "reject" is a proposal with
 * no code, and the end of the list is a round with nothing to propose.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "cache.h"
#include "conf.h"
#include "file.h"
#include "log.h"
#include "proposer.h"
#include "search.h"
#include "tap.h"
#include "testfs.h"

static char dir[64];

/* ---- the fake executor ---- */

struct fake {
    int calls;             /* executor calls, the confirmation's too */
    int tight_calls;       /* calls with the executor's tight set */
    struct mc_buf judged;  /* " #ID" per call, "!" after a sanitized one */
};

static struct fake fx;

/* The executor the search is given: only its tight flag is read, by
 * the fake. */
static struct mc_eval fev;

static enum mc_code
fake_exec(void *ctx, const char *text, size_t len, int sanitize,
          struct mc_feedback *fb, struct mc_err *err)
{
    struct fake *f = ctx;
    char verdict[16] = "", id[16];
    double x = 0;
    int n, again;

    (void)len;
    (void)err;
    n = sscanf(text, " #%15s %15s %lf", id, verdict, &x);
    f->calls++;
    f->tight_calls += fev.tight;
    /* Judged before: a fading candidate does not hold. */
    again = f->judged.s && strstr(f->judged.s, id) != NULL;
    mc_buf_addf(&f->judged, " #%s%s", id, sanitize ? "!" : "");
    if (n < 2)
        snprintf(verdict, sizeof(verdict), "cc");
    fb->compiled = strcmp(verdict, "cc") != 0;
    fb->correct = !strcmp(verdict, "ok") || !strcmp(verdict, "slow");
    fb->verdict = !fb->compiled  ? MC_VERDICT_COMPILE_ERROR
                  : fb->correct ? MC_VERDICT_CORRECT
                                : MC_VERDICT_INCORRECT;
    if (fb->correct) {
        fb->timing.done = 1;
        fb->timing.rounds = 1;
        fb->timing.median = x;
        fb->timing.confirmed = !strcmp(verdict, "ok") &&
                               !(again && strstr(text, "fade"));
        fb->timing.promoted = fb->timing.confirmed;
        fb->timing.confirmed_speedup = fb->timing.confirmed ? x : 0;
        fb->timing.confirmed_low = x - 0.01;
        fb->timing.confirmed_high = x + 0.01;
        fb->timing.cand_s = 0.5;
        if (strstr(text, "wide")) {
            fb->timing.confirmed_low = 1.04;
            fb->timing.confirmed_high = 3.50;
            fb->timing.cand_s = 0.006;
        }
        if (strstr(text, "toowide"))
            fb->timing.confirmed_low = 1.01; /* above 1, below 1.03 */
    }
    mc_buf_addf(&fb->detail, "fake: %s", verdict);
    return MC_OK;
}

/* ---- the scripted proposer ---- */

struct script {
    const char *const *codes; /* NULL-terminated */
    size_t next;
    struct mc_buf plans;      /* per round "|", each slot proposed from:
                               * the parent's index, or "rP" (repair) */
    struct mc_buf replayed;   /* " I" per node read back */
    size_t critiqued;
    size_t spent_after;       /* spent() from this many nodes; 0: never */
};

static struct script sc;

static enum mc_code
script_init(struct mc_search *s, struct mc_err *err)
{
    (void)err;
    s->prop_state = &sc;
    return MC_OK;
}

static void
script_release(struct mc_search *s)
{
    s->prop_state = NULL;
}

static enum mc_code
script_propose(struct mc_search *s, const struct mc_plan *plan,
               struct mc_proposals *out, struct mc_err *err)
{
    struct script *p = s->prop_state;
    size_t i;

    (void)err;
    if (p->plans.len)
        mc_buf_addc(&p->plans, '|');
    for (i = 0; i < plan->want; i++) {
        const struct mc_plan_slot *sl = &plan->slot[i];
        struct mc_proposal *o = &out->v[out->n];
        const char *code = p->codes[p->next];

        mc_buf_addf(&p->plans, "%s%s%d", i ? " " : "", sl->repair ? "r" : "",
                    sl->parent);
        if (!code)
            continue;
        p->next++;
        o->parent = sl->parent;
        o->tag = p->next;
        o->label = mc_malloc(16);
        if (o->label)
            snprintf(o->label, 16, "p%zu", p->next);
        if (!strcmp(code, "reject")) {
            o->rejected = 1;
            o->detail = mc_strdup("rejected: no code");
        } else {
            o->sanitize = *code == '!';
            mc_buf_adds(&o->code, code + o->sanitize);
        }
        out->n++;
    }
    return MC_OK;
}

static void
script_critique(struct mc_search *s, size_t first, size_t n)
{
    struct script *p = s->prop_state;

    (void)first;
    p->critiqued += n;
}

static void
script_replay(struct mc_search *s, size_t i)
{
    struct script *p = s->prop_state;

    mc_buf_addf(&p->replayed, " %zu", i);
    p->next++; /* that node took a code of the script */
}

static int
script_spent(struct mc_search *s)
{
    struct script *p = s->prop_state;

    return p->spent_after && s->n >= p->spent_after;
}

/* The builtin proposer's shape (K = 4, flat one at a time, each
 * criticised at once) unless a test changes it. */
static struct mc_proposer scripted = {
    .name = "scripted",
    .k = 4,
    .k_flat = 1,
    .critique_together = 0,
    .init = script_init,
    .release = script_release,
    .propose = script_propose,
    .critique = script_critique,
    .replay = script_replay,
    .spent = script_spent,
};

/* ---- set-up ---- */

static long counted;   /* the candidates counter */
static size_t spend_at; /* the next search's proposer is spent at this
                         * many nodes; 0: never */

static void
count_fn(void *arg, const struct mc_stats *d)
{
    (void)arg;
    counted += (long)d->n[MC_STAT_CANDIDATES];
}

/*
 * Set S up for a target with STRATEGY and BUDGET, the scripted proposer
 * with CODES and the fake executor, its journal at dir/JOURNAL (which is
 * kept, for resume). T is released by the caller.
 */
static enum mc_code
setup(struct mc_search *s, struct mc_target *t, const char *strategy,
      size_t budget, const char *const *codes, const char *journal)
{
    struct mc_err err = MC_ERR_INIT;
    char src[128], path[128], sarg[64], barg[32];
    char *args[2];
    struct mc_conf c;
    enum mc_code rc;

    snprintf(src, sizeof(src), "%s/hot.c", dir);
    snprintf(path, sizeof(path), "%s/%s", dir, journal);
    snprintf(sarg, sizeof(sarg), "strategy=%s", strategy);
    snprintf(barg, sizeof(barg), "budget=%zu", budget);
    args[0] = sarg;
    args[1] = barg;
    write_file(src, "int main(void) { return 0; }\n");
    mc_buf_release(&fx.judged);
    memset(&fx, 0, sizeof(fx));
    mc_buf_release(&sc.plans);
    mc_buf_release(&sc.replayed);
    memset(&sc, 0, sizeof(sc));
    sc.codes = codes;
    sc.spent_after = spend_at;
    counted = 0;
    memset(s, 0, sizeof(*s));
    memset(t, 0, sizeof(*t));
    rc = mc_conf_init(&c, &err);
    if (!rc)
        rc = mc_conf_set(&c, MC_SET_CACHE_DIR, dir, MC_FROM_ARG, "test",
                         &err);
    if (!rc)
        rc = mc_target_parse(t, src, args, 2, &c, &err);
    mc_conf_release(&c);
    if (!rc)
        rc = mc_search_init_with(s, &scripted, t, &fev, "0123abcd", path,
                                 NULL, &err);
    s->exec = fake_exec;
    s->exec_ctx = &fx;
    s->count = count_fn;
    if (!rc)
        rc = mc_search_run(s, &err);
    if (rc)
        printf("# setup: %s\n", err.msg);
    return rc;
}

static void
done(struct mc_search *s, struct mc_target *t)
{
    mc_search_release(s);
    mc_target_release(t);
}

/* The parents of S's nodes, " P" each. */
static const char *
parents(const struct mc_search *s)
{
    static char out[256];
    size_t i, n = 0;

    out[0] = '\0';
    for (i = 0; i < s->n && n < sizeof(out) - 8; i++)
        n += (size_t)snprintf(out + n, sizeof(out) - n, " %d",
                              s->nodes[i].parent);
    return out;
}

/* ---- the cases ---- */

static void
test_search_loop__budget_is_exact(void)
{
    static const char *const codes[] = {
        "#1 slow 1.01", "#2 wrong", "#3 slow 1.02", "#4 cc",
        "#5 wrong",     "#6 wrong", "#7 wrong",     "#8 wrong",
        "#9 wrong",     NULL};
    struct mc_search s;
    struct mc_target t;

    scripted.k_flat = 4;
    scripted.critique_together = 1;
    ok(!setup(&s, &t, "flat", 6, codes, "budget.jsonl"), "searched");
    is_long(s.n, 6, "six nodes of budget 6");
    is_long(s.evaluated, 6, "six evaluated by this run");
    is_long(counted, 6, "six counted");
    is_long(fx.calls, 6, "six executor calls (no best: no confirmation)");
    is_str(sc.plans.s, "-1 -1 -1 -1|-1 -1",
           "flat rounds of 4, the last cut to the budget");
    is_long(sc.critiqued, 6, "each node criticised once");
    is_long(s.best, -1, "nothing confirmed: no best");
    contains(s.reason.s, "no variant beat min-speedup",
             "the reason names the best correct one");
    done(&s, &t);

    scripted.k_flat = 1;
    scripted.critique_together = 0;
    ok(!setup(&s, &t, "flat", 3, codes, "budget1.jsonl"), "searched");
    is_long(s.n, 3, "three nodes of budget 3, one a round");
    is_str(sc.plans.s, "-1|-1|-1", "one proposal a round");
    is_long(fx.calls, 3, "three executor calls");
    done(&s, &t);

    ok(!setup(&s, &t, "cuda-llm", 3, codes, "budget2.jsonl"), "searched");
    is_long(s.n, 3, "cuda-llm: K' = min(K, B) = 3");
    is_str(sc.plans.s, "-1 -1 -1", "one round of three");
    done(&s, &t);
}

static void
test_search_loop__nothing_left_to_propose(void)
{
    static const char *const codes[] = {"#1 wrong", "#2 cc", NULL};
    struct mc_search s;
    struct mc_target t;

    ok(!setup(&s, &t, "flat", 6, codes, "dry.jsonl"), "searched");
    is_long(s.n, 2, "the search stops when the proposer has none");
    is_long(fx.calls, 2, "two executor calls");
    is_long(mc_fallback_reason_of(&s, 0), MC_STAT_FALLBACK_INCORRECT,
            "one built: incorrect");
    contains(s.reason.s, "no correct variant among 2 candidates",
             "the reason says so");
    done(&s, &t);
}

static void
test_search_loop__repairs_when_nothing_correct(void)
{
    static const char *const codes[] = {
        "#1 wrong", "#2 cc", "#3 wrong", "#4 cc",    "#5 wrong",  "#6 cc",
        "#7 wrong", "#8 cc", "#9 cc",    "#10 cc",   "#11 wrong", "#12 cc",
        NULL};
    struct mc_search s;
    struct mc_target t;
    size_t i;
    int all = 1;

    ok(!setup(&s, &t, "cuda-llm", 12, codes, "repair.jsonl"), "searched");
    is_str(sc.plans.s, "-1 -1 -1 -1|r0 r1 r2 r3|r4 r5 r6 r7",
           "a round with nothing correct is repaired, one each");
    is_str(parents(&s), " -1 -1 -1 -1 0 1 2 3 4 5 6 7",
           "each repair's parent is the node it fixes");
    for (i = 0; i < s.n; i++)
        all &= !s.nodes[i].correct && s.nodes[i].reward == 0;
    ok(all, "no node correct, each reward 0");
    is_long(fx.calls, 12, "no confirmation");
    is_long(mc_fallback_reason_of(&s, 0), MC_STAT_FALLBACK_INCORRECT,
            "some built: incorrect");
    done(&s, &t);
}

static void
test_search_loop__best_is_the_best_confirmed(void)
{
    static const char *const codes[] = {"#1 ok 1.5", "#2 slow 1.9",
                                        "#3 ok 1.2", "#4 wrong", NULL};
    static const char *const fading[] = {"#1 ok 1.5 fade", "#2 ok 1.1",
                                         NULL};
    struct mc_search s;
    struct mc_target t;

    ok(!setup(&s, &t, "flat", 4, codes, "best.jsonl"), "searched");
    is_long(s.best, 0, "the best confirmed node, not the last");
    is_long(mc_search_best_correct(&s), 1,
            "the best correct one by reward is not confirmed");
    is_str(fx.judged.s, " #1 #2 #3 #4 #1",
           "the best is confirmed once more, through the executor");
    ok(s.final_speedup == 1.5, "its confirmed speedup is the answer");
    is_long(s.final_rounds, 1, "the confirmation's rounds");
    ok(s.nodes[1].reward == 1.9 && !s.nodes[1].confirmed,
       "a correct node unconfirmed: its median is its reward");
    ok(s.nodes[0].u == 1.5 && s.nodes[2].u == 1.2,
       "u of a root is its own reward");
    is_long(s.reason.len, 0, "a variant won: no reason");
    done(&s, &t);

    ok(!setup(&s, &t, "flat", 2, fading, "fade.jsonl"), "searched");
    is_long(s.best, 0, "the best before the confirmation");
    ok(s.final_speedup == 0, "its confirmation did not hold");
    contains(s.reason.s, "did not hold in the final confirmation",
             "the reason says so");
    is_long(mc_fallback_reason_of(&s, 0), MC_STAT_FALLBACK_NO_SPEEDUP,
            "counted as no speedup");
    done(&s, &t);
}

/* The final confirmation asks the executor for a tight interval, and
 * a confirmed figure whose interval is still too wide is stated as its
 * lower bound, with why; it is kept when the figure stated clears
 * min-speedup: a lower bound below it keeps the original. */
static void
test_search_loop__wide_states_lower_bound(void)
{
    static const char *const wide[] = {"#1 ok 1.62 wide", NULL};
    static const char *const narrow[] = {"#1 ok 1.62", NULL};
    static const char *const toowide[] = {"#1 ok 1.62 toowide", NULL};
    struct mc_search s;
    struct mc_target t;

    ok(!setup(&s, &t, "flat", 1, wide, "wide.jsonl"), "searched");
    is_long(fx.calls, 2, "judged, then confirmed");
    is_long(fx.tight_calls, 1, "only the final confirmation is tight");
    is_long(fev.tight, 0, "and the executor is left as it was");
    is_long(s.best, 0, "kept: its lower bound 1.04x clears min-speedup");
    ok(s.final_bound == 1, "its interval is too wide to state 1.62x");
    ok(s.final_speedup == 1.04 && s.final_median == 1.62 &&
       s.final_low == 1.04 && s.final_high == 3.50,
       "the figure stated is the lower bound; the median is kept beside");
    is_str(s.final_why.s, "the variant runs 6 ms, too short to time closer",
           "and why");
    done(&s, &t);

    ok(!setup(&s, &t, "flat", 1, toowide, "toowide.jsonl"), "searched");
    ok(s.final_speedup == 0, "a lower bound of 1.01x is not kept");
    contains(s.reason.s, "too wide to state more than 1.01x, below "
             "min-speedup 1.03 (the variant runs 6 ms, too short to time "
             "closer)", "the reason says why");
    done(&s, &t);

    ok(!setup(&s, &t, "flat", 1, narrow, "narrow.jsonl"), "searched");
    ok(s.final_bound == 0 && s.final_speedup == 1.62 &&
       s.final_median == 1.62, "a narrow interval states its median");
    is_long(s.final_why.len, 0, "with no why");
    done(&s, &t);
}

static void
test_search_loop__duplicates(void)
{
    static const char *const codes[] = {
        "#1 ok 1.3", "#2 wrong", "#1\tok\n  1.3 \n", "!#2 wrong", "reject",
        "#1 ok 1.30", NULL};
    struct mc_search s;
    struct mc_target t;

    ok(!setup(&s, &t, "flat", 6, codes, "dup.jsonl"), "searched");
    is_long(s.n, 6, "duplicates and rejects count against the budget");
    is_long(s.evaluated, 6, "and as evaluated");
    is_long(counted, 6, "and in the candidates counter");
    is_str(fx.judged.s, " #1 #2 #2! #1 #1",
           "a duplicate is not judged again; a sanitized one is; the "
           "rejected one never; the best is confirmed");
    if (!s.nodes) { /* a failed set-up, said above */
        done(&s, &t);
        return;
    }
    is_long(s.nodes[2].duplicate_of, 0, "the same code but for space");
    ok(s.nodes[2].correct && s.nodes[2].confirmed &&
           s.nodes[2].speedup == 1.3 &&
           s.nodes[2].verdict == MC_VERDICT_CORRECT,
       "takes the earlier verdict");
    contains(s.nodes[2].detail, "the same code as candidate 1",
             "its detail says whose");
    is_long(s.nodes[3].duplicate_of, -1, "a sanitized proposal is judged");
    is_long(s.nodes[4].verdict, MC_VERDICT_REJECTED, "no code: rejected");
    is_long(s.nodes[5].duplicate_of, -1, "1.30 is not 1.3: judged");
    is_long(s.best, 0, "a duplicate of the best does not replace it");
    done(&s, &t);
}

static void
test_search_loop__resume(void)
{
    static const char *const codes[] = {"#1 wrong", "#2 ok 1.4", "#3 wrong",
                                        "#4 ok 1.6", "#5 wrong", "#6 wrong",
                                        "#7 wrong", NULL};
    struct mc_search s;
    struct mc_target t;
    struct mc_buf text = MC_BUF_INIT;
    char path[128];

    snprintf(path, sizeof(path), "%s/resume.jsonl", dir);
    unlink(path);
    /* The first run: its proposer's own budget stops it after 3 of 6,
     * as a killed search stops; the journal holds what it judged. */
    spend_at = 3;
    ok(!setup(&s, &t, "flat", 6, codes, "resume.jsonl"), "the first run");
    spend_at = 0;
    is_long(s.n, 3, "stopped after 3 nodes");
    is_str(fx.judged.s, " #1 #2 #3 #2", "3 judged, the best confirmed");
    done(&s, &t);
    mc_file_read(path, &text, NULL);
    is_long(tap_count(text.s, "\n"), 4, "the journal: a header, 3 nodes");
    contains(text.s, "\"maxcode_journal\":1", "its header");
    mc_buf_release(&text);

    /* The second resumes at node 4: the executor only for the new. */
    ok(!setup(&s, &t, "flat", 6, codes, "resume.jsonl"), "resumed");
    is_str(sc.replayed.s, " 0 1 2", "the proposer replays the 3 nodes");
    is_long(s.resumed, 3, "3 read back");
    is_long(s.n, 6, "the budget reached");
    is_long(s.evaluated, 3, "3 evaluated by this run");
    is_long(counted, 3, "3 counted by this run");
    is_str(fx.judged.s, " #4 #5 #6 #4",
           "no replayed node judged again; the new best confirmed");
    is_str(sc.plans.s, "-1|-1|-1", "three rounds left");
    if (!s.nodes) { /* a failed set-up, said above */
        done(&s, &t);
        return;
    }
    ok(s.nodes[1].correct && s.nodes[1].confirmed &&
           s.nodes[1].speedup == 1.4,
       "a read-back node keeps its verdict");
    is_long(s.best, 3, "the best over both runs");
    done(&s, &t);

    /* A journal of another budget is another search's. */
    ok(!setup(&s, &t, "flat", 7, codes, "resume.jsonl"), "searched");
    is_long(s.resumed, 0, "budget 7: not resumed");
    is_long(fx.calls, 8, "all 7 judged, the best confirmed");
    done(&s, &t);
}

static void
test_search_loop__effi_learner(void)
{
    static const char *const codes[] = {"#1 wrong",  "#2 ok 1.2",
                                        "#3 ok 1.3", "#4 ok 1.5",
                                        "#5 cc",     "#6 wrong", NULL};
    struct mc_search s;
    struct mc_target t;

    ok(!setup(&s, &t, "effi-learner", 6, codes, "effi.jsonl"), "searched");
    is_str(sc.plans.s, "-1|r0|-1|2|-1|r4",
           "paths of two: from the original, then refine or repair");
    is_str(parents(&s), " -1 0 -1 2 -1 4", "the parents");
    if (!s.nodes) { /* a failed set-up, said above */
        done(&s, &t);
        return;
    }
    ok(s.nodes[1].depth == 2 && s.nodes[3].depth == 2, "depth 2");
    ok(s.nodes[1].u == 1.2, "u: the best on the path");
    is_long(s.best, 3, "the best confirmed");
    done(&s, &t);
}

/* The cuda-llm tree: a round from the original with two correct nodes;
 * the best by reward (node 2) expanded; a round without any correct
 * node repaired. */
static const char *const rounds[] = {
    "#1 wrong", "#2 ok 1.2", "#3 ok 1.6", "#4 cc",
    "#5 wrong", "#6 cc",     "#7 wrong",  "#8 wrong",
    "#9 wrong", "#10 wrong", "#11 wrong", "#12 wrong",
    NULL};

static void
test_search_loop__cuda_llm(void)
{
    struct mc_search s;
    struct mc_target t;

    scripted.k = 4;
    ok(!setup(&s, &t, "cuda-llm", 12, rounds, "cuda.jsonl"), "searched");
    is_str(sc.plans.s, "-1 -1 -1 -1|2 2 2 2|r4 r5 r6 r7",
           "expand the best by reward; repair a round with none correct");
    is_str(parents(&s), " -1 -1 -1 -1 2 2 2 2 4 5 6 7", "the parents");
    is_long(s.best, 2, "the best confirmed");
    ok(s.final_speedup == 1.6, "confirmed");
    ok(s.ranking == NULL, "no ranking note for cuda-llm");
    done(&s, &t);
}

static void
test_search_loop__gvf_reward_fallback(void)
{
    struct mc_search s;
    struct mc_target t;
    size_t i;
    int all = 1;

    unsetenv("MAXCODE_GVF_URL");
    ok(!setup(&s, &t, "gvf", 12, rounds, "gvf.jsonl"), "searched");
    is_str(s.ranking, "reward", "no value model: ranked by reward");
    contains(s.ranking_note.s, "no value model", "and it says why");
    is_str(sc.plans.s, "-1 -1 -1 -1|2 2 2 2|r4 r5 r6 r7",
           "the cuda-llm plan by reward");
    for (i = 0; i < s.n; i++)
        all &= s.nodes[i].value == -1;
    ok(all, "no node has a value");
    is_long(s.best, 2, "the best confirmed");
    done(&s, &t);
}

int
main(void)
{
    snprintf(dir, sizeof(dir), "/tmp/mc-search-loop-XXXXXX");
    if (!mkdtemp(dir)) {
        printf("Bail out! mkdtemp: %s\n", strerror(errno));
        return 1;
    }
    mc_log_set_level(MC_LOG_QUIET);
    TAP_RUN(test_search_loop__budget_is_exact);
    TAP_RUN(test_search_loop__nothing_left_to_propose);
    TAP_RUN(test_search_loop__repairs_when_nothing_correct);
    TAP_RUN(test_search_loop__best_is_the_best_confirmed);
    TAP_RUN(test_search_loop__wide_states_lower_bound);
    TAP_RUN(test_search_loop__duplicates);
    TAP_RUN(test_search_loop__resume);
    TAP_RUN(test_search_loop__effi_learner);
    TAP_RUN(test_search_loop__cuda_llm);
    TAP_RUN(test_search_loop__gvf_reward_fallback);
    mc_buf_release(&fx.judged);
    mc_buf_release(&sc.plans);
    mc_buf_release(&sc.replayed);
    nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return tap_done();
}
