/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-trajectory.c: a libFuzzer target for the reader of a cache
 * entry's TRAJ section (mc_trajectory_parse), text that comes from other
 * machines through a shared or remote cache. The input is read as the
 * section (an input such as
 *   {"maxcode_trajectory":1,"key":"k","lang":"c","gamma":1}
 *   {"parent":-1,"fr":2,"speedup":1.9,"code":"int x;"}
 * reaches the nodes). Nothing may crash, leak or read out of bounds; a
 * failure must carry its code and a message; a trajectory read must
 * have every parent earlier than its node, depths that follow the
 * parents, f_r and u_t within the bins and u_t never below its parent's.
 *
 *   clang -fsanitize=fuzzer,address,undefined -DHAVE_CONFIG_H -I . \
 *       -I runtime tests/fuzz/fuzz-trajectory.c runtime/.libs/libmaxcode.a \
 *       $(pkg-config --libs libcjson libxxhash libcurl) -lm \
 *       -o fuzz-trajectory
 *   (libmaxcode.a from ./configure --enable-asan --enable-ubsan && make)
 */
#include "mc_setup.h"
#include "journal.h"
#include "rollout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether T, as a successful parse left it, is consistent. */
static int
consistent(const struct mc_trajectory *t)
{
    size_t i;

    for (i = 0; i < t->n; i++) {
        const struct mc_search_node *nd = &t->nodes[i];
        int p = nd->parent;

        if (p >= (int)i || p < -1 ||
            nd->depth != (p >= 0 ? t->nodes[p].depth + 1 : 1) ||
            nd->fr < 0 || nd->fr >= MC_ROLLOUT_BINS || !(nd->ut >= 0) ||
            nd->ut > MC_ROLLOUT_BINS - 1 ||
            (p >= 0 && nd->ut < t->nodes[p].ut))
            return 0;
    }
    return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mc_trajectory t;
    struct mc_err err = MC_ERR_INIT;
    enum mc_code rc;

    mc_trajectory_init(&t);
    rc = mc_trajectory_parse((const char *)data, size, &t, &err);
    if (rc && (err.code != rc || !err.msg[0]))
        abort();
    if (!rc && !consistent(&t))
        abort();
    mc_trajectory_release(&t);
    return 0;
}
