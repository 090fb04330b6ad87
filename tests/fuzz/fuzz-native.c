/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * fuzz-native.c: a libFuzzer target for the scan of a cached variant's
 * target("arch=X") (mc_native_foreign_arch(), which reads model-written
 * text). The input is split at its first NUL byte (or in the middle, if
 * it has none) into a variant and an original. The scan may not crash or
 * read out of bounds, and what it reports must be a non-empty name of
 * architecture characters that is not the host's.
 *
 *   clang -fsanitize=fuzzer,address,undefined -DHAVE_CONFIG_H -I . \
 *       -I runtime tests/fuzz/fuzz-native.c runtime/core/native.c \
 *       runtime/.libs/libmaxcode.a -lxxhash -lcjson -lcurl -lm -ldl \
 *       -o fuzz-native
 */
#include "mc_setup.h"
#include "native.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nul = memchr(text, '\0', size);
    size_t vlen = nul ? (size_t)(nul - text) : size / 2;
    size_t ostart = nul ? vlen + 1 : vlen;
    char x[MC_NATIVE_ARCH_MAX];

    if (mc_native_foreign_arch(text, vlen, text + ostart, size - ostart,
                               "haswell", x, sizeof(x)) &&
        (!x[0] || strlen(x) >= sizeof(x) || !strcmp(x, "haswell") ||
         x[strspn(x, "abcdefghijklmnopqrstuvwxyz"
                     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.+")]))
        abort();
    return 0;
}
