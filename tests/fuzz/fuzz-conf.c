/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-conf.c: a libFuzzer target for the maxcode.conf reader,
 * mc_conf_read_file(). The input is written to a scratch file and read
 * over the defaults (an input such as
 *   # a comment
 *   budget = 8
 *   MAXCODE_LLM_URL = "http://localhost:8000/v1"
 * reaches the settings' checks). Nothing may crash, leak or read out of
 * bounds; a failure must carry its code and a message naming the file;
 * every value read must pass its own check again, and say it came from
 * the file.
 *
 * Built with `make fuzz` (tests/fuzz/build.sh).
 */
#include "mc_setup.h"
#include "fuzz-util.h"
#include "conf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether every value of C that came from PATH is one it accepts. */
static int
consistent(const struct mc_conf *c, const char *path)
{
    int id;

    for (id = 0; id < MC_SET__COUNT; id++) {
        struct mc_err err = MC_ERR_INIT;
        const char *v = mc_conf_get(c, (enum mc_setting_id)id);

        if (mc_conf_origin(c, (enum mc_setting_id)id) != MC_FROM_PROJECT)
            continue;
        if (strncmp(mc_conf_where(c, (enum mc_setting_id)id), path,
                    strlen(path)) ||
            mc_conf_check((enum mc_setting_id)id, v, NULL, &err) != MC_OK)
            return 0;
    }
    return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_input_file(data, size);
    struct mc_err err = MC_ERR_INIT;
    struct mc_conf c;
    enum mc_code rc;

    if (mc_conf_init(&c, &err))
        abort();
    rc = mc_conf_read_file(&c, path, MC_FROM_PROJECT, &err);
    if (rc != MC_OK &&
        (err.code != rc || rc != MC_ECONFIG || !strstr(err.msg, path)))
        abort();
    if (rc == MC_OK && !consistent(&c, path))
        abort();
    mc_conf_release(&c);
    return 0;
}
