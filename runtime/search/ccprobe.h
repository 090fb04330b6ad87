/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * ccprobe.h: which of the source-level directives the built-in proposer
 * may write a compiler accepts. Each item is compiled alone, into a
 * small function with a loop, with -Werror -Wall (and -Wextra for the
 * attributes), so that an option the compiler does not know, or a
 * pragma or attribute it would ignore, is a failure:
 *
 *   opt:NAME      #pragma GCC optimize ("NAME") before the function
 *   fnopt:NAME    __attribute__((optimize("NAME"))) on the function
 *   attr:NAME     __attribute__((NAME)) on the function
 *   loop:TEXT     #pragma TEXT before the loop
 *   expect        __builtin_expect in the loop's condition
 *
 * The answers are remembered per compiler identity (compiler.h: the
 * binary's content by default, so a new compiler is probed again):
 *
 *   CACHE_DIR/probes/HEX
 *     HEX   = XXH3-128 of the compiler identity and the language name
 *     file  = *( ITEM SP ("0" / "1") LF )
 *
 * Items missing from the file are probed and the file is written again
 * (atomically); a line that does not parse is ignored.
 */
#ifndef MC_CCPROBE_H
#define MC_CCPROBE_H

#include <stddef.h>
#include "status.h"
#include "target.h"

/*
 * Whether T's compiler accepts each of the N ITEMS (at most 64): bit I
 * of *OK for ITEMS[I]. Remembered under T's cache directory. A probe
 * that cannot run at all (no compiler) leaves the bit clear. MC_ENOMEM;
 * MC_EINVAL when the compiler's identity cannot be computed (ERR says
 * why).
 */
enum mc_code mc_ccprobe(const struct mc_target *t, const char *const *items,
                        size_t n, unsigned long *ok, struct mc_err *err);

#endif /* MC_CCPROBE_H */
