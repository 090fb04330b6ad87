/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c: reads "W H STEPS", runs the stencil and prints a checksum. */
#include <stdio.h>
#include <stdlib.h>

void stencil(int w, int h, int steps, float *restrict u, float *restrict v);

int
main(void)
{
    int w, h, steps;
    double sum = 0;

    if (scanf("%d %d %d", &w, &h, &steps) != 3 || w < 3 || h < 3 || steps < 0)
        return 1;
    float *u = malloc(sizeof(float) * w * h);
    float *v = malloc(sizeof(float) * w * h);
    if (!u || !v)
        return 1;
    for (int i = 0; i < w * h; i++)
        u[i] = v[i] = (float)((i * 31) % 97) * 0.01f;
    stencil(w, h, steps, u, v);
    for (int i = 0; i < w * h; i++)
        sum += u[i] * (double)(i % 5 + 1);
    printf("checksum %.9e\n", sum);
    return 0;
}
