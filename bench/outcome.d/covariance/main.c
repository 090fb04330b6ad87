/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c: reads "M N SEED", fills M samples of N variables from a linear
 * congruential generator seeded with SEED (each variable with its own
 * offset and scale, and a share of its neighbour, so that they
 * correlate), computes their covariance matrix and prints a checksum of
 * it and a few of its elements. */
#include <stdio.h>
#include <stdlib.h>

void covariance(int m, int n, double (*data)[n], double (*cov)[n],
                double *mean);

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
    int m, n;
    double sum = 0;

    if (scanf("%d %d %llu", &m, &n, &seed) != 3 || m < 2 || n < 1)
        return 1;
    double(*data)[n] = malloc(sizeof(double) * m * n);
    double(*cov)[n] = malloc(sizeof(double) * n * n);
    double *mean = malloc(sizeof(double) * n);
    if (!data || !cov || !mean)
        return 1;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            data[i][j] = (double)(j % 10) + (double)(j % 3 + 1) * rnd();
            if (j > 0)
                data[i][j] += 0.5 * data[i][j - 1];
        }
    covariance(m, n, data, cov, mean);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            sum += cov[i][j] * (double)((i + 2 * j) % 7 + 1);
    printf("checksum %.6e\n", sum);
    printf("cov[0][0] %.6e\ncov[%d][%d] %.6e\ncov[%d][%d] %.6e\n", cov[0][0],
           n / 2, n / 2 + 1, cov[n / 2][n / 2 + 1], n - 1, n / 3,
           cov[n - 1][n / 3]);
    return 0;
}
