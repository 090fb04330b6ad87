/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * compiler.c: the compiler identity per MAXCODE_COMPILER_CHECK, memoized
 * per process and remembered per compiler binary under the cache
 * directory (see compiler.h for the values and the file).
 */
#include "mc_setup.h"
#include "compiler.h"
#include "alloc.h"
#include "buf.h"
#include "file.h"
#include "hash.h"
#include "log.h"
#include "spawn.h"
#include "strv.h"

#define IDENT_SLOTS     16 /* identities memoized per process */
#define CHECK_TIMEOUT_S 60 /* a check command */

struct ident {
    char *compiler, *check, *identity;
};
static struct ident idents[IDENT_SLOTS];

/* The binary behind a compiler command's first word. */
struct binary {
    char *real; /* from realpath(), so free()d; NULL: unresolved */
    struct stat st;
};

static void
binary_find(const char *compiler, struct binary *b)
{
    struct mc_strv words = MC_STRV_INIT;
    char *exe = NULL;

    b->real = NULL;
    if (mc_shell_split(compiler, &words, NULL) == MC_OK && words.n &&
        (exe = mc_spawn_which(words.v[0])) != NULL)
        b->real = realpath(exe, NULL);
    if (b->real && stat(b->real, &b->st)) {
        free(b->real); /* from realpath() */
        b->real = NULL;
    }
    mc_free(exe);
    mc_strv_release(&words);
}

/* B's real path, size and modification time, as mtime checks it. */
static void
add_stat(struct mc_buf *id, const struct binary *b)
{
    mc_buf_addf(id, "%s|%lld|%lld.%09ld", b->real, (long long)b->st.st_size,
                (long long)b->st.st_mtim.tv_sec, b->st.st_mtim.tv_nsec);
}

/* CACHE_DIR/compilers/HEX.id of the check WHAT of binary B, into P. */
static enum mc_code
remembered_path(const char *cache_dir, const char *what,
                const struct binary *b, struct mc_buf *p)
{
    struct mc_buf st = MC_BUF_INIT;
    struct mc_digest d;
    struct mc_hash h;
    char hex[MC_KEY_HEX + 1];

    if (mc_hash_init(&h))
        return MC_ENOMEM;
    add_stat(&st, b);
    mc_hash_field_str(&h, "check", what);
    mc_hash_field_str(&h, "binary", st.s);
    mc_hash_digest(&h, &d);
    mc_hash_release(&h);
    mc_digest_hex(&d, hex);
    mc_buf_addf(p, "%s/compilers/%s.id", cache_dir, hex);
    if (mc_buf_status(&st)) {
        mc_buf_release(&st);
        return MC_ENOMEM;
    }
    mc_buf_release(&st);
    return mc_buf_status(p);
}

/* The identity remembered at PATH in CACHE_DIR, "PREFIX" and 32 hex
 * digits, appended to ID; 0 when there is one. */
static int
recall(const char *cache_dir, const char *path, const char *prefix,
       struct mc_buf *id)
{
    struct mc_buf b = MC_BUF_INIT;
    size_t n = strlen(prefix);
    int ok;

    ok = mc_file_read_shared(cache_dir, path + strlen(cache_dir) + 1,
                             MC_FILE_SMALL, &b, NULL) == MC_OK &&
         b.len == n + MC_KEY_HEX + 1 && !memcmp(b.s, prefix, n) &&
         b.s[b.len - 1] == '\n';
    if (ok) {
        b.s[b.len - 1] = '\0';
        ok = mc_is_key(b.s + n) && !mc_buf_adds(id, b.s);
    }
    mc_buf_release(&b);
    return ok ? 0 : -1;
}

/* Remember the identity TEXT at PATH; a failure costs only time. */
static void
remember(const char *path, const char *text)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_buf line = MC_BUF_INIT;

    mc_buf_addf(&line, "%s\n", text);
    if (mc_buf_status(&line) || mc_file_mkdirs_for(path, &err) ||
        mc_file_write_atomic(path, line.s, line.len, &err))
        mc_verbose("the compiler identity is not remembered: %s",
                   err.code ? err.msg : "out of memory");
    mc_buf_release(&line);
}

/* CHECK with each %compiler% replaced by COMPILER, into OUT. */
static enum mc_code
substitute(const char *check, const char *compiler, struct mc_buf *out)
{
    static const char word[] = "%compiler%";
    const char *p = check, *q;

    while ((q = strstr(p, word)) != NULL) {
        mc_buf_add(out, p, (size_t)(q - p));
        mc_buf_adds(out, compiler);
        p = q + sizeof(word) - 1;
    }
    mc_buf_adds(out, p);
    return mc_buf_status(out);
}

/* Run the check command CMD through /bin/sh; the hash of its stdout and
 * stderr into HEX. MC_EINVAL when it cannot run or fails. */
static enum mc_code
run_check(const char *cmd, char hex[MC_KEY_HEX + 1], struct mc_err *err)
{
    static char sh[] = "/bin/sh", dash_c[] = "-c";
    char *argv[4] = {sh, dash_c, NULL, NULL};
    struct mc_spawn_opts so = {.timeout_s = CHECK_TIMEOUT_S};
    struct mc_spawn_result r;
    struct mc_digest d;
    struct mc_hash h;
    enum mc_code rc = MC_OK;

    argv[2] = mc_strdup(cmd);
    mc_spawn_result_init(&r);
    if (!argv[2]) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    } else if (mc_spawn(argv, &so, &r, NULL)) {
        rc = mc_err_set(err, MC_EINVAL, "MAXCODE_COMPILER_CHECK: cannot "
                        "run '%s'", cmd);
    } else if (!r.exited || r.status) {
        mc_buf_rtrim(&r.err);
        rc = mc_err_set(err, MC_EINVAL, "MAXCODE_COMPILER_CHECK: '%s' "
                        "%s %d: %.120s", cmd,
                        r.timed_out  ? "timed out after"
                        : r.signaled ? "was killed by signal"
                                     : "exited with status",
                        r.timed_out  ? CHECK_TIMEOUT_S
                        : r.signaled ? r.sig
                                     : r.status,
                        r.err.s ? r.err.s : "");
    } else if (mc_hash_init(&h)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    } else {
        mc_hash_field(&h, "stdout", r.out.s ? r.out.s : "", r.out.len);
        mc_hash_field(&h, "stderr", r.err.s ? r.err.s : "", r.err.len);
        mc_hash_digest(&h, &d);
        mc_hash_release(&h);
        mc_digest_hex(&d, hex);
    }
    mc_spawn_result_release(&r);
    mc_free(argv[2]);
    return rc;
}

/* The part after "COMPILER|" for content (COMMAND NULL) or a command
 * check: remembered under CACHE_DIR, else computed and remembered. */
static enum mc_code
hashed_part(const struct binary *b, const char *command,
            const char *cache_dir, struct mc_buf *id, struct mc_err *err)
{
    const char *prefix = command ? "command:" : "content:";
    struct mc_buf path = MC_BUF_INIT;
    char hex[MC_KEY_HEX + 1];
    size_t start = id->len;
    enum mc_code rc = MC_OK;

    if (b->real && cache_dir && *cache_dir) {
        if (remembered_path(cache_dir, command ? command : "content", b,
                            &path)) {
            rc = mc_err_set(err, MC_ENOMEM, "out of memory");
            goto out;
        }
        if (!recall(cache_dir, path.s, prefix, id))
            goto out;
    }
    if (command) {
        rc = run_check(command, hex, err);
    } else if (mc_hash_file_hex(b->real, hex, NULL)) {
        /* Unreadable (execute-only): what mtime would say. */
        add_stat(id, b);
        goto out;
    }
    if (rc)
        goto out;
    mc_buf_addf(id, "%s%s", prefix, hex);
    if (path.len && !mc_buf_status(id))
        remember(path.s, id->s + start);
out:
    mc_buf_release(&path);
    return rc;
}

/* The identity of COMPILER under CHECK into ID. */
static enum mc_code
compute(const char *compiler, const char *check, const char *cache_dir,
        struct mc_buf *id, struct mc_err *err)
{
    struct mc_buf cmd = MC_BUF_INIT;
    struct binary b;
    enum mc_code rc = MC_OK;

    memset(&b, 0, sizeof(b));
    mc_buf_addf(id, "%s|", compiler);
    if (!*check)
        check = "content";
    if (!strcmp(check, "none") || !strncmp(check, "string:", 7)) {
        mc_buf_adds(id, check);
        goto out;
    }
    binary_find(compiler, &b);
    if (!strcmp(check, "mtime") || !strcmp(check, "content")) {
        if (!b.real)
            mc_buf_adds(id, "unresolved");
        else if (!strcmp(check, "mtime"))
            add_stat(id, &b);
        else
            rc = hashed_part(&b, NULL, cache_dir, id, err);
        goto out;
    }
    if (substitute(check, compiler, &cmd)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    rc = hashed_part(&b, cmd.s, cache_dir, id, err);
out:
    free(b.real); /* from realpath() */
    mc_buf_release(&cmd);
    if (!rc && mc_buf_status(id))
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
    return rc;
}

static void
slot_clear(struct ident *s)
{
    mc_free(s->compiler);
    mc_free(s->check);
    mc_free(s->identity);
    s->compiler = s->check = s->identity = NULL;
}

enum mc_code
mc_compiler_identity(const char *compiler, const char *check,
                     const char *cache_dir, const char **out,
                     struct mc_err *err)
{
    struct mc_buf b = MC_BUF_INIT;
    size_t i, slot = MC_ARRAY_SIZE(idents);
    enum mc_code rc;

    *out = NULL;
    for (i = 0; i < MC_ARRAY_SIZE(idents); i++) {
        if (idents[i].compiler && !strcmp(idents[i].compiler, compiler) &&
            !strcmp(idents[i].check, check)) {
            *out = idents[i].identity;
            return MC_OK;
        }
        if (!idents[i].compiler && slot == MC_ARRAY_SIZE(idents))
            slot = i;
    }
    rc = compute(compiler, check, cache_dir, &b, err);
    if (rc) {
        mc_buf_release(&b);
        return rc;
    }
    if (slot == MC_ARRAY_SIZE(idents)) {
        /* Full: reuse the last slot; still correct, just not memoized. */
        slot = MC_ARRAY_SIZE(idents) - 1;
        slot_clear(&idents[slot]);
    }
    idents[slot].compiler = mc_strdup(compiler);
    idents[slot].check = mc_strdup(check);
    idents[slot].identity = mc_buf_detach(&b, NULL);
    if (!idents[slot].compiler || !idents[slot].check ||
        !idents[slot].identity) {
        slot_clear(&idents[slot]);
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    }
    *out = idents[slot].identity;
    return MC_OK;
}

void
mc_compiler_forget(void)
{
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(idents); i++)
        slot_clear(&idents[i]);
}
