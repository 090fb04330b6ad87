/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hello.c: a tiny program for the first demo; it sums a series. */
#include <stdio.h>

int
main(void)
{
    double s = 0;
    long i;

    for (i = 1; i <= 10000000; i++)
        s += 1.0 / ((double)i * (double)i);
    printf("sum of 1/i^2 = %.9f\n", s);
    return 0;
}
