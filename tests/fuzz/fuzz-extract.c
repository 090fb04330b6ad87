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
 * read out of bounds; a failure must say why; the code taken from an
 * answer for an original with fenced regions must keep the original's
 * text outside them, as mc_mark_check_fences() checks it.
 *
 * Built with `make fuzz` (tests/fuzz/build.sh).
 */
#include "mc_setup.h"
#include "mark.h"
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
    struct mc_err err = MC_ERR_INIT;
    int rc;

    if (mc_buf_add(&answer, text, nul ? (size_t)(nul - text) : size))
        abort();
    rc = mc_prompt_extract(answer.s, orig, olen, &out, &why);
    if (rc != 0 && rc != -1)
        abort();
    if (rc && !why.len)
        abort();
    /* An original whose fences are sound keeps them in what is taken. */
    if (!rc && mc_mark_check_fences(orig, olen, orig, olen, NULL) == MC_OK &&
        mc_mark_check_fences(orig, olen, out.s, out.len, &err) != MC_OK &&
        err.code != MC_ENOMEM) {
        fprintf(stderr, "fences lost: %s\n", err.msg);
        abort();
    }
    mc_buf_release(&answer);
    mc_buf_release(&out);
    mc_buf_release(&why);
    return 0;
}
