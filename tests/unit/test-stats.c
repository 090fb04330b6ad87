/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * test-stats.c: the statistics of timing (eval_time.c), beyond the
 * spot checks of test-eval.c: the ranks of the median's interval for
 * every number of pairs a round can have, at 99% and 95%, against the
 * binomial distribution worked out here in integers; ties and negative
 * values; and the spread that a round reports for each program.
 */
#include "mc_setup.h"
#include "eval_priv.h"
#include "tap.h"

#include <math.h>
#include <stdint.h>

#define MAX_N 40 /* the most pairs of a round */

/* 1..N in a scrambled order (a step of 11, prime to every N here but
 * 11, 22 and 33, which take 13). */
static void
scrambled(double *x, size_t n)
{
    size_t i, step = n % 11 ? 11 : 13;

    for (i = 0; i < n; i++)
        x[i] = (double)((i * step) % n + 1);
}

/* The largest K (at most N / 2) with P(Bin(N, 1/2) < K) <= ALPHA / 2,
 * where ALPHA / 2 = 1 / INV_HALF_ALPHA (200: 99%, 40: 95%), in exact
 * integers: the sum of C(N, I) for I < K, times INV_HALF_ALPHA, at most
 * 2^N. */
static size_t
exact_rank(size_t n, uint64_t inv_half_alpha)
{
    uint64_t c = 1, sum = 0; /* C(N, I), and the sum below I */
    size_t k = 0, i;

    for (i = 0; i < n / 2; i++) {
        if ((sum + c) * inv_half_alpha > ((uint64_t)1 << n))
            break;
        sum += c;
        k = i + 1;
        c = c * (n - i) / (i + 1);
    }
    return k;
}

static void
check_ranks(double alpha, uint64_t inv_half_alpha, size_t first)
{
    double x[MAX_N], med, lo, hi;
    size_t n, bad = 0, none_below = 0, some_from = 0;
    char name[96];

    for (n = 1; n <= MAX_N; n++) {
        size_t k = exact_rank(n, inv_half_alpha);
        int rc;

        scrambled(x, n);
        rc = mc_eval_median_ci(x, n, alpha, &med, &lo, &hi);
        if (!k) {
            /* Too few: the range, and -1. */
            none_below += rc == -1 && lo == 1 && hi == (double)n;
            continue;
        }
        if (!some_from)
            some_from = n;
        if (rc != 0 || lo != (double)k || hi != (double)(n - k + 1) ||
            med != (double)(n + 1) / 2) {
            printf("# n=%zu: rc %d, [%g, %g] median %g; want [%zu, %zu]\n",
                   n, rc, lo, hi, med, k, n - k + 1);
            bad++;
        }
    }
    snprintf(name, sizeof(name), "%g%%: an interval from %zu values on",
             100 * (1 - alpha), first);
    is_long(some_from, first, name);
    snprintf(name, sizeof(name), "%g%%: below that, the range and -1",
             100 * (1 - alpha));
    is_long(none_below, first - 1, name);
    snprintf(name, sizeof(name), "%g%%: [x(k), x(n-k+1)] with the exact "
             "binomial k, for every n up to %d", 100 * (1 - alpha), MAX_N);
    is_long(bad, 0, name);
}

static void
test_stats__ranks_99(void)
{
    check_ranks(0.01, 200, 8);
    /* Spot values of the exact table: n=8 -> 1, 20 -> 4, 40 -> 12. */
    ok(exact_rank(8, 200) == 1 && exact_rank(20, 200) == 4 &&
           exact_rank(40, 200) == 12,
       "the table: k(8) = 1, k(20) = 4, k(40) = 12");
}

static void
test_stats__ranks_95(void)
{
    check_ranks(0.05, 40, 6);
    ok(exact_rank(6, 40) == 1 && exact_rank(20, 40) == 6,
       "the table: k(6) = 1, k(20) = 6");
}

static void
test_stats__median_inside(void)
{
    double x[MAX_N], med, lo, hi;
    size_t n, bad = 0;

    /* Whatever the order and the count, low <= median <= high, all
     * three among (or between, for the median) the values. */
    for (n = 1; n <= MAX_N; n++) {
        scrambled(x, n);
        mc_eval_median_ci(x, n, 0.01, &med, &lo, &hi);
        if (!(lo <= med && med <= hi && lo >= 1 && hi <= (double)n))
            bad++;
    }
    is_long(bad, 0, "n = 1..40: low <= median <= high, within the values");
}

static void
test_stats__ties_and_signs(void)
{
    double x[12], med, lo, hi;
    size_t i;

    for (i = 0; i < 12; i++)
        x[i] = 1.25;
    is_long(mc_eval_median_ci(x, 12, 0.01, &med, &lo, &hi), 0,
            "twelve equal values: an interval");
    ok(med == 1.25 && lo == 1.25 && hi == 1.25,
       "of width 0 at the value");
    {
        double y[] = {-3, 2, -1, 0, 5, -2, 1, 4, -4, 3};

        mc_eval_median_ci(y, 10, 0.01, &med, &lo, &hi);
        ok(med == 0.5, "even count: the mean of the middle two (-4..5)");
        ok(lo == -4 && hi == 5, "n=10 at 99%: [x(1), x(10)]");
    }
    {
        double z[] = {0.9, 1.1, 1.0, 1.3, 0.8, 1.2, 1.05, 0.95, 1.15};

        mc_eval_median_ci(z, 9, 0.01, &med, &lo, &hi);
        ok(med == 1.05, "odd count: the middle value");
        ok(lo == 0.8 && hi == 1.3, "n=9 at 99%: [x(1), x(9)]");
    }
    {
        /* Ratios of a candidate no faster than the original: the
         * interval holds 1, so nothing could promote. */
        double r[16] = {0.97, 1.02, 0.99, 1.01, 1.00, 0.98, 1.03, 0.99,
                        1.01, 1.00, 0.98, 1.02, 1.00, 0.99, 1.01, 1.00};

        mc_eval_median_ci(r, 16, 0.01, &med, &lo, &hi);
        ok(lo <= 1.0 && hi >= 1.0, "noise around 1: the interval holds 1");
    }
    {
        /* A clear 2x speedup with one outlier: the outlier moves the
         * interval by at most one rank. */
        double r[12] = {2.0, 2.1, 1.9, 2.05, 1.95, 2.02, 1.98, 2.01,
                        1.99, 2.03, 0.1, 2.04};

        mc_eval_median_ci(r, 12, 0.01, &med, &lo, &hi);
        ok(lo > 1.0, "2x with one slow outlier: the interval is above 1");
        ok(lo == 1.9 && hi == 2.05, "n=12: [x(2), x(11)]");
    }
}

static void
test_stats__spread(void)
{
    double one[] = {5};
    double two[] = {1, 3};
    double ten[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    double eleven[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    double t21[21];
    double flat[] = {2, 2, 2, 2, 2};
    double zero_med[] = {-1, 0, 1};
    double neg_med[] = {-3, -2, -1};
    size_t i;

    ok(mc_eval_spread(one, 1) == 0, "one value: 0");
    ok(mc_eval_spread(two, 2) == 0, "two values: p10 and p90 are both "
       "the first: 0");
    ok(fabs(mc_eval_spread(ten, 10) - 8 / 5.5) < 1e-12,
       "1..10: (x[8] - x[0]) / 5.5");
    ok(fabs(mc_eval_spread(eleven, 11) - 8.0 / 6) < 1e-12,
       "1..11: (x[9] - x[1]) / 6");
    for (i = 0; i < 21; i++)
        t21[i] = (double)(i + 1);
    ok(fabs(mc_eval_spread(t21, 21) - 16.0 / 11) < 1e-12,
       "1..21: (x[18] - x[2]) / 11");
    ok(mc_eval_spread(flat, 5) == 0, "equal values: 0");
    ok(mc_eval_spread(zero_med, 3) == 0, "a median of 0: 0");
    ok(mc_eval_spread(neg_med, 3) == 0, "a negative median: 0");
    {
        /* Scale-free: seconds or instructions, the same figure. */
        double a[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        double b[10];

        for (i = 0; i < 10; i++)
            b[i] = a[i] * 1e6;
        ok(fabs(mc_eval_spread(a, 10) - mc_eval_spread(b, 10)) < 1e-12,
           "the same for values a million times larger");
    }
}

int
main(void)
{
    TAP_RUN(test_stats__ranks_99);
    TAP_RUN(test_stats__ranks_95);
    TAP_RUN(test_stats__median_inside);
    TAP_RUN(test_stats__ties_and_signs);
    TAP_RUN(test_stats__spread);
    return tap_done();
}
