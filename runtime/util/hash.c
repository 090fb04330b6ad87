/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * hash.c: typed, length-framed XXH3-128 keys.
 */
#include "mc_setup.h"
#include "hash.h"
#include "le.h"
#include "log.h"

#include <fcntl.h>
#include <xxhash.h>

enum mc_code
mc_hash_init(struct mc_hash *h)
{
    h->trace = 0;
    h->streamed = 0;
    h->npend = 0;
    h->state = XXH3_createState();
    if (!h->state)
        return MC_ENOMEM;
    XXH3_128bits_reset(h->state);
    return MC_OK;
}

void
mc_hash_release(struct mc_hash *h)
{
    if (h->state)
        XXH3_freeState(h->state);
    h->state = NULL;
}

void
mc_hash_set_trace(struct mc_hash *h, int on)
{
    h->trace = on;
}

/* Give H's pending bytes to its state. */
static void
flush(struct mc_hash *h)
{
    if (h->npend)
        XXH3_128bits_update(h->state, h->pend, h->npend);
    h->npend = 0;
    h->streamed = 1;
}

/* Hash LEN bytes at DATA: small ones wait in H->pend. */
static void
feed(struct mc_hash *h, const void *data, size_t len)
{
    if (len > sizeof(h->pend) - h->npend) {
        flush(h);
        if (len >= sizeof(h->pend)) {
            XXH3_128bits_update(h->state, data, len);
            h->streamed = 1;
            return;
        }
    }
    memcpy(h->pend + h->npend, data, len);
    h->npend += len;
}

/* The frame before a value: the name and the value's length, written
 * straight into H->pend when they fit (a key is some 30 of them). */
static void
frame(struct mc_hash *h, const char *name, size_t nl, uint64_t len)
{
    uint8_t *p, head[12];

    if (nl + 12 > sizeof(h->pend) - h->npend)
        flush(h);
    if (nl + 12 > sizeof(h->pend)) {
        mc_le_put32(head, (uint32_t)nl);
        mc_le_put64(head + 4, len);
        feed(h, head, 4);
        feed(h, name, nl);
        feed(h, head + 4, 8);
        return;
    }
    p = h->pend + h->npend;
    mc_le_put32(p, (uint32_t)nl);
    memcpy(p + 4, name, nl);
    mc_le_put64(p + 4 + nl, len);
    h->npend += nl + 12;
}

void
mc_hash_field_big(struct mc_hash *h, const char *name, size_t nl,
                  const void *data, size_t len)
{
    frame(h, name, nl, len);
    if (len)
        feed(h, data, len);
    if (h->trace)
        mc_verbose("key: %s = [%zu] %.60s", name, len,
                   len ? (const char *)data : "");
}

void
mc_hash_field_absent(struct mc_hash *h, const char *name)
{
    /* A length no string can have marks "absent". */
    frame(h, name, strlen(name), UINT64_MAX);
    if (h->trace)
        mc_verbose("key: %s = (absent)", name);
}

/* Stream the file at PATH into STATE; its size goes first, as the frame
 * of field NAME. */
enum mc_code
mc_hash_field_file(struct mc_hash *h, const char *name, const char *path,
                   struct mc_err *err)
{
    enum mc_code rc;
    int fd;

    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return mc_err_set(err, errno == ENOENT ? MC_ENOENT : MC_EIO,
                          "cannot open '%s': %s", path, strerror(errno));
    rc = mc_hash_field_fd(h, name, fd, path, err);
    close(fd);
    return rc;
}

enum mc_code
mc_hash_field_fd(struct mc_hash *h, const char *name, int fd,
                 const char *label, struct mc_err *err)
{
    char buf[65536];
    struct stat st;
    ssize_t n = 0;
    uint64_t total = 0;

    if (fstat(fd, &st))
        return mc_err_set(err, MC_EIO, "cannot stat '%s': %s", label,
                          strerror(errno));
    frame(h, name, strlen(name), (uint64_t)st.st_size);
    /* Never past its size and a byte: a file that grows ends here. */
    while (total <= (uint64_t)st.st_size &&
           (n = read(fd, buf, sizeof(buf))) > 0) {
        feed(h, buf, (size_t)n);
        total += (uint64_t)n;
    }
    if (n < 0 || total != (uint64_t)st.st_size)
        return mc_err_set(err, MC_EIO, "cannot read '%s': %s", label,
                          n < 0 ? strerror(errno) : "file changed size");
    if (h->trace)
        mc_verbose("key: %s = file '%s' [%llu]", name, label,
                   (unsigned long long)total);
    return MC_OK;
}

void
mc_hash_update(struct mc_hash *h, const void *data, size_t len)
{
    if (len)
        feed(h, data, len);
}

void
mc_hash_digest(struct mc_hash *h, struct mc_digest *out)
{
    XXH128_canonical_t c;
    XXH128_hash_t d;

    if (!h->streamed) {
        /* Everything is in H->pend: the one-shot hash is the same. */
        d = XXH3_128bits(h->pend, h->npend);
    } else {
        flush(h);
        d = XXH3_128bits_digest(h->state);
    }

    XXH128_canonicalFromHash(&c, d);
    memcpy(out->b, c.digest, 16);
}

void
mc_digest_hex(const struct mc_digest *d, char out[MC_KEY_HEX + 1])
{
    static const char hex[] = "0123456789abcdef";
    int i;

    for (i = 0; i < 16; i++) {
        out[2 * i] = hex[d->b[i] >> 4];
        out[2 * i + 1] = hex[d->b[i] & 15];
    }
    out[MC_KEY_HEX] = '\0';
}

static int
hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int
mc_digest_parse(const char *hex, struct mc_digest *out)
{
    int i;

    for (i = 0; i < 16; i++) {
        int hi = hexval(hex[2 * i]), lo = hi < 0 ? -1 : hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out->b[i] = (uint8_t)(hi << 4 | lo);
    }
    return hex[MC_KEY_HEX] == '\0' ? 0 : -1;
}

void
mc_hash_buffer(const void *data, size_t len, struct mc_digest *out)
{
    XXH128_hash_t d = XXH3_128bits(data, len);
    XXH128_canonical_t c;

    XXH128_canonicalFromHash(&c, d);
    memcpy(out->b, c.digest, 16);
}

enum mc_code
mc_hash_file_hex(const char *path, char out[MC_KEY_HEX + 1],
                 struct mc_err *err)
{
    struct mc_hash h;
    struct mc_digest d;
    enum mc_code rc;

    if (mc_hash_init(&h))
        return mc_err_set(err, MC_ENOMEM, "out of memory");
    rc = mc_hash_field_file(&h, "file", path, err);
    if (!rc) {
        mc_hash_digest(&h, &d);
        mc_digest_hex(&d, out);
    }
    mc_hash_release(&h);
    return rc;
}

int
mc_is_key(const char *s)
{
    /* strspn() tests 16 bytes at a time: each hit asks. */
    return strspn(s, "0123456789abcdef") == MC_KEY_HEX &&
           s[MC_KEY_HEX] == '\0';
}
