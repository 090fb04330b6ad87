/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c: reads "N DENSITY SEED": builds a directed graph of N vertices
 * where each edge is present with probability DENSITY per mille, with
 * weights from 1 to 1000 drawn from a linear congruential generator
 * seeded with SEED (absent edges are "infinite", 2^29), computes all
 * shortest paths and prints the sum of the finite distances, the count
 * of unreachable pairs and a few distances. */
#include <stdio.h>
#include <stdlib.h>

#define INF (1 << 29)

void floyd_warshall(int n, int (*d)[n]);

static unsigned long long seed;

/* A number in [0, 2^31). */
static unsigned
rnd(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(seed >> 33);
}

int
main(void)
{
    int n, density;
    unsigned long long sum = 0;
    long unreachable = 0;

    if (scanf("%d %d %llu", &n, &density, &seed) != 3 || n < 1 ||
        density < 0 || density > 1000)
        return 1;
    int(*d)[n] = malloc(sizeof(int) * n * n);
    if (!d)
        return 1;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            unsigned r = rnd();
            if (i == j)
                d[i][j] = 0;
            else if (r % 1000 < (unsigned)density)
                d[i][j] = 1 + (int)(r / 1000 % 1000);
            else
                d[i][j] = INF;
        }
    floyd_warshall(n, d);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (d[i][j] >= INF)
                unreachable++;
            else
                sum +=
                    (unsigned long long)d[i][j] * (unsigned)((i + j) % 7 + 1);
        }
    printf("checksum %llu\nunreachable %ld\n", sum, unreachable);
    printf("d[0][%d] %d\nd[%d][0] %d\nd[%d][%d] %d\n", n - 1, d[0][n - 1],
           n / 2, d[n / 2][0], n - 1, n / 3, d[n - 1][n / 3]);
    return 0;
}
