/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * main.c: the demo program. It reads "N REPS" from stdin, blurs a saw
 * signal of N samples REPS times and prints a checksum and three samples.
 */
#include <stdio.h>
#include <stdlib.h>
#include "blur.h"

int
main(void)
{
    int n, reps;
    float *a, *tmp;
    double sum = 0;

    if (scanf("%d %d", &n, &reps) != 2 || n < 3 || reps < 0)
        return 1;
    a = calloc((size_t)n, sizeof(*a));
    tmp = calloc((size_t)n, sizeof(*tmp));
    if (!a || !tmp)
        return 1;
    for (int i = 0; i < n; i++)
        a[i] = (float)(i % 17) - 8.0f;
    tmp[0] = a[0];
    tmp[n - 1] = a[n - 1];
    blur(a, tmp, n, reps);
    for (int i = 0; i < n; i++)
        sum += a[i];
    printf("checksum %.9e\nsamples %.6f %.6f %.6f\n", sum, a[1], a[n / 2],
           a[n - 2]);
    free(a);
    free(tmp);
    return 0;
}
