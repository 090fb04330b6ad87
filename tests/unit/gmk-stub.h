/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * gmk-stub.h: a stand-in for GNU make's loadable-object API, so the
 * plugin's logic can be unit-tested without make. It records registered
 * functions and evaluated text, and answers gmk_expand() for the two forms
 * the plugin uses, "$(NAME)" and "$(origin NAME)", from a variable table.
 */
#ifndef MC_GMK_STUB_H
#define MC_GMK_STUB_H

#include <gnumake.h>

struct stub_function {
    const char *name;
    gmk_func_ptr fn;
    unsigned int min_args, max_args, flags;
};

/* Set make variable NAME to VALUE with ORIGIN ("file", "environment",
 * "command line"...); VALUE NULL undefines it. */
void stub_set_var(const char *name, const char *value, const char *origin);

/* Forget variables, evaluated text and the error flag. */
void stub_reset(void);

/* The registered function NAME, or NULL. */
const struct stub_function *stub_function(const char *name);

/* Call function NAME as make would; the result is freed by the caller
 * with gmk_free(). */
char *stub_call(const char *name, unsigned int argc, char **argv);

/* Everything passed to gmk_eval() since the last reset, one per line. */
const char *stub_evaluated(void);

/* The text of the last $(error ...) make would have stopped with, or
 * NULL if none. */
const char *stub_error(void);

/* Number of gmk_alloc() blocks not yet freed. */
long stub_live_allocs(void);

#endif /* MC_GMK_STUB_H */
