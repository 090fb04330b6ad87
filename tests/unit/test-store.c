/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-store.c: the store registry and its backends without a server:
 * MAXCODE_REMOTE's scheme chooses the backend and the message for an
 * unknown one lists the rows' schemes; the attributes; the file backend
 * puts and gets whole objects in both layouts, leaves no temporary file,
 * honours read-only, refuses a link (as the object or its directory)
 * and a FIFO as no entry, and a missing directory as a failure; the
 * local backend reads what the local store wrote and lets in only
 * entries of the key.
 */
#include "mc_setup.h"
#include "cache.h"
#include "store.h"
#include "tap.h"
#include "testfs.h"

#include <dirent.h>

#define KEY "ab23456789abcdef0123456789abcdef"
#define KEY2 "cd23456789abcdef0123456789abcdef"

static char root[64];

/* An entry file for KEY, into B. */
static void
entry_bytes(const char *key, struct mc_buf *b)
{
    struct mc_entry e;

    mc_entry_init(&e);
    memcpy(e.key, key, MC_KEY_HEX + 1);
    e.created = 1700000000;
    mc_buf_adds(&e.manifest, "{\"status\":\"original\"}");
    mc_buf_adds(&e.variant, "int f(void) { return 1; }\n");
    mc_entry_encode(&e, b);
    mc_entry_release(&e);
}

/* Open S on SPEC with the default settings. */
static enum mc_code
open_spec(struct mc_store *s, const char *spec, struct mc_err *err)
{
    struct mc_conf c;
    enum mc_code rc;

    if (mc_conf_init(&c, err))
        return MC_ENOMEM;
    rc = mc_store_open(s, spec, &c, err);
    mc_conf_release(&c);
    return rc;
}

/* How many names in DIR start with '.' (temporary files). */
static int
dot_files(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    int n = 0;

    while (d && (de = readdir(d)) != NULL)
        if (de->d_name[0] == '.' && strcmp(de->d_name, ".") &&
            strcmp(de->d_name, ".."))
            n++;
    if (d)
        closedir(d);
    return n;
}

static void
test_store__scheme_chooses_the_backend(void)
{
    struct mc_store s = MC_STORE_INIT;
    struct mc_err err = MC_ERR_INIT;
    char schemes[160], spec[128];

    mc_store_schemes(schemes, sizeof(schemes));
    is_str(schemes, "http://, https:// or file://", "the rows' schemes");
    is_long(open_spec(&s, "", &err), MC_ENOENT, "empty: none");
    mc_store_close(&s);
    is_long(open_spec(&s, "ftp://x/y|read-only", &err), MC_ECONFIG,
            "an unknown scheme");
    is_str(err.msg, "MAXCODE_REMOTE: 'ftp://x/y' is not an http://, "
           "https:// or file:// URL", "its message");
    mc_store_close(&s);
    mc_err_clear(&err);
    snprintf(spec, sizeof(spec), "file://%s|layout=tree", root);
    is_long(open_spec(&s, spec, &err), MC_ECONFIG, "an unknown attribute");
    contains(err.msg, "unknown attribute 'layout=tree'", "its message");
    mc_store_close(&s);
    mc_err_clear(&err);
    snprintf(spec, sizeof(spec), "file://%s///|read-only|layout=flat", root);
    is_long(open_spec(&s, spec, &err), MC_OK, "file:// opens");
    ok(s.ops == mc_store_find("file"), "by the file backend");
    ok(s.read_only && s.flat, "with its attributes");
    mc_store_describe(&s, spec, sizeof(spec));
    ok(!strncmp(spec, "file:///", 8) && spec[strlen(spec) - 1] != '/',
       "described without the trailing '/'");
    mc_store_close(&s);
    is_long(open_spec(&s, "http://127.0.0.1:9/c/", &err), MC_OK,
            "http:// opens (no I/O)");
    ok(s.ops == mc_store_find("http"), "by the http backend");
    mc_store_describe(&s, spec, sizeof(spec));
    is_str(spec, "http://127.0.0.1:9/c", "described");
    mc_store_close(&s);
    ok(mc_store_find("local") && !mc_store_find("nfs"), "found by name");
}

static void
test_store__file_put_and_get(void)
{
    struct mc_store s = MC_STORE_INIT;
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf in = MC_BUF_INIT, out = MC_BUF_INIT, path = MC_BUF_INIT;
    char spec[128];
    struct stat st;

    entry_bytes(KEY, &in);
    snprintf(spec, sizeof(spec), "file://%s/", root);
    is_long(open_spec(&s, spec, &err), MC_OK, "opens");
    is_long(mc_store_get(&s, KEY, &out, &err), MC_ENOENT, "a miss first");
    is_long(mc_store_put(&s, KEY, in.s, in.len, &err), MC_OK, "put");
    is_long((long)s.bytes_out, (long)in.len, "bytes out counted");
    mc_buf_addf(&path, "%s/ab/%s", root, KEY);
    ok(!stat(path.s, &st) && (size_t)st.st_size == in.len,
       "kept at ab/KEY, whole");
    mc_buf_reset(&path);
    mc_buf_addf(&path, "%s/ab", root);
    is_long(dot_files(path.s), 0, "no temporary file left");
    is_long(mc_store_get(&s, KEY, &out, &err), MC_OK, "got");
    ok(out.len == in.len && !memcmp(out.s, in.s, in.len), "the same bytes");
    is_long((long)s.bytes_in, (long)in.len, "bytes in counted");
    is_long(mc_store_put(&s, KEY, in.s, in.len, &err), MC_OK,
            "put again over it");
    mc_store_close(&s);

    snprintf(spec, sizeof(spec), "file://%s|layout=flat", root);
    is_long(open_spec(&s, spec, &err), MC_OK, "flat opens");
    is_long(mc_store_get(&s, KEY, &out, &err), MC_ENOENT,
            "the subdirs object is not the flat one");
    is_long(mc_store_put(&s, KEY, in.s, in.len, &err), MC_OK, "flat put");
    mc_buf_reset(&path);
    mc_buf_addf(&path, "%s/%s", root, KEY);
    ok(!stat(path.s, &st), "kept at KEY");
    is_long(dot_files(root), 0, "no temporary file left");
    mc_store_close(&s);

    snprintf(spec, sizeof(spec), "file://%s|read-only", root);
    is_long(open_spec(&s, spec, &err), MC_OK, "read-only opens");
    is_long(mc_store_put(&s, KEY2, in.s, in.len, &err), MC_EINVAL,
            "read-only: no put");
    mc_buf_reset(&path);
    mc_buf_addf(&path, "%s/cd", root);
    ok(stat(path.s, &st), "nothing made");
    is_long(mc_store_get(&s, KEY, &out, &err), MC_OK, "read-only: get");
    mc_store_close(&s);
    mc_buf_release(&in);
    mc_buf_release(&out);
    mc_buf_release(&path);
}

static void
test_store__file_refuses_what_is_no_entry(void)
{
    struct mc_store s = MC_STORE_INIT;
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf out = MC_BUF_INIT, path = MC_BUF_INIT;
    char spec[128], other[96];

    snprintf(spec, sizeof(spec), "file://%s", root);
    is_long(open_spec(&s, spec, &err), MC_OK, "opens");
    /* A link as the object: never followed. */
    snprintf(other, sizeof(other), "%s/secret", root);
    write_file(other, "secret\n");
    mc_buf_addf(&path, "%s/cd", root);
    mkdir(path.s, 0777);
    mc_buf_addf(&path, "/%s", KEY2);
    ok(!symlink(other, path.s), "a link planted");
    is_long(mc_store_get(&s, KEY2, &out, &err), MC_ESYNTAX,
            "a link: no entry");
    contains(err.msg, "is a symbolic link", "said");
    ok(!out.len, "nothing read");
    unlink(path.s);
    /* A FIFO: never waited on. */
    mc_err_clear(&err);
    ok(!mkfifo(path.s, 0600), "a FIFO planted");
    is_long(mc_store_get(&s, KEY2, &out, &err), MC_ESYNTAX,
            "a FIFO: no entry");
    contains(err.msg, "is a FIFO", "said");
    unlink(path.s);
    /* "cd" itself a link. */
    mc_err_clear(&err);
    mc_buf_reset(&path);
    mc_buf_addf(&path, "%s/cd", root);
    rmdir(path.s);
    ok(!symlink("/tmp", path.s), "the subdirectory a link");
    is_long(mc_store_get(&s, KEY2, &out, &err), MC_ESYNTAX,
            "a linked subdirectory: no entry");
    is_long(mc_store_put(&s, KEY2, "x", 1, &err), MC_EIO,
            "nothing written through it");
    unlink(path.s);
    mc_store_close(&s);
    /* A directory that is not there: a failure, as a server down. */
    mc_err_clear(&err);
    snprintf(spec, sizeof(spec), "file://%s/none", root);
    is_long(open_spec(&s, spec, &err), MC_EIO, "no directory: a failure");
    contains(err.msg, "No such file or directory", "said");
    mc_store_close(&s);
    mc_err_clear(&err);
    is_long(open_spec(&s, "file://relative/x", &err), MC_ECONFIG,
            "a relative directory is refused");
    mc_store_close(&s);
    mc_buf_release(&out);
    mc_buf_release(&path);
}

static void
test_store__local_backend(void)
{
    struct mc_store s = MC_STORE_INIT;
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf in = MC_BUF_INIT, out = MC_BUF_INIT, bad = MC_BUF_INIT;
    struct mc_cache c = MC_CACHE_INIT;
    struct mc_entry e;
    char dir[96];

    snprintf(dir, sizeof(dir), "%s/local", root);
    entry_bytes(KEY, &in);
    entry_bytes(KEY2, &bad);
    is_long(mc_store_open_with(&s, mc_store_find("local"), dir, NULL, &err),
            MC_OK, "opens");
    is_long(mc_store_get(&s, KEY, &out, &err), MC_ENOENT, "a miss");
    is_long(mc_store_put(&s, KEY, bad.s, bad.len, &err), MC_EIO,
            "another key's entry is not let in");
    is_long(mc_store_put(&s, KEY, in.s, in.len, &err), MC_OK, "put");
    mc_cache_init(&c, dir, NULL);
    mc_entry_init(&e);
    is_long(mc_cache_get(&c, KEY, &e, NULL), MC_OK,
            "the local store has it");
    mc_entry_release(&e);
    mc_cache_release(&c);
    is_long(mc_store_get(&s, KEY, &out, &err), MC_OK, "got");
    ok(out.len == in.len && !memcmp(out.s, in.s, in.len), "the same bytes");
    mc_store_close(&s);
    mc_buf_release(&in);
    mc_buf_release(&out);
    mc_buf_release(&bad);
}

int
main(void)
{
    snprintf(root, sizeof(root), "/tmp/mc-test-store.XXXXXX");
    if (!mkdtemp(root)) {
        printf("Bail out! mkdtemp\n");
        return 1;
    }
    TAP_RUN(test_store__scheme_chooses_the_backend);
    TAP_RUN(test_store__file_put_and_get);
    TAP_RUN(test_store__file_refuses_what_is_no_entry);
    TAP_RUN(test_store__local_backend);
    nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return tap_done();
}
