/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * hash.h: content keys. A key is XXH3-128 over typed, length-framed
 * fields, so that "-I -O2" and "-I-O2" (or a flag moved into another
 * field) can never give the same key:
 *
 *   field = name-length:u32le name value-length:u64le value
 *
 * Keys print as 32 lowercase hex digits. With MAXCODE_LOG=verbose the
 * caller may trace each field as it goes in (mc_hash_set_trace).
 */
#ifndef MC_HASH_H
#define MC_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "le.h"
#include "status.h"

#define MC_KEY_HEX 32 /* hex digits in a key, without the NUL */

struct mc_hash {
    void *state;   /* XXH3_state_t */
    int trace;     /* log each field at verbose level */
    /* Bytes not yet given to STATE: a key is many small fields, and one
     * XXH3 update of them together costs a fraction of one per field.
     * The digest is the same however the bytes are split; while nothing
     * has gone to STATE, it is the one-shot XXH3 of these bytes (a key
     * of a small source: no streaming at all). */
    int streamed;  /* some bytes went to STATE */
    size_t npend;
    uint8_t pend[1536];
};

struct mc_digest {
    uint8_t b[16];
};

/* Start a key. MC_ENOMEM if the state cannot be allocated. */
enum mc_code mc_hash_init(struct mc_hash *h);

/* Free H's state. */
void mc_hash_release(struct mc_hash *h);

/* Log every field added to H (name and up to 60 bytes of value). */
void mc_hash_set_trace(struct mc_hash *h, int on);

/* The general case of mc_hash_field_n(): a field that does not fit in
 * H->pend, or a traced one. */
void mc_hash_field_big(struct mc_hash *h, const char *name, size_t name_len,
                       const void *data, size_t len);

/* Add field NAME (NAME_LEN bytes) with the LEN bytes at DATA. Inline:
 * the usual field goes straight into H->pend, without a call. */
static inline void
mc_hash_field_n(struct mc_hash *h, const char *name, size_t name_len,
                const void *data, size_t len)
{
    uint8_t *p = h->pend + h->npend;
    uint32_t nl = (uint32_t)name_len;
    uint64_t vl = len;

    if (h->trace || len >= sizeof(h->pend) ||
        name_len + 12 + len > sizeof(h->pend) - h->npend) {
        mc_hash_field_big(h, name, name_len, data, len);
        return;
    }
    /* name-length:u32le name value-length:u64le value */
    mc_le_put32(p, nl);
    memcpy(p + 4, name, name_len);
    mc_le_put64(p + 4 + name_len, vl);
    if (len) /* DATA may be NULL then */
        memcpy(p + 12 + name_len, data, len);
    h->npend += name_len + 12 + len;
}

/* Add field NAME as absent: a length no value can have. */
void mc_hash_field_absent(struct mc_hash *h, const char *name);

/* Add field NAME with the LEN bytes at DATA. Inline, so that the length
 * of a literal NAME is known when compiling (a key is some 30 fields). */
static inline void
mc_hash_field(struct mc_hash *h, const char *name, const void *data,
              size_t len)
{
    mc_hash_field_n(h, name, strlen(name), data, len);
}

/* Add field NAME with the string S (NULL counts as absent: "" with a
 * distinct marker). */
static inline void
mc_hash_field_str(struct mc_hash *h, const char *name, const char *s)
{
    if (s)
        mc_hash_field_n(h, name, strlen(name), s, strlen(s));
    else
        mc_hash_field_absent(h, name);
}

/* Add field NAME with the contents of the file at PATH. */
enum mc_code mc_hash_field_file(struct mc_hash *h, const char *name,
                                const char *path, struct mc_err *err);

/* Add field NAME with the contents of the regular file open as FD, read
 * from its start; LABEL names it in errors. Reads at most the size
 * fstat() gives, plus one byte to see that it did not grow: MC_EIO if
 * its size changed. The caller keeps and closes FD. */
enum mc_code mc_hash_field_fd(struct mc_hash *h, const char *name, int fd,
                              const char *label, struct mc_err *err);

/* Add the LEN bytes at DATA as they are, without a frame: for the
 * checksum of a stream (an archive), never for a key. */
void mc_hash_update(struct mc_hash *h, const void *data, size_t len);

/* The digest of everything added; H stays usable. */
void mc_hash_digest(struct mc_hash *h, struct mc_digest *out);

/* 33 bytes: the 32 hex digits of D and a NUL. */
void mc_digest_hex(const struct mc_digest *d, char out[MC_KEY_HEX + 1]);

/* Parse 32 hex digits (case-insensitive); 0 on success, -1 if not. */
int mc_digest_parse(const char *hex, struct mc_digest *out);

/* One-shot XXH3-128 of a buffer. */
void mc_hash_buffer(const void *data, size_t len, struct mc_digest *out);

/* XXH3-128 of the file at PATH, as hex. */
enum mc_code mc_hash_file_hex(const char *path, char out[MC_KEY_HEX + 1],
                              struct mc_err *err);

/* Whether S is exactly 32 lowercase hex digits. */
int mc_is_key(const char *s);

#endif /* MC_HASH_H */
