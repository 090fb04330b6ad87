/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-journal.c: the search's journal: nodes and the model usage
 * written and read back identical; a torn last line (a search killed
 * mid-write) ignored; another search's journal, or none, not resumed;
 * no more node lines than asked for; parents that name no earlier node
 * dropped; a budget and usage counts out of range never cast; a line
 * that a full disk cuts short taken back, so the next one is whole; the
 * usage object's JSON on its own; and a cache entry's trajectory read
 * without trusting its numbers.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "journal.h"
#include "tap.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>

static char dir[] = "/tmp/mc-journal-XXXXXX";
static char path[64];

static const struct mc_journal_head head = {"0123abcd", "cuda-llm", "llm",
                                            8};

/* Node I of the fixture. */
static void
fixture_node(struct mc_search_node *nd, int i)
{
    mc_search_node_init(nd);
    nd->parent = i - 1;
    nd->depth = i + 1;
    nd->tag = 0x15UL << i;
    nd->label = mc_strdup(i ? "O3+unroll(4)" : "llm#1");
    nd->verdict = i == 1 ? MC_VERDICT_INCORRECT : MC_VERDICT_CORRECT;
    nd->correct = i != 1;
    nd->compile_error = 0;
    nd->confirmed = i == 2;
    nd->speedup = i == 1 ? 0 : 1.25 * (i + 1);
    nd->reward = nd->speedup;
    nd->u = 3.75;
    nd->detail = mc_strdup(i == 1 ? "output differs on 't/a.in'\nline 2"
                                  : "");
    nd->critique = mc_strdup("memory-bound: \"fuse\" the loops \xc3\xa9");
    mc_buf_addf(&nd->code, "int main(void) { return %d; }\n", i);
}

/* The usage after node I: two models. */
static void
fixture_usage(struct mc_usage *u, int i)
{
    mc_usage_release(u);
    u->n_models = 2;
    u->models = mc_calloc(2, sizeof(*u->models));
    u->models[0].model = mc_strdup("policy-model");
    u->models[0].u.requests = 3 + (unsigned)i;
    u->models[0].u.tokens_in = 1000 + (unsigned)i;
    u->models[0].u.tokens_out = 200;
    u->models[0].u.cost = 0.0125;
    u->models[1].model = mc_strdup("critic-model");
    u->models[1].u.requests = 2;
    u->models[1].u.tokens_in = 300;
    u->models[1].u.tokens_out = 40 + (unsigned)i;
    u->models[1].u.cost = 0.5;
    u->total.requests = 5 + (unsigned)i;
    u->total.tokens_in = 1300 + (unsigned)i;
    u->total.tokens_out = 240 + (unsigned)i;
    u->total.cost = 0.5125;
}

static int
str_eq(const char *a, const char *b)
{
    return !strcmp(a ? a : "", b ? b : "");
}

static int
node_eq(const struct mc_search_node *a, const struct mc_search_node *b)
{
    return a->parent == b->parent && a->depth == b->depth &&
           a->tag == b->tag && str_eq(a->label, b->label) &&
           a->verdict == b->verdict && a->correct == b->correct &&
           a->compile_error == b->compile_error &&
           a->confirmed == b->confirmed && a->speedup == b->speedup &&
           a->reward == b->reward && a->u == b->u &&
           str_eq(a->detail, b->detail) &&
           str_eq(a->critique, b->critique) && str_eq(a->code.s, b->code.s);
}

static int
usage_eq(const struct mc_usage *a, const struct mc_usage *b)
{
    size_t i;

    if (memcmp(&a->total, &b->total, sizeof(a->total)) ||
        a->n_models != b->n_models)
        return 0;
    for (i = 0; i < a->n_models; i++)
        if (strcmp(a->models[i].model, b->models[i].model) ||
            memcmp(&a->models[i].u, &b->models[i].u, sizeof(a->models[i].u)))
            return 0;
    return 1;
}

/* A new journal at PATH with N fixture nodes, usage on each when
 * WITH_USAGE. */
static void
write_fixture(int n, int with_usage)
{
    struct mc_usage u = MC_USAGE_INIT;
    int i;

    mc_journal_start(path, &head, NULL);
    for (i = 0; i < n; i++) {
        struct mc_search_node nd;

        fixture_node(&nd, i);
        fixture_usage(&u, i);
        mc_journal_append(path, &nd, with_usage ? &u : NULL, NULL);
        mc_search_node_release(&nd);
    }
    mc_usage_release(&u);
}

static void
test_journal__round_trip(void)
{
    struct mc_journal_log log;
    struct mc_usage u = MC_USAGE_INIT;
    int i, same = 1;

    write_fixture(3, 1);
    mc_journal_log_init(&log);
    is_long(mc_journal_read(path, &head, 8, &log, NULL), MC_OK, "read");
    ok(log.matched, "the header is this search's");
    is_long(log.n, 3, "three nodes");
    for (i = 0; i < 3 && (size_t)i < log.n; i++) {
        struct mc_search_node nd;

        fixture_node(&nd, i);
        same &= node_eq(&nd, &log.nodes[i]);
        mc_search_node_release(&nd);
    }
    ok(same, "every field of every node is as written");
    fixture_usage(&u, 2);
    ok(usage_eq(&u, &log.usage), "the last line's usage, per model too");
    mc_usage_release(&u);
    mc_journal_log_release(&log);
}

/* Append the first LEN bytes of a node line, as a kill -9 mid-write
 * leaves it (LEN 0: the whole line without its newline). */
static void
tear(size_t len)
{
    const char *line = "{\"parent\":-1,\"depth\":1,\"tag\":0,\"label\":"
                       "\"torn\",\"verdict\":\"correct\",\"correct\":true}";
    int fd = open(path, O_WRONLY | O_APPEND);

    if (fd < 0 || write(fd, line, len ? len : strlen(line)) < 0)
        printf("# cannot tear '%s'\n", path);
    if (fd >= 0)
        close(fd);
}

static void
test_journal__torn_last_line_is_ignored(void)
{
    struct mc_journal_log log;
    struct mc_usage u = MC_USAGE_INIT;

    write_fixture(2, 1);
    tear(37);
    mc_journal_log_init(&log);
    is_long(mc_journal_read(path, &head, 8, &log, NULL), MC_OK, "read");
    ok(log.matched && log.n == 2, "half a line: the two whole nodes");
    fixture_usage(&u, 1);
    ok(usage_eq(&u, &log.usage), "the usage of the last whole line");
    mc_journal_log_release(&log);

    write_fixture(2, 1);
    tear(0);
    mc_journal_log_init(&log);
    mc_journal_read(path, &head, 8, &log, NULL);
    ok(log.matched && log.n == 2, "a line without its newline is torn");
    mc_journal_log_release(&log);
    mc_usage_release(&u);
}

/* PATH's size, or -1. */
static long long
size_of(const char *p)
{
    struct stat st;

    return stat(p, &st) ? -1 : (long long)st.st_size;
}

static void
test_journal__full_disk_leaves_no_torn_line(void)
{
    struct mc_journal_log log;
    struct mc_search_node nd;
    struct rlimit old, lim;
    long long before;

    write_fixture(1, 0);
    before = size_of(path);
    fixture_node(&nd, 1);
    /* A file size limit 10 bytes on: the line is written in part, as on
     * a disk that fills up in the middle of it. */
    signal(SIGXFSZ, SIG_IGN);
    if (getrlimit(RLIMIT_FSIZE, &old)) {
        ok(0, "getrlimit");
        mc_search_node_release(&nd);
        return;
    }
    lim = old;
    lim.rlim_cur = (rlim_t)before + 10;
    if (setrlimit(RLIMIT_FSIZE, &lim) == 0) {
        mc_journal_append(path, &nd, NULL, NULL);
        setrlimit(RLIMIT_FSIZE, &old);
    }
    signal(SIGXFSZ, SIG_DFL);
    is_long(size_of(path), before, "the part that was written is cut off");
    mc_journal_append(path, &nd, NULL, NULL);
    mc_journal_log_init(&log);
    mc_journal_read(path, &head, 8, &log, NULL);
    ok(log.matched && log.n == 2,
       "with room again, the next line is whole and read back");
    mc_journal_log_release(&log);
    mc_search_node_release(&nd);
}

static void
test_journal__another_search_is_not_resumed(void)
{
    struct mc_journal_head other = head;
    struct mc_journal_log log;

    write_fixture(2, 1);
    other.strategy = "flat";
    mc_journal_log_init(&log);
    mc_journal_read(path, &other, 8, &log, NULL);
    ok(!log.matched && log.n == 0, "another strategy");
    mc_journal_log_release(&log);
    other = head;
    other.proposer = "builtin";
    mc_journal_read(path, &other, 8, &log, NULL);
    ok(!log.matched && log.n == 0, "another proposer");
    mc_journal_log_release(&log);
    other = head;
    other.budget = 9;
    mc_journal_read(path, &other, 8, &log, NULL);
    ok(!log.matched && log.n == 0, "another budget");
    mc_journal_log_release(&log);
    other = head;
    other.key = "ffff";
    mc_journal_read(path, &other, 8, &log, NULL);
    ok(!log.matched && log.n == 0, "another key");
    mc_journal_log_release(&log);

    unlink(path);
    is_long(mc_journal_read(path, &head, 8, &log, NULL), MC_OK,
            "no journal is no error");
    ok(!log.matched && log.n == 0, "no journal: nothing to resume");
    mc_journal_log_release(&log);
}

/* A header's budget out of size_t's range (a crafted or damaged
 * journal) matches no search, and usage counts out of range read as 0:
 * neither is cast (found by tests/fuzz/fuzz-journal under UBSan). */
static void
test_journal__numbers_out_of_range(void)
{
    static const char *const budgets[] = {"18446744073709551616", "1e300",
                                          "-1"};
    struct mc_journal_head zero = head;
    struct mc_journal_log log;
    size_t i;
    FILE *f;

    zero.budget = 0;
    for (i = 0; i < MC_ARRAY_SIZE(budgets); i++) {
        f = fopen(path, "w");
        fprintf(f, "{\"maxcode_journal\":1,\"key\":\"%s\",\"strategy\":"
                "\"%s\",\"budget\":%s,\"proposer\":\"%s\"}\n"
                "{\"parent\":-1,\"code\":\"x\"}\n",
                head.key, head.strategy, budgets[i], head.proposer);
        fclose(f);
        mc_journal_log_init(&log);
        is_long(mc_journal_read(path, &zero, 8, &log, NULL), MC_OK,
                budgets[i]);
        ok(!log.matched && log.n == 0, "not this search's");
        mc_journal_log_release(&log);
    }
    /* Usage counts out of range read as 0, never cast. */
    f = fopen(path, "w");
    fprintf(f, "{\"maxcode_journal\":1,\"key\":\"%s\",\"strategy\":\"%s\","
            "\"budget\":8,\"proposer\":\"%s\"}\n{\"parent\":-1,\"usage\":"
            "{\"requests\":1e300,\"tokens_in\":-5,\"tokens_out\":7}}\n",
            head.key, head.strategy, head.proposer);
    fclose(f);
    mc_journal_log_init(&log);
    mc_journal_read(path, &head, 8, &log, NULL);
    ok(log.n == 1 && log.usage.total.requests == 0 &&
           log.usage.total.tokens_in == 0 && log.usage.total.tokens_out == 7,
       "usage counts out of range read as 0");
    mc_journal_log_release(&log);
}

static void
test_journal__start_replaces_and_max_cuts(void)
{
    struct mc_journal_log log;

    write_fixture(3, 0);
    mc_journal_log_init(&log);
    mc_journal_read(path, &head, 2, &log, NULL);
    ok(log.matched && log.n == 2, "at most MAX node lines");
    ok(log.usage.total.requests == 0 && log.usage.n_models == 0,
       "lines without usage: zero usage");
    mc_journal_log_release(&log);
    mc_journal_start(path, &head, NULL);
    mc_journal_read(path, &head, 8, &log, NULL);
    ok(log.matched && log.n == 0, "a new journal holds its header only");
    mc_journal_log_release(&log);
}

static void
test_journal__parent_names_an_earlier_node(void)
{
    struct mc_journal_log log;
    struct mc_search_node nd;

    mc_journal_start(path, &head, NULL);
    fixture_node(&nd, 0);
    nd.parent = 0; /* itself */
    mc_journal_append(path, &nd, NULL, NULL);
    nd.parent = 0;
    mc_journal_append(path, &nd, NULL, NULL);
    mc_search_node_release(&nd);
    mc_journal_log_init(&log);
    mc_journal_read(path, &head, 8, &log, NULL);
    ok(log.n == 2 && log.nodes[0].parent == -1, "a self-parent is dropped");
    ok(log.n == 2 && log.nodes[1].parent == 0, "an earlier parent is kept");
    mc_journal_log_release(&log);
}

static void
test_journal__usage_json(void)
{
    struct mc_usage u = MC_USAGE_INIT, back = MC_USAGE_INIT;
    cJSON *o = cJSON_CreateObject(), *m = cJSON_CreateObject();
    char *text;

    fixture_usage(&u, 0);
    is_long(mc_usage_write(&u, o), MC_OK, "write");
    text = cJSON_PrintUnformatted(o);
    is_str(text,
           "{\"requests\":5,\"tokens_in\":1300,\"tokens_out\":240,"
           "\"cost\":0.5125,\"models\":{\"policy-model\":{\"requests\":3,"
           "\"tokens_in\":1000,\"tokens_out\":200,\"cost\":0.0125},"
           "\"critic-model\":{\"requests\":2,\"tokens_in\":300,"
           "\"tokens_out\":40,\"cost\":0.5}}}",
           "the journal's usage object");
    cJSON_free(text);
    is_long(mc_usage_read(&back, o), MC_OK, "read");
    ok(usage_eq(&u, &back), "read back identical");
    mc_usage_write_models(&u, m);
    text = cJSON_PrintUnformatted(m);
    contains(text, "{\"policy-model\":{\"requests\":3,",
             "the models alone: the manifest's usage object");
    cJSON_free(text);
    mc_usage_read(&back, NULL);
    ok(back.total.requests == 0 && back.n_models == 0, "NULL: all zero");
    cJSON_Delete(o);
    cJSON_Delete(m);
    mc_usage_release(&u);
    mc_usage_release(&back);
}

/* A cache entry's TRAJ section: a damaged or crafted one reads with
 * every number in range (no undefined cast), u_t rebuilt from the path,
 * and one that is not JSON lines with a header is refused. */
static void
test_journal__trajectory_parse_distrusts_numbers(void)
{
    static const char good[] =
        "{\"maxcode_trajectory\":1,\"key\":\"k\",\"lang\":\"c\","
        "\"gamma\":1,\"budget\":1e300,\"original\":\"int x;\"}\n"
        "{\"parent\":-1,\"fr\":3,\"ut\":0,\"speedup\":2.9,\"code\":\"a\"}\n"
        "{\"parent\":1e300,\"depth\":-5,\"tag\":1e400,\"fr\":99,"
        "\"ut\":1e400,\"value\":7,\"speedup\":-1e400,\"code\":\"b\"}\n"
        "{\"parent\":0,\"fr\":1,\"ut\":4,\"value\":2.5,\"code\":\"c\"}\n";
    struct mc_trajectory t;
    struct mc_err err = MC_ERR_INIT;

    mc_trajectory_init(&t);
    is_long(mc_trajectory_parse(good, strlen(good), &t, &err), MC_OK,
            "a trajectory with absurd numbers still reads");
    ok(t.n == 3 && t.budget == 0, "three nodes; an absurd budget is 0");
    ok(t.n == 3 && t.nodes[1].parent == -1 && t.nodes[1].depth == 1 &&
           t.nodes[1].tag == 0,
       "an out-of-range parent, depth and tag are dropped");
    ok(t.n == 3 && t.nodes[1].fr == 0 && t.nodes[1].ut == 0 &&
           t.nodes[1].value < 0 && t.nodes[1].speedup == 0,
       "f_r, u_t, value and speedup out of range read as none");
    ok(t.n == 3 && t.nodes[2].ut == 3 && t.nodes[2].value == 2.5,
       "u_t is the path's (3 from the parent), not the line's 4");
    mc_trajectory_release(&t);

    mc_trajectory_init(&t);
    is_long(mc_trajectory_parse("{\"parent\":0}\n", 13, &t, &err),
            MC_ESYNTAX, "no header: refused");
    mc_trajectory_release(&t);
    mc_trajectory_init(&t);
    mc_err_clear(&err);
    is_long(mc_trajectory_parse("{\"maxcode_trajectory\":1}\n{\"par", 30,
                                &t, &err),
            MC_ESYNTAX, "a torn line: refused");
    mc_trajectory_release(&t);
}

/* Node 2 of the fixture in its two forms (node.h), byte for byte: the
 * journal's (and TRAJ's) and the manifest's trajectory item, which
 * names the label "variant" and orders confirmed after speedup. */
static void
test_node__two_forms(void)
{
    struct mc_search_node nd;
    cJSON *j, *m;
    char *jt, *mt;

    fixture_node(&nd, 2);
    nd.value = 2.5;
    nd.duplicate_of = 0;
    j = mc_search_node_json(&nd, MC_NODE_JOURNAL);
    m = mc_search_node_json(&nd, MC_NODE_MANIFEST);
    jt = j ? cJSON_PrintUnformatted(j) : NULL;
    mt = m ? cJSON_PrintUnformatted(m) : NULL;
    is_str(jt, "{\"parent\":1,\"depth\":3,\"tag\":84,"
           "\"label\":\"O3+unroll(4)\",\"verdict\":\"correct\","
           "\"correct\":true,\"compile_error\":false,"
           "\"confirmed\":true,\"speedup\":3.75,\"reward\":3.75,"
           "\"u\":3.75,\"fr\":0,\"ut\":0,\"value\":2.5,\"detail\":\"\","
           "\"duplicate_of\":0,\"critique\":\"memory-bound: \\\"fuse\\\" "
           "the loops \xc3\xa9\",\"code\":\"int main(void) { return 2; "
           "}\\n\"}", "the journal form");
    is_str(mt, "{\"parent\":1,\"variant\":\"O3+unroll(4)\","
           "\"verdict\":\"correct\",\"speedup\":3.75,\"confirmed\":true,"
           "\"u\":3.75,\"fr\":0,\"ut\":0,\"value\":2.5,\"duplicate_of\":0,"
           "\"critique\":\"memory-bound: \\\"fuse\\\" the loops "
           "\xc3\xa9\"}", "the manifest form");
    cJSON_free(jt);
    cJSON_free(mt);
    cJSON_Delete(j);
    cJSON_Delete(m);
    mc_search_node_release(&nd);
}

/* The members a node line may leave out read as their defaults: a node
 * without "duplicate_of" is no duplicate (it read as a duplicate of
 * node 0 before node.c), one without "value" was not scored. */
static void
test_node__missing_members(void)
{
    struct mc_search_node nd;
    cJSON *o = cJSON_Parse("{\"parent\":0,\"depth\":2,\"label\":\"x\"}");

    mc_search_node_init(&nd);
    is_long(mc_search_node_parse(o, &nd), MC_OK, "parse");
    is_long(nd.duplicate_of, -1, "no duplicate_of: -1");
    ok(nd.value == -1, "no value: -1");
    is_long(nd.parent, 0, "parent 0");
    is_long(nd.depth, 2, "depth 2");
    is_long(nd.verdict, MC_VERDICT_REJECTED, "no verdict: rejected");
    is_str(nd.label, "x", "the label");
    is_str(nd.code.s, "", "no code: empty");
    ok(nd.repeats == NULL, "no repeats: NULL");
    cJSON_Delete(o);
    mc_search_node_release(&nd);
}

/* "repeats" (what the proposer passed over for this node) in both
 * forms, after duplicate_of, and read back from the journal's. */
static void
test_node__repeats(void)
{
    struct mc_search_node nd, back;
    cJSON *j, *m;
    char *jt, *mt;

    fixture_node(&nd, 2);
    nd.repeats = mc_strdup("O3 (candidate 1)");
    j = mc_search_node_json(&nd, MC_NODE_JOURNAL);
    m = mc_search_node_json(&nd, MC_NODE_MANIFEST);
    jt = j ? cJSON_PrintUnformatted(j) : NULL;
    mt = m ? cJSON_PrintUnformatted(m) : NULL;
    contains(jt, "\"detail\":\"\",\"repeats\":\"O3 (candidate 1)\","
                 "\"critique\"", "the journal form");
    contains(mt, "\"ut\":0,\"repeats\":\"O3 (candidate 1)\","
                 "\"critique\"", "the manifest form");
    mc_search_node_init(&back);
    is_long(mc_search_node_parse(j, &back), MC_OK, "parse");
    is_str(back.repeats, "O3 (candidate 1)", "read back");
    cJSON_free(jt);
    cJSON_free(mt);
    cJSON_Delete(j);
    cJSON_Delete(m);
    mc_search_node_release(&nd);
    mc_search_node_release(&back);
}

int
main(void)
{
    char cmd[64];

    if (!mkdtemp(dir)) {
        printf("Bail out! no scratch directory\n");
        return 1;
    }
    snprintf(path, sizeof(path), "%s/journal.jsonl", dir);
    TAP_RUN(test_journal__round_trip);
    TAP_RUN(test_journal__torn_last_line_is_ignored);
    TAP_RUN(test_journal__full_disk_leaves_no_torn_line);
    TAP_RUN(test_journal__another_search_is_not_resumed);
    TAP_RUN(test_journal__numbers_out_of_range);
    TAP_RUN(test_journal__start_replaces_and_max_cuts);
    TAP_RUN(test_journal__parent_names_an_earlier_node);
    TAP_RUN(test_journal__usage_json);
    TAP_RUN(test_journal__trajectory_parse_distrusts_numbers);
    TAP_RUN(test_node__two_forms);
    TAP_RUN(test_node__missing_members);
    TAP_RUN(test_node__repeats);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd))
        printf("# could not remove %s\n", dir);
    return tap_done();
}
