/* SPDX-License-Identifier: MIT */
/*
 * Copyright the maxcode authors. Unlike the rest of maxcode (GPL-3.0-or-
 * later), this header is under the MIT licence, because users include it
 * in their own programs: permission is hereby granted, free of charge,
 * to any person obtaining a copy of this file, to deal in it without
 * restriction, including without limitation the rights to use, copy,
 * modify, merge, publish, distribute, sublicense, and/or sell copies of
 * it, subject to this notice being kept. THE FILE IS PROVIDED "AS IS",
 * WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED.
 *
 * maxcode/cuda_harness.h: helpers for a CUDA test harness, the program
 * that `$(maxcode kern.cu, link=harness.cu, ...)` links with each
 * candidate kernel file to check and time it. Header-only: include it
 * from a .cu file compiled by nvcc (or from C or C++ host code compiled
 * against the CUDA runtime) and add `$(shell maxcode --cflags)` to the
 * flags so that it is found.
 *
 * A harness built with it prints three kinds of lines on stdout:
 *   - `maxcode-time: SECONDS`, from maxcode_cuda_time(): maxcode strips
 *     these lines before it compares outputs and uses their sum as the
 *     run's time, so set-up, copies and printing are not timed;
 *   - the outputs to compare, from maxcode_print_floats() and friends:
 *     checksums and a sample of values, as numbers, so that the
 *     `tolerance=REL/ABS` option applies to them;
 * and, on any CUDA error, one line `CUDA error: ...` on stderr before it
 * exits with status 1 (MAXCODE_CUDA_CHECK).
 *
 * Everything here is `static inline` (C99 or C++), so the header may be
 * included by several files of one program. Names that end in `_` are
 * internal.
 *
 *   #include <maxcode/cuda_harness.h>
 *   __global__ void scale(float *x, int n);
 *   int main(void) {
 *       ...
 *       MAXCODE_CUDA_CHECK(cudaMalloc(&dx, n * sizeof(float)));
 *       maxcode_cuda_time(3, 20,
 *                         [&] { scale<<<(n + 255) / 256, 256>>>(dx, n); });
 *       MAXCODE_CUDA_CHECK(cudaMemcpy(x, dx, n * sizeof(float),
 *                                     cudaMemcpyDeviceToHost));
 *       maxcode_print_floats("x", x, n);
 *   }
 */
#ifndef MAXCODE_CUDA_HARNESS_H
#define MAXCODE_CUDA_HARNESS_H

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef __cplusplus
#include <cuda_runtime.h>
#else
#include <cuda_runtime_api.h>
#endif

/* ---- error checking ---- */

/* Print `CUDA error: MESSAGE (WHAT) at FILE:LINE` on stderr and exit 1.
 * Called by the macros below. */
static inline void
maxcode_cuda_fail_(cudaError_t e, const char *what, const char *file,
                   int line)
{
    fflush(stdout);
    fprintf(stderr, "CUDA error: %s (%s) at %s:%d\n", cudaGetErrorString(e),
            what, file, line);
    exit(1);
}

/*
 * MAXCODE_CUDA_CHECK(call): evaluate CALL, an expression of type
 * cudaError_t (any CUDA runtime call); unless it is cudaSuccess, print
 *   CUDA error: <cudaGetErrorString> (<CALL as written>) at FILE:LINE
 * on stderr and exit with status 1. A statement: use it with a `;`.
 */
#define MAXCODE_CUDA_CHECK(call)                                             \
    do {                                                                     \
        cudaError_t maxcode_e_ = (call);                                     \
        if (maxcode_e_ != cudaSuccess)                                       \
            maxcode_cuda_fail_(maxcode_e_, #call, __FILE__, __LINE__);       \
    } while (0)

/*
 * MAXCODE_CUDA_CHECK_LAUNCH(): right after a kernel launch
 * (`k<<<g, b>>>(...);`), check cudaGetLastError(): a bad launch
 * configuration, too many resources asked for, no kernel image for this
 * GPU. The message says `(kernel launch)`. It does not wait for the
 * kernel, so it costs nothing in a timed region; errors that happen while
 * the kernel runs (an illegal address) appear at the next synchronizing
 * call, which MAXCODE_CUDA_SYNC() or a checked cudaMemcpy reports.
 */
#define MAXCODE_CUDA_CHECK_LAUNCH()                                          \
    do {                                                                     \
        cudaError_t maxcode_e_ = cudaGetLastError();                         \
        if (maxcode_e_ != cudaSuccess)                                       \
            maxcode_cuda_fail_(maxcode_e_, "kernel launch", __FILE__,        \
                               __LINE__);                                    \
    } while (0)

/* MAXCODE_CUDA_SYNC(): wait for all work on the device and report any
 * error it ended with, as MAXCODE_CUDA_CHECK does. */
#define MAXCODE_CUDA_SYNC() MAXCODE_CUDA_CHECK(cudaDeviceSynchronize())

/* ---- timing ---- */

/* The work to time: a function that enqueues it (see maxcode_cuda_time_fn)
 * and its argument. */
typedef void (*maxcode_cuda_fn)(void *arg);

static inline int
maxcode_cmp_double_(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/*
 * maxcode_cuda_time_fn(warmup, trials, fn, arg): time FN(ARG) on the
 * current device and print `maxcode-time: %.9f` (seconds) on stdout;
 * also return that time.
 *
 * FN enqueues the work to time on the default stream (kernel launches,
 * cudaMemsetAsync, ...). It is called WARMUP times untimed (lazy module
 * loading, clocks ramping up), then TRIALS times, each between two CUDA
 * events recorded on the default stream, so the time is the device's time
 * for the work, not the host's. With the legacy default stream (nvcc's
 * default, not --default-stream per-thread) the end event also waits for
 * work FN put on other blocking streams. FN is called WARMUP + TRIALS
 * times, so the work must give the same result each time (overwrite its
 * outputs, do not accumulate into them).
 *
 * Before each trial, outside the timed region, a device buffer the size
 * of the L2 cache (cudaDevAttrL2CacheSize) is written with
 * cudaMemsetAsync, so that every trial starts with a cold L2 and a
 * variant cannot look fast by finding the previous trial's data in it.
 *
 * The time reported is the MEDIAN of the TRIALS times. maxcode compares
 * a variant with the original over many runs of the harness, on the
 * median as well; inside one run, the median is what a typical launch
 * costs, and it is robust to single outliers either way (a preemption, a
 * clock change, one slow first trial). The minimum would reward a
 * variant whose times merely spread wider (contended atomics, data-
 * dependent work) for its one lucky trial.
 *
 * WARMUP below 0 counts as 0, TRIALS below 1 as 1. Any CUDA error, from
 * FN's launches (checked with cudaGetLastError after each call) or while
 * the work runs, ends the program as MAXCODE_CUDA_CHECK does. When a
 * harness times several regions, maxcode adds up their lines.
 */
static inline double
maxcode_cuda_time_fn(int warmup, int trials, maxcode_cuda_fn fn, void *arg)
{
    cudaEvent_t start, stop;
    void *flush = NULL;
    size_t flush_bytes = 0;
    double *t, sec;
    int dev = 0, l2 = 0, i;

    if (warmup < 0)
        warmup = 0;
    if (trials < 1)
        trials = 1;
    t = (double *)malloc((size_t)trials * sizeof(*t));
    if (!t) {
        fprintf(stderr, "maxcode_cuda_time: out of memory\n");
        exit(1);
    }
    MAXCODE_CUDA_CHECK(cudaGetDevice(&dev));
    MAXCODE_CUDA_CHECK(
        cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
    if (l2 > 0) {
        flush_bytes = (size_t)l2;
        MAXCODE_CUDA_CHECK(cudaMalloc(&flush, flush_bytes));
    }
    MAXCODE_CUDA_CHECK(cudaEventCreate(&start));
    MAXCODE_CUDA_CHECK(cudaEventCreate(&stop));

    for (i = 0; i < warmup; i++) {
        fn(arg);
        MAXCODE_CUDA_CHECK_LAUNCH();
    }
    MAXCODE_CUDA_SYNC();
    for (i = 0; i < trials; i++) {
        float ms = 0;

        if (flush)
            MAXCODE_CUDA_CHECK(
                cudaMemsetAsync(flush, i & 0xff, flush_bytes, 0));
        MAXCODE_CUDA_CHECK(cudaEventRecord(start, 0));
        fn(arg);
        MAXCODE_CUDA_CHECK_LAUNCH();
        MAXCODE_CUDA_CHECK(cudaEventRecord(stop, 0));
        MAXCODE_CUDA_CHECK(cudaEventSynchronize(stop));
        MAXCODE_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        t[i] = (double)ms * 1e-3;
    }
    MAXCODE_CUDA_SYNC();

    qsort(t, (size_t)trials, sizeof(*t), maxcode_cmp_double_);
    sec = trials % 2 ? t[trials / 2]
                     : (t[trials / 2 - 1] + t[trials / 2]) / 2;
    printf("maxcode-time: %.9f\n", sec);
    fflush(stdout);

    MAXCODE_CUDA_CHECK(cudaEventDestroy(start));
    MAXCODE_CUDA_CHECK(cudaEventDestroy(stop));
    if (flush)
        MAXCODE_CUDA_CHECK(cudaFree(flush));
    free(t);
    return sec;
}

#ifdef __cplusplus
template <class F>
static inline void
maxcode_cuda_call_(void *f)
{
    (*static_cast<F *>(f))();
}

/*
 * maxcode_cuda_time(warmup, trials, fn) (C++ only): the same as
 * maxcode_cuda_time_fn for a callable FN taking no arguments, such as a
 * lambda: maxcode_cuda_time(3, 20, [&] { k<<<grid, block>>>(a, b, n); });
 */
template <class F>
static inline double
maxcode_cuda_time(int warmup, int trials, F fn)
{
    return maxcode_cuda_time_fn(warmup, trials, maxcode_cuda_call_<F>,
                                (void *)&fn);
}
#endif

/* ---- inputs ---- */

/*
 * maxcode_fill_floats(p, n, seed): fill the host array P[0..N) with
 * pseudo-random values in [-1, 1), the same for the same SEED on every
 * machine (a 32-bit linear congruential generator), so that every run of
 * the harness computes on the same inputs.
 */
static inline void
maxcode_fill_floats(float *p, size_t n, unsigned seed)
{
    unsigned s = seed * 2654435761u + 12345u;
    size_t i;

    for (i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        p[i] = (float)(s >> 8) * (2.0f / 16777216.0f) - 1.0f;
    }
}

/* ---- outputs ---- */

/* How many values maxcode_print_floats() and friends print besides the
 * checksums; define it before including the header to change it. 0 prints
 * none; a number >= n prints every value. */
#ifndef MAXCODE_PRINT_SAMPLES
#define MAXCODE_PRINT_SAMPLES 16
#endif

/* The element of P (of TYPE 0: float, 1: double, 2: int) at I. */
static inline double
maxcode_value_at_(const void *p, int type, size_t i)
{
    if (type == 0)
        return (double)((const float *)p)[i];
    if (type == 1)
        return ((const double *)p)[i];
    return (double)((const int *)p)[i];
}

static inline void
maxcode_print_(const char *name, const void *p, size_t n, int type)
{
    /* %.9g and %.17g give back the exact float and double. */
    const char *fmt = type == 0 ? "%s[%zu] = %.9g\n" : "%s[%zu] = %.17g\n";
    double pos = 0, neg = 0;
    size_t i, bad = 0, k, m = MAXCODE_PRINT_SAMPLES;

    for (i = 0; i < n; i++) {
        double v = maxcode_value_at_(p, type, i);
        if (!isfinite(v))
            bad++;
        else if (v > 0)
            pos += v;
        else
            neg += v;
    }
    if (type == 2)
        printf("%s: n=%zu sum=%.0f\n", name, n, pos + neg);
    else
        printf("%s: n=%zu pos_sum=%.9g neg_sum=%.9g nonfinite=%zu\n", name,
               n, pos, neg, bad);
    if (m > n)
        m = n;
    for (k = 0; k < m; k++) {
        /* M indices spread evenly from the first to the last. */
        i = m == 1 ? 0 : (size_t)((double)k * (double)(n - 1) /
                                  (double)(m - 1));
        if (type == 2)
            printf("%s[%zu] = %d\n", name, i, ((const int *)p)[i]);
        else
            printf(fmt, name, i, maxcode_value_at_(p, type, i));
    }
}

/*
 * maxcode_print_floats(name, p, n): print the host array P[0..N) of
 * floats for comparison, on stdout:
 *   NAME: n=N pos_sum=S neg_sum=T nonfinite=K
 *   NAME[I] = V          (MAXCODE_PRINT_SAMPLES values, evenly spaced)
 * S and T are the sums (in double) of the positive and of the negative
 * values, K the count of NaN and infinite values, which are left out of
 * the sums. Each sum adds terms of one sign, so it cannot cancel: when
 * every value is within a relative tolerance REL, so are S and T, and
 * `tolerance=REL/ABS` accepts a correct variant that rounds differently
 * while a wrong one (a sign, a missing tile, a NaN) still shows. Values
 * are printed with %.9g, enough to give back the float exactly.
 */
static inline void
maxcode_print_floats(const char *name, const float *p, size_t n)
{
    maxcode_print_(name, p, n, 0);
}

/* maxcode_print_doubles(name, p, n): as maxcode_print_floats, for
 * doubles, the values printed with %.17g. */
static inline void
maxcode_print_doubles(const char *name, const double *p, size_t n)
{
    maxcode_print_(name, p, n, 1);
}

/* maxcode_print_ints(name, p, n): as maxcode_print_floats, for ints:
 *   NAME: n=N sum=S
 *   NAME[I] = V
 * with the exact sum (below 2^53 in magnitude). */
static inline void
maxcode_print_ints(const char *name, const int *p, size_t n)
{
    maxcode_print_(name, p, n, 2);
}

#endif /* MAXCODE_CUDA_HARNESS_H */
