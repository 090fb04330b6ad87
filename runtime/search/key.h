/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * key.h: the versions that go into every content key, as this build has
 * them: the cache entry format (cache.h) and the prompt templates'
 * version (prompt.h). The target module computes keys without knowing
 * either; whoever keys a target passes them in (struct mc_key_versions
 * in target.h), and key.c also keeps mc_target_key(), the old form that
 * fills them itself.
 */
#ifndef MC_KEY_H
#define MC_KEY_H

#include "target.h"

/*
 * Fill V with this build's versions: MC_ENTRY_VERSION as a decimal
 * string and mc_prompt_version(). The strings are static storage.
 */
void mc_key_versions_current(struct mc_key_versions *v);

#endif /* MC_KEY_H */
