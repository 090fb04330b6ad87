/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * lang.h: what maxcode knows about each source language, in one table
 * row per language: the file extensions, the names it goes by (for
 * people, for the content key, for the model's prompts), the make
 * variables of its compiler and flags with their defaults, the default
 * timing bins, and what an evaluation may do with it (sanitizer builds,
 * -lm, kernel=). The plugin and the runtime read the same table, as make
 * keeps its built-in functions in one FT_ENTRY table; adding a language
 * is adding a row.
 */
#ifndef MC_LANG_H
#define MC_LANG_H

#include "status.h"

struct mc_buf;

enum mc_lang { MC_LANG_C, MC_LANG_CXX, MC_LANG_CUDA, MC_LANG__COUNT };

struct mc_lang_info {
    enum mc_lang lang;
    const char *name;          /* for people and the prompts' {{lang}}:
                                * "C", "C++", "CUDA" */
    const char *key_name;      /* hashed into the content key ("lang"
                                * field): "c", "c++", "cuda" */
    const char *fence;         /* the prompts' code fence, {{fence}}:
                                * "c", "cpp", "cuda" */
    const char *const *exts;   /* the extensions, NULL-terminated: ".c" */
    const char *cc_var;        /* the compiler's make variable: "CC" */
    const char *cc_default;    /* its value when unset or empty: "cc" */
    const char *flags_var;     /* the flags' make variable: "CFLAGS" (after
                                * $(CPPFLAGS)) */
    const char *bins;          /* default bins=: S1+S2+S3 percentages */
    int sanitize;              /* candidates get an ASan/UBSan build */
    int link_libm;             /* the test link ends with -lm */
    int kernels;               /* kernel=NAME (a __global__ function)
                                * applies */
};

/* The row of LANG, which must be below MC_LANG__COUNT. Static storage. */
const struct mc_lang_info *mc_lang_get(enum mc_lang lang);

/*
 * The row whose extension ends PATH's last component (".c" of "a/b.c";
 * case matters: ".C" is C++), or NULL when no language has it. Static
 * storage.
 */
const struct mc_lang_info *mc_lang_of_path(const char *path);

/*
 * Append the names of the languages to B, as a sentence list:
 * "C, C++ or CUDA". Returns B's status (mc_buf_status()).
 */
enum mc_code mc_lang_add_names(struct mc_buf *b);

/*
 * Append every extension to B, in table order, separated by ", ":
 * ".c, .cc, .cpp, .cxx, .C, .c++, .cu". Returns B's status.
 */
enum mc_code mc_lang_add_exts(struct mc_buf *b);

#endif /* MC_LANG_H */
