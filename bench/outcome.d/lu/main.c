/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c: reads "N SEED", fills an N x N matrix from a linear
 * congruential generator seeded with SEED, with N added to its diagonal
 * (so it is diagonally dominant and needs no pivoting), decomposes it
 * and prints a checksum of L and U and a few of their elements. */
#include <stdio.h>
#include <stdlib.h>

void lu(int n, double (*a)[n]);

static unsigned long long seed;

/* A number in [0, 1). */
static double
rnd(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(long long)(seed >> 32) * 0x1.0p-32;
}

int
main(void)
{
    int n;
    double sum = 0;

    if (scanf("%d %llu", &n, &seed) != 2 || n < 1)
        return 1;
    double(*a)[n] = malloc(sizeof(double) * n * n);
    if (!a)
        return 1;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            a[i][j] = rnd();
        a[i][i] += n;
    }
    lu(n, a);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            sum += a[i][j] * (double)((2 * i + j) % 7 + 1);
    printf("checksum %.6e\n", sum);
    printf("a[%d][%d] %.6e\na[%d][%d] %.6e\na[%d][%d] %.6e\n", n - 1, n / 2,
           a[n - 1][n / 2], n / 2, n - 1, a[n / 2][n - 1], n - 1, n - 1,
           a[n - 1][n - 1]);
    return 0;
}
