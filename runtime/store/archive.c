/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * archive.c: writing a cache out as one archive and reading one back,
 * item by item, so that a damaged entry costs only itself. The format is
 * in archive.h and doc/internals/cache.md.
 */
#include "mc_setup.h"
#include "archive.h"
#include "alloc.h"
#include "file.h"
#include "le.h"
#include "share.h"

#define TRAILER_LEN 16

/* ---- writing ---- */

enum mc_code
mc_archive_writer_start(struct mc_archive_writer *w, int fd,
                        struct mc_err *err)
{
    uint8_t hdr[MC_ARCHIVE_HEADER];

    w->fd = fd;
    w->count = 0;
    if (mc_hash_init(&w->h))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    memcpy(hdr, "MCXA", 4);
    mc_le_put32(hdr + 4, MC_ARCHIVE_VERSION);
    mc_le_put64(hdr + 8, 0); /* the count, written last */
    return mc_file_write_all(fd, hdr, sizeof(hdr), "the archive", err);
}

enum mc_code
mc_archive_writer_add(struct mc_archive_writer *w, const char *key,
                      const void *entry, size_t len, struct mc_err *err)
{
    uint8_t hdr[MC_ARCHIVE_ITEM];
    enum mc_code rc;

    if (!mc_is_key(key))
        return mc_err_set(err, MC_EINVAL, "bad key '%s'", key);
    memcpy(hdr, key, MC_KEY_HEX);
    mc_le_put64(hdr + MC_KEY_HEX, len);
    mc_hash_update(&w->h, hdr, sizeof(hdr));
    mc_hash_update(&w->h, entry, len);
    rc = mc_file_write_all(w->fd, hdr, sizeof(hdr), "the archive", err);
    if (!rc)
        rc = mc_file_write_all(w->fd, entry, len, "the archive", err);
    if (!rc)
        w->count++;
    return rc;
}

enum mc_code
mc_archive_writer_finish(struct mc_archive_writer *w, struct mc_err *err)
{
    struct mc_digest sum;
    uint8_t count[8];
    enum mc_code rc;
    ssize_t n;

    mc_hash_digest(&w->h, &sum);
    rc = mc_file_write_all(w->fd, sum.b, sizeof(sum.b), "the archive", err);
    if (rc)
        return rc;
    mc_le_put64(count, w->count);
    do
        n = pwrite(w->fd, count, sizeof(count), 8);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)sizeof(count))
        return mc_err_set(err, MC_EIO, "cannot write the archive's count: "
                          "%s", n < 0 ? strerror(errno) : "short write");
    return MC_OK;
}

void
mc_archive_writer_release(struct mc_archive_writer *w)
{
    mc_hash_release(&w->h);
}

/* Add the entry file of ITEM to W, as it leaves this machine (share.h:
 * make's directory taken from its manifest; signed anew with KEYS, may
 * be NULL, when rewritten), or tell NOTE why it is left out. */
static enum mc_code
export_one(struct mc_archive_writer *w, const struct mc_sign_keys *keys,
           const struct mc_cache_item *item, struct mc_buf *raw,
           mc_archive_note_fn note, void *ctx, struct mc_err *err)
{
    struct mc_err why = MC_ERR_INIT;
    struct mc_buf shared = MC_BUF_INIT;
    struct mc_entry e;
    enum mc_code rc;
    int changed = 0;

    mc_buf_reset(raw);
    mc_entry_init(&e);
    rc = mc_file_read(item->path, raw, &why);
    if (rc == MC_ENOENT)
        return MC_OK; /* trimmed or cleaned meanwhile */
    if (!rc)
        rc = mc_entry_decode(raw->s, raw->len, &e, &why);
    if (!rc && strcmp(e.key, item->key))
        rc = mc_err_set(&why, MC_ESYNTAX, "entry holds key %s", e.key);
    mc_entry_release(&e);
    if (!rc)
        rc = mc_share_entry(raw->s, raw->len, NULL, keys, &shared,
                            &changed, &why);
    if (rc == MC_ENOMEM) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    } else if (rc) {
        if (note)
            note(ctx, item->key, why.msg);
        rc = MC_OK;
    } else {
        rc = changed ? mc_archive_writer_add(w, item->key, shared.s,
                                             shared.len, err)
                     : mc_archive_writer_add(w, item->key, raw->s,
                                             raw->len, err);
    }
    mc_buf_release(&shared);
    return rc;
}

enum mc_code
mc_archive_export(struct mc_cache *c, int fd, mc_archive_note_fn note,
                  void *ctx, size_t *n, struct mc_err *err)
{
    struct mc_archive_writer w;
    struct mc_cache_items items;
    struct mc_buf raw = MC_BUF_INIT;
    enum mc_code rc;
    size_t i;

    if (n)
        *n = 0;
    rc = mc_cache_scan(c, &items, err);
    if (rc)
        return rc;
    rc = mc_archive_writer_start(&w, fd, err);
    for (i = 0; !rc && i < items.n; i++)
        rc = export_one(&w, c->keys, &items.v[i], &raw, note, ctx, err);
    if (!rc)
        rc = mc_archive_writer_finish(&w, err);
    if (!rc && n)
        *n = (size_t)w.count;
    mc_archive_writer_release(&w);
    mc_cache_items_release(&items);
    mc_buf_release(&raw);
    return rc;
}

enum mc_code
mc_archive_export_file(struct mc_cache *c, const char *path,
                       mc_archive_note_fn note, void *ctx, size_t *n,
                       struct mc_err *err)
{
    struct mc_buf tmp = MC_BUF_INIT;
    enum mc_code rc;
    int fd;

    if (n)
        *n = 0;
    rc = mc_file_tmp_create(path, &tmp, &fd, err);
    if (!rc)
        rc = mc_archive_export(c, fd, note, ctx, n, err);
    if (!rc)
        rc = mc_file_tmp_commit(fd, tmp.s, path, err);
    else if (fd >= 0)
        mc_file_tmp_abort(fd, tmp.s);
    if (rc && n)
        *n = 0;
    mc_buf_release(&tmp);
    return rc;
}

/* ---- reading ---- */

void
mc_archive_item_init(struct mc_archive_item *it)
{
    it->index = 0;
    it->key[0] = '\0';
    mc_buf_init(&it->entry);
}

void
mc_archive_item_release(struct mc_archive_item *it)
{
    mc_buf_release(&it->entry);
    mc_archive_item_init(it);
}

/* Read up to LEN bytes into P: fewer (*GOT) only at the end of the
 * file. */
static enum mc_code
read_full(struct mc_archive_reader *r, void *p, size_t len, size_t *got,
          struct mc_err *err)
{
    *got = 0;
    while (*got < len) {
        ssize_t n = read(r->fd, (char *)p + *got, len - *got);

        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return mc_err_set(err, MC_EIO, "cannot read the archive: %s",
                              strerror(errno));
        if (n == 0)
            break;
        *got += (size_t)n;
        r->off += (uint64_t)n;
    }
    return MC_OK;
}

enum mc_code
mc_archive_reader_open(struct mc_archive_reader *r, int fd,
                       struct mc_err *err)
{
    uint8_t hdr[MC_ARCHIVE_HEADER];
    enum mc_code rc;
    size_t got;

    memset(r, 0, sizeof(*r));
    r->fd = fd;
    if (mc_hash_init(&r->h))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    rc = read_full(r, hdr, sizeof(hdr), &got, err);
    if (rc)
        return rc;
    if (got < sizeof(hdr) || memcmp(hdr, "MCXA", 4))
        return mc_err_set(err, MC_ESYNTAX, "not a maxcode archive");
    if (mc_le_get32(hdr + 4) != MC_ARCHIVE_VERSION)
        return mc_err_set(err, MC_ESYNTAX, "archive format %u, expected %u",
                          (unsigned)mc_le_get32(hdr + 4), MC_ARCHIVE_VERSION);
    r->count = mc_le_get64(hdr + 8);
    return MC_OK;
}

/* After the last item: the trailer, and then the end of the file. */
static enum mc_code
read_trailer(struct mc_archive_reader *r, struct mc_err *err)
{
    uint8_t sum[TRAILER_LEN + 1];
    unsigned long long at = (unsigned long long)r->off;
    struct mc_digest want;
    enum mc_code rc;
    size_t got;

    rc = read_full(r, sum, sizeof(sum), &got, err);
    if (rc)
        return rc;
    if (got < TRAILER_LEN)
        return mc_err_set(err, MC_ESYNTAX, "archive cut short after its "
                          "last entry, at byte %llu: %zu of %d bytes of "
                          "its checksum", (unsigned long long)r->off, got,
                          TRAILER_LEN);
    mc_hash_digest(&r->h, &want);
    if (memcmp(want.b, sum, TRAILER_LEN))
        return mc_err_set(err, MC_ESYNTAX, "archive checksum mismatch (at "
                          "byte %llu)", at);
    if (got > TRAILER_LEN)
        return mc_err_set(err, MC_ESYNTAX, "bytes follow the archive's "
                          "checksum, from byte %llu",
                          at + TRAILER_LEN);
    return MC_ENOENT;
}

/* The key and length of the next item, into IT and *LEN. */
static enum mc_code
read_item_header(struct mc_archive_reader *r, struct mc_archive_item *it,
                 uint64_t *len, struct mc_err *err)
{
    uint8_t hdr[MC_ARCHIVE_ITEM];
    unsigned long long at = (unsigned long long)r->off,
                       i = (unsigned long long)it->index;
    enum mc_code rc;
    size_t got;

    rc = read_full(r, hdr, sizeof(hdr), &got, err);
    if (rc)
        return rc;
    if (got == 0)
        return mc_err_set(err, MC_ESYNTAX, "archive cut short before entry "
                          "%llu of %llu, at byte %llu", i,
                          (unsigned long long)r->count, at);
    if (got < sizeof(hdr))
        return mc_err_set(err, MC_ESYNTAX, "archive cut short in the "
                          "header of entry %llu of %llu, at byte %llu", i,
                          (unsigned long long)r->count,
                          (unsigned long long)r->off);
    memcpy(it->key, hdr, MC_KEY_HEX);
    it->key[MC_KEY_HEX] = '\0';
    if (!mc_is_key(it->key)) {
        it->key[0] = '\0';
        return mc_err_set(err, MC_ESYNTAX, "entry %llu has no key (at byte "
                          "%llu): the archive is damaged from there", i,
                          at);
    }
    *len = mc_le_get64(hdr + MC_KEY_HEX);
    if (*len > MC_FILE_MAX)
        return mc_err_set(err, MC_ESYNTAX, "entry %llu (%s) claims %llu "
                          "bytes (at byte %llu): the archive is damaged "
                          "from there", i, it->key,
                          (unsigned long long)*len, at);
    mc_hash_update(&r->h, hdr, sizeof(hdr));
    return MC_OK;
}

/* The next item, as mc_archive_next() but for the end's stickiness. */
static enum mc_code
next_item(struct mc_archive_reader *r, struct mc_archive_item *it,
          struct mc_err *err)
{
    enum mc_code rc;
    uint64_t len = 0;
    size_t got;

    if (r->index == r->count)
        return read_trailer(r, err);
    rc = read_item_header(r, it, &len, err);
    if (rc)
        return rc;
    if (mc_buf_grow(&it->entry, (size_t)len))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    rc = read_full(r, it->entry.s, (size_t)len, &got, err);
    if (rc)
        return rc;
    it->entry.len = got;
    it->entry.s[got] = '\0';
    if (got < len)
        return mc_err_set(err, MC_ESYNTAX, "archive cut short in entry %llu "
                          "of %llu (%s), at byte %llu: %zu of %llu bytes",
                          (unsigned long long)it->index,
                          (unsigned long long)r->count, it->key,
                          (unsigned long long)r->off, got,
                          (unsigned long long)len);
    mc_hash_update(&r->h, it->entry.s, got);
    r->index++;
    return MC_OK;
}

enum mc_code
mc_archive_next(struct mc_archive_reader *r, struct mc_archive_item *it,
                struct mc_err *err)
{
    mc_buf_reset(&it->entry);
    it->key[0] = '\0';
    it->index = r->index + 1;
    if (r->end == MC_OK)
        r->end = next_item(r, it, err);
    else if (r->end != MC_ENOENT)
        mc_err_set(err, r->end, "the archive could not be read further");
    return r->end;
}

void
mc_archive_reader_release(struct mc_archive_reader *r)
{
    mc_hash_release(&r->h);
}

enum mc_code
mc_archive_store(struct mc_cache *c, const struct mc_archive_item *it,
                 int *present, struct mc_err *err)
{
    return mc_cache_import(c, it->key, it->entry.s, it->entry.len, 0, NULL,
                           present, err);
}
