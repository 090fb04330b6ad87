/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-mark.c: a libFuzzer target for the '#pragma maxcode' parser. The
 * input is scanned whole with mc_mark_scan(), then split at its first NUL
 * byte (or in the middle, if it has none) into an original and a
 * candidate for mc_mark_check_fences(). Neither may crash, leak or read
 * out of bounds, and each result must be consistent with its error.
 *
 *   clang -fsanitize=fuzzer,address,undefined -DHAVE_CONFIG_H -I . \
 *       -I runtime/util -I runtime/core tests/fuzz/fuzz-mark.c \
 *       runtime/core/mark.c runtime/util/strv.c runtime/util/buf.c \
 *       runtime/util/alloc.c runtime/util/status.c -o fuzz-mark
 */
#include "mc_setup.h"
#include "mark.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    struct mc_err err = MC_ERR_INIT;
    struct mc_mark m = MC_MARK_INIT;
    const char *nul = memchr(text, '\0', size);
    size_t olen = nul ? (size_t)(nul - text) : size / 2;
    size_t cstart = nul ? olen + 1 : olen;
    enum mc_code rc;
    size_t i;

    rc = mc_mark_scan(text, size, &m, &err);
    if (rc != MC_OK && (err.code != rc || !err.msg[0]))
        abort();
    if (rc == MC_OK)
        for (i = 0; i < m.options.n; i++)
            if (!strchr(m.options.v[i], '=') || m.options.v[i][0] == '=')
                abort();
    if (rc != MC_OK && (m.marked || m.options.n || m.n_fences))
        abort();
    mc_mark_release(&m);

    mc_err_clear(&err);
    rc = mc_mark_check_fences(text, olen, text + cstart, size - cstart,
                              &err);
    if (rc != MC_OK && err.code != rc)
        abort();
    /* A text always keeps its own fences. */
    mc_err_clear(&err);
    rc = mc_mark_check_fences(text, olen, text, olen, &err);
    if (rc != MC_OK && rc != MC_ESYNTAX && rc != MC_ENOMEM)
        abort();
    return 0;
}
