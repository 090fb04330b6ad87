/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_config.c: `maxcode config [--json]` prints every setting, its value
 * and where it came from (the settings table in conf.c). Secret values
 * are never shown, only whether they are set. After the table, what the
 * key files make of entries (trust()): signed here or not, and checked
 * when they come from outside or trusted as they come; a key file that
 * cannot be read is an error. Two options the manual
 * does not list, --list-settings and --list-options, print the names in
 * the settings table and in the options table (target.c), for the test
 * that maxcode(7) documents each of them (tests/t0093-manpages.sh).
 */
#include "mc_setup.h"
#include "commands.h"
#include "conf.h"
#include "log.h"
#include "sign.h"
#include "target.h"

#include <cjson/cJSON.h>

/* The value as `maxcode config` shows it: secrets never appear. */
static const char *
shown_value(const struct mc_conf *c, enum mc_setting_id id)
{
    const char *v = mc_conf_get(c, id);

    if (mc_conf_is_secret(id))
        return *v ? "(set, hidden)" : "";
    return v;
}

static int
print_config_json(const struct mc_conf *c)
{
    cJSON *root = cJSON_CreateObject();
    char *text = NULL;
    size_t i;
    int status = 1;

    if (!root)
        goto out;
    for (i = 0; i < MC_SET__COUNT; i++) {
        enum mc_setting_id id = (enum mc_setting_id)i;
        cJSON *o = cJSON_AddObjectToObject(root, mc_conf_name(id));

        if (!o || !cJSON_AddStringToObject(o, "value", shown_value(c, id)) ||
            !cJSON_AddStringToObject(o, "origin",
                                     mc_origin_name(mc_conf_origin(c, id))) ||
            !cJSON_AddStringToObject(o, "where", mc_conf_where(c, id)))
            goto out;
        if (mc_conf_key(id) &&
            !cJSON_AddStringToObject(o, "key", mc_conf_key(id)))
            goto out;
    }
    text = cJSON_Print(root);
    if (!text)
        goto out;
    printf("%s\n", text);
    status = 0;
out:
    if (status)
        mc_error("out of memory");
    cJSON_free(text);
    cJSON_Delete(root);
    return status;
}

/*
 * What MAXCODE_SIGNING_KEY and MAXCODE_TRUSTED_KEYS of C mean, in words
 * (the key files read and checked; the secret key never shown, only its
 * public half); 1, having said why on stderr, when one cannot be used.
 */
static int
trust(const struct mc_conf *c)
{
    const char *secret = mc_conf_get(c, MC_SET_SIGNING_KEY),
               *trusted = mc_conf_get(c, MC_SET_TRUSTED_KEYS);
    struct mc_err err = MC_ERR_INIT;
    struct mc_sign_keys k;
    char pub[MC_SIGN_KEY_TEXT];
    int status = 0;

    mc_sign_keys_init(&k);
    putchar('\n');
    if (!*secret) {
        printf("Entries stored here are not signed (MAXCODE_SIGNING_KEY "
               "is not set).\n");
    } else if (mc_sign_load_secret(&k, secret, &err)) {
        mc_error("MAXCODE_SIGNING_KEY: %s", err.msg);
        status = 1;
    } else {
        mc_sign_key_text(k.public, pub);
        printf("Entries stored here are signed by maxcode-ed25519 %s.\n",
               pub);
    }
    mc_err_clear(&err);
    if (!*trusted) {
        printf("MAXCODE_TRUSTED_KEYS is not set: entries from a remote "
               "cache or an\narchive are trusted as they come (their "
               "checksum and key are checked,\nnot who wrote them; "
               "doc/sharing.md).\n");
    } else if (mc_sign_load_trusted(&k, trusted, &err)) {
        mc_error("MAXCODE_TRUSTED_KEYS: %s", err.msg);
        status = 1;
    } else {
        printf("Entries from a remote cache or an archive are stored only "
               "when signed by\na key of '%s' (%zu key%s).\n", trusted,
               k.n_trusted, k.n_trusted == 1 ? "" : "s");
    }
    mc_sign_keys_release(&k);
    return status;
}

/* Each setting's variable name, or each option's key, one a line. */
static int
list_names(int options)
{
    size_t i;

    for (i = 0; options && i < MC_OPT__COUNT; i++)
        printf("%s\n", mc_target_opt_name((enum mc_opt)i));
    for (i = 0; !options && i < MC_SET__COUNT; i++)
        printf("%s\n", mc_conf_name((enum mc_setting_id)i));
    return 0;
}

int
mc_cmd_config(int argc, char **argv)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_conf c;
    int json = 0, i, status;
    size_t k;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (argc == 2 && !strcmp(argv[i], "--list-settings"))
            return list_names(0);
        else if (argc == 2 && !strcmp(argv[i], "--list-options"))
            return list_names(1);
        else if (argv[i][0] == '-')
            return mc_usage_error("config: unknown option '%s'", argv[i]);
        else
            return mc_usage_error("config: unexpected argument '%s'", argv[i]);
    }
    if (mc_conf_load(&c, NULL, NULL, &err)) {
        mc_error("%s", err.msg);
        return 1;
    }
    if (json) {
        status = print_config_json(&c);
    } else {
        for (k = 0; k < MC_SET__COUNT; k++) {
            enum mc_setting_id id = (enum mc_setting_id)k;
            printf("%-21s = %-24s (%s)\n", mc_conf_name(id),
                   shown_value(&c, id), mc_conf_where(&c, id));
        }
        status = trust(&c);
    }
    mc_conf_release(&c);
    return status;
}
