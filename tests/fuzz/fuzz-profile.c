/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-profile.c: a libFuzzer target for the gcov JSON reader. The
 * input is read with mc_profile_parse() for the source "/w/src/hot.cc"
 * (an input such as
 *   {"files": [{"file": "/w/src/hot.cc", "lines": [{"line_number": 3,
 *   "count": 7, "function_name": "f"}], "functions": [{"name": "f",
 *   "start_line": 2, "end_line": 4, "execution_count": 1}]}]}
 * reaches the line and function counts). Nothing may crash, leak or
 * read out of bounds; a failure must carry its code and a message and
 * leave the profile empty; a profile must have COUNT[0] = -1, no count
 * below -1, and functions whose lines lie within NLINES.
 *
 *   clang -fsanitize=fuzzer,address,undefined -DHAVE_CONFIG_H -I . \
 *       -I runtime/util -I runtime/code $(pkg-config --cflags libcjson) \
 *       tests/fuzz/fuzz-profile.c runtime/code/profile.c \
 *       runtime/util/alloc.c runtime/util/status.c \
 *       $(pkg-config --libs libcjson) -lm -o fuzz-profile
 */
#include "mc_setup.h"
#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether P, as a successful parse left it, is consistent. */
static int
consistent(const struct mc_profile *p)
{
    size_t i;

    if (!p->count || p->count[0] != -1)
        return 0;
    for (i = 1; i <= p->nlines; i++)
        if (p->count[i] < -1)
            return 0;
    for (i = 0; i < p->nfn; i++)
        if (!p->fn[i].name || p->fn[i].start_line < 1 ||
            p->fn[i].end_line < p->fn[i].start_line ||
            p->fn[i].end_line > p->nlines || p->fn[i].lines < 0)
            return 0;
    return 1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct mc_err err = MC_ERR_INIT;
    struct mc_profile p = MC_PROFILE_INIT;
    enum mc_code rc;

    rc = mc_profile_parse((const char *)data, size, "/w/src/hot.cc", &p,
                          &err);
    if (rc != MC_OK &&
        (err.code != rc || !err.msg[0] || p.count || p.fn || p.nlines))
        abort();
    if (rc == MC_OK && !consistent(&p))
        abort();
    mc_profile_release(&p);
    return 0;
}
