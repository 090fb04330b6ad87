/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-lang.c: the table of languages: each row's fields, the lookup by
 * extension that the plugin and the target share, and the lists that
 * error messages print.
 */
#include "mc_setup.h"
#include "buf.h"
#include "lang.h"
#include "tap.h"

static void
test_lang__rows(void)
{
    const struct mc_lang_info *c = mc_lang_get(MC_LANG_C);
    const struct mc_lang_info *cxx = mc_lang_get(MC_LANG_CXX);
    const struct mc_lang_info *cu = mc_lang_get(MC_LANG_CUDA);
    int i, whole = 1;

    for (i = 0; i < MC_LANG__COUNT; i++) {
        const struct mc_lang_info *l = mc_lang_get((enum mc_lang)i);
        whole &= l->lang == (enum mc_lang)i && l->name && l->key_name &&
                 l->fence && l->exts && l->exts[0] && l->cc_var &&
                 l->cc_default && l->flags_var && l->bins;
    }
    ok(whole, "every row is its language's and has every field");
    is_str(c->name, "C", "C: name");
    is_str(c->key_name, "c", "C: key name");
    is_str(c->fence, "c", "C: fence");
    is_str(c->cc_var, "CC", "C: $(CC)");
    is_str(c->cc_default, "cc", "C: default cc");
    is_str(c->flags_var, "CFLAGS", "C: $(CFLAGS)");
    is_str(c->bins, "125+180+260", "C: CPU bins");
    ok(c->sanitize && c->link_libm && !c->kernels,
       "C: sanitizers, -lm, no kernel=");
    is_str(cxx->name, "C++", "C++: name");
    is_str(cxx->key_name, "c++", "C++: key name");
    is_str(cxx->fence, "cpp", "C++: fence");
    is_str(cxx->cc_var, "CXX", "C++: $(CXX)");
    is_str(cxx->cc_default, "c++", "C++: default c++");
    is_str(cxx->flags_var, "CXXFLAGS", "C++: $(CXXFLAGS)");
    is_str(cxx->bins, "125+180+260", "C++: CPU bins");
    ok(cxx->sanitize && cxx->link_libm && !cxx->kernels,
       "C++: sanitizers, -lm, no kernel=");
    is_str(cu->name, "CUDA", "CUDA: name");
    is_str(cu->key_name, "cuda", "CUDA: key name");
    is_str(cu->fence, "cuda", "CUDA: fence");
    is_str(cu->cc_var, "NVCC", "CUDA: $(NVCC)");
    is_str(cu->cc_default, "nvcc", "CUDA: default nvcc");
    is_str(cu->flags_var, "NVCCFLAGS", "CUDA: $(NVCCFLAGS)");
    is_str(cu->bins, "140+320+475", "CUDA: GPU bins");
    ok(!cu->sanitize && !cu->link_libm && cu->kernels,
       "CUDA: no sanitizers, no -lm, kernel=");
}

/* The language of PATH as an int, -1 for none. */
static int
lang_of(const char *path)
{
    const struct mc_lang_info *l = mc_lang_of_path(path);

    return l ? (int)l->lang : -1;
}

static void
test_lang__of_path(void)
{
    int i, j, round = 1;

    is_long(lang_of("hot.c"), MC_LANG_C, ".c is C");
    is_long(lang_of("src/dir.d/hot.c"), MC_LANG_C, "in a directory too");
    is_long(lang_of("a.cc"), MC_LANG_CXX, ".cc is C++");
    is_long(lang_of("a.cpp"), MC_LANG_CXX, ".cpp is C++");
    is_long(lang_of("a.cxx"), MC_LANG_CXX, ".cxx is C++");
    is_long(lang_of("a.C"), MC_LANG_CXX, ".C is C++");
    is_long(lang_of("a.c++"), MC_LANG_CXX, ".c++ is C++");
    is_long(lang_of("k.cu"), MC_LANG_CUDA, ".cu is CUDA");
    is_long(lang_of("k.CU"), -1, "case matters");
    is_long(lang_of("a.h"), -1, "a header is no source");
    is_long(lang_of("a.c.orig"), -1, "the last extension counts");
    is_long(lang_of("Makefile"), -1, "no extension, no language");
    is_long(lang_of("dir.c/file"), -1, "a dot in a directory is not one");
    is_long(lang_of(""), -1, "the empty path");
    /* Each extension leads back to its own row, so none is in two. */
    for (i = 0; i < MC_LANG__COUNT; i++) {
        const struct mc_lang_info *l = mc_lang_get((enum mc_lang)i);
        for (j = 0; l->exts[j]; j++)
            round &= mc_lang_of_path(l->exts[j]) == l;
    }
    ok(round, "every extension of the table finds its own row");
}

static void
test_lang__lists(void)
{
    struct mc_buf b = MC_BUF_INIT;

    is_long(mc_lang_add_names(&b), MC_OK, "names");
    is_str(b.s, "C, C++ or CUDA", "as a sentence list");
    mc_buf_reset(&b);
    is_long(mc_lang_add_exts(&b), MC_OK, "extensions");
    is_str(b.s, ".c, .cc, .cpp, .cxx, .C, .c++, .cu", "in table order");
    mc_buf_release(&b);
}

int
main(void)
{
    TAP_RUN(test_lang__rows);
    TAP_RUN(test_lang__of_path);
    TAP_RUN(test_lang__lists);
    return tap_done();
}
