/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * share.h: an entry as it leaves this machine, for a remote cache (the
 * PUT of a new entry) or an archive (`maxcode cache export`).
 *
 * The local store keeps the manifest as the search wrote it, with
 * absolute paths (source_path, where `show` and `bench` find the source
 * and the directory the search ran in). A shared copy must not tell its
 * readers the writer's user name or directory layout, so in it:
 *   - source_path is the source's path relative to make's directory
 *     ("src/hot.c", or "../lib/hot.c" for a source outside it);
 *   - any other string of the manifest (source, compiler, flags, include
 *     paths, option values, critiques) that names a path inside make's
 *     directory names it relative to that directory ("-I/home/u/p/inc"
 *     becomes "-Iinc", "/home/u/p" itself ".").
 * Paths outside make's directory other than source_path (a system
 * compiler, /usr/include) stay as they are. The header (key, created)
 * and the other sections stay; the entry is re-encoded with its own
 * checksum. A reader that stores such an entry keeps it as it came:
 * `show` and `bench` resolve a relative source_path against the
 * directory they run in (make's directory).
 */
#ifndef MC_SHARE_H
#define MC_SHARE_H

#include <stddef.h>
#include "buf.h"
#include "status.h"

/*
 * DATA (LEN bytes), an entry file that mc_entry_decode() accepts, as it
 * may leave this machine. MAKE_DIR is make's directory (absolute, as
 * getcwd() gives it), or NULL to take it from the manifest: source_path
 * with the relative source taken off its end, else source_path's own
 * directory. When the manifest names an absolute path to rewrite, OUT
 * (emptied first) gets the re-encoded entry and *CHANGED is 1; sections
 * this version does not know are not carried over, nor is a signature
 * (the rewritten bytes are not what was signed): OUT is signed anew
 * when KEYS (may be NULL) can sign (cache.h, mc_entry_sign()), and goes
 * unsigned otherwise. Otherwise *CHANGED is 0, OUT is empty and DATA
 * goes as it is, signature included. MC_ESYNTAX when DATA is no entry;
 * MC_ENOMEM; what mc_entry_sign() returns.
 */
struct mc_sign_keys;
enum mc_code mc_share_entry(const void *data, size_t len,
                            const char *make_dir,
                            const struct mc_sign_keys *keys,
                            struct mc_buf *out, int *changed,
                            struct mc_err *err);

#endif /* MC_SHARE_H */
