/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c: reads "N NBINS REPS", builds the histogram of a pseudo-random
 * signal REPS times and prints a checksum of the counts. */
#include <stdio.h>
#include <stdlib.h>

void histogram(int n, const unsigned short *restrict x, int nbins, int scale,
               unsigned short *restrict bin, unsigned *restrict count);

int
main(void)
{
    int n, nbins, reps;
    unsigned long long sum = 0;
    unsigned s = 12345;

    if (scanf("%d %d %d", &n, &nbins, &reps) != 3 || n < 1 || nbins < 1 ||
        nbins > 65536 || reps < 1)
        return 1;
    unsigned short *x = malloc(sizeof(*x) * n);
    unsigned short *bin = malloc(sizeof(*bin) * n);
    unsigned *count = malloc(sizeof(*count) * nbins);
    if (!x || !bin || !count)
        return 1;
    for (int i = 0; i < n; i++) {
        s = s * 1103515245u + 12345u;
        x[i] = (unsigned short)(s >> 16);
    }
    for (int r = 0; r < reps; r++) {
        histogram(n, x, nbins, nbins, bin, count);
        for (int i = 0; i < nbins; i++)
            sum += (unsigned long long)count[i] * (unsigned)(i + r + 1);
        x[r % n] ^= 0x5a5a;
    }
    printf("checksum %llu\n", sum);
    return 0;
}
