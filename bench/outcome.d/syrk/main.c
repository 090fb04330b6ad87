/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c: reads "N M SEED", fills A (N x M) and C (N x N) from a linear
 * congruential generator seeded with SEED, runs the lower triangle of
 * C = 1.5*C + 0.75*A*A^T once and prints a checksum of that triangle
 * and a few of its elements. */
#include <stdio.h>
#include <stdlib.h>

void syrk(int n, int m, double alpha, double beta, double *c,
          const double *a);

static unsigned long long seed;

/* A number in [-1, 1). */
static double
rnd(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(long long)(seed >> 32) * 0x1.0p-31 - 1.0;
}

int
main(void)
{
    int n, m;
    double sum = 0;

    if (scanf("%d %d %llu", &n, &m, &seed) != 3 || n < 1 || m < 1)
        return 1;
    double *a = malloc(sizeof(double) * (size_t)n * m);
    double *c = malloc(sizeof(double) * (size_t)n * n);
    if (!a || !c)
        return 1;
    for (size_t i = 0; i < (size_t)n * m; i++)
        a[i] = rnd();
    for (size_t i = 0; i < (size_t)n * n; i++)
        c[i] = rnd();
    syrk(n, m, 0.75, 1.5, c, a);
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++)
            sum += c[i * n + j] * (double)((i + 2 * j) % 7 + 1);
    printf("checksum %.6e\n", sum);
    printf("c[0][0] %.6e\nc[%d][%d] %.6e\nc[%d][%d] %.6e\n", c[0], n / 2,
           n / 3, c[(n / 2) * n + n / 3], n - 1, n - 1, c[n * n - 1]);
    return 0;
}
