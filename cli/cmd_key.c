/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_key.c: `maxcode key generate -o PREFIX [--comment TEXT]`: a new
 * Ed25519 key pair for signing cache entries, written as PREFIX (the
 * secret key, mode 0600, for MAXCODE_SIGNING_KEY) and PREFIX.pub (the
 * public key, a line for MAXCODE_TRUSTED_KEYS); the formats are in
 * runtime/store/sign.h. It prints the public key's line, never the secret.
 */
#include "mc_setup.h"
#include "commands.h"
#include "log.h"
#include "sign.h"

int
mc_cmd_key(int argc, char **argv)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_sign_keys k;
    const char *prefix = NULL, *comment = NULL;
    char pub[MC_SIGN_KEY_TEXT];
    int i, status = 1;

    if (argc < 2 || strcmp(argv[1], "generate"))
        return mc_usage_error("key: expected 'generate -o PREFIX'");
    for (i = 2; i < argc; i++) {
        const char **dst;

        if (!strcmp(argv[i], "-o"))
            dst = &prefix;
        else if (!strcmp(argv[i], "--comment"))
            dst = &comment;
        else
            return mc_usage_error("key generate: unexpected argument '%s'",
                                  argv[i]);
        if (i + 1 >= argc)
            return mc_usage_error("key generate: %s needs a value",
                                  argv[i]);
        *dst = argv[++i];
    }
    if (!prefix || !*prefix)
        return mc_usage_error("key generate: missing -o PREFIX");
    mc_sign_keys_init(&k);
    if (mc_sign_generate(&k, &err) ||
        mc_sign_write_pair(&k, prefix, comment, &err)) {
        mc_error("key generate: %s", err.msg);
        goto out;
    }
    mc_sign_key_text(k.public, pub);
    printf("wrote %s (the secret key, mode 0600) and %s.pub:\n"
           "maxcode-ed25519 %s%s%s\n", prefix, prefix, pub,
           comment && *comment ? " " : "", comment ? comment : "");
    status = 0;
out:
    mc_sign_keys_release(&k);
    return status;
}
