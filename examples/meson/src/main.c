/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c: reads h, w and steps, fills a grid, runs the stencil, prints
 * a checksum of the result to the last bit. */
#include <stdio.h>
#include <stdlib.h>

void stencil(int h, int w, int steps, double *out, const double *in);

int
main(void)
{
    int h, w, steps;
    size_t n, i;
    double *in, *out, sum = 0;

    if (scanf("%d %d %d", &h, &w, &steps) != 3 || h < 3 || w < 3)
        return 1;
    n = (size_t)h * (size_t)w;
    in = malloc(n * sizeof(*in));
    out = calloc(n, sizeof(*out));
    if (!in || !out)
        return 1;
    for (i = 0; i < n; i++)
        in[i] = (double)(i % 17) * 0.25;
    stencil(h, w, steps, out, in);
    for (i = 0; i < n; i++)
        sum += out[i] * (double)(i % 3 + 1);
    printf("%a\n", sum);
    free(in);
    free(out);
    return 0;
}
