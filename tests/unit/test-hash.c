/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-hash.c: typed, length-framed keys.
 */
#include "mc_setup.h"
#include "hash.h"
#include "tap.h"

static void
key_of(const char *const *fields, size_t n, char hex[MC_KEY_HEX + 1])
{
    struct mc_hash h;
    struct mc_digest d;
    size_t i;

    mc_hash_init(&h);
    for (i = 0; i < n; i++)
        mc_hash_field_str(&h, "flag", fields[i]);
    mc_hash_digest(&h, &d);
    mc_hash_release(&h);
    mc_digest_hex(&d, hex);
}

static void
test_hash__framing_separates_fields(void)
{
    static const char *const a[] = {"-I", "-O2"};
    static const char *const b[] = {"-I-O2"};
    static const char *const c[] = {"-I-", "O2"};
    char ka[MC_KEY_HEX + 1], kb[MC_KEY_HEX + 1], kc[MC_KEY_HEX + 1],
        ka2[MC_KEY_HEX + 1];

    key_of(a, 2, ka);
    key_of(b, 1, kb);
    key_of(c, 2, kc);
    key_of(a, 2, ka2);
    ok(strcmp(ka, kb) != 0, "'-I -O2' and '-I-O2' differ");
    ok(strcmp(ka, kc) != 0, "'-I -O2' and '-I- O2' differ");
    is_str(ka, ka2, "the same fields give the same key");
    ok(mc_is_key(ka), "a key is 32 lowercase hex digits");
}

static void
test_hash__absent_differs_from_empty(void)
{
    struct mc_hash h;
    struct mc_digest d1, d2;

    mc_hash_init(&h);
    mc_hash_field_str(&h, "model", NULL);
    mc_hash_digest(&h, &d1);
    mc_hash_release(&h);
    mc_hash_init(&h);
    mc_hash_field_str(&h, "model", "");
    mc_hash_digest(&h, &d2);
    mc_hash_release(&h);
    ok(memcmp(d1.b, d2.b, 16) != 0, "an absent field is not an empty one");
}

static void
test_hash__file_equals_bytes(void)
{
    char path[] = "/tmp/mc-hash-XXXXXX";
    int fd = mkstemp(path);
    struct mc_hash h;
    struct mc_digest d1, d2;
    struct mc_err err = MC_ERR_INIT;

    if (!ok(fd >= 0 && write(fd, "int x;\n", 7) == 7, "wrote a file"))
        return;
    close(fd);
    mc_hash_init(&h);
    is_long(mc_hash_field_file(&h, "source", path, &err), MC_OK,
            "a file hashes");
    mc_hash_digest(&h, &d1);
    mc_hash_release(&h);
    mc_hash_init(&h);
    mc_hash_field(&h, "source", "int x;\n", 7);
    mc_hash_digest(&h, &d2);
    mc_hash_release(&h);
    ok(!memcmp(d1.b, d2.b, 16), "a file field equals its bytes' field");
    unlink(path);
    mc_hash_init(&h);
    is_long(mc_hash_field_file(&h, "source", path, &err), MC_ENOENT,
            "a missing file is MC_ENOENT");
    contains(err.msg, "cannot open", "and says so");
    mc_hash_release(&h);
}

static void
test_hash__hex_round_trip(void)
{
    struct mc_digest d, back;
    char hex[MC_KEY_HEX + 1];

    mc_hash_buffer("abc", 3, &d);
    mc_digest_hex(&d, hex);
    ok(mc_digest_parse(hex, &back) == 0 && !memcmp(d.b, back.b, 16),
       "hex parses back to the digest");
    ok(mc_digest_parse("xyz", &back) == -1, "junk does not parse");
    ok(!mc_is_key("ABCDEF0123456789ABCDEF0123456789"),
       "upper case is not a key");
}

int
main(void)
{
    TAP_RUN(test_hash__framing_separates_fields);
    TAP_RUN(test_hash__absent_differs_from_empty);
    TAP_RUN(test_hash__file_equals_bytes);
    TAP_RUN(test_hash__hex_round_trip);
    return tap_done();
}
