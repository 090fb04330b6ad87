/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-report.c: the HTML report without a compiler or a cache. The
 * five characters and the forbidden controls escaped; an entry made in
 * memory (a manifest and a trajectory of three nodes, one incorrect,
 * one kept) gives one summary row, one plot with three points, the bad
 * one marked, the kept one ringed, and the diffs; markup from a label,
 * a critique, the code or the source name only ever as text; an entry
 * without a trajectory and an empty report still give whole pages.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "html.h"
#include "report.h"
#include "tap.h"

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

int
main(void)
{
    TAP_RUN(test_html__escapes);
    TAP_RUN(test_report__one_search);
    TAP_RUN(test_report__no_trajectory);
    TAP_RUN(test_report__empty);
    return tap_done();
}
