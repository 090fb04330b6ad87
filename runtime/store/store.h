/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * store.h: where entry files are kept, behind one interface. A backend is
 * a table of operations (struct mc_store_ops, as curl's vtls backends
 * and git's ref backends are), one file each, and one row of stores[] in
 * store.c; the code that fetches and pushes (remote.h) names none of
 * them.
 *
 *   backend  file           MAXCODE_REMOTE
 *   local    store_local.c  (never: the local store, cache.h)
 *   http     store_http.c   "http://" or "https://" URL
 *   file     store_file.c   "file://" DIRECTORY, on a shared file system
 *
 * MAXCODE_REMOTE's grammar, common to the backends that take it:
 *
 *   MAXCODE_REMOTE = WHERE *("|" ATTRIBUTE)
 *   WHERE          = SCHEME "://" REST     ; SCHEME: a row's scheme
 *   ATTRIBUTE      = "read-only" / "layout=subdirs" / "layout=flat"
 *
 * An entry KEY (32 hex digits) is the object "ab/KEY" (layout=subdirs,
 * the default, "ab" being KEY's first two digits) or "KEY" (layout=flat)
 * beneath WHERE, whose trailing '/'s are dropped. The object's bytes are
 * the entry file's (internals/cache.md). A store hands them over as they
 * came: whatever comes from a store other than the local one is
 * untrusted, and enters the local store only through mc_cache_import()
 * (remote.c does that).
 *
 * Adding a backend: a file store_NAME.c with one const struct
 * mc_store_ops mc_store_NAME, and its row in stores[] (store.c, which
 * declares it there). Nothing else names it: the schemes MAXCODE_REMOTE
 * may use are the rows', and mc_store_find() finds a backend by name.
 */
#ifndef MC_STORE_H
#define MC_STORE_H

#include "buf.h"
#include "conf.h"
#include "status.h"

struct mc_store;

struct mc_store_ops {
    const char *name;             /* "http": for messages and the docs */
    /* The prefixes of MAXCODE_REMOTE values this backend takes
     * ("http://", "https://"), up to a NULL; NULL: none (local). */
    const char *const *schemes;
    /*
     * Set S up for WHERE (MAXCODE_REMOTE up to its attributes, without
     * a trailing '/'; for local, the cache directory) with the settings
     * C, S->read_only and S->flat already set. The backend's own state
     * goes in S->state. MC_ECONFIG when WHERE or a setting cannot be
     * used, MC_EIO when the store cannot be reached; ERR says what.
     * close() is called in every case.
     */
    enum mc_code (*open)(struct mc_store *s, const char *where,
                         const struct mc_conf *c, struct mc_err *err);
    /*
     * The object of KEY into OUT (emptied first), at most MC_ENTRY_MAX
     * bytes and unchecked. MC_ENOENT: there is none (a miss, no
     * message). MC_ESYNTAX: there is one, but it cannot be an entry
     * (larger than any, not a regular file, a link): no bytes in OUT.
     * MC_EIO: the store failed (no connection, a timeout, a status),
     * ERR saying what, without a secret.
     */
    enum mc_code (*get)(struct mc_store *s, const char *key,
                        struct mc_buf *out, struct mc_err *err);
    /*
     * Keep the LEN bytes at DATA as the object of KEY, whole or not at
     * all: a reader never sees part of them. MC_EINVAL on a read-only
     * store (nothing is written); MC_EIO.
     */
    enum mc_code (*put)(struct mc_store *s, const char *key,
                        const void *data, size_t len, struct mc_err *err);
    /* Where S keeps its objects, as messages may show it (no user name,
     * password or token), into OUT (CAP bytes). */
    void (*describe)(const struct mc_store *s, char *out, size_t cap);
    /* Free S->state; S may be half set up. */
    void (*close)(struct mc_store *s);
};

struct mc_store {
    const struct mc_store_ops *ops; /* NULL: not open */
    int read_only;                  /* |read-only */
    int flat;                       /* layout=flat */
    void *state;                    /* the backend's */
    /* Counters of this store's traffic, for the caller to add to its
     * own: bytes of objects got (found or not used) and put. */
    unsigned long long bytes_in, bytes_out;
};
#define MC_STORE_INIT {NULL, 0, 0, NULL, 0, 0}

/*
 * Open S on SPEC, a MAXCODE_REMOTE value, with the backend whose scheme
 * SPEC starts with and the settings C (which must outlive S). MC_ENOENT
 * (no message) when SPEC is empty; MC_ECONFIG when no backend takes its
 * scheme ("'SPEC' is not an http://, https:// or file:// URL", from the
 * rows), when an attribute is unknown, or as the backend's open() says;
 * MC_EIO, MC_ENOMEM. Release S with mc_store_close() in every case.
 */
enum mc_code mc_store_open(struct mc_store *s, const char *spec,
                           const struct mc_conf *c, struct mc_err *err);

/* The backend named NAME ("local"), or NULL. */
const struct mc_store_ops *mc_store_find(const char *name);

/* Open S with the backend OPS on WHERE (no attributes), as above. */
enum mc_code mc_store_open_with(struct mc_store *s,
                                const struct mc_store_ops *ops,
                                const char *where, const struct mc_conf *c,
                                struct mc_err *err);

/* The backend's get() and put() (store.h's contracts), counting the
 * bytes in S->bytes_in and S->bytes_out; put() on a read-only S is
 * MC_EINVAL ("the remote is read-only") before the backend is asked. */
enum mc_code mc_store_get(struct mc_store *s, const char *key,
                          struct mc_buf *out, struct mc_err *err);
enum mc_code mc_store_put(struct mc_store *s, const char *key,
                          const void *data, size_t len, struct mc_err *err);

/* S's describe(), or "" when S is not open. */
void mc_store_describe(const struct mc_store *s, char *out, size_t cap);

/* Close S (open or not) and set it up as MC_STORE_INIT. */
void mc_store_close(struct mc_store *s);

/* The object name of KEY under S's layout ("ab/KEY" or "KEY") into B. */
enum mc_code mc_store_object(const struct mc_store *s, const char *key,
                             struct mc_buf *b);

/* The schemes MAXCODE_REMOTE may use, from the rows, as "http://,
 * https:// or file://" into OUT (CAP bytes). */
void mc_store_schemes(char *out, size_t cap);

#endif /* MC_STORE_H */
