/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-extract.c: a libFuzzer target for the extraction of code from a
 * model's answer, mc_prompt_extract(). The input is split at its first
 * NUL byte into the answer and the original source (no NUL: all of it is
 * the answer, and the original is a file with one fenced region), so
 * that an input such as
 *   Here it is:\n```c\nint f(void) { return 1; }\n```\n
 * reaches the fenced blocks, and one with '#pragma maxcode begin/end'
 * lines in both parts reaches the regions. Nothing may crash, leak or
 * read out of bounds; a failure must say why, and a success give some
 * code. That code need not keep the original's fences (a block with a
 * begin line and no end is taken as a region's body): the evaluation
 * checks them again (mc_mark_check_fences() in eval.c) and rejects it.
 *
 * Built with `make fuzz` (tests/fuzz/build.sh).
 */
#include "mc_setup.h"
#include "prompt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char fenced[] =
    "#include <stddef.h>\n"
    "#pragma maxcode begin\n"
    "int f(int x) { return x + 1; }\n"
    "#pragma maxcode end\n"
    "int g(void) { return 2; }\n";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nul = memchr(text, '\0', size);
    struct mc_buf answer = MC_BUF_INIT, out = MC_BUF_INIT,
                  why = MC_BUF_INIT;
    const char *orig = nul ? nul + 1 : fenced;
    size_t olen = nul ? size - (size_t)(nul + 1 - text) : strlen(fenced);
    int rc;

    if (mc_buf_add(&answer, text, nul ? (size_t)(nul - text) : size))
        abort();
    rc = mc_prompt_extract(answer.s, orig, olen, &out, &why);
    if (rc != 0 && rc != -1)
        abort();
    if (rc && !why.len)
        abort();
    if (!rc && !out.len)
        abort();
    mc_buf_release(&answer);
    mc_buf_release(&out);
    mc_buf_release(&why);
    return 0;
}
