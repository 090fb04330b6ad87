/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_config.c: `maxcode config [--json]` prints every setting, its value
 * and where it came from (the settings table in conf.c). Secret values
 * are never shown, only whether they are set. Two options the manual
 * does not list, --list-settings and --list-options, print the names in
 * the settings table and in the options table (target.c), for the test
 * that maxcode(7) documents each of them (tests/t0093-manpages.sh).
 */
#include "mc_setup.h"
#include "commands.h"
#include "conf.h"
#include "log.h"
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
        status = 0;
    }
    mc_conf_release(&c);
    return status;
}
