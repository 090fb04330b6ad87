/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * key.c: this build's key versions, and mc_target_key(), which keys a
 * target with them. Here, not in target.c, so that the target module
 * depends on neither the cache nor the prompts.
 */
#include "mc_setup.h"
#include "key.h"
#include "cache.h"
#include "prompt.h"
#include "value.h"

/* MC_ENTRY_VERSION as a string literal: "1". */
#define STR_(x) #x
#define STR(x)  STR_(x)

void
mc_key_versions_current(struct mc_key_versions *v)
{
    v->entry_format = STR(MC_ENTRY_VERSION);
    v->prompt_version = mc_prompt_version();
    v->value_model = mc_value_identity;
}

enum mc_code
mc_target_key(const struct mc_target *t, int trace,
              char hex[MC_KEY_HEX + 1], struct mc_err *err)
{
    struct mc_key_versions v;

    mc_key_versions_current(&v);
    return mc_target_key_with(t, &v, trace, hex, err);
}
