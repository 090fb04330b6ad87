/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-sign.c: key pairs and their files (written, read back, refused
 * when others may read the secret or a line is not a key); signed
 * entries (the SIGN section decodes as before, its unsigned-entry is
 * what a writer without a key writes, a changed byte or another key is
 * refused); and mc_cache_import(), the one way in from outside, with
 * and without trusted keys.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "cache.h"
#include "sign.h"
#include "tap.h"
#include "testfs.h"

static char dir[] = "/tmp/mc-sign-XXXXXX";

static void
fill(struct mc_entry *e, char digit, const char *variant)
{
    mc_entry_init(e);
    memset(e->key, digit, MC_KEY_HEX);
    e->key[MC_KEY_HEX] = '\0';
    e->created = 1700000000;
    mc_buf_adds(&e->manifest, "{\"status\":\"original\"}");
    mc_buf_adds(&e->variant, variant);
    mc_buf_adds(&e->trajectory, "{\"node\":0}\n");
}

static unsigned long long
untrusted(struct mc_cache *c)
{
    struct mc_stats st;

    mc_cache_stats_read(c, &st, NULL);
    return st.n[MC_STAT_REMOTE_UNTRUSTED];
}

static void
test_sign__key_files(void)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_sign_keys a, b;
    struct mc_buf p = MC_BUF_INIT, pub = MC_BUF_INIT;
    char text[MC_SIGN_KEY_TEXT];
    FILE *f;

    mc_sign_keys_init(&a);
    mc_sign_keys_init(&b);
    mc_buf_addf(&p, "%s/k", dir);
    mc_buf_addf(&pub, "%s/k.pub", dir);
    is_long(mc_sign_generate(&a, &err), MC_OK, "a pair is made");
    is_long(mc_sign_write_pair(&a, p.s, "ci main", &err), MC_OK,
            "and written");
    is_long(mc_sign_write_pair(&a, p.s, NULL, &err), MC_EIO,
            "never over an existing key");
    contains(err.msg, "exists already", "saying so");
    mc_err_clear(&err);
    is_long(mc_sign_load_secret(&b, p.s, &err), MC_OK,
            "the secret file reads back");
    ok(b.can_sign && !memcmp(a.public, b.public, MC_SIGN_PUBLIC_LEN),
       "to the same key");
    is_long(mc_sign_load_trusted(&b, pub.s, &err), MC_OK,
            "the public file is a trusted-keys file");
    ok(b.checks && b.n_trusted == 1 &&
       !memcmp(b.trusted[0], a.public, MC_SIGN_PUBLIC_LEN),
       "of that one key");
    chmod(p.s, 0640);
    mc_sign_keys_release(&b);
    is_long(mc_sign_load_secret(&b, p.s, &err), MC_EIO,
            "a secret others may read is refused");
    contains(err.msg, "may be read by others", "saying why");
    ok(!b.can_sign, "and not used");
    mc_err_clear(&err);
    f = fopen(p.s, "r");
    if (f) {
        char line[128] = "";

        ok(fgets(line, sizeof(line), f) &&
           !strncmp(line, "maxcode-ed25519-secret ", 23) &&
           strlen(line) == 23 + 44 + 1, "the secret file is one tagged line");
        fclose(f);
    }
    mc_sign_key_text(a.public, text);
    ok(strlen(text) == 44, "a key's text is 44 characters of base64");
    mc_sign_keys_release(&a);
    mc_sign_keys_release(&b);
    mc_buf_release(&p);
    mc_buf_release(&pub);
}

static void
test_sign__trusted_file_parses(void)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_sign_keys k;
    const char *good =
        "# trusted\n"
        "\n"
        "  maxcode-ed25519 AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= ci\r\n"
        "maxcode-ed25519\tAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=\n"
        "maxcode-ed25519 AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA= again";
    const char *bad;

    mc_sign_keys_init(&k);
    is_long(mc_sign_parse_trusted(&k, good, strlen(good), "t", &err), MC_OK,
            "comments, blanks, tabs, CRLF and a last line without LF");
    is_long(k.n_trusted, 2, "two keys (the repeat counted once)");
    mc_sign_keys_release(&k);
    is_long(mc_sign_parse_trusted(&k, "", 0, "t", &err), MC_OK,
            "an empty file parses");
    ok(k.checks && k.n_trusted == 0, "and trusts nothing, checking all");
    mc_sign_keys_release(&k);
    bad = "# a\nssh-ed25519 AAAA x\n";
    is_long(mc_sign_parse_trusted(&k, bad, strlen(bad), "t", &err),
            MC_ESYNTAX, "another kind of key");
    is_str(err.msg, "t:2: expected 'maxcode-ed25519 BASE64 [COMMENT]', a "
           "comment or a blank line", "is an error at its line");
    mc_err_clear(&err);
    mc_sign_keys_release(&k);
    bad = "maxcode-ed25519 AAAA\n";
    is_long(mc_sign_parse_trusted(&k, bad, strlen(bad), "t", &err),
            MC_ESYNTAX, "a short key");
    contains(err.msg, "t:1: the public key is not 44", "is an error");
    mc_err_clear(&err);
    mc_sign_keys_release(&k);
    bad = "maxcode-ed25519-secret AAAA\n";
    is_long(mc_sign_parse_secret(&k, bad, strlen(bad), "s", &err),
            MC_ESYNTAX, "a short secret key");
    ok(!strstr(err.msg, "AAAA"), "is refused without quoting it");
    mc_err_clear(&err);
    is_long(mc_sign_parse_secret(&k, "", 0, "s", &err), MC_ESYNTAX,
            "an empty secret file is refused");
    mc_err_clear(&err);
    mc_sign_keys_release(&k);
}

static void
test_sign__signed_entry(void)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_sign_keys w, r, other;
    struct mc_buf plain = MC_BUF_INIT, signed_ = MC_BUF_INIT,
                  again = MC_BUF_INIT;
    struct mc_entry e, got;
    size_t i;
    int flipped_ok = 0;

    mc_sign_keys_init(&w);
    mc_sign_keys_init(&r);
    mc_sign_keys_init(&other);
    mc_sign_generate(&w, NULL);
    mc_sign_generate(&other, NULL);
    mc_sign_parse_trusted(&r, "", 0, "t", NULL);
    fill(&e, 'b', "int f(void) { return 1; }\n");
    mc_entry_encode(&e, &plain);
    mc_buf_add(&signed_, plain.s, plain.len);
    is_long(mc_entry_sign(&signed_, &w, &err), MC_OK, "an entry is signed");
    is_long(signed_.len, plain.len + 12 + 96, "by a 96-byte SIGN section");
    ok(!memcmp(signed_.s, plain.s, 32) &&
       !memcmp(signed_.s + 40, plain.s + 40, plain.len - 56),
       "after the bytes an unsigned writer writes, less their trailer");
    memcpy(r.trusted = mc_malloc(MC_SIGN_PUBLIC_LEN), w.public,
           MC_SIGN_PUBLIC_LEN);
    r.n_trusted = 1;
    is_long(mc_sign_verify(&r, plain.s, plain.len,
                           (unsigned char *)signed_.s + plain.len - 4,
                           (unsigned char *)signed_.s + plain.len + 28,
                           &err),
            MC_OK, "the signature is over the unsigned entry, whole");
    r.n_trusted = 0;
    mc_entry_init(&got);
    is_long(mc_entry_decode(signed_.s, signed_.len, &got, &err), MC_OK,
            "that a reader skips");
    is_str(got.variant.s, e.variant.s, "keeping the variant");
    is_str(got.trajectory.s, e.trajectory.s, "and the trajectory");
    mc_entry_release(&got);
    mc_buf_add(&again, signed_.s, signed_.len);
    mc_entry_sign(&again, &w, NULL);
    ok(again.len == signed_.len && !memcmp(again.s, signed_.s, again.len),
       "signing again replaces the signature, to the same bytes");
    is_long(mc_entry_check_signature(signed_.s, signed_.len, &r, &err),
            MC_EUNTRUSTED, "no trusted key: refused");
    contains(err.msg, "signed by a key not trusted here (maxcode-ed25519 ",
             "naming the key");
    mc_err_clear(&err);
    r.n_trusted = 1;
    is_long(mc_entry_check_signature(signed_.s, signed_.len, &r, &err),
            MC_OK, "the writer's key trusted: it verifies");
    is_long(mc_entry_check_signature(plain.s, plain.len, &r, &err),
            MC_EUNTRUSTED, "the unsigned entry is refused");
    is_str(err.msg, "it is not signed", "as not signed");
    mc_err_clear(&err);
    /* Every byte before the signature is covered: the header's, the
     * sections'. (The payload length and the trailer are what the
     * checksum covers; the signature covers their unsigned values.) */
    for (i = 0; i < plain.len - 16; i++) {
        if (i >= 32 && i < 40)
            continue;
        signed_.s[i] ^= 0x01;
        flipped_ok += mc_entry_check_signature(signed_.s, signed_.len, &r,
                                               NULL) == MC_OK;
        signed_.s[i] ^= 0x01;
    }
    is_long(flipped_ok, 0, "a changed byte anywhere never verifies");
    mc_buf_reset(&again);
    mc_buf_add(&again, plain.s, plain.len);
    mc_entry_sign(&again, &other, NULL);
    is_long(mc_entry_check_signature(again.s, again.len, &r, &err),
            MC_EUNTRUSTED, "another key's signature is refused");
    mc_err_clear(&err);
    /* Another key's signature over the same bytes, swapped in. */
    memcpy(again.s + again.len - 16 - 96, w.public, MC_SIGN_PUBLIC_LEN);
    is_long(mc_entry_check_signature(again.s, again.len, &r, &err),
            MC_EUNTRUSTED, "a trusted key's name on another's signature");
    contains(err.msg, "does not verify", "does not verify");
    mc_err_clear(&err);
    mc_entry_release(&e);
    mc_buf_release(&plain);
    mc_buf_release(&signed_);
    mc_buf_release(&again);
    mc_sign_keys_release(&w);
    mc_sign_keys_release(&r);
    mc_sign_keys_release(&other);
}

static void
test_sign__import(void)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_sign_keys w, r;
    struct mc_cache writer, reader;
    struct mc_buf wdir = MC_BUF_INIT, rdir = MC_BUF_INIT,
                  signed_ = MC_BUF_INIT, plain = MC_BUF_INIT;
    struct mc_entry e, got;
    int present = 0;

    mc_sign_keys_init(&w);
    mc_sign_keys_init(&r);
    mc_sign_generate(&w, NULL);
    mc_buf_addf(&wdir, "%s/writer", dir);
    mc_buf_addf(&rdir, "%s/reader", dir);
    mc_cache_init(&writer, wdir.s, NULL);
    mc_cache_init(&reader, rdir.s, NULL);
    writer.keys = &w;
    fill(&e, 'c', "int g(void) { return 2; }\n");
    is_long(mc_cache_put(&writer, &e, &err), MC_OK,
            "a writer with a key stores");
    mc_entry_init(&got);
    is_long(mc_cache_get(&writer, e.key, &got, &err), MC_OK,
            "an entry its own reads use as it is");
    mc_entry_release(&got);
    mc_cache_encode(&writer, &e, &signed_, NULL);
    mc_entry_encode(&e, &plain);
    ok(signed_.len == plain.len + 108, "what it pushes is signed");
    is_long(mc_cache_import(&reader, e.key, plain.s, plain.len, 0, NULL,
                            &present, &err), MC_OK,
            "no trusted keys: an unsigned entry comes in, as before");
    mc_cache_clean(&reader, NULL, NULL);
    mc_sign_parse_trusted(&r, "", 0, "t", NULL);
    reader.keys = &r;
    is_long(mc_cache_import(&reader, e.key, signed_.s, signed_.len, 0, NULL,
                            &present, &err), MC_EUNTRUSTED,
            "trusting none: a signed entry is refused");
    is_long(mc_cache_get(&reader, e.key, &got, NULL), MC_ENOENT,
            "and not stored");
    is_long(untrusted(&reader), 1, "but counted");
    mc_err_clear(&err);
    memcpy(r.trusted = mc_malloc(MC_SIGN_PUBLIC_LEN), w.public,
           MC_SIGN_PUBLIC_LEN);
    r.n_trusted = 1;
    is_long(mc_cache_import(&reader, e.key, plain.s, plain.len, 0, NULL,
                            &present, &err), MC_EUNTRUSTED,
            "trusting the writer: its entry unsigned is refused");
    mc_err_clear(&err);
    is_long(mc_cache_import(&reader, e.key, signed_.s, signed_.len, 0, NULL,
                            &present, &err), MC_OK, "signed, it comes in");
    ok(!present, "new");
    is_long(mc_cache_import(&reader, e.key, signed_.s, signed_.len, 0, NULL,
                            &present, &err), MC_OK, "again");
    ok(present, "already present, byte for byte");
    is_long(untrusted(&reader), 2, "two refusals counted");
    is_long(mc_cache_import(&reader, "dddddddddddddddddddddddddddddddd",
                            signed_.s, signed_.len, 0, NULL, NULL, &err),
            MC_ESYNTAX, "under another key: corrupt, not untrusted");
    mc_err_clear(&err);
    mc_entry_release(&e);
    mc_buf_release(&signed_);
    mc_buf_release(&plain);
    mc_buf_release(&wdir);
    mc_buf_release(&rdir);
    mc_cache_release(&writer);
    mc_cache_release(&reader);
    mc_sign_keys_release(&w);
    mc_sign_keys_release(&r);
}

int
main(void)
{
    if (!mkdtemp(dir)) {
        printf("Bail out! no scratch directory\n");
        return 1;
    }
    TAP_RUN(test_sign__key_files);
    TAP_RUN(test_sign__trusted_file_parses);
    TAP_RUN(test_sign__signed_entry);
    TAP_RUN(test_sign__import);
    if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS))
        printf("# could not remove %s\n", dir);
    return tap_done();
}
