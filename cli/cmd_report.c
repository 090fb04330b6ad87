/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_report.c: `maxcode report [-o FILE.html] [KEY...]`, the HTML
 * report of every target in the cache (or of the entries KEY...): a
 * summary table, the max-reward curve of each search and each
 * candidate with its diffs (report.h, doc/report.md). It is written
 * atomically to FILE, maxcode-report.html by default, or to stdout for
 * `-o -`.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "buf.h"
#include "cache.h"
#include "commands.h"
#include "file.h"
#include "hash.h"
#include "log.h"
#include "report.h"

#define DEFAULT_OUT "maxcode-report.html"

/* Parse -o FILE; the first KEY's index into *FIRST. */
static int
parse_args(int argc, char **argv, const char **out, int *first)
{
    int i;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-o")) {
            if (i + 1 == argc || !argv[i + 1][0])
                return mc_usage_error("report: -o needs a FILE");
            *out = argv[++i];
        } else if (!strcmp(argv[i], "--")) {
            i++;
            break;
        } else if (argv[i][0] == '-') {
            return mc_usage_error("report: unknown option '%s'", argv[i]);
        } else {
            break;
        }
    }
    for (*first = i; i < argc; i++)
        if (!mc_is_key(argv[i]))
            return mc_usage_error("report: '%s' is not a key (32 hex "
                                  "digits, as `maxcode cache list` "
                                  "shows)", argv[i]);
    return 0;
}

/* Add the entry file PATH to R; one that cannot be read is skipped
 * with a note. */
static enum mc_code
add_file(struct mc_report *r, const char *path)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_entry e;
    enum mc_code rc;

    mc_entry_init(&e);
    rc = mc_entry_read_file(path, &e, &err);
    if (!rc)
        rc = mc_report_add(r, &e, &err);
    if (err.msg[0])
        mc_info("report: %s: %s", path, err.msg);
    mc_entry_release(&e);
    return rc == MC_ENOMEM ? rc : MC_OK;
}

/* The entries KEYS (N) of C into R, in that order. MC_ENOENT (said)
 * when one is not in the cache. */
static enum mc_code
add_keys(struct mc_report *r, struct mc_cache *c, char **keys, int n)
{
    struct mc_buf path = MC_BUF_INIT;
    enum mc_code rc = MC_OK;
    int i;

    for (i = 0; i < n && !rc; i++) {
        mc_buf_reset(&path);
        if ((rc = mc_cache_path(c, keys[i], ".mce", &path)))
            break;
        if (access(path.s, R_OK)) {
            mc_error("report: no entry '%s' in the cache", keys[i]);
            rc = MC_ENOENT;
        } else {
            rc = add_file(r, path.s);
        }
    }
    mc_buf_release(&path);
    return rc;
}

/* Every entry of C into R, ordered by source. */
static enum mc_code
add_all(struct mc_report *r, struct mc_cache *c)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_cache_items items;
    enum mc_code rc;
    size_t i;

    if ((rc = mc_cache_scan(c, &items, &err))) {
        mc_error("report: %s", err.msg[0] ? err.msg : mc_strerror(rc));
        return rc;
    }
    for (i = 0; i < items.n && !rc; i++)
        rc = add_file(r, items.v[i].path);
    mc_cache_items_release(&items);
    mc_report_sort(r);
    return rc;
}

/* Write the page PAGE to OUT ("-": stdout). */
static enum mc_code
write_page(const char *out, const struct mc_buf *page, struct mc_err *err)
{
    if (strcmp(out, "-"))
        return mc_file_write_atomic(out, page->s, page->len, err);
    if (fwrite(page->s, 1, page->len, stdout) != page->len || fflush(stdout))
        return mc_err_set(err, MC_EIO, "cannot write the report: %s",
                          strerror(errno));
    return MC_OK;
}

/* Build the report of cache C (the entries KEYS, N, or all) into OUT. */
static enum mc_code
report(struct mc_cache *c, char **keys, int n, const char *out)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf page = MC_BUF_INIT;
    struct mc_report r;
    enum mc_code rc;

    mc_report_init(&r, c->dir);
    r.have_stats = !mc_cache_stats_read(c, &r.stats, NULL);
    rc = n ? add_keys(&r, c, keys, n) : add_all(&r, c);
    if (!rc)
        rc = mc_report_html(&r, &page);
    if (!rc)
        rc = write_page(out, &page, &err);
    if (rc && rc != MC_ENOENT)
        mc_error("report: %s", err.msg[0] ? err.msg : mc_strerror(rc));
    else if (!rc && strcmp(out, "-"))
        fprintf(stderr, "maxcode: report of %zu target%s written to %s\n",
                r.n, r.n == 1 ? "" : "s", out);
    mc_buf_release(&page);
    mc_report_release(&r);
    return rc;
}

int
mc_cmd_report(int argc, char **argv)
{
    struct mc_cache c;
    const char *out = DEFAULT_OUT;
    int first = 0, status;
    enum mc_code rc;

    if ((status = parse_args(argc, argv, &out, &first)))
        return status;
    if (mc_open_cache(&c, NULL))
        return 1;
    rc = report(&c, argv + first, argc - first, out);
    mc_cache_release(&c);
    return rc ? 1 : 0;
}
