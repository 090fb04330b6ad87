/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-report.c: the HTML report without a compiler or a cache. The
 * five characters and the forbidden controls escaped; an entry made in
 * memory (a manifest and a trajectory of three nodes, one incorrect,
 * one kept) gives one summary row, one plot with three points, the bad
 * one marked, the kept one ringed, and the diffs; markup from a label,
 * a critique, the code or the source name only ever as text; an entry
 * without a trajectory and an empty report still give whole pages. The
 * words that tell entries of one source apart, and two entries of one
 * source whose rows show their directory and those words.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "html.h"
#include "report.h"
#include "tap.h"

#include <cjson/cJSON.h>

#define KEY "0123456789abcdef0123456789abcdef"

static void
test_html__escapes(void)
{
    struct mc_buf b = MC_BUF_INIT;

    mc_html_escs(&b, "a&b<c>d\"e'f\tg\n\x01h\x7f");
    is_str(b.s, "a&amp;b&lt;c&gt;d&quot;e&#39;f\tg\n\xef\xbf\xbdh"
                "\xef\xbf\xbd", "entities and U+FFFD");
    mc_buf_reset(&b);
    mc_html_escs(&b, NULL);
    is_str(b.s, "", "NULL is empty");
    mc_html_elem(&b, "td", "class=\"x\"", "<b>");
    is_str(b.s, "<td class=\"x\">&lt;b&gt;</td>", "an element");
    mc_buf_release(&b);
}

static const char manifest[] =
    "{\"key\":\"" KEY "\",\"source\":\"src/<x>&.c\",\"status\":\"optimized"
    "\",\"reason\":\"\",\"speedup\":2.5,\"baseline_seconds\":0.5,"
    "\"metric\":\"time\",\"candidates\":3,\"correct_candidates\":2,"
    "\"strategy\":\"effi-learner\",\"proposer\":\"llm\",\"model\":\"m\","
    "\"llm_requests\":6,\"tokens_in\":100,\"tokens_out\":50,\"cost\":0.25,"
    "\"search_seconds\":12.5,\"speedup_interval\":[2.25,2.75],"
    "\"best\":\"llm#3\"}";

/* A node line: PARENT, LABEL, VERDICT, CORRECT, SPEEDUP, U, CODE. */
#define NODE(p, l, v, c, s, u, code)                                      \
    "{\"parent\":" #p ",\"depth\":1,\"tag\":0,\"label\":\"" l "\","        \
    "\"verdict\":\"" v "\",\"correct\":" c ",\"compile_error\":false,"     \
    "\"confirmed\":" c ",\"speedup\":" #s ",\"reward\":" #s ",\"u\":" #u  \
    ",\"fr\":0,\"ut\":0,\"detail\":\"\",\"critique\":\"<script>x()"       \
    "</script>\",\"code\":\"" code "\"}\n"

static const char trajectory[] =
    "{\"maxcode_trajectory\":1,\"key\":\"" KEY "\",\"lang\":\"c\","
    "\"strategy\":\"effi-learner\",\"proposer\":\"llm\",\"budget\":3,"
    "\"bins\":\"125+180+260\",\"gamma\":1,\"ranking\":\"\","
    "\"original\":\"int a;\\nint b;\\n\"}\n"
    NODE(-1, "llm#1", "correct", "true", 1.5, 1.5,
         "int a;\\nint b; /* <i> */\\n")
    NODE(-1, "llm#2", "incorrect", "false", 0, 0, "int a;\\n")
    NODE(0, "llm#3", "correct", "true", 2.5, 2.5,
         "int a; /* '\\\"' */\\nint b; /* <i> */\\n");

/* The page of a report of one entry with MANI and TRAJ (NULL: none). */
static char *
page_of(const char *mani, const char *traj)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf out = MC_BUF_INIT;
    struct mc_report r;
    struct mc_entry e;

    mc_entry_init(&e);
    memcpy(e.key, KEY, sizeof(e.key));
    mc_buf_adds(&e.manifest, mani);
    if (traj)
        mc_buf_adds(&e.trajectory, traj);
    mc_report_init(&r, "/c<a>che");
    ok(mc_report_add(&r, &e, &err) == MC_OK, "the entry is added");
    ok(mc_report_html(&r, &out) == MC_OK, "the page is written");
    mc_report_release(&r);
    mc_entry_release(&e);
    return mc_buf_detach(&out, NULL);
}

static void
test_report__one_search(void)
{
    char *p = page_of(manifest, trajectory);

    is_long(tap_count(p, "<tr><td><a href=\"#t-"), 1, "one summary row");
    is_long(tap_count(p, "<svg "), 1, "one plot");
    is_long(tap_count(p, "<g class=\"pt"), 3, "a point per candidate");
    is_long(tap_count(p, " pt-bad"), 1, "the incorrect one marked");
    contains(p, "<g class=\"pt pt-best\"><title>#3 llm#3: correct, 2.50x",
             "the kept one ringed, with its tooltip");
    is_long(tap_count(p, "<pre class=\"diff\">"), 4,
            "diffs: #3 against its parent and the original");
    contains(p, "<span class=\"a\">+int b; /* &lt;i&gt; */</span>",
             "an added line, escaped");
    contains(p, "2.50x <span class=\"note\">[2.25&ndash;2.75]",
             "the interval");
    contains(p, "data-v=\"12.500\">12.5 s", "the search time");
    is_long(tap_count(p, "<script"), 1, "one script, the report's");
    is_long(tap_count(p, "&lt;script&gt;x()&lt;/script&gt;"), 3,
            "each critique as text");
    contains(p, "src/&lt;x&gt;&amp;.c", "the source name escaped");
    contains(p, "/c&lt;a&gt;che", "the cache directory escaped");
    ok(p && !strstr(p, "<x>") && !strstr(p, "<i>"), "no raw markup");
    mc_free(p);
}

static void
test_report__no_trajectory(void)
{
    char *p = page_of(manifest, NULL);

    is_long(tap_count(p, "<svg "), 1, "still one plot");
    is_long(tap_count(p, "<g class=\"pt"), 0, "without points");
    contains(p, "no candidates recorded", "saying so");
    contains(p, "stores no trajectory", "and why");
    mc_free(p);
}

/* A figure stated as its interval's lower bound (manifest.h's
 * speedup_basis) says so in the row and the status line, with why as
 * text; an entry stored before the basis was recorded states its
 * figure as before. */
static void
test_report__lower_bound(void)
{
    static const char bound[] =
        "{\"key\":\"" KEY "\",\"source\":\"k.c\",\"status\":"
        "\"optimized\",\"reason\":\"\",\"speedup\":1.04,"
        "\"speedup_interval\":[1.04,3.5],\"speedup_basis\":"
        "\"lower bound\",\"speedup_median\":1.62,\"speedup_why\":"
        "\"the variant runs <6> ms, too short to time closer\","
        "\"metric\":\"time\",\"candidates\":1,\"correct_candidates\":1,"
        "\"strategy\":\"flat\",\"proposer\":\"builtin\","
        "\"model\":\"\"}";
    char *p = page_of(bound, NULL), *q = page_of(manifest, NULL);

    contains(p, "1.04x (lower bound) <span class=\"note\">[1.04&ndash;"
             "3.50]", "the row says the figure is the lower bound");
    contains(p, "</span>, 1.04x (lower bound; the variant runs &lt;6&gt; "
             "ms, too short to time closer) [1.04&ndash;3.50]",
             "the status line says why, as text");
    ok(p && !strstr(p, "1.62"), "the median is not stated");
    ok(q && !strstr(q, "lower bound"), "an older entry: as before");
    mc_free(p);
    mc_free(q);
}

static void
test_report__empty(void)
{
    struct mc_buf out = MC_BUF_INIT;
    struct mc_report r;

    mc_report_init(&r, "/cache");
    ok(mc_report_html(&r, &out) == MC_OK, "written");
    contains(out.s, "holds no entries", "says the cache is empty");
    ok(out.s && !strstr(out.s, "id=\"summary\""), "no summary table");
    contains(out.s, "</html>\n", "a whole page");
    mc_report_release(&r);
    mc_buf_release(&out);
}

/* The words of the build in manifest TEXT into W. */
static void
words_of(const char *text, struct mc_strv *w)
{
    cJSON *m = cJSON_Parse(text);

    ok(m && mc_report_build_words(m, w) == MC_OK, "words read");
    cJSON_Delete(m);
}

static void
test_report__words_differ(void)
{
    struct mc_strv a = MC_STRV_INIT, b = MC_STRV_INIT, c = MC_STRV_INIT;
    const struct mc_strv *two[2] = {&a, &b}, *three[3] = {&a, &b, &c};
    struct mc_buf d = MC_BUF_INIT;

    words_of("{\"compiler\":\"ccache gcc\",\"flags\":[\"-O2\"],"
             "\"options\":{\"budget\":\"2\"}}", &a);
    words_of("{\"compiler\":\"ccache gcc\",\"flags\":[\"-O2\",\"-g\","
             "\"-DDEBUG\"],\"options\":{\"budget\":\"2\"}}", &b);
    words_of("{\"compiler\":\"clang\",\"flags\":[\"-O3\",\"-g\"],"
             "\"options\":{\"budget\":\"4\"}}", &c);
    if (!is_long((long)a.n, 4, "compiler words, flags, options") || !a.v)
        goto out;
    is_str(a.v[3], "budget=2", "an option as NAME=VALUE");
    mc_report_words_differ(two, 2, 1, &d);
    is_str(d.s, "-g -DDEBUG", "what the debug build adds");
    mc_report_words_differ(two, 2, 0, &d);
    is_str(d.s, "without -g -DDEBUG", "what the release build lacks");
    mc_report_words_differ(two, 1, 0, &d);
    ok(!d.len, "nothing for a lone entry");
    two[1] = &a;
    mc_report_words_differ(two, 2, 0, &d);
    ok(!d.len, "nothing when the words are the same");
    mc_report_words_differ(three, 3, 2, &d);
    is_str(d.s, "clang -O3 -g budget=4; without ccache gcc -O2 budget=2 "
                "-DDEBUG", "both ways, each word once");
out:
    mc_strv_release(&a);
    mc_strv_release(&b);
    mc_strv_release(&c);
    mc_buf_release(&d);
}

/* Entry KEY_ of SOURCE (real path /p/SOURCE) with FLAGS (JSON). */
#define TWIN(key_, flags)                                                 \
    "{\"key\":\"" key_ "\",\"source\":\"hot.c\",\"source_path\":"         \
    "\"/p/hot.c\",\"status\":\"original\",\"reason\":\"r\","             \
    "\"compiler\":\"cc\",\"flags\":" flags ",\"created\":\"x\"}"

static void
test_report__twins(void)
{
    static const char *const mani[2] = {
        TWIN(KEY, "[\"-O2\"]"),
        TWIN("1123456789abcdef0123456789abcdef", "[\"-O2\",\"-g\"]")};
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf out = MC_BUF_INIT;
    struct mc_report r;
    size_t i;

    mc_report_init(&r, "/cache");
    for (i = 0; i < 2; i++) {
        struct mc_entry e;

        mc_entry_init(&e);
        memcpy(e.key, mani[i] + 8, MC_KEY_HEX);
        mc_buf_adds(&e.manifest, mani[i]);
        ok(mc_report_add(&r, &e, &err) == MC_OK, "an entry added");
        mc_entry_release(&e);
    }
    ok(mc_report_html(&r, &out) == MC_OK, "written");
    is_long(tap_count(out.s, "<div class=\"where\">in <code>/p</code>"),
            2, "each row: make's directory, from source_path");
    contains(out.s, "flags: <code>without -g</code>", "the first's");
    contains(out.s, "flags: <code>-g</code>", "the second's");
    mc_report_release(&r);
    mc_buf_release(&out);
}

int
main(void)
{
    TAP_RUN(test_html__escapes);
    TAP_RUN(test_report__one_search);
    TAP_RUN(test_report__no_trajectory);
    TAP_RUN(test_report__lower_bound);
    TAP_RUN(test_report__empty);
    TAP_RUN(test_report__words_differ);
    TAP_RUN(test_report__twins);
    return tap_done();
}
