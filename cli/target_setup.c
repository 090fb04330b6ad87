/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * target_setup.c: the setup shared by `maxcode optimize` and `maxcode
 * eval`, from the settings to a target with its build resolved. The
 * build's variables come from the command's environment, where the rules
 * the plugin emits put what make resolved.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "commands.h"
#include "log.h"
#include "target_setup.h"

/* A variable of the build, from the environment (mc_target_var_fn). */
static char *
env_var(const char *name, void *ctx)
{
    const char *v = getenv(name);

    (void)ctx;
    return v ? mc_strdup(v) : NULL;
}

int
mc_target_setup_load(struct mc_target_setup *s, const char *source,
                     char *const *args, size_t n)
{
    struct mc_err err = MC_ERR_INIT;
    enum mc_log_level level;
    int status = 0;

    memset(s, 0, sizeof(*s));
    if (mc_conf_load(&s->conf, NULL, NULL, &err)) {
        mc_error("%s", err.msg);
        status = 1;
        goto out;
    }
    if (mc_target_parse_marked(&s->t, source, args, n, &s->conf, &err)) {
        mc_error("%s: %s", source, err.msg);
        status = MC_EXIT_USAGE;
        goto out;
    }
    if (!mc_log_parse_level(mc_conf_get(&s->t.conf, MC_SET_LOG), &level))
        mc_log_set_level(level);
out:
    return status;
}

int
mc_target_setup_build(struct mc_target_setup *s,
                      const struct mc_target_setup_build *b)
{
    struct mc_err err = MC_ERR_INIT;
    int status = 0;

    if (mc_target_resolve_build(&s->t, env_var, NULL, &s->from_db, &err)) {
        mc_error("%s: %s", s->t.source, err.msg);
        status = 1;
        goto out;
    }
    if (mc_target_override_build(&s->t, b->cc, b->flags, b->ld, b->ldflags,
                                 b->ldlibs, &err)) {
        mc_error("%s", err.msg);
        status = err.code == MC_ENOMEM ? 1 : MC_EXIT_USAGE;
        goto out;
    }
out:
    return status;
}

void
mc_target_setup_release(struct mc_target_setup *s)
{
    mc_target_release(&s->t);
    mc_conf_release(&s->conf);
}
