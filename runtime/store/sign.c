/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sign.c: Ed25519 key pairs, their files, signing and checking (the
 * formats are in sign.h). The only file that calls libsodium; it starts
 * libsodium (sodium_init()) on first use, so that a process that never
 * signs nor checks, the plugin's, never does.
 */
#include "mc_setup.h"
#include "sign.h"
#include "alloc.h"
#include "buf.h"

#include <fcntl.h>
#include <sodium.h>

#define SECRET_TAG "maxcode-ed25519-secret"
#define PUBLIC_TAG "maxcode-ed25519"
#define B64_LEN    44 /* base64 of 32 bytes, padded */

static int
sodium_ready(struct mc_err *err)
{
    if (sodium_init() < 0) {
        mc_err_set(err, MC_EINTERNAL, "cannot initialise libsodium");
        return 0;
    }
    return 1;
}

void
mc_sign_keys_init(struct mc_sign_keys *k)
{
    memset(k, 0, sizeof(*k));
}

void
mc_sign_keys_release(struct mc_sign_keys *k)
{
    mc_free(k->trusted);
    sodium_memzero(k->secret, sizeof(k->secret)); /* no sodium_init() */
    mc_sign_keys_init(k);
}

enum mc_code
mc_sign_generate(struct mc_sign_keys *k, struct mc_err *err)
{
    if (!sodium_ready(err))
        return err ? err->code : MC_EINTERNAL;
    crypto_sign_keypair(k->public, k->secret);
    k->can_sign = 1;
    return MC_OK;
}

/* The 32 bytes whose base64 (B64_LEN characters) is at P into OUT. */
static int
decode_b64(const char *p, size_t n, unsigned char out[32])
{
    size_t got = 0;

    if (n != B64_LEN)
        return -1;
    if (sodium_base642bin(out, 32, p, n, NULL, &got, NULL,
                          sodium_base64_VARIANT_ORIGINAL) || got != 32)
        return -1;
    return 0;
}

void
mc_sign_key_text(const unsigned char pub[MC_SIGN_PUBLIC_LEN],
                 char out[MC_SIGN_KEY_TEXT])
{
    sodium_bin2base64(out, MC_SIGN_KEY_TEXT, pub, MC_SIGN_PUBLIC_LEN,
                      sodium_base64_VARIANT_ORIGINAL);
}

static int
is_wsp(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* The next line of [*P, END): its start and length, less the spaces
 * around it; *P moves past it. */
static const char *
next_line(const char **p, const char *end, size_t *n)
{
    const char *s = *p, *nl = memchr(s, '\n', (size_t)(end - s));
    const char *e = nl ? nl : end;

    *p = nl ? nl + 1 : end;
    while (s < e && is_wsp(*s))
        s++;
    while (e > s && is_wsp(e[-1]))
        e--;
    *n = (size_t)(e - s);
    return s;
}

/* The word at S (N bytes left) and its length. */
static size_t
word_len(const char *s, size_t n)
{
    size_t i = 0;

    while (i < n && !is_wsp(s[i]))
        i++;
    return i;
}

enum mc_code
mc_sign_parse_secret(struct mc_sign_keys *k, const char *text, size_t len,
                     const char *name, struct mc_err *err)
{
    const char *p = text, *end = text + len, *line, *rest;
    unsigned char seed[32];
    size_t n, w, lines = 0;
    enum mc_code rc = MC_OK;

    if (memchr(text, '\0', len))
        return mc_err_set(err, MC_ESYNTAX, "%s: not a maxcode secret key "
                          "(a NUL byte)", name);
    while (p < end) {
        line = next_line(&p, end, &n);
        if (n)
            lines++;
        if (!n || lines > 1)
            continue;
        w = word_len(line, n);
        rest = line + w;
        while (rest < line + n && is_wsp(*rest))
            rest++;
        if (w != strlen(SECRET_TAG) || memcmp(line, SECRET_TAG, w))
            return mc_err_set(err, MC_ESYNTAX, "%s: not a maxcode secret "
                              "key (it does not begin with '"
                              SECRET_TAG "')", name);
        if (decode_b64(rest, (size_t)(line + n - rest), seed))
            return mc_err_set(err, MC_ESYNTAX, "%s: the secret key is not "
                              "%d characters of base64", name, B64_LEN);
    }
    if (lines != 1)
        return mc_err_set(err, MC_ESYNTAX, "%s: a secret key file holds "
                          "one line, '" SECRET_TAG " BASE64' (it has %zu)",
                          name, lines);
    if (!sodium_ready(err)) {
        rc = err ? err->code : MC_EINTERNAL;
        goto out;
    }
    crypto_sign_seed_keypair(k->public, k->secret, seed);
    k->can_sign = 1;
out:
    sodium_memzero(seed, sizeof(seed));
    return rc;
}

/* Add PUB to K's trusted keys, unless it is there already. */
static enum mc_code
add_trusted(struct mc_sign_keys *k, const unsigned char pub[32])
{
    unsigned char (*v)[MC_SIGN_PUBLIC_LEN];
    size_t i;

    for (i = 0; i < k->n_trusted; i++)
        if (!memcmp(k->trusted[i], pub, MC_SIGN_PUBLIC_LEN))
            return MC_OK;
    v = mc_realloc(k->trusted, (k->n_trusted + 1) * sizeof(*v));
    if (!v)
        return MC_ENOMEM;
    memcpy(v[k->n_trusted++], pub, MC_SIGN_PUBLIC_LEN);
    k->trusted = v;
    return MC_OK;
}

enum mc_code
mc_sign_parse_trusted(struct mc_sign_keys *k, const char *text, size_t len,
                      const char *name, struct mc_err *err)
{
    const char *p = text, *end = text + len;
    size_t lineno = 0;

    k->checks = 1;
    if (memchr(text, '\0', len))
        return mc_err_set(err, MC_ESYNTAX, "%s: not a file of public keys "
                          "(a NUL byte)", name);
    while (p < end) {
        unsigned char pub[32];
        const char *line, *key;
        size_t n, w;

        line = next_line(&p, end, &n);
        lineno++;
        if (!n || line[0] == '#')
            continue;
        w = word_len(line, n);
        key = line + w;
        while (key < line + n && is_wsp(*key))
            key++;
        if (w != strlen(PUBLIC_TAG) || memcmp(line, PUBLIC_TAG, w))
            return mc_err_set(err, MC_ESYNTAX, "%s:%zu: expected '"
                              PUBLIC_TAG " BASE64 [COMMENT]', a comment "
                              "or a blank line", name, lineno);
        if (decode_b64(key, word_len(key, (size_t)(line + n - key)), pub))
            return mc_err_set(err, MC_ESYNTAX, "%s:%zu: the public key is "
                              "not %d characters of base64", name, lineno,
                              B64_LEN);
        if (add_trusted(k, pub))
            return mc_err_set(err, MC_ENOMEM, "out of memory");
    }
    return MC_OK;
}

/* The key file PATH into B: a regular file of at most MC_SIGN_FILE_MAX
 * bytes, never a FIFO or a device; *MODE gets its permission bits. */
static enum mc_code
read_key_file(const char *path, struct mc_buf *b, mode_t *mode,
              struct mc_err *err)
{
    struct stat st;
    enum mc_code rc = MC_OK;
    ssize_t n;
    int fd;

    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return mc_err_set(err, MC_EIO, "cannot open '%s': %s", path,
                          strerror(errno));
    if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
        rc = mc_err_set(err, MC_EIO, "'%s' is not a regular file", path);
        goto out;
    }
    *mode = st.st_mode & 07777;
    if (mc_buf_grow(b, 4096)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    while ((n = read(fd, b->s + b->len, b->cap - b->len - 1)) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rc = mc_err_set(err, MC_EIO, "cannot read '%s': %s", path,
                            strerror(errno));
            goto out;
        }
        b->len += (size_t)n;
        if (b->len > MC_SIGN_FILE_MAX) {
            rc = mc_err_set(err, MC_EIO, "'%s' is too large for a key "
                            "file", path);
            goto out;
        }
        if (b->len + 1 == b->cap && mc_buf_grow(b, 4096)) {
            rc = mc_err_set(err, MC_ENOMEM, "out of memory");
            goto out;
        }
    }
    b->s[b->len] = '\0';
out:
    close(fd);
    return rc;
}

enum mc_code
mc_sign_load_secret(struct mc_sign_keys *k, const char *path,
                    struct mc_err *err)
{
    struct mc_buf text = MC_BUF_INIT;
    enum mc_code rc;
    mode_t mode = 0;

    rc = read_key_file(path, &text, &mode, err);
    if (!rc && (mode & 077))
        rc = mc_err_set(err, MC_EIO, "'%s' may be read by others (mode "
                        "%04o): a secret key must be for its owner alone "
                        "(chmod 600 '%s')", path, (unsigned)mode, path);
    if (!rc)
        rc = mc_sign_parse_secret(k, text.s, text.len, path, err);
    if (text.s)
        sodium_memzero(text.s, text.cap);
    mc_buf_release(&text);
    return rc;
}

enum mc_code
mc_sign_load_trusted(struct mc_sign_keys *k, const char *path,
                     struct mc_err *err)
{
    struct mc_buf text = MC_BUF_INIT;
    enum mc_code rc;
    mode_t mode;

    k->checks = 1; /* even unreadable: nothing from outside is trusted */
    rc = read_key_file(path, &text, &mode, err);
    if (!rc)
        rc = mc_sign_parse_trusted(k, text.s, text.len, path, err);
    mc_buf_release(&text);
    return rc;
}

/* Create PATH, new, with MODE, holding the LEN bytes at DATA; on any
 * failure PATH is removed. */
static enum mc_code
write_new(const char *path, mode_t mode, const char *data, size_t len,
          struct mc_err *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                  mode);
    size_t done = 0;

    if (fd < 0)
        return mc_err_set(err, MC_EIO, "cannot create '%s': %s", path,
                          errno == EEXIST ? "it exists already (a key is "
                          "never overwritten)" : strerror(errno));
    while (done < len) {
        ssize_t n = write(fd, data + done, len - done);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    if (done < len || close(fd)) {
        int e = errno;

        if (done < len)
            close(fd);
        unlink(path);
        return mc_err_set(err, MC_EIO, "cannot write '%s': %s", path,
                          strerror(e));
    }
    return MC_OK;
}

enum mc_code
mc_sign_write_pair(const struct mc_sign_keys *k, const char *prefix,
                   const char *comment, struct mc_err *err)
{
    struct mc_buf pubpath = MC_BUF_INIT, secret = MC_BUF_INIT,
                  pub = MC_BUF_INIT;
    char seed_text[MC_SIGN_KEY_TEXT], pub_text[MC_SIGN_KEY_TEXT];
    enum mc_code rc;

    if (!k->can_sign)
        return mc_err_set(err, MC_EINVAL, "no secret key to write");
    if (comment && strpbrk(comment, "\r\n"))
        return mc_err_set(err, MC_EINVAL, "a key's comment is one line");
    /* libsodium's secret key begins with the seed. */
    mc_sign_key_text(k->secret, seed_text);
    mc_sign_key_text(k->public, pub_text);
    mc_buf_addf(&pubpath, "%s.pub", prefix);
    mc_buf_addf(&secret, SECRET_TAG " %s\n", seed_text);
    mc_buf_addf(&pub, PUBLIC_TAG " %s%s%s\n", pub_text,
                comment && *comment ? " " : "", comment ? comment : "");
    sodium_memzero(seed_text, sizeof(seed_text));
    if (mc_buf_status(&pubpath) || mc_buf_status(&secret) ||
        mc_buf_status(&pub)) {
        rc = mc_err_set(err, MC_ENOMEM, "out of memory");
        goto out;
    }
    if (access(pubpath.s, F_OK) == 0) {
        rc = mc_err_set(err, MC_EIO, "cannot create '%s': it exists "
                        "already (a key is never overwritten)", pubpath.s);
        goto out;
    }
    rc = write_new(prefix, 0600, secret.s, secret.len, err);
    if (!rc) {
        rc = write_new(pubpath.s, 0644, pub.s, pub.len, err);
        if (rc)
            unlink(prefix);
    }
out:
    if (secret.s)
        sodium_memzero(secret.s, secret.cap);
    mc_buf_release(&secret);
    mc_buf_release(&pub);
    mc_buf_release(&pubpath);
    return rc;
}

enum mc_code
mc_sign(const struct mc_sign_keys *k, const void *msg, size_t len,
        unsigned char sig[MC_SIGN_BYTES], struct mc_err *err)
{
    if (!k->can_sign)
        return mc_err_set(err, MC_EINVAL, "no secret key to sign with");
    if (!sodium_ready(err))
        return err ? err->code : MC_EINTERNAL;
    if (crypto_sign_detached(sig, NULL, msg, len, k->secret))
        return mc_err_set(err, MC_EINTERNAL, "cannot sign");
    return MC_OK;
}

enum mc_code
mc_sign_verify(const struct mc_sign_keys *k, const void *msg, size_t len,
               const unsigned char pub[MC_SIGN_PUBLIC_LEN],
               const unsigned char sig[MC_SIGN_BYTES], struct mc_err *err)
{
    char text[MC_SIGN_KEY_TEXT];
    size_t i;

    if (!sodium_ready(err))
        return err ? err->code : MC_EINTERNAL;
    mc_sign_key_text(pub, text);
    for (i = 0; i < k->n_trusted; i++)
        if (!memcmp(k->trusted[i], pub, MC_SIGN_PUBLIC_LEN))
            break;
    if (i == k->n_trusted)
        return mc_err_set(err, MC_EUNTRUSTED, "signed by a key not trusted "
                          "here (" PUBLIC_TAG " %s)", text);
    if (crypto_sign_verify_detached(sig, msg, len, pub))
        return mc_err_set(err, MC_EUNTRUSTED, "its signature does not "
                          "verify (it claims " PUBLIC_TAG " %s)", text);
    return MC_OK;
}
