/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * status.c: names of the status codes, and filling struct mc_err.
 */
#include "mc_setup.h"
#include "status.h"

const char *
mc_strerror(enum mc_code code)
{
    switch (code) {
    case MC_OK:
        return "success";
    case MC_ENOMEM:
        return "out of memory";
    case MC_EIO:
        return "input/output error";
    case MC_ENOENT:
        return "not found";
    case MC_EINVAL:
        return "invalid value";
    case MC_ESYNTAX:
        return "syntax error";
    case MC_EUSAGE:
        return "usage error";
    case MC_ECONFIG:
        return "configuration error";
    case MC_EINTERNAL:
        return "internal error";
    case MC_EUNTRUSTED:
        return "not signed by a trusted key";
    }
    return "unknown error";
}

enum mc_code
mc_err_set(struct mc_err *err, enum mc_code code, const char *fmt, ...)
{
    va_list ap;

    if (!err || err->code != MC_OK)
        return code;
    err->code = code;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    return code;
}

void
mc_err_clear(struct mc_err *err)
{
    err->code = MC_OK;
    err->msg[0] = '\0';
}
