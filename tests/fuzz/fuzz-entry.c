/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-entry.c: a libFuzzer target for the reader of cache entries,
 * mc_entry_decode(), and of what an entry holds: the manifest and the
 * trajectory (through mc_report_add() and the report's page) and the
 * include lines (mc_entry_includes_valid()). Entries come from other
 * machines through a shared or a remote cache (a remote GET's body is
 * decoded as it is: store_http.c parses nothing of its own).
 * The input is decoded as it is, and then, when it starts with "MCXE",
 * again with its header's payload length and its checksum made right,
 * so that the fuzzer reaches the sections (an input such as
 *   "MCXE" u32:1 key:16 created:u64 payload:u64
 *   "MANI" u64:2 "{}" "VARI" u64:0 "INCL" u64:0
 * then the 16-byte checksum, which the target supplies). Nothing may
 * crash, leak or read out of bounds; a failure must carry its code and
 * a message; an entry read must encode and decode again to the same
 * sections.
 * Signatures (the SIGN section, cache.h): every entry read is checked
 * with mc_entry_check_signature() against a key pair of the target's
 * own (a fixed seed, its public key trusted), which must verify or
 * refuse with a reason; then signed with it (mc_entry_sign()), after
 * which it must verify and decode to the same sections. The seed corpus
 * has an entry signed with that key (corpus/entry/signed), so that the
 * fuzzer starts past a good signature, and one with a SIGN section that
 * is not the last (corpus/entry/sign-misplaced).
 *
 * Built with `make fuzz` (tests/fuzz/build.sh).
 */
#include "mc_setup.h"
#include "cache.h"
#include "hash.h"
#include "le.h"
#include "report.h"
#include "sign.h"

#define HEADER_LEN 40  /* cache.c's */
#define TRAILER_LEN 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The target's key pair: the seed is 32 bytes of 0x5a. */
#define FUZZ_SECRET "maxcode-ed25519-secret " \
    "WlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlo=\n"

static struct mc_sign_keys keys;

/* KEYS, set up once: the secret above and its own public key trusted. */
static const struct mc_sign_keys *
fuzz_keys(void)
{
    static int ready;
    char text[MC_SIGN_KEY_TEXT], line[MC_SIGN_KEY_TEXT + 20];

    if (ready)
        return &keys;
    mc_sign_keys_init(&keys);
    if (mc_sign_parse_secret(&keys, FUZZ_SECRET, strlen(FUZZ_SECRET), "fuzz",
                             NULL))
        abort();
    mc_sign_key_text(keys.public, text);
    snprintf(line, sizeof(line), "maxcode-ed25519 %s\n", text);
    if (mc_sign_parse_trusted(&keys, line, strlen(line), "fuzz", NULL) ||
        keys.n_trusted != 1)
        abort();
    ready = 1;
    return &keys;
}

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

/* The entry at DATA (SIZE bytes, which decoded to E): its signature
 * checked, then the entry signed anew and checked again. */
static void
signatures(const uint8_t *data, size_t size, const struct mc_entry *e)
{
    const struct mc_sign_keys *k = fuzz_keys();
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf b = MC_BUF_INIT;
    struct mc_entry e2;
    enum mc_code rc;

    rc = mc_entry_check_signature(data, size, k, &err);
    if (rc != MC_OK && rc != MC_ENOMEM &&
        (rc != MC_EUNTRUSTED || err.code != rc || !err.msg[0]))
        abort();
    mc_err_clear(&err);
    if (mc_buf_add(&b, data, size))
        return;
    rc = mc_entry_sign(&b, k, &err);
    if (rc == MC_OK) {
        mc_entry_init(&e2);
        if (mc_entry_check_signature(b.s, b.len, k, NULL) != MC_OK ||
            mc_entry_decode(b.s, b.len, &e2, NULL) != MC_OK ||
            strcmp(e->key, e2.key) || e->created != e2.created ||
            !same_buf(&e->manifest, &e2.manifest) ||
            !same_buf(&e->variant, &e2.variant) ||
            !same_buf(&e->includes, &e2.includes) ||
            !same_buf(&e->trajectory, &e2.trajectory))
            abort();
        mc_entry_release(&e2);
    } else if (rc != MC_ENOMEM && (rc != MC_EINVAL || err.code != rc)) {
        abort(); /* only a malformed SIGN section is refused */
    }
    mc_buf_release(&b);
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
        signatures(data, size, &e);
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
