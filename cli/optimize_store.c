/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * optimize_store.c: what `maxcode optimize` does to the cache around a
 * lookup and a store (optimize_store.h).
 */
#include "mc_setup.h"
#include "optimize_store.h"
#include "conf.h"
#include "eval.h"
#include "log.h"

/*
 * MAXCODE_MODE=verify: re-check the cached variant E with the executor
 * before it is used. A variant that is the original needs no check; one
 * that fails is replaced, in E, by the original.
 */
void
mc_optimize_verify_entry(struct mc_target *t, const char *cache_dir,
                         struct mc_entry *e)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_feedback fb;
    struct mc_eval ev;
    int ok = 0;

    if (e->variant.len == t->text.len &&
        !memcmp(e->variant.s, t->text.s, t->text.len))
        return;
    mc_feedback_init(&fb);
    if (mc_eval_init(&ev, t, cache_dir, &err) == MC_OK &&
        mc_eval_candidate(&ev, e->variant.s, e->variant.len,
                          strcmp(mc_target_get(t, MC_OPT_SANITIZE), "0"), 0,
                          &fb, &err) == MC_OK)
        ok = fb.correct;
    mc_eval_release(&ev);
    if (ok) {
        mc_info("%s: cached variant %s verified", t->source, e->key);
    } else {
        mc_info("%s: cached variant %s failed verification (%s); using the "
                "original", t->source, e->key,
                err.code ? err.msg : fb.detail.s);
        mc_buf_reset(&e->variant);
        mc_buf_add(&e->variant, t->text.s, t->text.len);
    }
    mc_feedback_release(&fb);
}

/* Trim the cache when it has grown past MAXCODE_MAX_SIZE: down to 90%,
 * so that not every store trims. */
void
mc_optimize_auto_trim(struct mc_cache *c, const struct mc_conf *conf)
{
    struct mc_cache_items items;
    unsigned long long max = 0;

    if (mc_conf_parse_size(mc_conf_get(conf, MC_SET_MAX_SIZE), &max) ||
        mc_cache_scan(c, &items, NULL))
        return;
    if (items.total > max)
        mc_cache_trim(c, max / 10 * 9, NULL, NULL);
    mc_cache_items_release(&items);
}
