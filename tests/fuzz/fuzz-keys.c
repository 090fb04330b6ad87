/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-keys.c: a libFuzzer target for the parsers of the key files
 * (sign.h): a trusted-keys file (MAXCODE_TRUSTED_KEYS, which a project
 * commits, so anyone who can send a pull request writes it) and a
 * secret key file (MAXCODE_SIGNING_KEY). The input is parsed as both.
 * Nothing may crash, leak or read out of bounds; a failure must carry
 * its code and a message. Keys that parse must come back the same when
 * written out as key-lines and parsed again; a secret key that parses
 * must sign, and its signature verify against its own public key and
 * against no other message.
 *
 * Built with `make fuzz` (tests/fuzz/build.sh).
 */
#include "mc_setup.h"
#include "buf.h"
#include "sign.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* K's trusted keys written out as key-lines, parsed again: the same. */
static void
reparse(const struct mc_sign_keys *k)
{
    struct mc_buf text = MC_BUF_INIT;
    struct mc_sign_keys k2;
    char key[MC_SIGN_KEY_TEXT];
    size_t i;

    for (i = 0; i < k->n_trusted; i++) {
        mc_sign_key_text(k->trusted[i], key);
        mc_buf_addf(&text, "maxcode-ed25519 %s comment %zu\n", key, i);
    }
    if (mc_buf_status(&text))
        goto out;
    mc_sign_keys_init(&k2);
    if (mc_sign_parse_trusted(&k2, text.s ? text.s : "", text.len, "again",
                              NULL) != MC_OK ||
        k2.n_trusted != k->n_trusted ||
        (k->n_trusted && memcmp(k2.trusted, k->trusted,
                                k->n_trusted * MC_SIGN_PUBLIC_LEN)))
        abort();
    mc_sign_keys_release(&k2);
out:
    mc_buf_release(&text);
}

/* A secret key K that parsed: it signs, and the signature verifies. */
static void
sign_with(struct mc_sign_keys *k, const uint8_t *data, size_t size)
{
    unsigned char sig[MC_SIGN_BYTES];
    char key[MC_SIGN_KEY_TEXT], line[MC_SIGN_KEY_TEXT + 20];

    mc_sign_key_text(k->public, key);
    snprintf(line, sizeof(line), "maxcode-ed25519 %s\n", key);
    if (!k->can_sign || mc_sign_parse_trusted(k, line, strlen(line), "own",
                                              NULL) ||
        mc_sign(k, data, size, sig, NULL) ||
        mc_sign_verify(k, data, size, k->public, sig, NULL) != MC_OK ||
        mc_sign_verify(k, "x", 1, k->public, sig, NULL) != MC_EUNTRUSTED)
        abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_sign_keys k;
    char *text = malloc(size + 1);
    enum mc_code rc;

    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    mc_sign_keys_init(&k);
    rc = mc_sign_parse_trusted(&k, text, size, "trusted", &err);
    if (!k.checks || (rc != MC_OK && (err.code != rc || !err.msg[0])))
        abort();
    if (rc == MC_OK)
        reparse(&k);
    mc_sign_keys_release(&k);
    mc_err_clear(&err);
    rc = mc_sign_parse_secret(&k, text, size, "secret", &err);
    if (rc != MC_OK) {
        if (err.code != rc || !err.msg[0] || k.can_sign)
            abort();
    } else {
        sign_with(&k, data, size);
    }
    mc_sign_keys_release(&k);
    free(text);
    return 0;
}
