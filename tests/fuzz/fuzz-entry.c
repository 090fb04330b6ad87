/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-entry.c: a libFuzzer target for the reader of cache entries,
 * mc_entry_decode(), and of what an entry holds: the manifest and the
 * trajectory (through mc_report_add() and the report's page) and the
 * include lines (mc_entry_includes_valid()). Entries come from other
 * machines through a shared or a remote cache (a remote GET's body is
 * decoded as it is: remote.c parses nothing of its own).
 * The input is decoded as it is, and then, when it starts with "MCXE",
 * again with its header's payload length and its checksum made right,
 * so that the fuzzer reaches the sections (an input such as
 *   "MCXE" u32:1 key:16 created:u64 payload:u64
 *   "MANI" u64:2 "{}" "VARI" u64:0 "INCL" u64:0
 * then the 16-byte checksum, which the target supplies). Nothing may
 * crash, leak or read out of bounds; a failure must carry its code and
 * a message; an entry read must encode and decode again to the same
 * sections.
 *
 * Built with `make fuzz` (tests/fuzz/build.sh).
 */
#include "mc_setup.h"
#include "cache.h"
#include "hash.h"
#include "le.h"
#include "report.h"

#define HEADER_LEN 40  /* cache.c's */
#define TRAILER_LEN 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
same_buf(const struct mc_buf *a, const struct mc_buf *b)
{
    return a->len == b->len && !memcmp(a->s, b->s, a->len);
}

/* Whether E encodes and decodes again to the same entry. */
static int
round_trip(const struct mc_entry *e)
{
    struct mc_buf b = MC_BUF_INIT;
    struct mc_err err = MC_ERR_INIT;
    struct mc_entry e2;
    int same;

    mc_entry_init(&e2);
    same = mc_entry_encode(e, &b) == MC_OK &&
           mc_entry_decode(b.s, b.len, &e2, &err) == MC_OK &&
           !strcmp(e->key, e2.key) && e->created == e2.created &&
           same_buf(&e->manifest, &e2.manifest) &&
           same_buf(&e->variant, &e2.variant) &&
           same_buf(&e->includes, &e2.includes) &&
           same_buf(&e->trajectory, &e2.trajectory);
    mc_entry_release(&e2);
    mc_buf_release(&b);
    return same;
}

/* Read E as the report and the cache's hit path read it. */
static void
use(const struct mc_entry *e)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf html = MC_BUF_INIT;
    struct mc_report r;
    enum mc_code rc;

    mc_report_init(&r, "/nonexistent/cache");
    rc = mc_report_add(&r, e, &err);
    if (rc != MC_OK && (err.code != rc || !err.msg[0]))
        abort();
    mc_report_sort(&r);
    if (mc_report_html(&r, &html) != MC_OK || !html.len)
        abort();
    mc_buf_release(&html);
    mc_report_release(&r);
    (void)mc_entry_includes_valid(e);
    mc_cache_forget_includes();
}

/* Decode DATA (SIZE bytes); check and use what it gives. */
static void
decode(const uint8_t *data, size_t size)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_entry e;
    enum mc_code rc;

    mc_entry_init(&e);
    rc = mc_entry_decode(data, size, &e, &err);
    if (rc != MC_OK && (err.code != rc || !err.msg[0]))
        abort();
    if (rc == MC_OK) {
        if (strlen(e.key) != MC_KEY_HEX || !round_trip(&e))
            abort();
        use(&e);
    }
    mc_entry_release(&e);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mc_digest sum;
    uint8_t *fixed;

    decode(data, size);
    if (size < HEADER_LEN || memcmp(data, "MCXE", 4))
        return 0;
    fixed = malloc(size + TRAILER_LEN);
    if (!fixed)
        return 0;
    memcpy(fixed, data, size);
    mc_le_put64(fixed + 32, (uint64_t)(size - HEADER_LEN));
    mc_hash_buffer(fixed, size, &sum);
    memcpy(fixed + size, sum.b, TRAILER_LEN);
    decode(fixed, size + TRAILER_LEN);
    free(fixed);
    return 0;
}
