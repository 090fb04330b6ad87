/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c: reads "M N P SEED", fills A (M x N), B (N x P) and C (M x P)
 * with small integers from a linear congruential generator seeded with
 * SEED (every product and sum exact in a float, so any order gives the
 * same bits), runs C += A * B once and prints a checksum of C and a few
 * of its elements. */
#include <stdio.h>
#include <stdlib.h>

void mm_wide(int m, int n, int p, float *c, const float *a, const float *b);

static unsigned long long seed;

/* An integer in [-8, 8). */
static float
rnd(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (float)((int)(seed >> 60) - 8);
}

int
main(void)
{
    int m, n, p;
    double sum = 0;

    if (scanf("%d %d %d %llu", &m, &n, &p, &seed) != 4 || m < 1 || n < 1 ||
        p < 1)
        return 1;
    float *a = malloc(sizeof(float) * (size_t)m * n);
    float *b = malloc(sizeof(float) * (size_t)n * p);
    float *c = malloc(sizeof(float) * (size_t)m * p);
    if (!a || !b || !c)
        return 1;
    for (size_t i = 0; i < (size_t)m * n; i++)
        a[i] = rnd();
    for (size_t i = 0; i < (size_t)n * p; i++)
        b[i] = rnd();
    for (size_t i = 0; i < (size_t)m * p; i++)
        c[i] = rnd();
    mm_wide(m, n, p, c, a, b);
    for (size_t i = 0; i < (size_t)m * p; i++)
        sum += c[i] * (double)(i % 7 + 1);
    printf("checksum %.9e\n", sum);
    printf("c[0] %.9e\nc[mid] %.9e\nc[last] %.9e\n", c[0],
           c[(size_t)m * p / 2], c[(size_t)m * p - 1]);
    return 0;
}
