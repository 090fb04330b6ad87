/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-cache.c: entries round-trip; corruption is caught, counted and
 * removed; counters add up; a stats file of an older maxcode (without
 * the newer counters) still reads and keeps its counts; trimming goes
 * least recently used first; an include record of a device or a FIFO
 * is invalid at once.
 */
#include "mc_setup.h"
#include "cache.h"
#include "tap.h"

#include <fcntl.h>
#include <sys/stat.h>

static char dir[] = "/tmp/mc-cache-XXXXXX";

static void
fill(struct mc_entry *e, char digit, const char *variant)
{
    mc_entry_init(e);
    memset(e->key, digit, MC_KEY_HEX);
    e->key[MC_KEY_HEX] = '\0';
    e->created = 1700000000;
    mc_buf_adds(&e->manifest, "{\"status\":\"original\"}");
    mc_buf_adds(&e->variant, variant);
}

static unsigned long long
stat_of(struct mc_cache *c, enum mc_stat s)
{
    struct mc_stats st;

    mc_cache_stats_read(c, &st, NULL);
    return st.n[s];
}

static void
test_cache__round_trip(void)
{
    struct mc_cache c;
    struct mc_entry e, got;
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf path = MC_BUF_INIT;
    struct stat st;

    mc_cache_init(&c, dir, &err);
    fill(&e, 'a', "int main(void) { return 0; }\n");
    mc_entry_init(&got);
    is_long(mc_cache_get(&c, e.key, &got, &err), MC_ENOENT,
            "an absent key is a miss");
    is_long(mc_cache_put(&c, &e, &err), MC_OK, "an entry is stored");
    mc_cache_path(&c, e.key, ".mce", &path);
    ok(strstr(path.s, "/aa/aa/aaaa") && stat(path.s, &st) == 0,
       "it is fanned out into ab/cd/");
    is_long(mc_cache_get(&c, e.key, &got, &err), MC_OK, "and read back");
    is_str(got.variant.s, e.variant.s, "the variant is the same");
    is_str(got.manifest.s, e.manifest.s, "the manifest is the same");
    is_long(got.created, 1700000000, "so is the creation time");
    ok(got.note.len == 0, "no note was stored, none is read");
    mc_entry_release(&got);

    /* A note (NOTE) goes with the entry; a key of its own. */
    e.key[0] = 'c';
    mc_buf_adds(&e.note, "the cached entry keeps the original: why");
    is_long(mc_cache_put(&c, &e, &err), MC_OK, "an entry with a note");
    mc_entry_init(&got);
    is_long(mc_cache_get(&c, e.key, &got, &err), MC_OK, "read back");
    is_str(got.note.s, e.note.s, "with its note");
    is_str(got.variant.s, e.variant.s, "and the same variant");
    mc_entry_release(&got);
    mc_entry_release(&e);
    mc_buf_release(&path);
    mc_cache_release(&c);
}

static void
test_cache__flipped_byte_is_caught(void)
{
    struct mc_cache c;
    struct mc_entry e, got;
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf path = MC_BUF_INIT;
    char byte = 0;
    int fd;

    mc_cache_init(&c, dir, &err);
    fill(&e, 'b', "int f(void) { return 42; }\n");
    mc_cache_put(&c, &e, &err);
    mc_cache_path(&c, e.key, ".mce", &path);
    fd = open(path.s, O_RDWR);
    ok(fd >= 0 && pread(fd, &byte, 1, 60) == 1, "read a payload byte");
    byte ^= 0x20;
    ok(pwrite(fd, &byte, 1, 60) == 1, "flipped it");
    close(fd);
    mc_entry_init(&got);
    is_long(mc_cache_get(&c, e.key, &got, &err), MC_ESYNTAX,
            "the checksum catches it");
    contains(err.msg, "checksum mismatch", "and says so");
    ok(access(path.s, F_OK) != 0, "the corrupt entry is removed");
    is_long(stat_of(&c, MC_STAT_CORRUPT), 1, "and counted");
    mc_entry_release(&got);
    mc_entry_release(&e);
    mc_buf_release(&path);
    mc_cache_release(&c);
}

static void
test_cache__truncated_entry_is_caught(void)
{
    struct mc_cache c;
    struct mc_entry e, got;
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf path = MC_BUF_INIT;

    mc_cache_init(&c, dir, &err);
    fill(&e, 'c', "int g;\n");
    mc_cache_put(&c, &e, &err);
    mc_cache_path(&c, e.key, ".mce", &path);
    ok(truncate(path.s, 50) == 0, "cut the entry short");
    mc_entry_init(&got);
    is_long(mc_cache_get(&c, e.key, &got, &err), MC_ESYNTAX,
            "a truncated entry is corrupt");
    mc_entry_release(&got);
    mc_entry_release(&e);
    mc_buf_release(&path);
    mc_cache_release(&c);
}

static void
test_cache__counters_add_and_zero(void)
{
    struct mc_cache c;
    struct mc_stats d;
    int i;

    mc_cache_init(&c, dir, NULL);
    memset(&d, 0, sizeof(d));
    d.n[MC_STAT_HITS] = 2;
    d.cost = 0.5;
    for (i = 0; i < 3; i++)
        mc_cache_stats_add(&c, &d, NULL);
    is_long(stat_of(&c, MC_STAT_HITS), 6, "three adds of 2 hits give 6");
    mc_cache_stats_zero(&c, NULL);
    is_long(stat_of(&c, MC_STAT_HITS), 0, "zero resets");
    mc_cache_release(&c);
}

/* The stats file as maxcode 0.1.0 wrote it: the first twelve counters
 * and the cost, no fallback reasons, no search_ms. */
static void
test_cache__old_stats_file_reads(void)
{
    static const char old[] =
        "hits 7\nmisses 3\nstores 3\nsearches 3\noptimized 1\n"
        "fallbacks 2\ncandidates 12\nllm_requests 4\ntokens_in 900\n"
        "tokens_out 300\ncorrupt 1\ntrimmed 0\nsome_future_counter 5\n"
        "cost 0.250000\n";
    struct mc_cache c;
    struct mc_stats d, st;
    char path[64];
    FILE *f;

    mc_cache_init(&c, dir, NULL);
    snprintf(path, sizeof(path), "%s/stats", dir);
    f = fopen(path, "w");
    ok(f && fputs(old, f) >= 0 && fclose(f) == 0, "wrote an old stats file");
    ok(mc_cache_stats_read(&c, &st, NULL) == MC_OK, "it reads");
    is_long((long)st.n[MC_STAT_HITS], 7, "hits as written");
    is_long((long)st.n[MC_STAT_FALLBACKS], 2, "fallbacks as written");
    is_long((long)st.n[MC_STAT_FALLBACK_INCORRECT], 0,
            "a counter it lacks is 0");
    is_long((long)st.n[MC_STAT_SEARCH_MS], 0, "search_ms it lacks is 0");
    ok(st.cost == 0.25, "the cost as written");
    memset(&d, 0, sizeof(d));
    d.n[MC_STAT_FALLBACKS] = 1;
    d.n[MC_STAT_FALLBACK_INCORRECT] = 1;
    d.n[MC_STAT_SEARCH_MS] = 1500;
    ok(mc_cache_stats_add(&c, &d, NULL) == MC_OK, "an update adds to it");
    mc_cache_stats_read(&c, &st, NULL);
    is_long((long)st.n[MC_STAT_HITS], 7, "the old counts stay");
    is_long((long)st.n[MC_STAT_FALLBACKS], 3, "fallbacks added to");
    is_long((long)st.n[MC_STAT_FALLBACK_INCORRECT], 1, "a new counter");
    is_long((long)st.n[MC_STAT_SEARCH_MS], 1500, "search_ms");
    mc_cache_stats_zero(&c, NULL);
    mc_cache_release(&c);
}

/* The counters are rewritten in place (one file, its inode kept): a
 * shorter text leaves nothing of the longer one past it; a counters
 * file with a second name elsewhere is replaced, never written through,
 * and the other name keeps its text. */
static void
test_cache__counters_in_place_and_links(void)
{
    struct mc_cache c;
    struct mc_stats d, st;
    struct stat before, after, other;
    char path[64], other_name[64], text[512];
    FILE *f;
    size_t n;

    mc_cache_init(&c, dir, NULL);
    snprintf(path, sizeof(path), "%s/stats", dir);
    memset(&d, 0, sizeof(d));
    d.n[MC_STAT_HITS] = 123456789012ull;
    d.n[MC_STAT_MISSES] = 98765432109ull;
    mc_cache_stats_add(&c, &d, NULL);
    ok(stat(path, &before) == 0, "the counters file is there");
    mc_cache_stats_zero(&c, NULL);
    d.n[MC_STAT_HITS] = 1;
    d.n[MC_STAT_MISSES] = 0;
    mc_cache_stats_add(&c, &d, NULL);
    ok(stat(path, &after) == 0 && after.st_ino == before.st_ino,
       "rewritten in place: the same inode");
    mc_cache_stats_read(&c, &st, NULL);
    is_long((long)st.n[MC_STAT_HITS], 1, "hits after zero and one add");
    is_long((long)st.n[MC_STAT_MISSES], 0, "nothing left of the old misses");
    f = fopen(path, "r");
    n = f ? fread(text, 1, sizeof(text) - 1, f) : 0;
    if (f)
        fclose(f);
    text[n] = '\0';
    ok(n == (size_t)before.st_size && !strstr(text, "98765"),
       "padded to the old length, no old digits past the new text");

    snprintf(other_name, sizeof(other_name), "%s/elsewhere", dir);
    ok(link(path, other_name) == 0, "a second name for the counters file");
    mc_cache_stats_add(&c, &d, NULL);
    mc_cache_stats_read(&c, &st, NULL);
    is_long((long)st.n[MC_STAT_HITS], 2, "the update still counts");
    ok(stat(path, &after) == 0 && stat(other_name, &other) == 0 &&
           after.st_ino != other.st_ino,
       "the linked file was replaced, not written through");
    mc_cache_stats_zero(&c, NULL);
    unlink(other_name);
    mc_cache_release(&c);
}

static void
test_cache__trim_removes_oldest_first(void)
{
    struct mc_cache c;
    struct mc_cache_items items;
    struct mc_entry e;
    struct mc_buf path = MC_BUF_INIT;
    struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};
    size_t removed = 0;
    uint64_t one;

    mc_cache_init(&c, dir, NULL);
    mc_cache_clean(&c, NULL, NULL);
    fill(&e, 'd', "old\n");
    mc_cache_put(&c, &e, NULL);
    mc_cache_path(&c, e.key, ".mce", &path);
    utimensat(AT_FDCWD, path.s, old, 0);
    mc_entry_release(&e);
    fill(&e, 'e', "new\n");
    mc_cache_put(&c, &e, NULL);
    mc_entry_release(&e);
    mc_cache_scan(&c, &items, NULL);
    is_long(items.n, 2, "two entries");
    one = items.v[1].size;
    mc_cache_items_release(&items);
    is_long(mc_cache_trim(&c, one, &removed, NULL), MC_OK, "trim works");
    is_long(removed, 1, "one entry goes");
    ok(access(path.s, F_OK) != 0, "the least recently used one");
    mc_cache_clean(&c, &removed, NULL);
    is_long(removed, 1, "clean removes the rest");
    mc_buf_release(&path);
    mc_cache_release(&c);
}

/* An include record naming a device or a FIFO (a crafted entry from a
 * shared cache) is invalid at once, not read forever. */
static void
test_cache__include_that_is_not_a_file_is_invalid(void)
{
    struct mc_buf fifo = MC_BUF_INIT;
    struct mc_entry e;

    fill(&e, '7', "int x;\n");
    mc_buf_addf(&e.includes, "%032d /dev/zero\n", 0);
    ok(!mc_entry_includes_valid(&e), "an include record of /dev/zero is "
       "invalid");
    mc_buf_addf(&fifo, "%s/fifo", dir);
    mc_buf_reset(&e.includes);
    mc_buf_addf(&e.includes, "%032d %s\n", 0, fifo.s);
    ok(!mkfifo(fifo.s, 0600) && !mc_entry_includes_valid(&e),
       "an include record of a FIFO is invalid, without blocking");
    mc_cache_forget_includes();
    mc_buf_release(&fifo);
    mc_entry_release(&e);
}

int
main(void)
{
    char cmd[64];

    if (!mkdtemp(dir)) {
        printf("Bail out! no scratch directory\n");
        return 1;
    }
    TAP_RUN(test_cache__round_trip);
    TAP_RUN(test_cache__flipped_byte_is_caught);
    TAP_RUN(test_cache__truncated_entry_is_caught);
    TAP_RUN(test_cache__counters_add_and_zero);
    TAP_RUN(test_cache__old_stats_file_reads);
    TAP_RUN(test_cache__counters_in_place_and_links);
    TAP_RUN(test_cache__trim_removes_oldest_first);
    TAP_RUN(test_cache__include_that_is_not_a_file_is_invalid);
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    if (system(cmd))
        printf("# could not remove %s\n", dir);
    return tap_done();
}
