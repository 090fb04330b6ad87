/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c: reads "N TSTEPS SEED", fills an N x N grid from a linear
 * congruential generator seeded with SEED, runs TSTEPS Jacobi steps and
 * prints a checksum of the grid and a few of its points. */
#include <stdio.h>
#include <stdlib.h>

void jacobi2d(int tsteps, int n, double (*a)[n], double (*b)[n]);

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
    int n, tsteps;
    double sum = 0;

    if (scanf("%d %d %llu", &n, &tsteps, &seed) != 3 || n < 3 || tsteps < 0)
        return 1;
    double(*a)[n] = malloc(sizeof(double) * n * n);
    double(*b)[n] = malloc(sizeof(double) * n * n);
    if (!a || !b)
        return 1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            a[i][j] = b[i][j] = rnd() * 100.0;
    jacobi2d(tsteps, n, a, b);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            sum += a[i][j] * (double)((i + 3 * j) % 5 + 1);
    printf("checksum %.6e\n", sum);
    printf("a[1][1] %.6e\na[%d][%d] %.6e\na[%d][%d] %.6e\n", a[1][1], n / 2,
           n / 3, a[n / 2][n / 3], n - 2, n - 2, a[n - 2][n - 2]);
    return 0;
}
