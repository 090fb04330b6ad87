/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_stats.c: `maxcode stats [--json] [--zero]`: the cache's counters
 * (cache.h), as ccache -s shows its own: a table in sections with the
 * rates in percent, or every counter in JSON. The remote section is
 * shown when a remote cache is configured or has been counted.
 */
#include "mc_setup.h"
#include "cache.h"
#include "commands.h"
#include "conf.h"
#include "log.h"
#include "report.h"

#include <cjson/cJSON.h>

#define LABEL_W 28 /* the labels' column, indent included */
#define VALUE_W 12

/* A table row: LABEL at INDENT, VALUE right-aligned, and PART as a
 * percentage of WHOLE when WHOLE is not 0 (PART < 0: no percentage). */
static void
row(int indent, const char *label, const char *value, double part,
    double whole)
{
    int w = LABEL_W - indent;

    printf("%*s%-*s%*s", indent, "", w, label, VALUE_W, value);
    if (part >= 0 && whole > 0)
        printf("  %6.2f %%", 100.0 * part / whole);
    putchar('\n');
}

/* A counter's row. */
static void
count_row(int indent, const char *label, unsigned long long n, double whole)
{
    char v[32];

    snprintf(v, sizeof(v), "%llu", n);
    row(indent, label, v, whole > 0 ? (double)n : -1, whole);
}

/* MS as people read a duration: "850 ms", "12.3 s", "4 min 05 s",
 * "2 h 07 min". */
static void
duration(unsigned long long ms, char *out, size_t cap)
{
    if (ms < 1000)
        snprintf(out, cap, "%llu ms", ms);
    else
        mc_report_duration((double)ms / 1000, out, cap);
}

/* The reasons a fallback keeps the original, in the table's order. */
static const struct {
    enum mc_stat stat;
    const char *label;
} reasons[] = {
    {MC_STAT_FALLBACK_NO_SPEEDUP, "No speedup:"},
    {MC_STAT_FALLBACK_INCORRECT, "Incorrect:"},
    {MC_STAT_FALLBACK_NO_BUILD, "Does not build:"},
    {MC_STAT_FALLBACK_NO_MODEL, "No model:"},
    {MC_STAT_FALLBACK_NO_DEVICE, "No device:"},
    {MC_STAT_FALLBACK_BUDGET, "Budget:"},
    {MC_STAT_FALLBACK_OTHER, "Other:"},
};

/* The remote section, when REMOTE (MAXCODE_REMOTE) is set or S counted
 * anything of a remote. */
static void
print_remote(const struct mc_stats *s, const char *remote)
{
    const unsigned long long *n = s->n;
    double looked =
        (double)(n[MC_STAT_REMOTE_HITS] + n[MC_STAT_REMOTE_MISSES] +
                 n[MC_STAT_REMOTE_CORRUPT]);
    char v[32];
    size_t k;
    int any = *remote != '\0' || n[MC_STAT_REMOTE_UNTRUSTED];

    for (k = MC_STAT_REMOTE_HITS; k <= MC_STAT_REMOTE_BYTES_OUT; k++)
        any |= n[k] != 0;
    if (!any)
        return;
    count_row(0, "Remote lookups:", (unsigned long long)looked, 0);
    count_row(2, "Hits:", n[MC_STAT_REMOTE_HITS], looked);
    count_row(2, "Misses:", n[MC_STAT_REMOTE_MISSES], looked);
    count_row(2, "Corrupt:", n[MC_STAT_REMOTE_CORRUPT], looked);
    /* Refused for their signature, from a remote or an archive. */
    count_row(2, "Untrusted:", n[MC_STAT_REMOTE_UNTRUSTED], 0);
    count_row(2, "Errors:", n[MC_STAT_REMOTE_ERRORS], 0);
    count_row(2, "Stores:", n[MC_STAT_REMOTE_STORES], 0);
    mc_human_size(n[MC_STAT_REMOTE_BYTES_IN], v, sizeof(v));
    row(2, "Received:", v, -1, 0);
    mc_human_size(n[MC_STAT_REMOTE_BYTES_OUT], v, sizeof(v));
    row(2, "Sent:", v, -1, 0);
}

/* The table of S for the cache in DIR, remote REMOTE. */
static void
print_table(const struct mc_stats *s, const char *dir, const char *remote)
{
    const unsigned long long *n = s->n;
    double lookups = (double)(n[MC_STAT_HITS] + n[MC_STAT_MISSES]);
    double outcomes = (double)(n[MC_STAT_OPTIMIZED] + n[MC_STAT_FALLBACKS]);
    unsigned long long told = 0;
    char v[32];
    size_t k;

    printf("%-*s%s\n", LABEL_W, "Cache directory:", dir);
    count_row(0, "Lookups:", (unsigned long long)lookups, 0);
    count_row(2, "Hits:", n[MC_STAT_HITS], lookups);
    count_row(2, "Misses:", n[MC_STAT_MISSES], lookups);
    print_remote(s, remote);
    count_row(0, "Outcomes:", (unsigned long long)outcomes, 0);
    count_row(2, "Optimized:", n[MC_STAT_OPTIMIZED], outcomes);
    count_row(2, "Fallbacks:", n[MC_STAT_FALLBACKS], outcomes);
    for (k = 0; k < MC_ARRAY_SIZE(reasons); k++) {
        count_row(4, reasons[k].label, n[reasons[k].stat],
                  (double)n[MC_STAT_FALLBACKS]);
        told += n[reasons[k].stat];
    }
    /* Counted by a version that kept no reasons (or after a --zero of
     * an older one): said, so that the rows still add up. */
    if (told < n[MC_STAT_FALLBACKS])
        count_row(4, "Reason not recorded:", n[MC_STAT_FALLBACKS] - told,
                  (double)n[MC_STAT_FALLBACKS]);
    count_row(0, "Searches:", n[MC_STAT_SEARCHES], 0);
    count_row(2, "Candidates evaluated:", n[MC_STAT_CANDIDATES], 0);
    duration(n[MC_STAT_SEARCH_MS], v, sizeof(v));
    row(2, "Time searching:", v, -1, 0);
    /* Searches sent through MAXCODE_LAUNCHER (where make runs): their
     * candidates and time are counted where they ran. */
    if (n[MC_STAT_LAUNCHED]) {
        count_row(2, "Launched:", n[MC_STAT_LAUNCHED], 0);
        count_row(4, "Launcher failures:", n[MC_STAT_LAUNCH_FAILURES],
                  (double)n[MC_STAT_LAUNCHED]);
    }
    printf("Model:\n");
    count_row(2, "Requests:", n[MC_STAT_LLM_REQUESTS], 0);
    count_row(2, "Tokens in:", n[MC_STAT_TOKENS_IN], 0);
    count_row(2, "Tokens out:", n[MC_STAT_TOKENS_OUT], 0);
    snprintf(v, sizeof(v), "%.4f", s->cost);
    row(2, "Cost:", v, -1, 0);
    printf("Local storage:\n");
    count_row(2, "Stores:", n[MC_STAT_STORES], 0);
    count_row(2, "Corrupt entries removed:", n[MC_STAT_CORRUPT], 0);
    count_row(2, "Entries trimmed:", n[MC_STAT_TRIMMED], 0);
}

/* Every counter by its name (cache.c), and "cost". */
static int
print_json(const struct mc_stats *s)
{
    cJSON *o = cJSON_CreateObject();
    char *text = NULL;
    size_t k;

    for (k = 0; o && k < MC_STAT__COUNT; k++)
        if (!cJSON_AddNumberToObject(o, mc_stat_name((enum mc_stat)k),
                                     (double)s->n[k]))
            break;
    if (k == MC_STAT__COUNT && cJSON_AddNumberToObject(o, "cost", s->cost))
        text = cJSON_Print(o);
    cJSON_Delete(o);
    return mc_put_json_text(text);
}

int
mc_cmd_stats(int argc, char **argv)
{
    struct mc_cache c = MC_CACHE_INIT;
    struct mc_err err = MC_ERR_INIT;
    struct mc_conf conf;
    struct mc_stats s;
    int json = 0, zero = 0, i, status = 1;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "--zero"))
            zero = 1;
        else
            return mc_usage_error("stats: unknown argument '%s'", argv[i]);
    }
    if (mc_open_cache(&c, &conf))
        return 1;
    if ((zero && mc_cache_stats_zero(&c, &err)) ||
        mc_cache_stats_read(&c, &s, &err)) {
        mc_error("%s", err.msg);
        goto out;
    }
    status = 0;
    if (json)
        status = print_json(&s);
    else if (!zero)
        print_table(&s, c.dir, mc_conf_get(&conf, MC_SET_REMOTE));
out:
    mc_cache_release(&c);
    mc_conf_release(&conf);
    return status;
}
