/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * alloc.c: allocation wrappers. In a debug build (MC_DEBUG) every
 * allocation is counted and MAXCODE_DEBUG_FAIL_ALLOC=N fails the Nth one,
 * which is how the error paths get exercised.
 */
#include "mc_setup.h"
#include "alloc.h"

#ifdef MC_DEBUG
static unsigned long n_allocs;
static long n_live;
static long fail_at = -1;

static int
should_fail(void)
{
    if (fail_at < 0) {
        const char *s = getenv("MAXCODE_DEBUG_FAIL_ALLOC");
        fail_at = s ? strtol(s, NULL, 10) : 0;
    }
    n_allocs++;
    return fail_at > 0 && (long)n_allocs == fail_at;
}
#define SHOULD_FAIL() should_fail()
#define LIVE(d)       (n_live += (d))
#else
#define SHOULD_FAIL() 0
#define LIVE(d)       ((void)0)
#endif

void *
mc_malloc(size_t size)
{
    void *p;

    if (SHOULD_FAIL())
        return NULL;
    p = malloc(size ? size : 1);
    if (p)
        LIVE(1);
    return p;
}

void *
mc_calloc(size_t n, size_t size)
{
    void *p;

    if (size && n > SIZE_MAX / size)
        return NULL;
    if (SHOULD_FAIL())
        return NULL;
    p = calloc(n ? n : 1, size ? size : 1);
    if (p)
        LIVE(1);
    return p;
}

void *
mc_realloc(void *p, size_t size)
{
    void *q;

    if (SHOULD_FAIL())
        return NULL;
    q = realloc(p, size ? size : 1);
    if (q && !p)
        LIVE(1);
    return q;
}

char *
mc_strdup(const char *s)
{
    return s ? mc_strndup(s, strlen(s)) : NULL;
}

char *
mc_strndup(const char *s, size_t n)
{
    size_t len = strnlen(s, n);
    char *d = mc_malloc(len + 1);

    if (!d)
        return NULL;
    memcpy(d, s, len);
    d[len] = '\0';
    return d;
}

void
mc_free(void *p)
{
    if (p)
        LIVE(-1);
    free(p);
}

unsigned long
mc_alloc_count(void)
{
#ifdef MC_DEBUG
    return n_allocs;
#else
    return 0;
#endif
}

long
mc_alloc_live(void)
{
#ifdef MC_DEBUG
    return n_live;
#else
    return 0;
#endif
}
