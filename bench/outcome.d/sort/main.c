/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c: reads "N REPS", sorts REPS pseudo-random arrays of N ints and
 * prints a checksum of the sorted arrays. */
#include <stdio.h>
#include <stdlib.h>

void sort_ints(int *restrict a, int *restrict tmp, int n);

int
main(void)
{
    int n, reps;
    unsigned long long sum = 0;
    unsigned s = 99;

    if (scanf("%d %d", &n, &reps) != 2 || n < 1 || reps < 1)
        return 1;
    int *a = malloc(sizeof(int) * n), *tmp = malloc(sizeof(int) * n);
    if (!a || !tmp)
        return 1;
    for (int r = 0; r < reps; r++) {
        for (int i = 0; i < n; i++) {
            s = s * 1103515245u + 12345u;
            a[i] = (int)(s >> 1) % 1000000;
        }
        sort_ints(a, tmp, n);
        for (int i = 0; i < n; i += 97)
            sum = sum * 31 + (unsigned)a[i];
        for (int i = 1; i < n; i++)
            if (a[i - 1] > a[i])
                return 2;
    }
    printf("checksum %llu\n", sum);
    return 0;
}
