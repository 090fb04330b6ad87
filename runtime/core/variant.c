/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * variant.c: rewriting and writing variant files.
 */
#include "mc_setup.h"
#include "variant.h"
#include "alloc.h"
#include "file.h"
#include "hash.h"
#include "log.h"
#include "paths.h"

#include <ctype.h>
#include <fcntl.h>

/* The most a .written record may hold: a link's text, with room. */
#define RECORD_MAX 3072

enum mc_code
mc_variant_path(const char *key, const char *name, struct mc_buf *b)
{
    /* ".maxcode/%s/%s", without printf: every hit makes it. */
    mc_buf_adds(b, ".maxcode/");
    mc_buf_adds(b, key);
    mc_buf_addc(b, '/');
    return mc_buf_adds(b, name);
}

/* The absolute directory of PATH (relative to the cwd); free with
 * mc_free(). */
static char *
abs_dir_of(const char *path)
{
    struct mc_buf b = MC_BUF_INIT;
    const char *slash = strrchr(path, '/');
    char cwd[PATH_MAX];

    if (path[0] != '/') {
        if (!mc_path_cwd(cwd, sizeof(cwd)))
            return NULL;
        mc_buf_addf(&b, "%s/", cwd);
    }
    if (slash)
        mc_buf_add(&b, path, (size_t)(slash - path));
    else if (b.len)
        b.s[--b.len] = '\0';
    return mc_buf_detach(&b, NULL);
}

/* If LINE (LEN bytes, no newline) is `# include "NAME"`, set *NAME_AT and
 * *NAME_LEN to NAME within LINE. */
static int
quote_include(const char *line, size_t len, size_t *name_at,
              size_t *name_len)
{
    size_t i = 0, start;

    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (i == len || line[i] != '#')
        return 0;
    i++;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (len - i < 7 || strncmp(line + i, "include", 7))
        return 0;
    i += 7;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    if (i == len || line[i] != '"')
        return 0;
    start = ++i;
    while (i < len && line[i] != '"')
        i++;
    if (i == len || i == start)
        return 0;
    *name_at = start;
    *name_len = i - start;
    return 1;
}

/* The stamp that names what a variant is written from: TEXT for SOURCE
 * (real path SOURCE_REAL), into HEX. */
static enum mc_code
stamp_of(const char *source, const char *source_real, const char *text,
         size_t len, char hex[MC_KEY_HEX + 1])
{
    struct mc_digest d;
    struct mc_hash h;

    if (mc_hash_init(&h))
        return MC_ENOMEM;
    mc_hash_field(&h, "text", text, len);
    mc_hash_field_str(&h, "source", source);
    mc_hash_field_str(&h, "source-real", source_real);
    mc_hash_digest(&h, &d);
    mc_hash_release(&h);
    mc_digest_hex(&d, hex);
    return MC_OK;
}

/* The first line of the variant of TEXT for SOURCE: #line and the
 * stamp, into OUT. */
static enum mc_code
first_line(const char *source, const char *source_real, const char *text,
           size_t len, struct mc_buf *out)
{
    char hex[MC_KEY_HEX + 1];
    const char *p;

    if (stamp_of(source, source_real, text, len, hex))
        return MC_ENOMEM;
    mc_buf_adds(out, "#line 1 \"");
    for (p = source; *p; p++) {
        if (*p == '"' || *p == '\\')
            mc_buf_addc(out, '\\');
        mc_buf_addc(out, *p);
    }
    mc_buf_addf(out, "\" /* maxcode %s */\n", hex);
    return mc_buf_status(out);
}

enum mc_code
mc_variant_rewrite(const char *path, const char *source,
                   const char *source_real, const char *text, size_t len,
                   struct mc_buf *out, struct mc_err *err)
{
    char *vdir = abs_dir_of(path), *sdir = abs_dir_of(source_real),
         *rel = NULL;
    enum mc_code rc = MC_OK;
    size_t off = 0;

    if (!vdir || !sdir || !(rel = mc_path_relative(vdir, sdir))) {
        rc = mc_err_set(err, MC_ENOMEM, "cannot resolve the directories of "
                        "'%s' and '%s'", path, source);
        goto out;
    }
    if (first_line(source, source_real, text, len, out)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    while (off < len) {
        const char *line = text + off;
        const char *nl = memchr(line, '\n', len - off);
        size_t n = nl ? (size_t)(nl - line) : len - off;
        size_t at, nlen;

        if (quote_include(line, n, &at, &nlen) && line[at] != '/') {
            struct mc_buf cand = MC_BUF_INIT;
            struct stat st;

            mc_buf_addf(&cand, "%s/%.*s", sdir, (int)nlen, line + at);
            if (mc_buf_status(&cand) == MC_OK && stat(cand.s, &st) == 0) {
                mc_buf_add(out, line, at);
                mc_buf_addf(out, "%s/", rel);
                mc_buf_add(out, line + at, n - at);
            } else {
                mc_buf_add(out, line, n);
            }
            mc_buf_release(&cand);
        } else {
            mc_buf_add(out, line, n);
        }
        if (nl)
            mc_buf_addc(out, '\n');
        off += n + (nl != NULL);
    }
    if (mc_buf_status(out))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
out:
    mc_free(vdir);
    mc_free(sdir);
    mc_free(rel);
    return rc;
}

/* Write DATA to PATH unless PATH already holds exactly that; *WROTE
 * says whether it did. */
static enum mc_code
write_if_changed(const char *path, const char *data, size_t len,
                 int *wrote, struct mc_err *err)
{
    struct mc_buf old = MC_BUF_INIT;
    int same;

    same = mc_file_read(path, &old, NULL) == MC_OK && old.len == len &&
           !memcmp(old.s, data, len);
    mc_buf_release(&old);
    *wrote = !same;
    if (same)
        return MC_OK;
    return mc_file_write_atomic(path, data, len, err);
}

/* The file NAME in the directory of PATH, into B. */
static enum mc_code
beside(const char *path, const char *name, struct mc_buf *b)
{
    const char *slash = strrchr(path, '/');

    /* "%.*s/%s", without printf: a hit makes it. */
    mc_buf_add(b, slash ? path : ".", slash ? (size_t)(slash - path) : 1);
    mc_buf_addc(b, '/');
    return mc_buf_adds(b, name);
}

/* The most the head of a record takes (head_of()): three numbers of
 * at most 20 digits, a file name, four separators. */
#define HEAD_MAX (3 * 20 + NAME_MAX + 4)

/* The head of the .written record of the file at PATH, whose status is
 * ST: "SIZE MTIME.NSEC NAME ", into OUT (HEAD_MAX bytes, no NUL); its
 * length, or 0 when the name is longer than a file name can be. The
 * stamp follows it in the record. Without printf: every hit makes it. */
static size_t
head_of(const char *path, const struct stat *st, char *out)
{
    const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
    size_t n = strlen(name);
    char *o = out;

    if (n > NAME_MAX)
        return 0;
    o = mc_put_dec(o, (unsigned long long)st->st_size, 0);
    *o++ = ' ';
    o = mc_put_dec(o, (unsigned long long)st->st_mtim.tv_sec, 0);
    *o++ = '.';
    o = mc_put_dec(o, (unsigned long long)st->st_mtim.tv_nsec, 9);
    *o++ = ' ';
    memcpy(o, name, n);
    o += n;
    *o++ = ' ';
    return (size_t)(o - out);
}

/* The .written record of the file at PATH, whose status is ST, written
 * from the text whose stamp is STAMP, into B. */
static enum mc_code
written_line(const char *path, const struct stat *st, const char *stamp,
             struct mc_buf *b)
{
    char head[HEAD_MAX] MC_NOINIT;
    size_t n = head_of(path, st, head);

    if (!n)
        return MC_EINVAL;
    mc_buf_add(b, head, n);
    return mc_buf_adds(b, stamp);
}

/* What the file at PATH is, against the first line of what .written
 * recorded and the text whose stamp is STAMP. The whole record goes into
 * REC (REC may be NULL). */
enum written { W_MISSING, W_UNRECORDED, W_CHANGED, W_OTHER, W_SAME };

static enum written
written_state(const char *path, const char *stamp, struct mc_buf *rec_out)
{
    struct mc_buf wp = MC_BUF_INIT, now = MC_BUF_INIT;
    char rec[PATH_MAX];
    enum written w = W_UNRECORDED;
    struct stat st;
    ssize_t n;

    if (stat(path, &st))
        return W_MISSING;
    /* The record is a symbolic link's text: one readlink(), where a
     * file would take an open, a read and a close. */
    if (!beside(path, ".written", &wp) &&
        (n = readlink(wp.s, rec, sizeof(rec))) > 0 &&
        (size_t)n < sizeof(rec) && !written_line(path, &st, stamp, &now)) {
        size_t head = now.len - strlen(stamp);
        const char *nl = memchr(rec, '\n', (size_t)n);
        size_t first = nl ? (size_t)(nl - rec) : (size_t)n;

        if (first == now.len && !memcmp(rec, now.s, now.len))
            w = W_SAME;
        else if (first > head && !memcmp(rec, now.s, head))
            w = W_OTHER; /* as written, from another text */
        else
            w = W_CHANGED;
        if (rec_out)
            mc_buf_add(rec_out, rec, (size_t)n);
    }
    mc_buf_release(&wp);
    mc_buf_release(&now);
    return w;
}

/* The hash of where a variant's text is put: SOURCE and SOURCE_REAL,
 * into HEX (one-shot XXH3 of both, each with its NUL). */
static enum mc_code
place_hash(const char *source, const char *source_real,
           char hex[MC_KEY_HEX + 1])
{
    char both[2 * PATH_MAX] MC_NOINIT;
    size_t a = strlen(source) + 1, b = strlen(source_real) + 1;
    struct mc_digest d;

    if (a + b > sizeof(both))
        return MC_EINVAL;
    memcpy(both, source, a);
    memcpy(both + a, source_real, b);
    mc_hash_buffer(both, a + b, &d);
    mc_digest_hex(&d, hex);
    return MC_OK;
}

/* The longest origin a record names (the cache's are at most 80
 * bytes), and the most a record's tail takes before its payload
 * (tail_of()). */
#define ORIGIN_MAX 128
#define TAIL_MAX   (3 + ORIGIN_MAX + 1 + MC_KEY_HEX)

/* The record's tail for ORIGIN, before its payload: "\n@ ORIGIN HASH",
 * into OUT (TAIL_MAX bytes, no NUL); its length, or 0 when ORIGIN is
 * NULL or too long, or the paths too long to hash here (no tail, no
 * fast hit). */
static size_t
tail_of(const char *source, const char *source_real, const char *origin,
        char *out)
{
    char hex[MC_KEY_HEX + 1];
    size_t n;

    if (!origin || (n = strlen(origin)) > ORIGIN_MAX ||
        place_hash(source, source_real, hex))
        return 0;
    memcpy(out, "\n@ ", 3);
    memcpy(out + 3, origin, n);
    out[3 + n] = ' ';
    memcpy(out + 4 + n, hex, MC_KEY_HEX);
    return 4 + n + MC_KEY_HEX;
}

/* The record's tail for ORIGIN and PAYLOAD (see variant.h) into B; an
 * empty B when tail_of() gives none. */
static enum mc_code
record_tail(const char *source, const char *source_real,
            const char *origin, const char *payload, struct mc_buf *b)
{
    char tail[TAIL_MAX] MC_NOINIT;
    size_t n = tail_of(source, source_real, origin, tail);

    if (!n)
        return MC_OK;
    mc_buf_add(b, tail, n);
    if (payload && *payload)
        mc_buf_addf(b, "\n%s", payload);
    return mc_buf_status(b);
}

/* Record the size and mtime of the file at PATH, just written from the
 * text whose stamp is STAMP, and TAIL (record_tail()), in .written: a
 * symbolic link whose text is the record, put in place by rename(). A
 * record that cannot be written costs the next hit a comparison of the
 * whole file, nothing else; one too long for a link's text is written
 * without its tail. */
static void
record_written(const char *path, const char *stamp, const struct mc_buf *tail)
{
    struct mc_buf wp = MC_BUF_INIT, tmp = MC_BUF_INIT, line = MC_BUF_INIT;
    struct stat st;

    if (!stat(path, &st) && !beside(path, ".written", &wp) &&
        !written_line(path, &st, stamp, &line) &&
        !mc_buf_addf(&tmp, "%s.%ld.%lx", wp.s, (long)getpid(),
                     (unsigned long)random())) {
        if (tail && tail->len && line.len + tail->len < RECORD_MAX)
            mc_buf_add(&line, tail->s, tail->len);
        if (!mc_buf_status(&line) && symlink(line.s, tmp.s) == 0 &&
            rename(tmp.s, wp.s))
            unlink(tmp.s);
    }
    mc_buf_release(&wp);
    mc_buf_release(&tmp);
    mc_buf_release(&line);
}

enum mc_code
mc_variant_mark_source(const char *path, const char *source_real,
                       struct mc_err *err)
{
    struct mc_buf sp = MC_BUF_INIT, line = MC_BUF_INIT;
    enum mc_code rc;
    int wrote;

    beside(path, ".source", &sp);
    mc_buf_addf(&line, "%s\n", source_real);
    if (mc_buf_status(&sp) || mc_buf_status(&line)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    rc = mc_file_mkdirs_for(sp.s, err);
    if (!rc)
        rc = write_if_changed(sp.s, line.s, line.len, &wrote, err);
out:
    mc_buf_release(&sp);
    mc_buf_release(&line);
    return rc;
}

enum mc_code
mc_variant_materialize_from(const char *path, const char *source,
                            const char *source_real, const char *text,
                            size_t len, const char *origin,
                            const char *payload, int *edited,
                            struct mc_err *err)
{
    struct mc_buf out = MC_BUF_INIT, rec = MC_BUF_INIT, tail = MC_BUF_INIT;
    char stamp[MC_KEY_HEX + 1];
    enum written w;
    enum mc_code rc;
    int wrote = 0;

    if (edited)
        *edited = 0;
    /* The hit path: the file is as maxcode wrote it, from this very text
     * (a stat() and a readlink(), no read of the file). */
    if (stamp_of(source, source_real, text, len, stamp) ||
        record_tail(source, source_real, origin, payload, &tail)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    w = written_state(path, stamp, &rec);
    if (w == W_SAME) {
        const char *nl = memchr(rec.s, '\n', rec.len);
        size_t first = nl ? (size_t)(nl - rec.s) : rec.len;

        /* A new origin renews the record's tail; none keeps it. */
        if (origin && (rec.len - first != tail.len ||
                       memcmp(rec.s + first, tail.s, tail.len)))
            record_written(path, stamp, &tail);
        rc = MC_OK;
        goto out;
    }
    rc = mc_variant_mark_source(path, source_real, err);
    if (!rc)
        rc = mc_variant_rewrite(path, source, source_real, text, len, &out,
                                err);
    if (!rc)
        rc = write_if_changed(path, out.s, out.len, &wrote, err);
    if (!rc)
        record_written(path, stamp, &tail);
    if (!rc && edited)
        *edited = w == W_CHANGED && wrote;
out:
    mc_buf_release(&out);
    mc_buf_release(&rec);
    mc_buf_release(&tail);
    return rc;
}

enum mc_code
mc_variant_materialize(const char *path, const char *source,
                       const char *source_real, const char *text,
                       size_t len, int *edited, struct mc_err *err)
{
    return mc_variant_materialize_from(path, source, source_real, text, len,
                                       NULL, NULL, edited, err);
}

int
mc_variant_fresh(const char *path, const char *source,
                 const char *source_real, const char *origin,
                 struct mc_buf *payload)
{
    /* In buffers on the stack, not mc_bufs: every hit comes here. */
    char rec[RECORD_MAX] MC_NOINIT, wp[PATH_MAX] MC_NOINIT;
    char head[HEAD_MAX] MC_NOINIT, tail[TAIL_MAX] MC_NOINIT;
    const char *slash = strrchr(path, '/'), *nl, *end;
    size_t dir = slash ? (size_t)(slash - path) : 1, hn, tn;
    struct stat st;
    ssize_t n;

    /* beside(path, ".written"), into WP. */
    if (dir + sizeof("/.written") > sizeof(wp))
        return 0;
    memcpy(wp, slash ? path : ".", dir);
    memcpy(wp + dir, "/.written", sizeof("/.written"));
    if (stat(path, &st) || (n = readlink(wp, rec, sizeof(rec))) <= 0 ||
        (size_t)n >= sizeof(rec))
        return 0;
    end = rec + n;
    /* The first line as written_line() makes it, but for the stamp,
     * which only the entry's text gives: the origin stands for it. */
    if (!(hn = head_of(path, &st, head)) ||
        !(tn = tail_of(source, source_real, origin, tail)) ||
        !(nl = memchr(rec, '\n', (size_t)n)) ||
        (size_t)(nl - rec) != hn + MC_KEY_HEX || memcmp(rec, head, hn) ||
        (size_t)(end - nl) < tn || memcmp(nl, tail, tn) ||
        (nl + tn < end && nl[tn] != '\n'))
        return 0;
    nl += tn;
    if (nl < end)
        mc_buf_add(payload, nl + 1, (size_t)(end - nl - 1));
    return !mc_buf_status(payload);
}

void
mc_variant_say_edited(const char *source, const char *path)
{
    mc_info("%s: '%s' had changed since maxcode wrote it; written again "
            "from the cache (edit %s itself)", source, path, source);
}
