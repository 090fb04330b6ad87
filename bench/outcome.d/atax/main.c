/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c: reads "M N REPS SEED", fills an M x N matrix and a vector x
 * from a linear congruential generator seeded with SEED, computes
 * y = A^T (A x) REPS times (x changes a little between repetitions) and
 * prints a checksum of the results and a few elements of the last y. */
#include <stdio.h>
#include <stdlib.h>

void atax(int m, int n, double (*a)[n], double *x, double *y, double *tmp);

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
    int m, n, reps;
    double sum = 0;

    if (scanf("%d %d %d %llu", &m, &n, &reps, &seed) != 4 || m < 1 || n < 1 ||
        reps < 1)
        return 1;
    double(*a)[n] = malloc(sizeof(double) * m * n);
    double *x = malloc(sizeof(double) * n), *y = malloc(sizeof(double) * n);
    double *tmp = malloc(sizeof(double) * m);
    if (!a || !x || !y || !tmp)
        return 1;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            a[i][j] = rnd();
    for (int j = 0; j < n; j++)
        x[j] = rnd();
    for (int r = 0; r < reps; r++) {
        atax(m, n, a, x, y, tmp);
        for (int j = 0; j < n; j++)
            sum += y[j] * (double)((j + r) % 7 + 1);
        x[r % n] += 0.5;
    }
    printf("checksum %.6e\n", sum);
    printf("y[0] %.6e\ny[%d] %.6e\ny[%d] %.6e\n", y[0], n / 3, y[n / 3], n - 1,
           y[n - 1]);
    return 0;
}
