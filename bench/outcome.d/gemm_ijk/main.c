/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c: reads "NI NJ NK SEED", fills A (NI x NK), B (NK x NJ) and C
 * (NI x NJ) from a linear congruential generator seeded with SEED, runs
 * C = 1.5*C + 0.75*A*B once and prints a checksum of C and a few of its
 * elements. */
#include <stdio.h>
#include <stdlib.h>

void gemm(int ni, int nj, int nk, double alpha, double beta, double (*c)[nj],
          double (*a)[nk], double (*b)[nj]);

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
    int ni, nj, nk;
    double sum = 0;

    if (scanf("%d %d %d %llu", &ni, &nj, &nk, &seed) != 4 || ni < 1 ||
        nj < 1 || nk < 1)
        return 1;
    double(*a)[nk] = malloc(sizeof(double) * ni * nk);
    double(*b)[nj] = malloc(sizeof(double) * nk * nj);
    double(*c)[nj] = malloc(sizeof(double) * ni * nj);
    if (!a || !b || !c)
        return 1;
    for (int i = 0; i < ni; i++)
        for (int k = 0; k < nk; k++)
            a[i][k] = rnd();
    for (int k = 0; k < nk; k++)
        for (int j = 0; j < nj; j++)
            b[k][j] = rnd();
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < nj; j++)
            c[i][j] = rnd();
    gemm(ni, nj, nk, 0.75, 1.5, c, a, b);
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < nj; j++)
            sum += c[i][j] * (double)((i + 2 * j) % 7 + 1);
    printf("checksum %.6e\n", sum);
    printf("c[0][0] %.6e\nc[%d][%d] %.6e\nc[%d][%d] %.6e\n", c[0][0], ni / 2,
           nj / 3, c[ni / 2][nj / 3], ni - 1, nj - 1, c[ni - 1][nj - 1]);
    return 0;
}
