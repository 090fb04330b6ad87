/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cache.c: the local store: entry encoding and checks, atomic writes,
 * per-key locks, counters (scanning and LRU trimming: cache_scan.c).
 * The format is in cache.h and doc/internals/cache.md.
 */
#include "mc_setup.h"
#include "cache.h"
#include "alloc.h"
#include "file.h"
#include "log.h"
#include "le.h"
#include "paths.h"

#include <fcntl.h>
#include <sys/file.h>
#include <time.h>

#define HEADER_LEN    40
#define TRAILER_LEN   16
#define SECTION_HDR   12   /* a section's tag (4) and length (u64) */
#define SECTIONS      3    /* MANI, VARI, INCL; and TRAJ when not empty */
#define SIGN_DATA     (MC_SIGN_PUBLIC_LEN + MC_SIGN_BYTES) /* SIGN's */
#define TOUCH_GRAIN_S 60   /* LRU needs no finer grain than minutes */

static const char *const stat_names[MC_STAT__COUNT] = {
    "hits",         "misses",     "stores",     "searches",
    "optimized",    "fallbacks",  "candidates", "llm_requests",
    "tokens_in",    "tokens_out", "corrupt",    "trimmed",
    "remote_hits",  "remote_misses", "remote_errors", "remote_corrupt",
    "remote_stores", "remote_bytes_in", "remote_bytes_out",
    "fallback_no_speedup", "fallback_incorrect", "fallback_no_build",
    "fallback_no_model", "fallback_no_device", "fallback_budget",
    "fallback_other", "search_ms", "remote_untrusted", "launched",
    "launch_failures",
};

const char *
mc_stat_name(enum mc_stat s)
{
    return stat_names[s];
}

enum mc_code
mc_cache_init(struct mc_cache *c, const char *dir, struct mc_err *err)
{
    c->dir = mc_strdup(dir);
    c->keys = NULL;
    if (!c->dir)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    return MC_OK;
}

void
mc_cache_release(struct mc_cache *c)
{
    mc_free(c->dir);
    c->dir = NULL;
    c->keys = NULL;
}

void
mc_entry_init(struct mc_entry *e)
{
    e->key[0] = '\0';
    e->created = 0;
    e->mtime = 0;
    mc_buf_init(&e->manifest);
    mc_buf_init(&e->variant);
    mc_buf_init(&e->includes);
    mc_buf_init(&e->trajectory);
    mc_buf_init(&e->note);
}

void
mc_entry_release(struct mc_entry *e)
{
    mc_buf_release(&e->manifest);
    mc_buf_release(&e->variant);
    mc_buf_release(&e->includes);
    mc_buf_release(&e->trajectory);
    mc_buf_release(&e->note);
    mc_entry_init(e);
}

enum mc_code
mc_cache_path(const struct mc_cache *c, const char *key, const char *suffix,
              struct mc_buf *b)
{
    size_t n = strnlen(key, 2);

    /* "%s/%.2s/%.2s/%s%s", without printf: a hit makes it. */
    mc_buf_adds(b, c->dir);
    mc_buf_addc(b, '/');
    mc_buf_add(b, key, n);
    mc_buf_addc(b, '/');
    mc_buf_add(b, key + n, strnlen(key + n, 2));
    mc_buf_addc(b, '/');
    mc_buf_adds(b, key);
    return mc_buf_adds(b, suffix);
}

static void
add_section(struct mc_buf *b, const char *tag, const struct mc_buf *data)
{
    uint8_t len[8];

    mc_le_put64(len, data->len);
    mc_buf_add(b, tag, 4);
    mc_buf_add(b, len, 8);
    mc_buf_add(b, data->s, data->len);
}

enum mc_code
mc_entry_encode(const struct mc_entry *e, struct mc_buf *b)
{
    struct mc_digest key, sum;
    uint8_t hdr[HEADER_LEN];
    size_t payload;

    if (mc_digest_parse(e->key, &key))
        return MC_EINVAL;
    payload = SECTIONS * SECTION_HDR + e->manifest.len + e->variant.len +
              e->includes.len;
    if (e->trajectory.len)
        payload += SECTION_HDR + e->trajectory.len;
    if (e->note.len)
        payload += SECTION_HDR + e->note.len;
    if (payload > MC_ENTRY_MAX - HEADER_LEN - TRAILER_LEN)
        return MC_EINVAL;
    memcpy(hdr, "MCXE", 4);
    mc_le_put32(hdr + 4, MC_ENTRY_VERSION);
    memcpy(hdr + 8, key.b, 16);
    mc_le_put64(hdr + 24, (uint64_t)e->created);
    mc_le_put64(hdr + 32, payload);
    mc_buf_add(b, hdr, sizeof(hdr));
    add_section(b, "MANI", &e->manifest);
    add_section(b, "VARI", &e->variant);
    add_section(b, "INCL", &e->includes);
    if (e->trajectory.len)
        add_section(b, "TRAJ", &e->trajectory);
    if (e->note.len)
        add_section(b, "NOTE", &e->note);
    if (mc_buf_status(b))
        return MC_ENOMEM;
    mc_hash_buffer(b->s, b->len, &sum);
    return mc_buf_add(b, sum.b, 16);
}

enum mc_code
mc_entry_decode(const void *data, size_t len, struct mc_entry *e,
                struct mc_err *err)
{
    const uint8_t *p = data;
    struct mc_digest sum, key;
    uint64_t payload;
    size_t off;

    if (len < HEADER_LEN + TRAILER_LEN || memcmp(p, "MCXE", 4))
        return mc_err_set(err, MC_ESYNTAX, "not a maxcode entry");
    if (mc_le_get32(p + 4) != MC_ENTRY_VERSION)
        return mc_err_set(err, MC_ESYNTAX, "entry format %u, expected %u",
                          (unsigned)mc_le_get32(p + 4), MC_ENTRY_VERSION);
    payload = mc_le_get64(p + 32);
    if (payload != len - HEADER_LEN - TRAILER_LEN)
        return mc_err_set(err, MC_ESYNTAX, "truncated entry (%zu bytes, "
                          "header says %llu)", len,
                          (unsigned long long)(payload + HEADER_LEN +
                                               TRAILER_LEN));
    mc_hash_buffer(p, len - TRAILER_LEN, &sum);
    if (memcmp(sum.b, p + len - TRAILER_LEN, 16))
        return mc_err_set(err, MC_ESYNTAX, "checksum mismatch");
    memcpy(key.b, p + 8, 16);
    mc_digest_hex(&key, e->key);
    e->created = (int64_t)mc_le_get64(p + 24);
    for (off = HEADER_LEN; off < len - TRAILER_LEN;) {
        uint64_t n;
        struct mc_buf *dst = NULL;

        if (len - TRAILER_LEN - off < SECTION_HDR)
            return mc_err_set(err, MC_ESYNTAX, "section header cut short");
        n = mc_le_get64(p + off + 4);
        if (n > len - TRAILER_LEN - off - SECTION_HDR)
            return mc_err_set(err, MC_ESYNTAX, "section runs past the end");
        if (!memcmp(p + off, "MANI", 4))
            dst = &e->manifest;
        else if (!memcmp(p + off, "VARI", 4))
            dst = &e->variant;
        else if (!memcmp(p + off, "INCL", 4))
            dst = &e->includes;
        else if (!memcmp(p + off, "TRAJ", 4))
            dst = &e->trajectory;
        else if (!memcmp(p + off, "NOTE", 4))
            dst = &e->note;
        if (dst) {
            mc_buf_reset(dst);
            if (mc_buf_add(dst, p + off + SECTION_HDR, (size_t)n))
                return mc_err_set(err, MC_ENOMEM, "out of memory");
        }
        off += SECTION_HDR + (size_t)n;
    }
    return MC_OK;
}

/* Decode the entry file that RAW holds, with ST from its fstat(). */
static enum mc_code
decode_file(const struct mc_buf *raw, const struct stat *st,
            struct mc_entry *e, struct mc_err *err)
{
    enum mc_code rc = mc_entry_decode((const uint8_t *)raw->s, raw->len, e,
                                      err);

    if (!rc)
        e->mtime = st->st_mtime;
    return rc;
}

enum mc_code
mc_entry_read_file(const char *path, struct mc_entry *e, struct mc_err *err)
{
    struct mc_buf raw = MC_BUF_INIT;
    struct stat st;
    enum mc_code rc;

    rc = mc_file_read_stat(path, &raw, &st, err);
    if (!rc)
        rc = decode_file(&raw, &st, e, err);
    mc_buf_release(&raw);
    return rc;
}

static void
count_one(struct mc_cache *c, enum mc_stat s)
{
    struct mc_stats d;

    memset(&d, 0, sizeof(d));
    d.n[s] = 1;
    mc_cache_stats_add(c, &d, NULL);
}

/*
 * The cache directory DIR opened (O_PATH) for mc_file_read_at(), or -1
 * with errno set. A process whose working directory is pinned (make's,
 * paths.h) keeps it open for its life: every hit of a make run reads the
 * same directory, and each would otherwise open and close it. *OWN says
 * whether the caller closes it. Should DIR be replaced while make runs,
 * the kept one finds nothing new: a miss, whose rule looks again.
 */
static int
dir_fd(const char *dir, int *own)
{
    static char *kept_dir;
    static int kept_fd = -1;
    int fd;

    *own = 0;
    if (kept_fd >= 0 && !strcmp(kept_dir, dir))
        return kept_fd;
    fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || !mc_path_cwd_pinned()) {
        *own = fd >= 0;
        return fd;
    }
    if (kept_fd >= 0) {
        close(kept_fd);
        mc_free(kept_dir);
        kept_fd = -1;
    }
    if (!(kept_dir = mc_strdup(dir))) {
        *own = 1;
        return fd;
    }
    kept_fd = fd;
    return fd;
}

enum mc_code
mc_cache_get(struct mc_cache *c, const char *key, struct mc_entry *e,
             struct mc_err *err)
{
    struct mc_buf path = MC_BUF_INIT, raw = MC_BUF_INIT;
    struct mc_err why = MC_ERR_INIT;
    struct stat st;
    enum mc_code rc;
    int dirfd, own;

    if (mc_cache_path(c, key, ".mce", &path))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    /* The directory may be shared: no link followed, a regular file
     * only (a FIFO or /dev/zero here is a corrupt entry like any). */
    memset(&st, 0, sizeof(st));
    dirfd = dir_fd(c->dir, &own);
    if (dirfd < 0) {
        rc = errno == ENOENT || errno == ENOTDIR ? MC_ENOENT : MC_EIO;
        if (rc == MC_EIO)
            mc_err_set(&why, rc, "cannot open '%s': %s", c->dir,
                       strerror(errno));
    } else {
        rc = mc_file_read_at(dirfd, path.s + strlen(c->dir) + 1,
                             MC_FILE_MAX, &raw, &st, &why);
    }
    if (own)
        close(dirfd);
    if (!rc)
        rc = decode_file(&raw, &st, e, &why);
    if (rc == MC_OK && strcmp(e->key, key))
        rc = mc_err_set(&why, MC_ESYNTAX, "entry holds key %s", e->key);
    if (rc == MC_ESYNTAX) {
        mc_info("removing corrupt cache entry '%s': %s", path.s, why.msg);
        unlink(path.s);
        count_one(c, MC_STAT_CORRUPT);
    }
    if (rc && rc != MC_ENOENT)
        mc_err_set(err, rc, "%s", why.msg);
    mc_buf_release(&raw);
    mc_buf_release(&path);
    return rc;
}

enum mc_code
mc_cache_origin(struct mc_cache *c, const char *key,
                char origin[MC_CACHE_ORIGIN_MAX], time_t *mtime)
{
    enum mc_code rc = MC_ENOENT;
    struct statx sx;
    char *o = origin, rel[2 * 3 + MC_KEY_HEX + sizeof(".mce")];
    int dirfd, own;

    /* "%.2s/%.2s/%s.mce" beneath the directory (mc_cache_path()), in
     * a buffer on the stack: every hit names its entry. */
    if (!mc_is_key(key))
        return MC_ENOENT;
    memcpy(rel, key, 2);
    rel[2] = '/';
    memcpy(rel + 3, key + 2, 2);
    rel[5] = '/';
    memcpy(rel + 6, key, MC_KEY_HEX);
    memcpy(rel + 6 + MC_KEY_HEX, ".mce", sizeof(".mce"));
    dirfd = dir_fd(c->dir, &own);
    /* No link followed at the end; a linked shard directory leads to a
     * file whose identity is compared, never trusted for its content. */
    if (dirfd >= 0 &&
        !statx(dirfd, rel, AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC,
               STATX_TYPE | STATX_INO | STATX_SIZE | STATX_MTIME |
                   STATX_BTIME,
               &sx) &&
        (sx.stx_mask & STATX_BTIME) && S_ISREG(sx.stx_mode)) {
        /* "%llu %llu %lld.%09u": 4 * 20 + 3 > MC_CACHE_ORIGIN_MAX only
         * for numbers no file system gives; a birth time before 1970
         * is not one either (refused, as a miss of this path). */
        if (sx.stx_btime.tv_sec >= 0 && sx.stx_ino < 1ULL << 60 &&
            sx.stx_size < 1ULL << 60) {
            o = mc_put_dec(o, (unsigned long long)sx.stx_ino, 0);
            *o++ = ' ';
            o = mc_put_dec(o, (unsigned long long)sx.stx_size, 0);
            *o++ = ' ';
            o = mc_put_dec(o, (unsigned long long)sx.stx_btime.tv_sec, 0);
            *o++ = '.';
            o = mc_put_dec(o, sx.stx_btime.tv_nsec, 9);
            *o = '\0';
            *mtime = (time_t)sx.stx_mtime.tv_sec;
            rc = MC_OK;
        }
    }
    if (own)
        close(dirfd);
    return rc;
}

/*
 * Hashes of include files, remembered for the life of the process: a
 * make run hashes common.h once, not once per unit that includes it.
 * Headers do not change while make parses; a longer-lived process does
 * not check the same entry twice.
 */
struct include_memo {
    char *path;
    char hex[MC_KEY_HEX + 1];
    int ok; /* the file could be hashed */
};
static struct include_memo *memo;
static size_t memo_n, memo_cap;

static const struct include_memo *
include_hash(const char *path)
{
    struct stat st;
    size_t i;

    for (i = 0; i < memo_n; i++)
        if (!strcmp(memo[i].path, path))
            return &memo[i];
    if (memo_n == memo_cap) {
        size_t cap = memo_cap ? memo_cap * 2 : 32;
        struct include_memo *m = mc_realloc(memo, cap * sizeof(*m));
        if (!m)
            return NULL;
        memo = m;
        memo_cap = cap;
    }
    memo[memo_n].path = mc_strdup(path);
    if (!memo[memo_n].path)
        return NULL;
    /* Only a regular file: an entry from a shared or remote cache may
     * name /dev/zero or a FIFO, whose reading would never end. */
    memo[memo_n].ok = !stat(path, &st) && S_ISREG(st.st_mode) &&
                      mc_hash_file_hex(path, memo[memo_n].hex, NULL) == 0;
    return &memo[memo_n++];
}

int
mc_cache_includes_valid(const char *includes, size_t len)
{
    const char *p = includes, *end = includes + len;

    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        const struct include_memo *h;
        char path[PATH_MAX];

        if (n <= MC_KEY_HEX + 1 || n - MC_KEY_HEX - 1 >= sizeof(path))
            return 0;
        memcpy(path, p + MC_KEY_HEX + 1, n - MC_KEY_HEX - 1);
        path[n - MC_KEY_HEX - 1] = '\0';
        h = include_hash(path);
        if (!h || !h->ok || memcmp(h->hex, p, MC_KEY_HEX))
            return 0;
        p += n + (nl != NULL);
    }
    return 1;
}

int
mc_entry_includes_valid(const struct mc_entry *e)
{
    return mc_cache_includes_valid(e->includes.s, e->includes.len);
}

void
mc_cache_forget_includes(void)
{
    size_t i;

    for (i = 0; i < memo_n; i++)
        mc_free(memo[i].path);
    mc_free(memo);
    memo = NULL;
    memo_n = memo_cap = 0;
}

/* Store the LEN bytes at DATA, an entry file that mc_cache_import()
 * or mc_cache_put() checked or made, under KEY as they are (sections
 * this version does not know included): temp file, then rename.
 * MC_EINVAL when KEY is not a key; MC_EIO. */
static enum mc_code
put_bytes(struct mc_cache *c, const char *key, const void *data,
          size_t len, struct mc_err *err)
{
    struct mc_buf path = MC_BUF_INIT;
    enum mc_code rc;

    if (!mc_is_key(key))
        return mc_err_set(err, MC_EINVAL, "bad key '%s'", key);
    if (mc_cache_path(c, key, ".mce", &path)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    rc = mc_file_mkdirs_for(path.s, err);
    if (!rc)
        rc = mc_file_write_atomic(path.s, data, len, err);
out:
    mc_buf_release(&path);
    return rc;
}

/* ---- signatures (the SIGN section) and the way in from outside ---- */

/*
 * The SIGN section of the entry at P (LEN bytes, whose framing
 * mc_entry_decode() checked): *OFF, where it begins. MC_ENOENT (no
 * message) when there is none; MC_EUNTRUSTED when it is not the last
 * section, not the only one or not SIGN_DATA bytes long.
 */
static enum mc_code
find_signature(const uint8_t *p, size_t len, size_t *off,
               struct mc_err *err)
{
    size_t at = HEADER_LEN, found = 0, end = len - TRAILER_LEN;
    int n = 0;

    while (at + SECTION_HDR <= end) {
        uint64_t k = mc_le_get64(p + at + 4);

        if (k > end - at - SECTION_HDR)
            break;
        if (!memcmp(p + at, "SIGN", 4)) {
            found = at;
            n++;
        }
        at += SECTION_HDR + (size_t)k;
    }
    if (!n)
        return MC_ENOENT;
    if (n > 1 || found + SECTION_HDR + SIGN_DATA != end ||
        mc_le_get64(p + found + 4) != SIGN_DATA)
        return mc_err_set(err, MC_EUNTRUSTED, "its signature section is "
                          "malformed or not the last");
    *off = found;
    return MC_OK;
}

/* Into B, the unsigned-entry of the entry at P whose SIGN section
 * begins at OFF (the grammar in cache.h): what its signature covers. */
static enum mc_code
unsigned_entry(const uint8_t *p, size_t off, struct mc_buf *b)
{
    struct mc_digest sum;

    mc_buf_reset(b);
    if (mc_buf_add(b, p, off))
        return MC_ENOMEM;
    mc_le_put64((uint8_t *)b->s + 32, off - HEADER_LEN);
    mc_hash_buffer(b->s, b->len, &sum);
    return mc_buf_add(b, sum.b, TRAILER_LEN);
}

enum mc_code
mc_entry_sign(struct mc_buf *b, const struct mc_sign_keys *k,
              struct mc_err *err)
{
    struct mc_buf u = MC_BUF_INIT;
    struct mc_entry e;
    struct mc_digest sum;
    uint8_t hdr[SECTION_HDR], sig[MC_SIGN_BYTES];
    enum mc_code rc;
    size_t off;

    mc_entry_init(&e);
    rc = mc_entry_decode(b->s, b->len, &e, err);
    mc_entry_release(&e);
    if (rc)
        return mc_err_set(err, MC_EINVAL, "not an entry to sign");
    rc = find_signature((const uint8_t *)b->s, b->len, &off, NULL);
    if (rc == MC_EUNTRUSTED)
        return mc_err_set(err, MC_EINVAL, "the entry's signature section "
                          "is malformed");
    if (rc == MC_OK) { /* signed already: sign its unsigned-entry */
        if (unsigned_entry((const uint8_t *)b->s, off, &u)) {
            rc = mc_err_set(err, MC_ENOMEM, "out of memory");
            goto out;
        }
        mc_buf_reset(b);
        if (mc_buf_add(b, u.s, u.len)) {
            rc = mc_err_set(err, MC_ENOMEM, "out of memory");
            goto out;
        }
    }
    rc = mc_sign(k, b->s, b->len, sig, err);
    if (rc)
        goto out;
    b->len -= TRAILER_LEN;
    mc_le_put64((uint8_t *)b->s + 32,
                b->len - HEADER_LEN + SECTION_HDR + SIGN_DATA);
    memcpy(hdr, "SIGN", 4);
    mc_le_put64(hdr + 4, SIGN_DATA);
    mc_buf_add(b, hdr, sizeof(hdr));
    mc_buf_add(b, k->public, MC_SIGN_PUBLIC_LEN);
    mc_buf_add(b, sig, sizeof(sig));
    if (mc_buf_status(b)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    mc_hash_buffer(b->s, b->len, &sum);
    if (mc_buf_add(b, sum.b, TRAILER_LEN))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
out:
    mc_buf_release(&u);
    return rc;
}

enum mc_code
mc_entry_check_signature(const void *data, size_t len,
                         const struct mc_sign_keys *k, struct mc_err *err)
{
    const uint8_t *p = data;
    struct mc_buf u = MC_BUF_INIT;
    enum mc_code rc;
    size_t off = 0;

    rc = len < HEADER_LEN + TRAILER_LEN ? MC_ENOENT
                                        : find_signature(p, len, &off, err);
    if (rc == MC_ENOENT)
        return mc_err_set(err, MC_EUNTRUSTED, "it is not signed");
    if (rc)
        return rc;
    if (unsigned_entry(p, off, &u))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    else
        rc = mc_sign_verify(k, u.s, u.len, p + off + SECTION_HDR,
                            p + off + SECTION_HDR + MC_SIGN_PUBLIC_LEN,
                            err);
    mc_buf_release(&u);
    return rc;
}

enum mc_code
mc_cache_encode(const struct mc_cache *c, const struct mc_entry *e,
                struct mc_buf *b, struct mc_err *err)
{
    enum mc_code rc = mc_entry_encode(e, b);

    if (rc == MC_EINVAL)
        return mc_err_set(err, MC_EINVAL, "entry %s: a bad key, or larger "
                          "than an entry may be (%u MiB)", e->key,
                          MC_ENTRY_MAX >> 20);
    if (rc)
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    if (c->keys && c->keys->can_sign)
        return mc_entry_sign(b, c->keys, err);
    return MC_OK;
}

enum mc_code
mc_cache_put(struct mc_cache *c, const struct mc_entry *e,
             struct mc_err *err)
{
    struct mc_buf data = MC_BUF_INIT;
    enum mc_code rc;

    rc = mc_cache_encode(c, e, &data, err);
    if (!rc)
        rc = put_bytes(c, e->key, data.s, data.len, err);
    mc_buf_release(&data);
    return rc;
}

enum mc_code
mc_cache_import(struct mc_cache *c, const char *key, const void *data,
                size_t len, unsigned flags, struct mc_entry *e,
                int *present, struct mc_err *err)
{
    struct mc_buf path = MC_BUF_INIT, old = MC_BUF_INIT;
    struct mc_entry own;
    enum mc_code rc;

    if (present)
        *present = 0;
    mc_entry_init(&own);
    if (!e)
        e = &own;
    rc = mc_entry_decode(data, len, e, err);
    if (!rc && strcmp(e->key, key))
        rc = mc_err_set(err, MC_ESYNTAX, "entry holds key %s", e->key);
    if (rc)
        goto out;
    if (c->keys && c->keys->checks) {
        rc = mc_entry_check_signature(data, len, c->keys, err);
        if (rc == MC_EUNTRUSTED)
            count_one(c, MC_STAT_REMOTE_UNTRUSTED);
        if (rc)
            goto out;
    }
    if ((flags & MC_IMPORT_INCLUDES) && !mc_entry_includes_valid(e)) {
        rc = mc_err_set(err, MC_ENOENT, "its include files differ here");
        goto out;
    }
    if (mc_cache_path(c, key, ".mce", &path)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    if (mc_file_read_beneath(c->dir, path.s + strlen(c->dir) + 1,
                             MC_FILE_MAX, &old, NULL, NULL) == MC_OK &&
        old.len == len &&
        !memcmp(old.s, data, len)) {
        if (present)
            *present = 1;
        goto out;
    }
    rc = put_bytes(c, key, data, len, err);
out:
    mc_entry_release(&own);
    mc_buf_release(&path);
    mc_buf_release(&old);
    return rc;
}

/* The marker of KIND in this make run (MAXCODE_SESSION, set by the
 * plugin for the top make and inherited by sub-makes and recipes), into
 * B: KIND "remote-down" marks a remote failure, "untrusted" a refused
 * entry. 0 when there is no session (a command by hand). */
static int
session_marker(const struct mc_cache *c, const char *kind, struct mc_buf *b)
{
    const char *s = getenv("MAXCODE_SESSION");

    if (!s || !*s || strchr(s, '/'))
        return 0;
    mc_buf_addf(b, "%s/%s/%s", c->dir, kind, s);
    return !mc_buf_status(b);
}

/* Whether this is the first time in this make run that KIND happened
 * (always, without a session): the first leaves its marker. */
int
mc_cache_first_in_build(const struct mc_cache *c, const char *kind)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf m = MC_BUF_INIT;
    int first = 1;

    if (session_marker(c, kind, &m) && !mc_file_mkdirs_for(m.s, &err)) {
        int fd = open(m.s, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

        first = fd >= 0;
        if (fd >= 0)
            close(fd);
    }
    mc_buf_release(&m);
    return first;
}

/* Whether KIND (the remote failed, say) already happened in this make
 * run. */
int
mc_cache_in_build(const struct mc_cache *c, const char *kind)
{
    struct mc_buf m = MC_BUF_INIT;
    int down = session_marker(c, kind, &m) && access(m.s, F_OK) == 0;

    mc_buf_release(&m);
    return down;
}

void
mc_cache_touch_key(struct mc_cache *c, const char *key, time_t mtime)
{
    struct mc_buf path = MC_BUF_INIT;

    /* LRU needs no finer grain than minutes: skip fresh entries. */
    if (mtime && time(NULL) - mtime < TOUCH_GRAIN_S)
        return;
    if (mc_cache_path(c, key, ".mce", &path) == MC_OK)
        utimensat(AT_FDCWD, path.s, NULL, AT_SYMLINK_NOFOLLOW);
    mc_buf_release(&path);
}

void
mc_cache_touch(struct mc_cache *c, const struct mc_entry *e)
{
    mc_cache_touch_key(c, e->key, e->mtime);
}

enum mc_code
mc_cache_lock(struct mc_cache *c, const char *key, int *fd,
              struct mc_err *err)
{
    struct mc_buf path = MC_BUF_INIT;
    enum mc_code rc;

    if (mc_cache_path(c, key, ".lock", &path))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    rc = mc_file_lock(path.s, 1, fd, err);
    mc_buf_release(&path);
    return rc;
}

void
mc_cache_unlock(int fd)
{
    mc_file_unlock(fd);
}

/* Parse the stats file text into OUT; unknown lines are ignored. */
static void
parse_stats(const char *text, struct mc_stats *out)
{
    const char *p = text;
    size_t next = 0; /* the name the file, written in order, has next */

    while (*p) {
        char name[32];
        size_t i, n = strcspn(p, " ");

        if (n < sizeof(name)) {
            memcpy(name, p, n);
            name[n] = '\0';
            if (!strcmp(name, "cost"))
                out->cost = strtod(p + n, NULL);
            /* A make run that counted writes the file once, at its
             * end: the name in its place first, then any other. */
            i = next < MC_STAT__COUNT && !strcmp(name, stat_names[next])
                    ? next
                    : 0;
            for (; i < MC_STAT__COUNT; i++)
                if (!strcmp(name, stat_names[i])) {
                    out->n[i] = strtoull(p + n, NULL, 10);
                    next = i + 1;
                    break;
                }
        }
        p += strcspn(p, "\n");
        p += *p == '\n';
    }
}

/*
 * The counters file opened for a rewrite in place, beneath the cache
 * directory and not through a link, or -1 where it must be replaced by
 * a rename instead: missing, no regular file, not ours, or linked from
 * elsewhere (a write in place would change the other name's file too).
 * A rename over the old file costs a make run half a millisecond on
 * ext4, which writes the new file's data out first (auto_da_alloc):
 * some 4 us a hit in a make run of 120 hits.
 */
static int
stats_open_inplace(const struct mc_cache *c)
{
    struct stat st;
    int dfd, fd;

    dfd = open(c->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return -1;
    fd = openat(dfd, "stats",
                O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    close(dfd);
    if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
                    st.st_nlink != 1 || st.st_uid != geteuid() ||
                    st.st_size > (off_t)MC_FILE_SMALL)) {
        close(fd);
        fd = -1;
    }
    return fd;
}

/* Read the counters file open at FD into TEXT; its length into *OLD. */
static enum mc_code
stats_pread(int fd, struct mc_buf *text, size_t *old)
{
    char MC_NOINIT chunk[4096];
    off_t at = 0;

    for (;;) {
        ssize_t n = pread(fd, chunk, sizeof(chunk), at);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return MC_EIO;
        if (n == 0 || at + n > (off_t)MC_FILE_SMALL)
            break;
        mc_buf_add(text, chunk, (size_t)n);
        at += n;
    }
    *old = (size_t)at;
    return mc_buf_status(text) ? MC_ENOMEM : MC_OK;
}

/* Write TEXT over the counters file open at FD, in one pwrite() from
 * its start, padded with newlines (which the reader skips) to the OLD
 * length, so that no byte of the old text is left past the new one and
 * no truncate is needed. */
static enum mc_code
stats_pwrite(int fd, struct mc_buf *text, size_t old, struct mc_err *err)
{
    size_t done = 0;

    while (text->len < old)
        mc_buf_add(text, "\n", 1);
    if (mc_buf_status(text))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    while (done < text->len) {
        ssize_t n = pwrite(fd, text->s + done, text->len - done,
                           (off_t)done);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return mc_err_set(err, MC_EIO, "cannot write the counters: %s",
                              n < 0 ? strerror(errno) : "no space");
        done += (size_t)n;
    }
    return MC_OK;
}

static enum mc_code
stats_update(struct mc_cache *c, const struct mc_stats *delta, int zero,
             struct mc_err *err)
{
    struct mc_buf path = MC_BUF_INIT, lock = MC_BUF_INIT, text = MC_BUF_INIT;
    struct mc_stats s;
    enum mc_code rc;
    int fd = -1, sfd = -1;
    size_t i, old = 0;

    memset(&s, 0, sizeof(s));
    mc_buf_addf(&path, "%s/stats", c->dir);
    mc_buf_addf(&lock, "%s/stats.lock", c->dir);
    if (mc_buf_status(&path) || mc_buf_status(&lock)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    rc = mc_file_lock(lock.s, 1, &fd, err);
    if (rc)
        goto out;
    sfd = stats_open_inplace(c);
    if (sfd >= 0 && stats_pread(sfd, &text, &old) != MC_OK) {
        close(sfd);
        sfd = -1;
        mc_buf_reset(&text);
    }
    if (sfd < 0 && !zero) {
        /* A counters file that is no regular file (said once) counts as
         * none: the update below replaces it. */
        struct mc_err why = MC_ERR_INIT;

        rc = mc_file_read_shared(c->dir, "stats", MC_FILE_SMALL, &text,
                                 &why);
        if (rc && rc != MC_ENOENT && rc != MC_ESYNTAX) {
            mc_err_set(err, rc, "%s", why.msg);
            goto out;
        }
    }
    if (!zero) {
        parse_stats(text.s, &s);
        for (i = 0; i < MC_STAT__COUNT; i++)
            s.n[i] += delta->n[i];
        s.cost += delta->cost;
    }
    mc_buf_reset(&text);
    for (i = 0; i < MC_STAT__COUNT; i++)
        mc_buf_addf(&text, "%s %llu\n", stat_names[i], s.n[i]);
    mc_buf_addf(&text, "cost %.6f\n", s.cost);
    if (mc_buf_status(&text)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    rc = sfd >= 0 ? stats_pwrite(sfd, &text, old, err)
                  : mc_file_write_atomic(path.s, text.s, text.len, err);
out:
    if (sfd >= 0)
        close(sfd);
    mc_file_unlock(fd);
    mc_buf_release(&path);
    mc_buf_release(&lock);
    mc_buf_release(&text);
    return rc;
}

enum mc_code
mc_cache_stats_add(struct mc_cache *c, const struct mc_stats *delta,
                   struct mc_err *err)
{
    size_t i;

    for (i = 0; i < MC_STAT__COUNT; i++)
        if (delta->n[i])
            break;
    if (i == MC_STAT__COUNT && delta->cost == 0)
        return MC_OK;
    return stats_update(c, delta, 0, err);
}

void
mc_cache_count(void *c, const struct mc_stats *delta)
{
    mc_cache_stats_add(c, delta, NULL);
}

enum mc_code
mc_cache_stats_zero(struct mc_cache *c, struct mc_err *err)
{
    return stats_update(c, NULL, 1, err);
}

enum mc_code
mc_cache_stats_read(struct mc_cache *c, struct mc_stats *out,
                    struct mc_err *err)
{
    struct mc_buf text = MC_BUF_INIT;
    struct mc_err why = MC_ERR_INIT;
    enum mc_code rc;

    struct mc_buf lock = MC_BUF_INIT;
    int fd, i;

    /* The counters are written in place under the lock: a reader takes
     * it shared (where it exists: reading creates nothing), so that it
     * never sees half a write; it waits a second at most (whoever holds
     * a lock in a shared directory for longer is not waited for). */
    memset(out, 0, sizeof(*out));
    mc_buf_addf(&lock, "%s/stats.lock", c->dir);
    fd = mc_buf_status(&lock)
             ? -1
             : open(lock.s, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
                                O_CLOEXEC);
    mc_buf_release(&lock);
    for (i = 0; fd >= 0 && i < 100 && flock(fd, LOCK_SH | LOCK_NB); i++)
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    rc = mc_file_read_shared(c->dir, "stats", MC_FILE_SMALL, &text, &why);
    if (fd >= 0)
        close(fd);
    if (rc == MC_ENOENT || rc == MC_ESYNTAX)
        rc = MC_OK; /* none, or no regular file (said once): zeros */
    else if (rc)
        mc_err_set(err, rc, "%s", why.msg);
    else
        parse_stats(text.s, out);
    mc_buf_release(&text);
    return rc;
}
