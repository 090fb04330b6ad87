/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-archive.c: a cache goes out as one archive and comes back entry by
 * entry; a damaged entry or one under the wrong key is refused on its
 * own; a cut, a bad key, a wrong trailer or bytes after it end the read
 * with where it happened; an entry already there is not rewritten.
 */
#include "mc_setup.h"
#include "archive.h"
#include "file.h"
#include "tap.h"
#include "testfs.h"

#include <fcntl.h>

static char dir[] = "/tmp/mc-archive-XXXXXX";

/* A cache under DIR/NAME. */
static void
open_cache(struct mc_cache *c, const char *name)
{
    char path[128];

    snprintf(path, sizeof(path), "%s/%s", dir, name);
    mc_cache_init(c, path, NULL);
}

static void
put(struct mc_cache *c, char digit, const char *variant)
{
    struct mc_entry e;

    mc_entry_init(&e);
    memset(e.key, digit, MC_KEY_HEX);
    e.key[MC_KEY_HEX] = '\0';
    e.created = 1700000000;
    mc_buf_adds(&e.manifest, "{\"status\":\"original\"}");
    mc_buf_adds(&e.variant, variant);
    mc_cache_put(c, &e, NULL);
    mc_entry_release(&e);
}

/* The bytes of the file PATH, the first LEN of them (all for -1), into
 * the file OUT. */
static void
copy_cut(const char *path, const char *out, long len)
{
    struct mc_buf b = MC_BUF_INIT;

    mc_file_read(path, &b, NULL);
    if (len >= 0 && (size_t)len < b.len)
        b.len = (size_t)len;
    mc_file_write_atomic(out, b.s, b.len, NULL);
    mc_buf_release(&b);
}

/* Read the archive PATH through: the items that read, into *N, and the
 * code that ended it, with its message in ERR. */
static enum mc_code
read_all(const char *path, int *n, struct mc_err *err)
{
    struct mc_archive_reader r;
    struct mc_archive_item it;
    enum mc_code rc;
    int fd = open(path, O_RDONLY);

    *n = 0;
    mc_err_clear(err);
    mc_archive_item_init(&it);
    rc = mc_archive_reader_open(&r, fd, err);
    while (!rc && (rc = mc_archive_next(&r, &it, err)) == MC_OK)
        ++*n;
    mc_archive_item_release(&it);
    mc_archive_reader_release(&r);
    close(fd);
    return rc;
}

static void
test_archive__round_trip(void)
{
    struct mc_cache a, b;
    struct mc_archive_reader r;
    struct mc_archive_item it;
    struct mc_entry got;
    char path[128];
    size_t n = 0;
    int fd, present = -1;

    open_cache(&a, "rt-a");
    open_cache(&b, "rt-b");
    put(&a, '1', "int one;\n");
    put(&a, '2', "int two;\n");
    snprintf(path, sizeof(path), "%s/rt.mcxa", dir);
    is_long(mc_archive_export_file(&a, path, NULL, NULL, &n, NULL), MC_OK,
            "a cache of two entries is exported");
    is_long((long)n, 2, "both of them");
    fd = open(path, O_RDONLY);
    mc_archive_item_init(&it);
    is_long(mc_archive_reader_open(&r, fd, NULL), MC_OK, "it reads back");
    is_long((long)r.count, 2, "the header counts two items");
    while (mc_archive_next(&r, &it, NULL) == MC_OK)
        is_long(mc_archive_store(&b, &it, &present, NULL), MC_OK,
                "an item is stored");
    is_long((long)r.index, 2, "two items, then the end");
    is_long(mc_archive_next(&r, &it, NULL), MC_ENOENT, "the end stays");
    mc_archive_reader_release(&r);
    close(fd);
    mc_entry_init(&got);
    is_long(mc_cache_get(&b, "22222222222222222222222222222222", &got,
                         NULL), MC_OK, "the new cache has the entry");
    is_str(got.variant.s, "int two;\n", "with its variant");
    mc_entry_release(&got);
    fd = open(path, O_RDONLY);
    mc_archive_reader_open(&r, fd, NULL);
    mc_archive_next(&r, &it, NULL);
    is_long(mc_archive_store(&b, &it, &present, NULL), MC_OK,
            "storing the same bytes again is fine");
    is_long(present, 1, "and says they were there");
    mc_archive_reader_release(&r);
    mc_archive_item_release(&it);
    close(fd);
    mc_cache_release(&a);
    mc_cache_release(&b);
}

/* Write to PATH an archive of two items: GOOD under the key 333...,
 * then BAD (damaged by the caller, or not) under BAD_KEY. */
static void
write_two(const char *path, const struct mc_buf *good,
          const struct mc_buf *bad, const char *bad_key)
{
    struct mc_archive_writer w;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666);

    mc_archive_writer_start(&w, fd, NULL);
    mc_archive_writer_add(&w, "33333333333333333333333333333333", good->s,
                          good->len, NULL);
    mc_archive_writer_add(&w, bad_key, bad->s, bad->len, NULL);
    mc_archive_writer_finish(&w, NULL);
    mc_archive_writer_release(&w);
    close(fd);
}

static void
test_archive__bad_entries_are_refused_one_by_one(void)
{
    struct mc_cache c;
    struct mc_archive_reader r;
    struct mc_archive_item it;
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf good = MC_BUF_INIT, bad = MC_BUF_INIT, p = MC_BUF_INIT;
    char path[128];
    int fd, present, stored = 0, refused = 0;

    open_cache(&c, "bad");
    put(&c, '3', "int three;\n");
    mc_cache_path(&c, "33333333333333333333333333333333", ".mce", &p);
    mc_file_read(p.s, &good, NULL);
    mc_buf_add(&bad, good.s, good.len);
    bad.s[bad.len / 2] ^= 0x01;
    snprintf(path, sizeof(path), "%s/bad.mcxa", dir);
    write_two(path, &good, &bad, "44444444444444444444444444444444");
    fd = open(path, O_RDONLY);
    mc_archive_item_init(&it);
    mc_archive_reader_open(&r, fd, NULL);
    while (mc_archive_next(&r, &it, NULL) == MC_OK) {
        mc_err_clear(&err);
        if (mc_archive_store(&c, &it, &present, &err) == MC_OK)
            stored++;
        else if (err.code == MC_ESYNTAX && it.index == 2)
            refused++;
    }
    is_long(stored, 1, "the good entry is stored");
    is_long(refused, 1, "the damaged one is refused");
    is_str(err.msg, "checksum mismatch", "for its checksum");
    mc_archive_reader_release(&r);
    close(fd);
    /* The good bytes under another key. */
    write_two(path, &good, &good, "55555555555555555555555555555555");
    fd = open(path, O_RDONLY);
    mc_archive_reader_open(&r, fd, NULL);
    mc_archive_next(&r, &it, NULL);
    mc_archive_next(&r, &it, NULL);
    mc_err_clear(&err);
    is_long(mc_archive_store(&c, &it, &present, &err), MC_ESYNTAX,
            "an entry under another key is refused");
    contains(err.msg, "entry holds key 3333", "and says which key it holds");
    mc_archive_reader_release(&r);
    mc_archive_item_release(&it);
    close(fd);
    mc_buf_release(&good);
    mc_buf_release(&bad);
    mc_buf_release(&p);
    mc_cache_release(&c);
}

static void
test_archive__cuts_and_damage_say_where(void)
{
    struct mc_cache c;
    struct mc_err err = MC_ERR_INIT;
    char path[128], cut[128];
    int n;
    long size;
    struct stat st;

    open_cache(&c, "cut");
    put(&c, '6', "int six;\n");
    put(&c, '7', "int seven;\n");
    snprintf(path, sizeof(path), "%s/whole.mcxa", dir);
    snprintf(cut, sizeof(cut), "%s/cut.mcxa", dir);
    mc_archive_export_file(&c, path, NULL, NULL, NULL, NULL);
    stat(path, &st);
    size = (long)st.st_size;
    is_long(read_all(path, &n, &err), MC_ENOENT, "the whole archive reads");
    is_long(n, 2, "with both items");
    copy_cut(path, cut, 10);
    is_long(read_all(cut, &n, &err), MC_ESYNTAX, "a cut header is refused");
    is_str(err.msg, "not a maxcode archive", "as no archive");
    copy_cut(path, cut, size - 16 - 5);
    is_long(read_all(cut, &n, &err), MC_ESYNTAX, "a cut entry ends it");
    is_long(n, 1, "after the item before the cut");
    contains(err.msg, "archive cut short in entry 2 of 2 (7777", "named");
    copy_cut(path, cut, size - 3);
    is_long(read_all(cut, &n, &err), MC_ESYNTAX, "a cut trailer ends it");
    is_long(n, 2, "after both items");
    contains(err.msg, "13 of 16 bytes of its checksum", "and says so");
    /* Bytes after the trailer, a wrong trailer, a bad key. */
    {
        struct mc_buf b = MC_BUF_INIT;

        mc_file_read(path, &b, NULL);
        mc_buf_adds(&b, "x");
        mc_file_write_atomic(cut, b.s, b.len, NULL);
        is_long(read_all(cut, &n, &err), MC_ESYNTAX, "trailing bytes");
        contains(err.msg, "bytes follow the archive's checksum", "named");
        b.s[b.len - 2] ^= 0x01;
        mc_file_write_atomic(cut, b.s, b.len - 1, NULL);
        is_long(read_all(cut, &n, &err), MC_ESYNTAX, "a wrong trailer");
        contains(err.msg, "archive checksum mismatch", "named");
        b.s[b.len - 2] ^= 0x01;
        b.s[16] = 'X';
        mc_file_write_atomic(cut, b.s, b.len - 1, NULL);
        is_long(read_all(cut, &n, &err), MC_ESYNTAX, "a bad key");
        contains(err.msg, "entry 1 has no key (at byte 16)", "named");
        mc_buf_release(&b);
    }
    mc_cache_release(&c);
}

int
main(void)
{
    if (!mkdtemp(dir)) {
        printf("Bail out! no scratch directory\n");
        return 1;
    }
    TAP_RUN(test_archive__round_trip);
    TAP_RUN(test_archive__bad_entries_are_refused_one_by_one);
    TAP_RUN(test_archive__cuts_and_damage_say_where);
    if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS))
        printf("# could not remove %s\n", dir);
    return tap_done();
}
