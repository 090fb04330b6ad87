/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * status.h: the one status enum that every fallible maxcode function
 * returns, and the caller-owned error struct that carries the detail.
 * The detail is written once, at the failure site, and quotes its subject:
 *   cannot open 'src/hot.c': No such file or directory
 */
#ifndef MC_STATUS_H
#define MC_STATUS_H

enum mc_code {
    MC_OK = 0,
    MC_ENOMEM,   /* out of memory */
    MC_EIO,      /* a file or pipe could not be read or written */
    MC_ENOENT,   /* something looked up does not exist */
    MC_EINVAL,   /* bad input: a value, a line, an argument */
    MC_ESYNTAX,  /* a file does not parse */
    MC_EUSAGE,   /* bad command line */
    MC_ECONFIG,  /* a setting is wrong */
    MC_EINTERNAL, /* a bug in maxcode */
    MC_EUNTRUSTED /* not signed by a trusted key (sign.h) */
};

struct mc_err {
    enum mc_code code;
    char msg[256];
};

#define MC_ERR_INIT {MC_OK, ""}

/* The constant, human-readable name of CODE ("out of memory"). */
const char *mc_strerror(enum mc_code code);

/*
 * Record CODE and a printf-style message in ERR (which may be NULL) and
 * return CODE, so a failure site reads `return mc_err_set(err, ...)`.
 * A message longer than ERR->msg is truncated. An ERR that already holds
 * an error keeps its first message.
 */
enum mc_code mc_err_set(struct mc_err *err, enum mc_code code,
                        const char *fmt, ...) MC_PRINTF(3, 4);

/* Reset ERR to MC_OK with an empty message. */
void mc_err_clear(struct mc_err *err);

#endif /* MC_STATUS_H */
