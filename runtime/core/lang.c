/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lang.c: the table of languages (see lang.h) and its lookups. Every
 * other file asks this table; none names an extension, a compiler
 * variable or a language's default itself.
 */
#include "mc_setup.h"
#include "lang.h"
#include "buf.h"

static const char *const c_exts[] = {".c", NULL};
static const char *const cxx_exts[] = {".cc", ".cpp", ".cxx", ".C", ".c++",
                                       NULL};
static const char *const cuda_exts[] = {".cu", NULL};

/* Indexed by enum mc_lang. The bins are the value model's reward
 * thresholds in percent (maxcode(7), bins=). */
static const struct mc_lang_info langs[MC_LANG__COUNT] = {
    [MC_LANG_C] = {MC_LANG_C, "C", "c", "c", c_exts, "CC", "cc", "CFLAGS",
                   "125+180+260", 1, 1, 0},
    [MC_LANG_CXX] = {MC_LANG_CXX, "C++", "c++", "cpp", cxx_exts, "CXX",
                     "c++", "CXXFLAGS", "125+180+260", 1, 1, 0},
    [MC_LANG_CUDA] = {MC_LANG_CUDA, "CUDA", "cuda", "cuda", cuda_exts,
                      "NVCC", "nvcc", "NVCCFLAGS", "140+320+475", 0, 0, 1},
};

const struct mc_lang_info *
mc_lang_get(enum mc_lang lang)
{
    return &langs[lang];
}

const struct mc_lang_info *
mc_lang_of_path(const char *path)
{
    const char *dot = strrchr(path, '.');
    size_t i, j;

    if (!dot || strchr(dot, '/'))
        return NULL;
    for (i = 0; i < MC_ARRAY_SIZE(langs); i++)
        for (j = 0; langs[i].exts[j]; j++)
            if (!strcmp(dot, langs[i].exts[j]))
                return &langs[i];
    return NULL;
}

enum mc_code
mc_lang_add_names(struct mc_buf *b)
{
    size_t i;

    for (i = 0; i < MC_ARRAY_SIZE(langs); i++)
        mc_buf_addf(b, "%s%s", i == 0 ? ""
                               : i + 1 == MC_ARRAY_SIZE(langs) ? " or "
                                                               : ", ",
                    langs[i].name);
    return mc_buf_status(b);
}

enum mc_code
mc_lang_add_exts(struct mc_buf *b)
{
    size_t i, j, n = 0;

    for (i = 0; i < MC_ARRAY_SIZE(langs); i++)
        for (j = 0; langs[i].exts[j]; j++)
            mc_buf_addf(b, "%s%s", n++ ? ", " : "", langs[i].exts[j]);
    return mc_buf_status(b);
}
