/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_show.c: what maxcode did to one target, for people to read.
 *
 *   maxcode show SOURCE-or-KEY     the manifest as a summary (status and
 *                                  reason, speedup, options that differ
 *                                  from their defaults) and a table of
 *                                  the trajectory; --json prints the
 *                                  manifest itself
 *   maxcode diff SOURCE-or-KEY     the kept variant against the original
 *                                  as a unified diff, coloured as git
 *                                  diff colours on a terminal
 *
 * Both find the entry as `maxcode show` does: for a source with several
 * entries, the one the current Makefile hits (mc_show_lookup_current).
 * Every line of show is cut to the terminal's width (the reason is
 * wrapped: its useful part is often at its end), and
 * the text in it that came from code or a model has its control
 * characters replaced, so that a critique cannot move the cursor or
 * break the table. The diff's original is the one the entry's
 * trajectory recorded (TRAJ): the file on disk may have changed since,
 * and a diff against the wrong text would mislead, so without a
 * trajectory diff says it cannot and fails.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "cache.h"
#include "commands.h"
#include "conf.h"
#include "journal.h"
#include "json.h"
#include "lang.h"
#include "log.h"
#include "manifest.h"
#include "show_entries.h"
#include "target.h"
#include "udiff.h"

#include <cjson/cJSON.h>
#include <sys/ioctl.h>

#define DEFAULT_WIDTH 100
#define LABEL_MIN     12  /* the variant column: at least, */
#define LABEL_MAX     40  /* at most, and a third of the width between */
#define TAG_WIDTH     9   /* "speedup  " before a summary line's value */

/* git diff's colours (color.diff defaults). */
#define COLOR_META  "\033[1m"
#define COLOR_FRAG  "\033[36m"
#define COLOR_OLD   "\033[31m"
#define COLOR_NEW   "\033[32m"
#define COLOR_RESET "\033[m"

/* The columns to cut show's lines to: the terminal's on one, else
 * $COLUMNS, else DEFAULT_WIDTH. */
static size_t
output_width(void)
{
    struct winsize ws;
    const char *env = getenv("COLUMNS");
    char *end;
    long n;

    if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) &&
        ws.ws_col > 0)
        return ws.ws_col;
    if (env && *env) {
        n = strtol(env, &end, 10);
        if (!*end && n > 0)
            return (size_t)n;
    }
    return DEFAULT_WIDTH;
}

/* Whether byte C starts a character (is not a UTF-8 continuation). */
static int
starts_char(char c)
{
    return ((unsigned char)c & 0xc0) != 0x80;
}

/*
 * Append S to B, at most MAX columns of it (SIZE_MAX: all), a character
 * a column, with each control character (C0, DEL, C1) made a space
 * (tabs and newlines) or '?', and pad it with spaces to MIN columns. A
 * cut string ends in '~' to show that it was cut.
 */
static void
add_cell(struct mc_buf *b, const char *s, size_t min, size_t max)
{
    size_t cols = 0, i;

    if (!s)
        s = ""; /* a buffer that ran out of memory */

    for (i = 0; s[i]; i++) {
        unsigned char c = (unsigned char)s[i];

        if (starts_char(s[i])) {
            if (cols == max)
                break;
            cols++;
        }
        if (c == '\t' || c == '\n' || c == '\r')
            mc_buf_addc(b, ' ');
        else if (c < 0x20 || c == 0x7f)
            mc_buf_addc(b, '?');
        else if (c == 0xc2 && (unsigned char)s[i + 1] >= 0x80 &&
                 (unsigned char)s[i + 1] <= 0x9f) {
            mc_buf_addc(b, '?'); /* a C1 control (U+0080-U+009F) */
            i++;
        }
        else
            mc_buf_addc(b, (char)c);
    }
    if (s[i] && max > 0) {
        /* Drop the last character whole for the mark. */
        while (b->len && !starts_char(b->s[b->len - 1]))
            b->len--;
        if (b->len)
            b->len--;
        mc_buf_addc(b, '~');
    }
    for (; cols < min; cols++)
        mc_buf_addc(b, ' ');
}

/* Print LINE cut to WIDTH columns, and empty it. */
static void
put_line(struct mc_buf *line, size_t width)
{
    size_t cols = 0, i;

    mc_buf_rtrim(line);
    for (i = 0; i < line->len; i++)
        if (starts_char(line->s[i]) && ++cols > width)
            break;
    fwrite(line->s, 1, i, stdout);
    putchar('\n');
    mc_buf_reset(line);
}

/* One summary line: TAG, then VALUE, both cleaned; cut to WIDTH. */
static void
put_field(struct mc_buf *line, const char *tag, const char *value,
          size_t width)
{
    add_cell(line, tag, TAG_WIDTH + 1, TAG_WIDTH);
    add_cell(line, value, 0, SIZE_MAX);
    put_line(line, width);
}

/* A field whose VALUE is worth reading whole (the reason): LEAD, then
 * TAG in TAGW + 1 columns, then VALUE cleaned, wrapped at spaces into
 * lines of WIDTH columns, each after LEAD and the tag's column; a word
 * wider than that is cut across lines. */
static void
put_wrapped(struct mc_buf *line, const char *lead, const char *tag,
            size_t tagw, const char *value, size_t width)
{
    struct mc_buf clean = MC_BUF_INIT;
    size_t used = strlen(lead) + tagw + 1;
    size_t room = width > used + 10 ? width - used : 10;
    size_t i = 0, first = 1;

    add_cell(&clean, value, 0, SIZE_MAX);
    while (first || i < clean.len) {
        size_t cols = 0, j = i, brk = 0;

        /* The longest run of whole words from I within ROOM columns. */
        for (; j < clean.len; j++) {
            if (starts_char(clean.s[j]) && cols++ == room)
                break;
            if (clean.s[j] == ' ')
                brk = j;
        }
        if (j < clean.len && brk > i)
            j = brk;
        mc_buf_adds(line, lead);
        add_cell(line, first ? tag : "", tagw + 1, tagw);
        mc_buf_add(line, clean.s + i, j - i);
        put_line(line, width);
        i = j;
        while (i < clean.len && clean.s[i] == ' ')
            i++;
        first = 0;
    }
    mc_buf_release(&clean);
}

/* A summary field whose VALUE is worth reading whole, wrapped after the
 * tag's column. */
static void
put_field_wrapped(struct mc_buf *line, const char *tag, const char *value,
                  size_t width)
{
    put_wrapped(line, "", tag, TAG_WIDTH, value, width);
}

/* The speedup line: the confirmed speedup (its interval's lower bound,
 * and why, when the manifest says so: speedup_basis), its 99% interval
 * when the manifest has one (speedup_interval: entries stored before it
 * was recorded have none), and the times it compares. */
static void
put_speedup(const cJSON *m, struct mc_buf *line, size_t width)
{
    struct mc_buf v = MC_BUF_INIT;
    double lo, hi;
    double base = mc_manifest_num(m, "baseline_seconds", -1);
    double best = mc_manifest_num(m, "best_seconds", -1);
    int time = !strcmp(mc_manifest_str(m, "metric"), "time");
    const char *why;
    int bound = mc_manifest_bound(m, &why);

    mc_manifest_interval(m, &lo, &hi);

    if (strcmp(mc_manifest_str(m, "status"), "optimized"))
        mc_buf_adds(&v, "none: the original is kept");
    else if (bound)
        mc_buf_addf(&v, "%.2fx confirmed (lower bound%s%s)",
                    mc_manifest_num(m, "speedup", 0), *why ? "; " : "",
                    why);
    else
        mc_buf_addf(&v, "%.2fx confirmed",
                    mc_manifest_num(m, "speedup", 0));
    if (lo > 0 && hi > 0)
        mc_buf_addf(&v, ", 99%% interval [%.2fx, %.2fx]", lo, hi);
    else if (!strcmp(mc_manifest_str(m, "status"), "optimized"))
        mc_buf_adds(&v, " (its interval is not recorded)");
    if (base >= 0 && best >= 0 && time)
        mc_buf_addf(&v, "; %.4g s -> %.4g s", base, best);
    else if (base >= 0 && best >= 0)
        mc_buf_addf(&v, "; %.0f -> %.0f %s", base, best,
                    mc_manifest_str(m, "metric"));
    /* A lower bound's why is worth reading whole. */
    if (bound)
        put_field_wrapped(line, "speedup", v.s, width);
    else
        put_field(line, "speedup", v.s, width);
    mc_buf_release(&v);
}

/* The options of manifest M that differ from their built-in defaults,
 * one line each; unknown ones when they are set. */
static void
put_options(const cJSON *m, struct mc_buf *line, size_t width)
{
    const cJSON *opts = mc_json_object(m, "options"), *o;
    const struct mc_lang_info *li =
        mc_lang_of_path(mc_manifest_str(m, "source"));
    struct mc_buf v = MC_BUF_INIT;
    struct mc_conf defaults;
    const char *tag = "options";
    size_t i;

    if (mc_conf_init(&defaults, NULL))
        return;
    cJSON_ArrayForEach(o, opts)
    {
        const char *dflt = "";

        if (!cJSON_IsString(o))
            continue;
        for (i = 0; i < MC_OPT__COUNT; i++)
            if (!strcmp(o->string, mc_target_opt_name((enum mc_opt)i)))
                dflt = mc_target_opt_default((enum mc_opt)i, &defaults,
                                             li ? li->lang : MC_LANG_C);
        if (!strcmp(o->valuestring, dflt))
            continue;
        mc_buf_reset(&v);
        mc_buf_addf(&v, "%s=%s", o->string, o->valuestring);
        put_field(line, tag, v.s, width);
        tag = "";
    }
    if (*tag)
        put_field(line, tag, "all default", width);
    mc_conf_release(&defaults);
    mc_buf_release(&v);
}

/* The compiler and flags, and what the search spent on a model. */
static void
put_build(const cJSON *m, struct mc_buf *line, size_t width)
{
    const cJSON *flags = mc_json_array(m, "flags"), *f;
    const char *model = mc_manifest_str(m, "model");
    struct mc_buf v = MC_BUF_INIT;

    mc_buf_adds(&v, mc_manifest_str(m, "compiler"));
    cJSON_ArrayForEach(f, flags)
    {
        if (cJSON_IsString(f))
            mc_buf_addf(&v, " %s", f->valuestring);
    }
    put_field(line, "build", v.s, width);
    mc_buf_reset(&v);
    mc_buf_addf(&v, "%.0f candidates, %.0f correct; strategy %s, "
                "proposer %s",
                mc_manifest_num(m, "candidates", 0),
                mc_manifest_num(m, "correct_candidates", 0),
                mc_manifest_str(m, "strategy"),
                mc_manifest_str(m, "proposer"));
    put_field(line, "search", v.s, width);
    if (*model || mc_manifest_num(m, "llm_requests", 0) > 0) {
        mc_buf_reset(&v);
        mc_buf_addf(&v, "%s: %.0f requests, %.0f tokens in, %.0f out, "
                    "cost %.4f", *model ? model : "(none)",
                    mc_manifest_num(m, "llm_requests", 0),
                    mc_manifest_num(m, "tokens_in", 0),
                    mc_manifest_num(m, "tokens_out", 0),
                    mc_manifest_num(m, "cost", 0));
        put_field(line, "model", v.s, width);
    }
    mc_buf_release(&v);
}

/* The variant column's width: the widest label of the trajectory T,
 * within a third of WIDTH bounded by LABEL_MIN and LABEL_MAX. */
static size_t
label_width(const cJSON *t, size_t width)
{
    size_t cap = width / 3;
    const cJSON *n;
    size_t w = strlen("variant");

    cJSON_ArrayForEach(n, t)
    {
        const char *s = mc_manifest_str(n, "variant");
        size_t cols = 0;

        for (; *s; s++)
            cols += (size_t)starts_char(*s);
        if (cols > w)
            w = cols;
    }
    cap = cap < LABEL_MIN ? LABEL_MIN : cap > LABEL_MAX ? LABEL_MAX : cap;
    return w < cap ? w : cap;
}

/* X as a 7-column speedup and a space: "  2.94x", or "      -" for
 * none (an incorrect candidate's 0). */
static void
add_times(struct mc_buf *b, double x)
{
    if (x > 0)
        mc_buf_addf(b, "%6.2fx ", x);
    else
        mc_buf_addf(b, "%7s ", "-");
}

/* The trajectory as a table: step (from 1), parent (its step, "-" for
 * the original), variant, verdict, speedup, u and critique. */
static void
put_trajectory(const cJSON *m, struct mc_buf *line, size_t width)
{
    const cJSON *t = mc_json_array(m, "trajectory"), *n;
    size_t lw = label_width(t, width);
    char num[32];
    int step = 0;

    if (!cJSON_GetArraySize(t)) {
        put_field(line, "steps", "none: no search ran", width);
        return;
    }
    putchar('\n');
    mc_buf_addf(line, "%4s %6s ", "step", "parent");
    add_cell(line, "variant", lw + 1, lw);
    mc_buf_addf(line, "%-13s %7s %7s critique", "verdict", "speedup", "u");
    put_line(line, width);
    cJSON_ArrayForEach(n, t)
    {
        double parent = mc_manifest_num(n, "parent", -1);

        if (parent < 0)
            snprintf(num, sizeof(num), "-");
        else
            snprintf(num, sizeof(num), "%.0f", parent + 1);
        mc_buf_addf(line, "%4d %6s ", ++step, num);
        add_cell(line, mc_manifest_str(n, "variant"), lw + 1, lw);
        add_cell(line, mc_manifest_str(n, "verdict"), 14, 13);
        add_times(line, mc_manifest_num(n, "speedup", 0));
        add_times(line, mc_manifest_num(n, "u", 0));
        add_cell(line, mc_manifest_str(n, "critique"), 0, SIZE_MAX);
        put_line(line, width);
    }
}

void
mc_show_print(const cJSON *m)
{
    struct mc_buf line = MC_BUF_INIT, v = MC_BUF_INIT;
    size_t width = output_width();
    const char *reason = mc_manifest_str(m, "reason");

    mc_buf_addf(&v, "%s (%s)", mc_manifest_str(m, "source"),
                mc_manifest_str(m, "source_path"));
    put_field(&line, "source", v.s, width);
    put_field(&line, "key", mc_manifest_str(m, "key"), width);
    put_field(&line, "status", mc_manifest_str(m, "status"), width);
    if (*reason)
        put_field_wrapped(&line, "reason", reason, width);
    put_speedup(m, &line, width);
    if (*mc_manifest_str(m, "best"))
        put_field(&line, "best", mc_manifest_str(m, "best"), width);
    put_build(m, &line, width);
    put_options(m, &line, width);
    mc_buf_reset(&v);
    mc_buf_addf(&v, "%s by maxcode %s", mc_manifest_str(m, "created"),
                mc_manifest_str(m, "maxcode_version"));
    put_field(&line, "created", v.s, width);
    put_trajectory(m, &line, width);
    mc_buf_release(&line);
    mc_buf_release(&v);
}

/* The column of an entry's own tags in the list of entries. */
#define ENTRY_LEAD "       "
#define ENTRY_TAGW 9

/* One entry X of the list (I of L): its key, date and marks, then its
 * build, what tells it apart, its directory and its status. */
static void
put_entry(const struct mc_show_entries *l, size_t i, struct mc_buf *line,
          size_t width)
{
    const struct mc_show_entry *x = &l->v[i];
    const cJSON *flags = mc_json_array(x->m, "flags"), *f;
    const char *reason = mc_manifest_str(x->m, "reason"), *why;
    struct mc_buf v = MC_BUF_INIT;

    mc_buf_addf(line, "  %c %s  ", x->current ? '*' : ' ', x->key);
    add_cell(line, mc_manifest_str(x->m, "created"), 0, 40);
    if ((int)i == l->chosen)
        mc_buf_adds(line, "  (shown below)");
    put_line(line, width);
    mc_buf_adds(&v, mc_manifest_str(x->m, "compiler"));
    cJSON_ArrayForEach(f, flags)
    {
        if (cJSON_IsString(f))
            mc_buf_addf(&v, " %s", f->valuestring);
    }
    put_wrapped(line, ENTRY_LEAD, "build", ENTRY_TAGW, v.s, width);
    put_wrapped(line, ENTRY_LEAD, "differs", ENTRY_TAGW,
                x->differs && *x->differs
                    ? x->differs
                    : "nothing in its build or options (its source's "
                      "text, a header or the compiler's identity differ)",
                width);
    put_wrapped(line, ENTRY_LEAD, "directory", ENTRY_TAGW,
                *x->dir ? x->dir : "not recorded", width);
    mc_buf_reset(&v);
    if (!strcmp(mc_manifest_str(x->m, "status"), "optimized"))
        mc_buf_addf(&v, "optimized, %.2fx confirmed%s",
                    mc_manifest_num(x->m, "speedup", 0),
                    mc_manifest_bound(x->m, &why) ? " (lower bound)"
                                                     : "");
    else
        mc_buf_addf(&v, "original kept%s%s", *reason ? ": " : "", reason);
    put_wrapped(line, ENTRY_LEAD, "status", ENTRY_TAGW, v.s, width);
    mc_buf_release(&v);
}

/* The list of the entries L of one source and how the one shown below
 * was chosen. */
static void
put_entries(const struct mc_show_entries *l, size_t width)
{
    struct mc_buf line = MC_BUF_INIT, v = MC_BUF_INIT;
    size_t i;

    mc_buf_addf(&v, "%zu for this source, newest first; * marks the one "
                "the current Makefile hits", l->n);
    put_field_wrapped(&line, "entries", v.s, width);
    for (i = 0; i < l->n; i++)
        put_entry(l, i, &line, width);
    put_field_wrapped(&line, "chosen", l->how.s ? l->how.s : "", width);
    putchar('\n');
    mc_buf_release(&line);
    mc_buf_release(&v);
}

/* Add the list L and how the one shown was chosen to the manifest M
 * that --json prints. -1 when out of memory. */
static int
add_entries_json(cJSON *m, const struct mc_show_entries *l)
{
    cJSON *a = mc_show_entries_json(l);

    if (!a)
        return -1;
    cJSON_AddItemToObject(m, "entries", a);
    if (!cJSON_AddStringToObject(m, "entry_choice", l->how.s ? l->how.s
                                                             : ""))
        return -1;
    return 0;
}

int
mc_cmd_show(int argc, char **argv)
{
    struct mc_show_entries l;
    struct mc_entry e;
    const char *what = NULL;
    int json = 0, i, status = 1;
    cJSON *m = NULL;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (argv[i][0] == '-')
            return mc_usage_error("show: unknown option '%s'", argv[i]);
        else if (what)
            return mc_usage_error("show: one SOURCE or KEY, not '%s' too",
                                  argv[i]);
        else
            what = argv[i];
    }
    if (!what)
        return mc_usage_error("show: missing SOURCE or KEY");
    mc_entry_init(&e);
    mc_show_entries_init(&l);
    /* Several entries for SOURCE: the one the current Makefile hits. */
    if (!mc_is_key(what) && mc_show_entries_find(what, &l))
        goto out;
    if (mc_show_lookup(l.n > 1 ? l.v[l.chosen].key : what, &e, &m) < 0)
        goto out;
    if (json) {
        if (l.n > 1 && add_entries_json(m, &l)) {
            mc_error("out of memory");
            goto out;
        }
        status = mc_put_json_text(cJSON_Print(m));
    } else {
        if (l.n > 1)
            put_entries(&l, output_width());
        mc_show_print(m);
        status = 0;
    }
out:
    cJSON_Delete(m);
    mc_entry_release(&e);
    mc_show_entries_release(&l);
    return status;
}

/* ---------------------------------------------------------------- diff */

/* Write the unified diff D, coloured as git diff colours it when COLOR:
 * the two file lines bold, the @@ range cyan, removed lines red, added
 * ones green. */
static void
put_diff(const struct mc_buf *d, int color)
{
    const char *p = d->s, *end = d->s + d->len;
    int header = 2;

    if (!color) {
        fwrite(d->s, 1, d->len, stdout);
        return;
    }
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        const char *on = NULL;

        if (header > 0) {
            on = COLOR_META;
            header--;
        } else if (*p == '@') {
            /* Only "@@ ... @@" is coloured, as git does. */
            const char *close = n > 2 ? strstr(p + 2, "@@") : NULL;
            size_t k = close && close < p + n ? (size_t)(close + 2 - p) : n;

            printf(COLOR_FRAG "%.*s" COLOR_RESET "%.*s\n", (int)k, p,
                   (int)(n - k), p + k);
            p += n + 1;
            continue;
        } else if (*p == '-') {
            on = COLOR_OLD;
        } else if (*p == '+') {
            on = COLOR_NEW;
        }
        if (on)
            printf("%s%.*s" COLOR_RESET "\n", on, (int)n, p);
        else
            printf("%.*s\n", (int)n, p);
        p += n + 1;
    }
}

/* "a/" or "b/" (SIDE) and SOURCE as the call wrote it, without a
 * leading "./" or "/", into B. */
static void
diff_name(struct mc_buf *b, const char *side, const char *source)
{
    while (!strncmp(source, "./", 2))
        source += 2;
    while (*source == '/')
        source++;
    mc_buf_addf(b, "%s/%s", side, source);
}

/*
 * The text the entry E was searched from, into ORIGINAL: its
 * trajectory's. -1 (having said why) when E has none, or one that does
 * not parse or names another key.
 */
static int
entry_original(const struct mc_entry *e, const char *source,
               struct mc_buf *original)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_trajectory t;
    int rc = -1;

    mc_trajectory_init(&t);
    if (!e->trajectory.len)
        mc_error("%s: entry %s keeps no trajectory, so its original "
                 "cannot be recovered exactly; not diffing against "
                 "another text", source, e->key);
    else if (mc_trajectory_parse(e->trajectory.s, e->trajectory.len, &t,
                                 &err))
        mc_error("%s: entry %s: its trajectory does not parse (%s), so "
                 "its original cannot be recovered", source, e->key,
                 err.msg);
    else if (!t.key || strcmp(t.key, e->key))
        mc_error("%s: entry %s holds the trajectory of another key (%s); "
                 "its original cannot be recovered", source, e->key,
                 t.key ? t.key : "none");
    else if (mc_buf_add(original, t.original.s, t.original.len))
        mc_error("out of memory");
    else
        rc = 0;
    mc_trajectory_release(&t);
    return rc;
}

/* Whether diff's output is coloured: FORCE when --color (1) or
 * --no-color (0) said, else on a terminal unless NO_COLOR is set. */
static int
use_color(int force)
{
    const char *no = getenv("NO_COLOR");

    if (force >= 0)
        return force;
    return isatty(STDOUT_FILENO) && !(no && *no);
}

/* Diff the entry E (manifest M) found for WHAT: the exit status. */
static int
diff_entry(const char *what, const struct mc_entry *e, const cJSON *m,
           int have_entry, int color)
{
    struct mc_buf original = MC_BUF_INIT, out = MC_BUF_INIT;
    struct mc_buf a = MC_BUF_INIT, b = MC_BUF_INIT;
    const char *source = mc_manifest_str(m, "source");
    const char *reason = mc_manifest_str(m, "reason");
    int status = 1;

    if (!*source)
        source = what;
    if (strcmp(mc_manifest_str(m, "status"), "optimized")) {
        mc_info("%s: the original was kept (%s); no diff", source,
                *reason ? reason : "no reason");
        status = 0;
        goto out;
    }
    if (!have_entry) {
        mc_error("%s: no cache entry holds this variant (only its "
                 "manifest in .maxcode/), so its original cannot be "
                 "recovered exactly", source);
        goto out;
    }
    if (entry_original(e, source, &original))
        goto out;
    diff_name(&a, "a", source);
    diff_name(&b, "b", source);
    if (mc_buf_status(&a) || mc_buf_status(&b) ||
        mc_udiff(a.s, original.s, original.len, b.s, e->variant.s,
                 e->variant.len, 3, &out)) {
        mc_error("out of memory");
        goto out;
    }
    if (!out.len)
        mc_info("%s: the kept variant's text is the original's", source);
    put_diff(&out, color);
    status = fflush(stdout) ? 1 : 0;
out:
    mc_buf_release(&original);
    mc_buf_release(&out);
    mc_buf_release(&a);
    mc_buf_release(&b);
    return status;
}

int
mc_cmd_diff(int argc, char **argv)
{
    struct mc_entry e;
    const char *what = NULL;
    int i, force = -1, found, status = 1;
    cJSON *m = NULL;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--color"))
            force = 1;
        else if (!strcmp(argv[i], "--no-color"))
            force = 0;
        else if (argv[i][0] == '-')
            return mc_usage_error("diff: unknown option '%s'", argv[i]);
        else if (what)
            return mc_usage_error("diff: one SOURCE or KEY, not '%s' too",
                                  argv[i]);
        else
            what = argv[i];
    }
    if (!what)
        return mc_usage_error("diff: missing SOURCE or KEY");
    mc_entry_init(&e);
    found = mc_show_lookup_current(what, &e, &m);
    if (found >= 0)
        status = diff_entry(what, &e, m, found == 0, use_color(force));
    cJSON_Delete(m);
    mc_entry_release(&e);
    return status;
}
