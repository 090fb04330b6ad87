/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-manifest.c: a libFuzzer target for the readers of a cache
 * entry's text sections, without the binary frame fuzz-entry.c needs:
 * the manifest (JSON) and the trajectory (JSON lines), as the report
 * reads them (mc_report_add(), then the page with mc_report_html()),
 * and the include lines (mc_entry_includes_valid()). The input is split
 * at NUL bytes into the manifest, the variant, the include lines and the
 * trajectory (an input such as
 *   {"source":"hot.c","speedup":1.5,"candidates":[{"verdict":"faster"}]}
 * is a manifest alone). Nothing may crash, leak or read out of bounds; a
 * failure must carry its code and a message, and the page must be
 * written whatever the entry holds.
 *
 * Built with `make fuzz` (tests/fuzz/build.sh).
 */
#include "mc_setup.h"
#include "cache.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The next NUL-ended part of [*P, END) into B. */
static void
take(const char **p, const char *end, struct mc_buf *b)
{
    const char *nul = memchr(*p, '\0', (size_t)(end - *p));
    const char *e = nul ? nul : end;

    if (mc_buf_add(b, *p, (size_t)(e - *p)))
        abort();
    *p = nul ? nul + 1 : end;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *p = (const char *)data, *end = p + size;
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf html = MC_BUF_INIT;
    struct mc_report r;
    struct mc_entry e;
    enum mc_code rc;

    mc_entry_init(&e);
    memset(e.key, 'a', MC_KEY_HEX);
    e.key[MC_KEY_HEX] = '\0';
    take(&p, end, &e.manifest);
    take(&p, end, &e.variant);
    take(&p, end, &e.includes);
    take(&p, end, &e.trajectory);
    mc_report_init(&r, "/nonexistent/cache");
    rc = mc_report_add(&r, &e, &err);
    if (rc != MC_OK && (err.code != rc || !err.msg[0]))
        abort();
    if (rc == MC_OK && r.n != 1)
        abort();
    mc_report_sort(&r);
    if (mc_report_html(&r, &html) != MC_OK || !html.len)
        abort();
    (void)mc_entry_includes_valid(&e);
    mc_cache_forget_includes();
    mc_buf_release(&html);
    mc_report_release(&r);
    mc_entry_release(&e);
    return 0;
}
