/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cache.h: the local content-addressed store under MAXCODE_CACHE_DIR.
 *
 * Layout:
 *   DIR/ab/cd/<key>.mce      an entry (key = 32 hex digits, ab cd = its
 *                            first four)
 *   DIR/ab/cd/<key>.lock     per-key lock: one search per key at a time
 *   DIR/ab/cd/.<key>.mce.tmp.<pid>.<random>
 *                            an entry being written (never read)
 *   DIR/stats, stats.lock    counters, updated under the lock
 *
 * Entry format (all integers little-endian; doc/internals/cache.md):
 *   entry    = header payload trailer
 *   header   = magic version key created payload-len      ; 40 bytes
 *   magic    = "MCXE"                                     ; 4 bytes
 *   version  = u32                                        ; MC_ENTRY_VERSION
 *   key      = 16 bytes                                   ; binary key
 *   created  = i64                                        ; Unix seconds
 *   payload-len = u64
 *   payload  = *section [signature]
 *   section  = tag length data
 *   tag      = "MANI" / "VARI" / "INCL" / "TRAJ" / "NOTE"   ; 4 bytes
 *   length   = u64
 *   signature = "SIGN" length public-key signed           ; the last
 *                                                         ; section; length
 *                                                         ; is 96
 *   public-key = 32 OCTET                                 ; the signer's
 *                                                         ; (sign.h)
 *   signed   = 64 OCTET                                   ; Ed25519, over
 *                                                         ; unsigned-entry
 *   unsigned-entry = the entry without its signature: the header with
 *              payload-len less 108, the sections before SIGN, and an
 *              XXH3-128 trailer of those, i.e. the very bytes a writer
 *              without a key writes
 *   trailer  = XXH3-128 of header and payload             ; 16 bytes
 * MANI is the manifest (JSON), VARI the variant source, INCL the include
 * records, one per line: 32 hex digits (mc_hash_file_hex() of the file:
 * XXH3-128 over its bytes framed as the key field "file"), a space, the
 * path. TRAJ, written only when the entry comes from a search, is its
 * trajectory: every node's code, feedback and critique (journal.h,
 * doc/internals/rollouts.md). NOTE, written only when the original is
 * kept for a cause in the Makefile (it does not build, crashes, fails
 * its check, ...; not when nothing was faster), is one line that every
 * build using the entry says: the reason and its fix (mc_hit_say_note(),
 * hit.h). A reader older than NOTE skips it. SIGN, written by a machine with a signing
 * key (MAXCODE_SIGNING_KEY), is outside what the key hashes and leaves
 * the version alone: a reader that does not know it skips it, as it
 * skips every unknown tag. An entry is written to a temporary
 * file in its directory and renamed into place, so a reader sees either
 * the whole old entry, the whole new one, or none. A reader that finds a
 * bad magic, version, length, key or checksum counts it (`corrupt`),
 * removes the file and reports a miss. The local store is trusted as
 * it is: signatures are checked where an entry from outside enters it,
 * in mc_cache_import(), never on the plugin's hit path.
 */
#ifndef MC_CACHE_H
#define MC_CACHE_H

#include <stdint.h>
#include <time.h>
#include "buf.h"
#include "hash.h"
#include "sign.h"
#include "status.h"

#define MC_ENTRY_VERSION 1

/* The largest entry file maxcode writes (mc_entry_encode() refuses to
 * make a larger one), and so the most a remote's answer to a GET may
 * hold (store_http.c stops reading past it). An entry is a source, its
 * include records and a manifest with the search's trajectory: a few
 * hundred KiB in practice. */
#define MC_ENTRY_MAX (64u << 20)

struct mc_cache {
    char *dir;
    /* MAXCODE_SIGNING_KEY and MAXCODE_TRUSTED_KEYS (borrowed; NULL:
     * entries are stored unsigned and those from outside taken as they
     * come), set by the caller after mc_cache_init(). */
    const struct mc_sign_keys *keys;
};
#define MC_CACHE_INIT {NULL, NULL}

struct mc_entry {
    char key[MC_KEY_HEX + 1];
    int64_t created;
    time_t mtime;            /* of the entry file, when read from one */
    struct mc_buf manifest;  /* JSON text */
    struct mc_buf variant;   /* source text of the variant */
    struct mc_buf includes;  /* "HASH PATH\n" lines */
    struct mc_buf trajectory; /* the search's rollout (TRAJ), JSON lines
                               * (journal.h); empty: none */
    struct mc_buf note;      /* NOTE: one line said at each hit; empty:
                              * none */
};

/* The counters, in the order the stats file lists them. The file names
 * each one, so that a counter added at the end reads as 0 from an older
 * file and an older maxcode ignores it (internals/cache.md). */
enum mc_stat {
    MC_STAT_HITS,
    MC_STAT_MISSES,
    MC_STAT_STORES,
    MC_STAT_SEARCHES,
    MC_STAT_OPTIMIZED,
    MC_STAT_FALLBACKS,
    MC_STAT_CANDIDATES,
    MC_STAT_LLM_REQUESTS,
    MC_STAT_TOKENS_IN,
    MC_STAT_TOKENS_OUT,
    MC_STAT_CORRUPT,
    MC_STAT_TRIMMED,
    MC_STAT_REMOTE_HITS,
    MC_STAT_REMOTE_MISSES,
    MC_STAT_REMOTE_ERRORS,
    MC_STAT_REMOTE_CORRUPT,
    MC_STAT_REMOTE_STORES,
    MC_STAT_REMOTE_BYTES_IN,
    MC_STAT_REMOTE_BYTES_OUT,
    /* The fallbacks by reason (mc_fallback_reason_of(), search.h); they
     * add up to MC_STAT_FALLBACKS. */
    MC_STAT_FALLBACK_NO_SPEEDUP,
    MC_STAT_FALLBACK_INCORRECT,
    MC_STAT_FALLBACK_NO_BUILD,
    MC_STAT_FALLBACK_NO_MODEL,
    MC_STAT_FALLBACK_NO_DEVICE,
    MC_STAT_FALLBACK_BUDGET,
    MC_STAT_FALLBACK_OTHER,
    MC_STAT_SEARCH_MS,   /* milliseconds spent in searches */
    MC_STAT_REMOTE_UNTRUSTED, /* entries from a remote or an archive
                               * refused: not signed by a trusted key */
    MC_STAT_LAUNCHED,        /* searches run through MAXCODE_LAUNCHER */
    MC_STAT_LAUNCH_FAILURES, /* of those, the launcher failed (the
                              * original was used unless the remote
                              * cache had the entry) */
    MC_STAT__COUNT
};

struct mc_stats {
    unsigned long long n[MC_STAT__COUNT];
    double cost;
};

/* The name of counter S ("hits"). */
const char *mc_stat_name(enum mc_stat s);

/* Use the cache in DIR (created when first written). No I/O. */
enum mc_code mc_cache_init(struct mc_cache *c, const char *dir,
                           struct mc_err *err);
void mc_cache_release(struct mc_cache *c);

void mc_entry_init(struct mc_entry *e);

/* Encode E (its key, times and sections) as the bytes of an entry file
 * (header, sections, XXH3 checksum; internals/cache.md), appended to B.
 * MC_EINVAL when E's key is not a key or the entry would be larger than
 * MC_ENTRY_MAX (B is then untouched), MC_ENOMEM. */
enum mc_code mc_entry_encode(const struct mc_entry *e, struct mc_buf *b);

/* Decode the LEN bytes at P, an entry file's contents, into E (set up
 * with mc_entry_init()), checking the magic, version, lengths and
 * checksum: MC_ESYNTAX (with what is wrong) when any fails. */
enum mc_code mc_entry_decode(const void *p, size_t len, struct mc_entry *e,
                             struct mc_err *err);
void mc_entry_release(struct mc_entry *e);

/* DIR/ab/cd/<KEY>SUFFIX into B. */
enum mc_code mc_cache_path(const struct mc_cache *c, const char *key,
                           const char *suffix, struct mc_buf *b);

/*
 * Read the entry for KEY into E (initialised by the caller). MC_ENOENT on
 * a miss. A corrupt entry is counted, removed, and gives MC_ESYNTAX with
 * the reason in ERR; callers treat it as a miss.
 */
enum mc_code mc_cache_get(struct mc_cache *c, const char *key,
                          struct mc_entry *e, struct mc_err *err);

/*
 * What identifies the entry file for KEY without reading it, into
 * ORIGIN: its inode, size and birth time (statx), which a rewrite (a new
 * file renamed into place) changes; and its mtime into *MTIME. MC_ENOENT
 * when there is none, it is not a regular file, or the file system
 * keeps no birth time: then only reading the entry tells.
 */
#define MC_CACHE_ORIGIN_MAX 80
enum mc_code mc_cache_origin(struct mc_cache *c, const char *key,
                             char origin[MC_CACHE_ORIGIN_MAX],
                             time_t *mtime);

/* Read and check the entry file at PATH, without side effects. */
enum mc_code mc_entry_read_file(const char *path, struct mc_entry *e,
                                struct mc_err *err);

/*
 * Whether every include record of E still matches its file's content.
 * Each file is hashed once per process (a make run), however many
 * entries include it; mc_cache_forget_includes() drops what is known.
 */
int mc_entry_includes_valid(const struct mc_entry *e);
/* The same for include records in INCLUDES ("HASH PATH\n" lines, the
 * format of mc_entry.includes), LEN bytes. */
int mc_cache_includes_valid(const char *includes, size_t len);
void mc_cache_forget_includes(void);

/* Store E under E->key: temp file, then rename. Signed, when C has a
 * signing key (mc_cache_encode()). */
enum mc_code mc_cache_put(struct mc_cache *c, const struct mc_entry *e,
                          struct mc_err *err);

/* mc_entry_encode() of E into B, signed (mc_entry_sign()) when C has a
 * signing key: the bytes mc_cache_put() stores and a push sends. */
enum mc_code mc_cache_encode(const struct mc_cache *c,
                             const struct mc_entry *e, struct mc_buf *b,
                             struct mc_err *err);

/*
 * Sign B, an encoded entry, with K's secret key: its SIGN section, put
 * in place of any it had, and its trailer made anew (the grammar
 * above). MC_EINVAL when B does not decode or K cannot sign; MC_ENOMEM.
 */
enum mc_code mc_entry_sign(struct mc_buf *b, const struct mc_sign_keys *k,
                           struct mc_err *err);

/*
 * Whether the entry at DATA (LEN bytes, which mc_entry_decode() took)
 * is signed by one of K's trusted keys: MC_OK, or MC_EUNTRUSTED with
 * why ("it is not signed", "signed by a key not trusted here (...)",
 * "its signature does not verify (...)"); MC_ENOMEM.
 */
enum mc_code mc_entry_check_signature(const void *data, size_t len,
                                      const struct mc_sign_keys *k,
                                      struct mc_err *err);

#define MC_IMPORT_INCLUDES 1 /* mc_cache_import(): only when the include
                              * records hold here */

/*
 * The one way in to C for an entry from outside (a remote's answer, an
 * archive's item): the LEN bytes at DATA, for KEY. In order: they must
 * decode (mc_entry_decode()) and hold KEY, else MC_ESYNTAX; when C's
 * keys have trusted keys configured (keys->checks), be signed by one of
 * them (mc_entry_check_signature()), else MC_EUNTRUSTED, counted as
 * remote_untrusted here; with MC_IMPORT_INCLUDES in FLAGS, have include
 * records that match this machine's files, else MC_ENOENT. Then they
 * are stored as they are, signature included (temp + rename), unless
 * C has these very bytes under KEY already: *PRESENT (may be NULL) is
 * then 1. E (may be NULL; set up by the caller) gets the decoded entry. MC_EIO when C cannot be written; ERR says why in each
 * case. Nothing is stored unless MC_OK is returned.
 */
enum mc_code mc_cache_import(struct mc_cache *c, const char *key,
                             const void *data, size_t len, unsigned flags,
                             struct mc_entry *e, int *present,
                             struct mc_err *err);

/*
 * Markers of this make run, so that what happens in many recipes is told
 * once per build: C->dir/KIND/SESSION, SESSION being MAXCODE_SESSION
 * (set by the plugin for the top make and inherited by sub-makes and
 * recipes). mc_cache_first_in_build() says whether this is the first
 * time in this make run that KIND happened, and leaves the marker: 1
 * once per build, and always without a session (a command by hand).
 * mc_cache_in_build() says whether KIND's marker is there (0 without a
 * session). KIND: "remote-down" (a remote failure), "untrusted" (a
 * refused entry), "no-signing-key".
 */
int mc_cache_first_in_build(const struct mc_cache *c, const char *kind);
int mc_cache_in_build(const struct mc_cache *c, const char *kind);

/* Mark E (read by mc_cache_get) as recently used, for LRU trimming: its
 * file's mtime, unless that is under a minute old. */
void mc_cache_touch(struct mc_cache *c, const struct mc_entry *e);
/* The same for the entry for KEY whose file's mtime is MTIME. */
void mc_cache_touch_key(struct mc_cache *c, const char *key, time_t mtime);

/*
 * Take the exclusive lock for KEY (blocking), DIR/ab/cd/<key>.lock, with
 * mc_file_lock(); *FD is the lock to pass to mc_cache_unlock().
 */
enum mc_code mc_cache_lock(struct mc_cache *c, const char *key, int *fd,
                           struct mc_err *err);
void mc_cache_unlock(int fd);

/* Add DELTA to the counters, under the stats lock. */
enum mc_code mc_cache_stats_add(struct mc_cache *c,
                                const struct mc_stats *delta,
                                struct mc_err *err);

/* Add DELTA to the counters of C, a struct mc_cache *, errors ignored:
 * the shape of the search's counters callback (search.h), so that a
 * caller with the cache open sets `s.count = mc_cache_count;
 * s.count_arg = &cache;`. */
void mc_cache_count(void *c, const struct mc_stats *delta);

/* Read the counters (all zero when there are none yet). */
enum mc_code mc_cache_stats_read(struct mc_cache *c, struct mc_stats *out,
                                 struct mc_err *err);

/* Zero the counters. */
enum mc_code mc_cache_stats_zero(struct mc_cache *c, struct mc_err *err);

/* One entry file, for listing and trimming. */
struct mc_cache_item {
    char key[MC_KEY_HEX + 1];
    char *path;
    uint64_t size;
    struct timespec mtime;
};

struct mc_cache_items {
    struct mc_cache_item *v;
    size_t n, cap;
    uint64_t total;
};

/* Every entry in the cache, oldest (least recently used) first. Stale
 * temporary files older than an hour are removed on the way. */
enum mc_code mc_cache_scan(struct mc_cache *c, struct mc_cache_items *out,
                           struct mc_err *err);
void mc_cache_items_release(struct mc_cache_items *items);

/* Remove least recently used entries until the total is at most
 * MAX_BYTES. *REMOVED (may be NULL) counts them. */
enum mc_code mc_cache_trim(struct mc_cache *c, uint64_t max_bytes,
                           size_t *removed, struct mc_err *err);

/* Remove every entry (counters stay). */
enum mc_code mc_cache_clean(struct mc_cache *c, size_t *removed,
                            struct mc_err *err);

#endif /* MC_CACHE_H */
