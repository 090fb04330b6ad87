/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * remote.h: the remote cache, an HTTP server that keeps entry files
 * under their keys, as ccache's HTTP storage does (nginx with WebDAV, or
 * any object store that takes GET, HEAD and PUT).
 *
 *   MAXCODE_REMOTE = URL *("|" ATTRIBUTE)
 *   URL            = "http://" or "https://" HOST [":" PORT] [PATH]
 *   ATTRIBUTE      = "read-only" / "layout=subdirs" / "layout=flat"
 *
 * An entry KEY (32 hex digits) lives at URL/ab/KEY (layout=subdirs, the
 * default, "ab" being KEY's first two digits) or URL/KEY (layout=flat).
 * Its body is the entry file's bytes (internals/cache.md), checked by
 * their checksum before they are used. MAXCODE_REMOTE_TOKEN, when set,
 * goes in an "Authorization: Bearer" header and nowhere else; a URL
 * with a user or password in it is refused by the settings (conf.c).
 *
 * Only `maxcode optimize` talks to the remote, never make's thread: a
 * local miss emits the search rule, and the recipe fetches before it
 * searches (remote.c and maxcode(7) say why).
 */
#ifndef MC_REMOTE_H
#define MC_REMOTE_H

#include "buf.h"
#include "conf.h"
#include "status.h"

struct mc_remote {
    char *url;                /* without a trailing '/' */
    int read_only;
    int flat;                 /* layout=flat */
    const char *token;        /* MAXCODE_REMOTE_TOKEN, or "" (borrowed) */
    double timeout_s, connect_timeout_s;
    void *curl;               /* one easy handle, reused */
};

/* Set R up from the settings C; MC_ENOENT when MAXCODE_REMOTE is empty,
 * MC_ECONFIG (saying what is wrong) when it does not parse, or when a
 * token would go over http:// to a host outside the loopback (127.0.0.0/8,
 * ::1, localhost) without MAXCODE_REMOTE_INSECURE=1. C must outlive R.
 * Release R with mc_remote_release() in every case. */
enum mc_code mc_remote_init(struct mc_remote *r, const struct mc_conf *c,
                            struct mc_err *err);
void mc_remote_release(struct mc_remote *r);

/* The object URL of KEY into B. */
enum mc_code mc_remote_url(const struct mc_remote *r, const char *key,
                           struct mc_buf *b);

/*
 * GET the entry KEY into OUT (emptied first). MC_ENOENT on 404 (a miss);
 * MC_ESYNTAX when the answer is larger than any entry (MC_ENTRY_MAX): the
 * transfer is cut off there and OUT holds no entry; MC_EIO for anything
 * else that went wrong (no connection, a timeout, another status), ERR
 * saying what, without the token. Whatever the server sends, OUT holds
 * at most MC_ENTRY_MAX bytes, and an error page at most a few KiB.
 */
enum mc_code mc_remote_get(struct mc_remote *r, const char *key,
                           struct mc_buf *out, struct mc_err *err);

/* PUT the LEN bytes at DATA as the entry KEY. MC_EINVAL on a read-only
 * remote (nothing is sent); MC_EIO as for mc_remote_get(), and when the
 * answer runs past a few KiB (it is cut off there). */
enum mc_code mc_remote_put(struct mc_remote *r, const char *key,
                           const void *data, size_t len, struct mc_err *err);

#endif /* MC_REMOTE_H */
