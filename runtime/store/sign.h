/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * sign.h: Ed25519 signatures (libsodium) over cache entries, and the
 * two key files. A machine that may publish entries holds a secret key
 * (MAXCODE_SIGNING_KEY) and signs every entry it stores; a reader lists
 * the public keys it trusts (MAXCODE_TRUSTED_KEYS) and stores an entry
 * from outside only when one of them signed it (cache.h,
 * mc_cache_import(); doc/sharing.md). Only this file calls libsodium:
 * the plugin, which reads the local store alone, never reaches it.
 *
 * Key files are text, as `maxcode key generate -o PREFIX` writes them
 * (base64 is RFC 4648's, with padding: 44 characters for 32 bytes):
 *   secret-file  = "maxcode-ed25519-secret" SP seed LF  ; PREFIX, 0600
 *   seed         = 44 BASE64                            ; the Ed25519
 *                                                       ; seed, 32 bytes
 *   public-file  = key-line                             ; PREFIX.pub
 *   trusted-file = *( key-line / comment / blank )      ; one key a line
 *   key-line     = *WSP "maxcode-ed25519" 1*WSP pubkey
 *                  [1*WSP text] *WSP LF                 ; text: a comment
 *   pubkey       = 44 BASE64                            ; the Ed25519
 *                                                       ; public key
 *   comment      = *WSP "#" text LF
 *   blank        = *WSP LF
 * A secret file that others than its owner may read is refused, as ssh
 * refuses such a private key. The signature a writer puts in an entry
 * (cache.h's SIGN section) is its public key and the 64-byte detached
 * signature, crypto_sign_detached(), over the entry's bytes.
 */
#ifndef MC_SIGN_H
#define MC_SIGN_H

#include <stddef.h>
#include "status.h"

#define MC_SIGN_PUBLIC_LEN 32  /* an Ed25519 public key */
#define MC_SIGN_SECRET_LEN 64  /* libsodium's secret key: seed, public */
#define MC_SIGN_BYTES      64  /* a detached signature */
#define MC_SIGN_KEY_TEXT   45  /* a key's base64, with its NUL */
#define MC_SIGN_FILE_MAX   (1u << 20) /* a key file's largest size */

struct mc_sign_keys {
    int can_sign;              /* a secret key is loaded */
    unsigned char secret[MC_SIGN_SECRET_LEN];
    unsigned char public[MC_SIGN_PUBLIC_LEN]; /* the secret key's */
    int checks;                /* trusted keys are configured: entries
                                * from outside are checked */
    unsigned char (*trusted)[MC_SIGN_PUBLIC_LEN];
    size_t n_trusted;
};

void mc_sign_keys_init(struct mc_sign_keys *k);

/* Release K's trusted keys and wipe its secret key; K is then as after
 * mc_sign_keys_init(). */
void mc_sign_keys_release(struct mc_sign_keys *k);

/* A new key pair into K (its old secret key wiped). MC_EINTERNAL when
 * libsodium cannot start. */
enum mc_code mc_sign_generate(struct mc_sign_keys *k, struct mc_err *err);

/*
 * Parse the LEN bytes at TEXT, a secret-file, into K's secret and
 * public key. MC_ESYNTAX, saying what is wrong but never quoting the
 * text, when it is not one. NAME (the file) begins each message.
 */
enum mc_code mc_sign_parse_secret(struct mc_sign_keys *k, const char *text,
                                  size_t len, const char *name,
                                  struct mc_err *err);

/*
 * Parse the LEN bytes at TEXT, a trusted-file (or a public-file), adding
 * each key to K's trusted keys and setting K->checks. MC_ESYNTAX naming
 * NAME:LINE when a line is neither a key, a comment nor blank; MC_ENOMEM.
 */
enum mc_code mc_sign_parse_trusted(struct mc_sign_keys *k, const char *text,
                                   size_t len, const char *name,
                                   struct mc_err *err);

/* mc_sign_parse_secret() of the file PATH, which must be a regular file
 * of at most MC_SIGN_FILE_MAX bytes that only its owner may read.
 * MC_EIO (no such file, unreadable, readable by others), MC_ESYNTAX. */
enum mc_code mc_sign_load_secret(struct mc_sign_keys *k, const char *path,
                                 struct mc_err *err);

/* mc_sign_parse_trusted() of the file PATH (a regular file of at most
 * MC_SIGN_FILE_MAX bytes). MC_EIO, MC_ESYNTAX, MC_ENOMEM. */
enum mc_code mc_sign_load_trusted(struct mc_sign_keys *k, const char *path,
                                  struct mc_err *err);

/*
 * Write K's pair as PREFIX (the secret-file, mode 0600) and PREFIX.pub
 * (the public-file, mode 0644 less the umask), COMMENT (may be NULL;
 * one line) after the public key. Neither file may exist already:
 * MC_EIO naming it, and nothing is written. K must hold a secret key.
 */
enum mc_code mc_sign_write_pair(const struct mc_sign_keys *k,
                                const char *prefix, const char *comment,
                                struct mc_err *err);

/* PUB as the base64 text of a key-line, into OUT. */
void mc_sign_key_text(const unsigned char pub[MC_SIGN_PUBLIC_LEN],
                      char out[MC_SIGN_KEY_TEXT]);

/* Sign the LEN bytes at MSG with K's secret key (K->can_sign must be
 * set): the detached signature into SIG. MC_EINTERNAL when libsodium
 * fails. */
enum mc_code mc_sign(const struct mc_sign_keys *k, const void *msg,
                     size_t len, unsigned char sig[MC_SIGN_BYTES],
                     struct mc_err *err);

/*
 * Whether SIG is PUB's signature of the LEN bytes at MSG and PUB is one
 * of K's trusted keys: MC_OK, or MC_EUNTRUSTED with why ("signed by a
 * key not trusted here (maxcode-ed25519 BASE64)", "its signature does
 * not verify").
 */
enum mc_code mc_sign_verify(const struct mc_sign_keys *k, const void *msg,
                            size_t len,
                            const unsigned char pub[MC_SIGN_PUBLIC_LEN],
                            const unsigned char sig[MC_SIGN_BYTES],
                            struct mc_err *err);

#endif /* MC_SIGN_H */
