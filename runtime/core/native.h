/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * native.h: isa=native made concrete. What -march=native means depends
 * on the machine and the compiler, so a key that said only "native"
 * would serve a variant tuned for one CPU on another. The key hashes the
 * architecture the compiler resolves -march=native to on this machine
 * instead: gcc's "-march=X" on the cc1 line of `CC -march=native -E -v -`,
 * clang's "-target-cpu X" in the same output, else "cpu-HEX", a hash of
 * /proc/cpuinfo's flags (or Features) line.
 *
 * Resolving runs the compiler, so it happens once per machine and
 * compiler identity, in `maxcode optimize` (the search recipe); the
 * result is remembered, and make's thread (the plugin) only reads it:
 *
 *   CACHE_DIR/native/MACHINE-HEX.arch
 *     MACHINE   = /etc/machine-id, else the host name (as for CUDA);
 *                 with MAXCODE_LAUNCHER, "launcher-" and 16 hex digits
 *                 of the launcher's hash: its nodes' architecture,
 *                 resolved on a node through the launcher
 *     HEX       = XXH3-128 of the compiler identity (compiler.h)
 *     arch-file = ARCH SP CPU LF
 *     ARCH      = 1*(ALPHA / DIGIT / "-" / "_" / "." / "+")
 *     CPU       = 32HEXDIG, the hash of the flags line when it was
 *                 resolved: a machine whose CPU changed resolves again
 *
 * Until it is resolved, the plugin keys the target MC_NATIVE_UNRESOLVED
 * ("native:unresolved", target.h).
 * A cached variant may also carry `#pragma GCC target("arch=X")` (or a
 * target("...arch=X...") attribute) for some X: mc_native_check_variant()
 * tells whether this machine may run it.
 *
 * Test hook: MAXCODE_NATIVE_ARCH=NAME is the resolved value, everywhere
 * but for a launcher's nodes (whose own environment says); nothing is
 * resolved or remembered then.
 */
#ifndef MC_NATIVE_H
#define MC_NATIVE_H

#include "status.h"
#include "target.h"

#define MC_NATIVE_ARCH_MAX 64 /* bytes of an architecture name, NUL too */

/*
 * What -march=native means for COMPILER (a command), as its driver
 * resolves it, into ARCH (CAP bytes): "" when it cannot tell. Runs the
 * compiler (60 s at most); never reads or writes the remembered value.
 */
void mc_native_march(const char *compiler, char *arch, size_t cap);

/*
 * This machine's native architecture for T's compiler (under T's
 * MAXCODE_COMPILER_CHECK and MAXCODE_CACHE_DIR) into ARCH, CAP bytes:
 * the hook's, else the remembered one, else "" when RESOLVE is 0. With
 * RESOLVE, one that is not remembered is resolved now and remembered,
 * and *NOW (when not NULL) is set to 1. Errors: those of
 * mc_compiler_identity(); a value that cannot be remembered is only
 * logged (verbose).
 */
enum mc_code mc_native_host(const struct mc_target *t, int resolve,
                            char *arch, size_t cap, int *now,
                            struct mc_err *err);

/*
 * Remember ARCH (what mc_native_host() gives; refused with MC_EINVAL
 * when it is not such a name) as the native architecture for T: of this
 * machine, or with MAXCODE_LAUNCHER set, of the launcher's nodes, which
 * `maxcode optimize --launch` resolves through the launcher. forget
 * removes what is remembered for T (the nodes changed).
 */
enum mc_code mc_native_remember(const struct mc_target *t, const char *arch,
                                struct mc_err *err);
void mc_native_forget(const struct mc_target *t);

/*
 * For a target with isa=native, set T->native_arch (hashed into its
 * key) from mc_native_host() with RESOLVE and NOW as there; NULL when
 * it is unknown (the key then says native:unresolved). Nothing for
 * other targets.
 */
enum mc_code mc_native_set_target(struct mc_target *t, int resolve,
                                  int *now, struct mc_err *err);

/*
 * The first architecture X named as arch=X in a target("...") pragma or
 * attribute of TEXT (LEN bytes) that is not HOST ("" matches none) and
 * that ORIG (OLEN bytes; NULL for none) does not name as well, into OUT
 * (CAP bytes). Returns 1 when there is one, else 0. target_clones(...)
 * dispatches at run time and is not counted.
 */
int mc_native_foreign_arch(const char *text, size_t len, const char *orig,
                           size_t olen, const char *host, char *out,
                           size_t cap);

/*
 * Whether the cached VARIANT (LEN bytes) of T may be used on this
 * machine: *FITS is 1 unless it names an architecture (as
 * mc_native_foreign_arch() finds, against T's original text) that is
 * not this machine's native one for T's compiler (mc_native_host(),
 * with RESOLVE) or when that is unknown; then *FITS is 0, FOUND holds
 * X and HOST this machine's ("" when unknown). Cheap when VARIANT has
 * no "arch=". Errors are mc_native_host()'s.
 */
enum mc_code mc_native_check_variant(const struct mc_target *t,
                                     const char *variant, size_t len,
                                     int resolve, int *fits,
                                     char found[MC_NATIVE_ARCH_MAX],
                                     char host[MC_NATIVE_ARCH_MAX],
                                     struct mc_err *err);

/* This machine's name for the files it remembers (the native
 * architecture here, the CUDA probe in cuda.c): /etc/machine-id, else
 * the host name, else "machine"; at most CAP - 1 bytes into OUT. */
void mc_machine_id(char *out, size_t cap);

#endif /* MC_NATIVE_H */
