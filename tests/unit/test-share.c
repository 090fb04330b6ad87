/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-share.c: the copy of an entry that leaves the machine names the
 * paths of make's directory relative to it (source_path, flags, include
 * paths, make's directory itself), leaves other paths and look-alikes
 * alone, keeps the key, the creation time and the other sections, and is
 * a valid entry; an entry whose source_path is relative goes as it is.
 */
#include "mc_setup.h"
#include "cache.h"
#include "share.h"
#include "tap.h"

#define KEY "0123456789abcdef0123456789abcdef"

/* An entry file with MANIFEST, into B. */
static void
entry_bytes(const char *manifest, struct mc_buf *b)
{
    struct mc_entry e;

    mc_entry_init(&e);
    memcpy(e.key, KEY, sizeof(KEY));
    e.created = 1700000000;
    mc_buf_adds(&e.manifest, manifest);
    mc_buf_adds(&e.variant, "int f(void) { return 1; }\n");
    mc_buf_adds(&e.includes, "00000000000000000000000000000000 inc/a.h\n");
    mc_entry_encode(&e, b);
    mc_entry_release(&e);
}

/* The copy of an entry with MANIFEST, for MAKE_DIR, decoded into E;
 * *CHANGED as mc_share_entry() sets it. */
static enum mc_code
share(const char *manifest, const char *make_dir, struct mc_entry *e,
      int *changed)
{
    struct mc_buf in = MC_BUF_INIT, out = MC_BUF_INIT;
    enum mc_code rc;

    entry_bytes(manifest, &in);
    rc = mc_share_entry(in.s, in.len, make_dir, NULL, &out, changed,
                        NULL);
    if (!rc)
        rc = mc_entry_decode(*changed ? out.s : in.s,
                             *changed ? out.len : in.len, e, NULL);
    mc_buf_release(&in);
    mc_buf_release(&out);
    return rc;
}

static void
test_share__make_dir_paths_made_relative(void)
{
    struct mc_entry e;
    int changed = 0;

    mc_entry_init(&e);
    is_long(share("{\"source\":\"src/hot.c\","
                  "\"source_path\":\"/home/al/p/src/hot.c\","
                  "\"compiler\":\"/opt/gcc/bin/gcc\","
                  "\"flags\":[\"-I/home/al/p/inc\",\"-O2\","
                  "\"--sysroot=/home/al/p\",\"-I/home/al/px/inc\","
                  "\"-I/x/home/al/p/inc\"],"
                  "\"includes\":[\"/home/al/p/inc/a.h\"]}",
                  NULL, &e, &changed),
            MC_OK, "the copy is a valid entry");
    ok(changed, "it was rewritten");
    is_str(e.key, KEY, "under the same key");
    is_long(e.created, 1700000000, "with the same creation time");
    contains(e.variant.s, "return 1;", "the variant as it was");
    contains(e.includes.s, " inc/a.h", "the include records as they were");
    contains(e.manifest.s, "\"source_path\":\t\"src/hot.c\"",
             "source_path relative to make's directory");
    contains(e.manifest.s, "\"-Iinc\"", "a -I into make's directory");
    contains(e.manifest.s, "\"--sysroot=.\"", "make's directory itself");
    contains(e.manifest.s, "\"inc/a.h\"", "an include path");
    contains(e.manifest.s, "\"-I/home/al/px/inc\"", "a look-alike stays");
    contains(e.manifest.s, "\"-I/x/home/al/p/inc\"",
             "a path that holds it further in stays");
    contains(e.manifest.s, "\"/opt/gcc/bin/gcc\"", "a path outside stays");
    mc_entry_release(&e);
}

static void
test_share__given_make_dir_and_outside_source(void)
{
    struct mc_entry e;
    int changed = 0;

    mc_entry_init(&e);
    is_long(share("{\"source\":\"../lib/hot.c\","
                  "\"source_path\":\"/home/al/lib/hot.c\"}",
                  "/home/al/p", &e, &changed),
            MC_OK, "the copy is a valid entry");
    contains(e.manifest.s, "\"source_path\":\t\"../lib/hot.c\"",
             "a source outside make's directory, by ../");
    ok(e.manifest.s && !strstr(e.manifest.s, "/home/al"),
       "no absolute path is left");
    mc_entry_release(&e);
}

static void
test_share__relative_already_goes_as_it_is(void)
{
    struct mc_entry e;
    int changed = 1;

    mc_entry_init(&e);
    is_long(share("{\"source\":\"hot.c\",\"source_path\":\"hot.c\"}", NULL,
                  &e, &changed),
            MC_OK, "an entry from elsewhere");
    ok(!changed, "is not rewritten");
    mc_entry_release(&e);
    changed = 1;
    is_long(share("not json", NULL, &e, &changed), MC_OK,
            "a manifest that does not parse");
    ok(!changed, "goes as it is");
    mc_entry_release(&e);
}

int
main(void)
{
    TAP_RUN(test_share__make_dir_paths_made_relative);
    TAP_RUN(test_share__given_make_dir_and_outside_source);
    TAP_RUN(test_share__relative_already_goes_as_it_is);
    return tap_done();
}
