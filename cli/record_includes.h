/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * record_includes.h: what an entry's INCL records hold (cache.h): the
 * include files a target's source reads, each with its hash, found by
 * the compiler's -MM when `maxcode optimize` measures the original.
 */
#ifndef MC_RECORD_INCLUDES_H
#define MC_RECORD_INCLUDES_H

#include "buf.h"
#include "status.h"
#include "target.h"

/*
 * The include files of T (from the compiler's -MM), each with its hash,
 * as "HASH PATH\n" lines in OUT: a path inside make's directory relative
 * to it, as the lookup reads it, so the entry holds for the same checkout
 * elsewhere. System headers are left out: the compiler identity stands
 * for them. MC_EINVAL (in ERR) when the compiler fails.
 */
enum mc_code mc_record_includes(const struct mc_target *t,
                                struct mc_buf *out, struct mc_err *err);

#endif /* MC_RECORD_INCLUDES_H */
