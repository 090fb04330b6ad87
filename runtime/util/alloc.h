/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * alloc.h: maxcode's allocation wrappers. All of maxcode allocates through
 * these, so that a debug build (--enable-debug) can count allocations and
 * fail the Nth one on demand, as curl's torture mode does: set
 * MAXCODE_DEBUG_FAIL_ALLOC=N in the environment. The wrappers return NULL
 * on failure; they never abort.
 */
#ifndef MC_ALLOC_H
#define MC_ALLOC_H

#include <stddef.h>

/* malloc(SIZE); the caller frees the result with mc_free(). */
void *mc_malloc(size_t size);

/* calloc(N, SIZE), with overflow checking; free with mc_free(). */
void *mc_calloc(size_t n, size_t size);

/* realloc(P, SIZE); on failure P is left untouched and NULL returned. */
void *mc_realloc(void *p, size_t size);

/* A copy of the string S (NULL gives NULL); free with mc_free(). */
char *mc_strdup(const char *s);

/* A copy of at most N bytes of S, always terminated; free with mc_free(). */
char *mc_strndup(const char *s, size_t n);

/* free(P). P may be NULL. */
void mc_free(void *p);

/* Debug builds: allocations made so far, and those not yet freed. */
unsigned long mc_alloc_count(void);
long mc_alloc_live(void);

#endif /* MC_ALLOC_H */
