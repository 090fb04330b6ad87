/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c: reads n, multiplies two n x n matrices it fills, prints a
 * checksum of the product to the last bit. */
#include <stdio.h>
#include <stdlib.h>

void matmul(int n, double *c, const double *a, const double *b);

int
main(void)
{
    int n;
    size_t nn, i;
    double *a, *b, *c, sum = 0;

    if (scanf("%d", &n) != 1 || n < 1)
        return 1;
    nn = (size_t)n * (size_t)n;
    a = malloc(nn * sizeof(*a));
    b = malloc(nn * sizeof(*b));
    c = calloc(nn, sizeof(*c));
    if (!a || !b || !c)
        return 1;
    for (i = 0; i < nn; i++) {
        a[i] = (double)(i % 13) * 0.1 - 0.55;
        b[i] = (double)(i % 7) * 0.3 + 0.01;
    }
    matmul(n, c, a, b);
    for (i = 0; i < nn; i++)
        sum += c[i] * (double)(i % 5);
    printf("%a\n", sum);
    free(a);
    free(b);
    free(c);
    return 0;
}
