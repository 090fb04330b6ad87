/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * cmd_cache.c: `maxcode cache list|clean|trim|verify|export|import`:
 * looking into and looking after the local cache, and moving it between
 * machines as one archive. Finding the entry of a SOURCE or KEY
 * (mc_show_lookup) is here too; `maxcode show`, `diff` (cmd_show.c)
 * and `bench` use it.
 */
#include "mc_setup.h"
#include "alloc.h"
#include "archive.h"
#include "buf.h"
#include "cache.h"
#include "commands.h"
#include "conf.h"
#include "file.h"
#include "hash.h"
#include "log.h"
#include "manifest.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>

/* Open the cache named by the settings. With KEYS (may be NULL), the
 * keys an archive needs: for an import (SUB "import"), those it trusts
 * (MAXCODE_TRUSTED_KEYS) for what comes from outside; for an export, the
 * secret key (MAXCODE_SIGNING_KEY) that signs an entry rewritten as it
 * leaves (share.h). A key file that cannot be read is an error. */
static int
open_cache(struct mc_cache *c, struct mc_sign_keys *keys, const char *sub)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_conf conf;
    enum mc_setting_id id = MC_SET_SIGNING_KEY;
    const char *path;
    int rc = 0;

    if (mc_open_cache(c, &conf))
        return -1;
    if (keys && !strcmp(sub, "import"))
        id = MC_SET_TRUSTED_KEYS;
    path = mc_conf_get(&conf, id);
    if (keys && *path) {
        c->keys = keys;
        if (id == MC_SET_TRUSTED_KEYS
                ? mc_sign_load_trusted(keys, path, &err)
                : mc_sign_load_secret(keys, path, &err)) {
            mc_error("%s: %s", mc_conf_name(id), err.msg);
            rc = -1;
        }
    }
    mc_conf_release(&conf);
    return rc;
}

/* The manifest of entry E, parsed; NULL if it is not JSON. */
static cJSON *
parse_manifest(const struct mc_entry *e)
{
    return cJSON_ParseWithLength(e->manifest.s, e->manifest.len);
}

/*
 * The key of the newest variant directory .maxcode/KEY here whose
 * .source names SOURCE's real path REAL and whose entry C has: for an
 * entry that came from another checkout (a remote cache, an import),
 * whose manifest names that checkout's path. 0 when found.
 */
static int
find_here_for(struct mc_cache *c, const char *real, char *key_out)
{
    struct mc_buf path = MC_BUF_INIT, text = MC_BUF_INIT;
    DIR *d = real ? opendir(".maxcode") : NULL;
    time_t best_t = 0;
    struct dirent *de;
    struct stat st;
    int found = -1;

    while (d && (de = readdir(d)) != NULL) {
        if (!mc_is_key(de->d_name))
            continue;
        mc_buf_reset(&path);
        mc_buf_addf(&path, ".maxcode/%s/.source", de->d_name);
        mc_buf_reset(&text);
        if (mc_buf_status(&path) || stat(path.s, &st) ||
            mc_file_read(path.s, &text, NULL) || !text.len)
            continue;
        mc_buf_rtrim(&text);
        mc_buf_reset(&path);
        if (strcmp(text.s, real) || (found == 0 && st.st_mtime < best_t) ||
            mc_cache_path(c, de->d_name, ".mce", &path) ||
            access(path.s, F_OK))
            continue;
        memcpy(key_out, de->d_name, MC_KEY_HEX + 1);
        best_t = st.st_mtime;
        found = 0;
    }
    if (d)
        closedir(d);
    mc_buf_release(&path);
    mc_buf_release(&text);
    return found;
}

int
mc_show_same_file(const char *sp, const char *real)
{
    char here[PATH_MAX];

    if (sp[0] == '/')
        return !strcmp(sp, real);
    return *sp && realpath(sp, here) && !strcmp(here, real);
}

int
mc_show_later(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec != b->tv_sec ? a->tv_sec > b->tv_sec
                                  : a->tv_nsec > b->tv_nsec;
}

/* The newest entry whose manifest names SOURCE (by real path when
 * SOURCE exists, else by the name it was given), else the entry of
 * SOURCE's variant directory here. */
static int
find_newest_for(struct mc_cache *c, const char *source, char *key_out)
{
    struct mc_cache_items items;
    char *real = realpath(source, NULL);
    struct timespec best_mtime = {0, 0};
    int64_t best = -1;
    size_t i;

    if (mc_cache_scan(c, &items, NULL)) {
        free(real); /* from realpath() */
        return -1;
    }
    for (i = 0; i < items.n; i++) {
        struct mc_entry e;
        cJSON *m;

        mc_entry_init(&e);
        if (mc_entry_read_file(items.v[i].path, &e, NULL) == MC_OK &&
            (m = parse_manifest(&e)) != NULL) {
            const char *sp = mc_manifest_str(m, "source_path");
            /* By name only when SOURCE is not there to resolve; of two
             * created in one second, the file written last. */
            if ((real ? mc_show_same_file(sp, real)
                      : !strcmp(mc_manifest_str(m, "source"), source)) &&
                (e.created > best ||
                 (e.created == best &&
                  mc_show_later(&items.v[i].mtime, &best_mtime)))) {
                best = e.created;
                best_mtime = items.v[i].mtime;
                memcpy(key_out, e.key, MC_KEY_HEX + 1);
            }
            cJSON_Delete(m);
        }
        mc_entry_release(&e);
    }
    mc_cache_items_release(&items);
    if (best < 0 && find_here_for(c, real, key_out) == 0)
        best = 0;
    free(real); /* from realpath() */
    return best >= 0 ? 0 : -1;
}

/*
 * The newest manifest kept next to a variant file that was not cached
 * (.maxcode/KEY/manifest.json in the current directory) whose source is
 * SOURCE, parsed; NULL when there is none.
 */
static cJSON *
find_kept_for(const char *source)
{
    char *real = realpath(source, NULL);
    struct mc_buf path = MC_BUF_INIT, text = MC_BUF_INIT;
    cJSON *best = NULL, *m;
    time_t best_t = 0;
    struct dirent *de;
    struct stat st;
    DIR *d = opendir(".maxcode");

    while (d && (de = readdir(d)) != NULL) {
        if (!mc_is_key(de->d_name))
            continue;
        mc_buf_reset(&path);
        mc_buf_addf(&path, ".maxcode/%s/manifest.json", de->d_name);
        mc_buf_reset(&text);
        if (mc_buf_status(&path) || stat(path.s, &st) ||
            mc_file_read(path.s, &text, NULL))
            continue;
        m = cJSON_ParseWithLength(text.s, text.len);
        if (m && (real ? !strcmp(mc_manifest_str(m, "source_path"), real)
                       : !strcmp(mc_manifest_str(m, "source"), source)) &&
            (!best || st.st_mtime >= best_t)) {
            cJSON_Delete(best);
            best = m;
            best_t = st.st_mtime;
        } else {
            cJSON_Delete(m);
        }
    }
    if (d)
        closedir(d);
    mc_buf_release(&path);
    mc_buf_release(&text);
    free(real); /* from realpath() */
    return best;
}

int
mc_show_lookup(const char *what, struct mc_entry *e, cJSON **m)
{
    struct mc_cache c = MC_CACHE_INIT;
    struct mc_err err = MC_ERR_INIT;
    char key[MC_KEY_HEX + 1];
    int found = -1;

    *m = NULL;
    if (open_cache(&c, NULL, NULL))
        goto out;
    if (mc_is_key(what)) {
        memcpy(key, what, sizeof(key));
    } else if (find_newest_for(&c, what, key)) {
        /* Not cached: the outcome this directory's last build kept. */
        *m = find_kept_for(what);
        if (*m)
            found = 1;
        else
            mc_error("no cache entry for '%s'", what);
        goto out;
    }
    if (mc_cache_get(&c, key, e, &err)) {
        mc_error("no cache entry %s%s%s", key, err.msg[0] ? ": " : "",
                 err.msg);
        goto out;
    }
    *m = parse_manifest(e);
    if (!*m) {
        mc_error("entry %s has no readable manifest", key);
        goto out;
    }
    found = 0;
out:
    mc_cache_release(&c);
    return found;
}

static int
cache_list(struct mc_cache *c)
{
    struct mc_cache_items items;
    struct mc_err err = MC_ERR_INIT;
    size_t i;

    if (mc_cache_scan(c, &items, &err)) {
        mc_error("%s", err.msg);
        return 1;
    }
    for (i = items.n; i-- > 0;) {
        struct mc_entry e;
        cJSON *m = NULL;
        char size[32];

        mc_entry_init(&e);
        mc_human_size(items.v[i].size, size, sizeof(size));
        if (mc_entry_read_file(items.v[i].path, &e, NULL) == MC_OK)
            m = parse_manifest(&e);
        printf("%s %9s %-9s %s\n", items.v[i].key, size,
               m ? mc_manifest_str(m, "status") : "corrupt",
               m ? mc_manifest_str(m, "source") : items.v[i].path);
        cJSON_Delete(m);
        mc_entry_release(&e);
    }
    mc_cache_items_release(&items);
    return 0;
}

static int
cache_verify(struct mc_cache *c)
{
    struct mc_cache_items items;
    struct mc_err err = MC_ERR_INIT;
    size_t i, bad = 0;

    if (mc_cache_scan(c, &items, &err)) {
        mc_error("%s", err.msg);
        return 1;
    }
    for (i = 0; i < items.n; i++) {
        struct mc_entry e;
        struct mc_err e2 = MC_ERR_INIT;
        const char *name = strrchr(items.v[i].path, '/') + 1;

        mc_entry_init(&e);
        if (mc_entry_read_file(items.v[i].path, &e, &e2) == MC_OK &&
            strncmp(e.key, name, MC_KEY_HEX))
            mc_err_set(&e2, MC_ESYNTAX, "holds key %s", e.key);
        if (e2.code) {
            printf("corrupt %s: %s\n", items.v[i].path, e2.msg);
            bad++;
        }
        mc_entry_release(&e);
    }
    printf("%zu entries, %zu ok, %zu corrupt\n", items.n, items.n - bad,
           bad);
    mc_cache_items_release(&items);
    return bad ? 1 : 0;
}

/* An entry `cache export` leaves out: named on stderr, counted. */
static void
export_note(void *ctx, const char *key, const char *why)
{
    mc_error("export: entry %s: %s; skipped", key, why);
    ++*(size_t *)ctx;
}

/* The archive of C written to a temporary file, then copied to stdout:
 * its count is known last, and a pipe cannot be rewound to write it. */
static enum mc_code
export_stdout(struct mc_cache *c, size_t *bad, size_t *n,
              struct mc_err *err)
{
    FILE *tmp = tmpfile();
    enum mc_code rc;
    char buf[65536];
    ssize_t got;

    if (!tmp)
        return mc_err_set(err, MC_EIO, "cannot create a temporary file: %s",
                          strerror(errno));
    rc = mc_archive_export(c, fileno(tmp), export_note, bad, n, err);
    if (!rc && lseek(fileno(tmp), 0, SEEK_SET))
        rc = mc_err_set(err, MC_EIO, "cannot rewind the temporary file: "
                        "%s", strerror(errno));
    while (!rc && (got = read(fileno(tmp), buf, sizeof(buf))) != 0) {
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            rc = mc_err_set(err, MC_EIO, "cannot read the temporary file: "
                            "%s", strerror(errno));
        else
            rc = mc_file_write_all(STDOUT_FILENO, buf, (size_t)got,
                                   "standard output", err);
    }
    fclose(tmp);
    return rc;
}

static int
cache_export(struct mc_cache *c, const char *file)
{
    struct mc_err err = MC_ERR_INIT;
    int to_stdout = !strcmp(file, "-");
    size_t n = 0, bad = 0;
    enum mc_code rc;

    if (to_stdout && isatty(STDOUT_FILENO)) {
        mc_error("export: not writing an archive to a terminal");
        return 1;
    }
    rc = to_stdout ? export_stdout(c, &bad, &n, &err)
                   : mc_archive_export_file(c, file, export_note, &bad, &n,
                                            &err);
    if (rc) {
        mc_error("export: %s", err.msg);
        return 1;
    }
    fprintf(to_stdout ? stderr : stdout, "exported %zu entries, %zu "
            "skipped\n", n, bad);
    return 0;
}

/* Store each good entry from the archive R reads; name each bad one.
 * *BAD counts them; -1 when the cache cannot be written. */
static int
import_items(struct mc_cache *c, struct mc_archive_reader *r,
             size_t *imported, size_t *bad, struct mc_err *err)
{
    struct mc_archive_item it;
    enum mc_code rc;
    int status = 0;

    mc_archive_item_init(&it);
    while ((rc = mc_archive_next(r, &it, err)) == MC_OK) {
        struct mc_err why = MC_ERR_INIT;
        int present = 0;

        rc = mc_archive_store(c, &it, &present, &why);
        if (rc == MC_ESYNTAX) {
            mc_error("import: entry %llu (%s): %s; skipped",
                     (unsigned long long)it.index, it.key, why.msg);
            ++*bad;
        } else if (rc == MC_EUNTRUSTED) {
            mc_error("import: entry %llu (%s): refused, %s "
                     "(MAXCODE_TRUSTED_KEYS); skipped",
                     (unsigned long long)it.index, it.key, why.msg);
            ++*bad;
        } else if (rc) {
            mc_error("import: entry %llu (%s): %s",
                     (unsigned long long)it.index, it.key, why.msg);
            status = -1;
            break;
        } else {
            if (present)
                mc_verbose("import: entry %llu (%s): already present",
                           (unsigned long long)it.index, it.key);
            ++*imported;
        }
    }
    if (!status && rc != MC_ENOENT) {
        mc_error("import: %s", err->msg);
        status = -1;
    }
    mc_archive_item_release(&it);
    return status;
}

static int
cache_import(struct mc_cache *c, const char *file)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_archive_reader r;
    int from_stdin = !strcmp(file, "-"), status = 1, fd;
    size_t imported = 0, bad = 0;

    fd = from_stdin ? STDIN_FILENO : open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        mc_error("import: cannot open '%s': %s", file, strerror(errno));
        return 1;
    }
    if (mc_archive_reader_open(&r, fd, &err)) {
        mc_error("import: '%s': %s", from_stdin ? "standard input" : file,
                 err.msg);
    } else {
        status = import_items(c, &r, &imported, &bad, &err) || bad;
        printf("imported %zu entries, %zu skipped\n", imported, bad);
    }
    mc_archive_reader_release(&r);
    if (!from_stdin)
        close(fd);
    return status;
}

int
mc_cmd_cache(int argc, char **argv)
{
    struct mc_cache c = MC_CACHE_INIT;
    struct mc_sign_keys keys;
    struct mc_err err = MC_ERR_INIT;
    const char *sub = argc > 1 ? argv[1] : NULL;
    int archive = sub && (!strcmp(sub, "export") || !strcmp(sub, "import"));
    unsigned long long max = 0;
    size_t removed = 0;
    int status = 1;

    if (!sub)
        return mc_usage_error("cache: missing list, clean, trim, verify, "
                              "export or import");
    if (strcmp(sub, "list") && strcmp(sub, "clean") && strcmp(sub, "trim") &&
        strcmp(sub, "verify") && !archive)
        return mc_usage_error("cache: unknown command '%s'", sub);
    if (!strcmp(sub, "trim")) {
        if (argc != 4 || strcmp(argv[2], "--max-size") ||
            mc_conf_parse_size(argv[3], &max))
            return mc_usage_error("cache trim: expected --max-size SIZE "
                                  "(such as 500M)");
    } else if (archive && argc != 3) {
        return mc_usage_error("cache %s: expected one FILE (- for standard "
                              "%s)", sub, sub[0] == 'e' ? "output" : "input");
    } else if (!archive && argc != 2) {
        return mc_usage_error("cache %s: unexpected argument '%s'", sub,
                              argv[2]);
    }
    mc_sign_keys_init(&keys);
    if (open_cache(&c, archive ? &keys : NULL, sub)) {
        mc_cache_release(&c);
        mc_sign_keys_release(&keys);
        return 1;
    }
    if (!strcmp(sub, "list")) {
        status = cache_list(&c);
    } else if (!strcmp(sub, "verify")) {
        status = cache_verify(&c);
    } else if (!strcmp(sub, "export")) {
        status = cache_export(&c, argv[2]);
    } else if (!strcmp(sub, "import")) {
        status = cache_import(&c, argv[2]);
    } else if (!strcmp(sub, "clean")) {
        if (mc_cache_clean(&c, &removed, &err))
            mc_error("%s", err.msg);
        else
            status = (printf("removed %zu entries\n", removed), 0);
    } else {
        if (mc_cache_trim(&c, max, &removed, &err))
            mc_error("%s", err.msg);
        else
            status = (printf("removed %zu entries\n", removed), 0);
    }
    mc_cache_release(&c);
    mc_sign_keys_release(&keys);
    return status;
}
