/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c: reads "N REPS", multiplies two N x N matrices REPS times and
 * prints a checksum. */
#include <stdio.h>
#include <stdlib.h>

void matmul(int n, const float *restrict a, const float *restrict b,
            float *restrict c);

int
main(void)
{
    int n, reps;
    double sum = 0;

    if (scanf("%d %d", &n, &reps) != 2 || n < 1 || reps < 1)
        return 1;
    float *a = malloc(sizeof(float) * n * n);
    float *b = malloc(sizeof(float) * n * n);
    float *c = malloc(sizeof(float) * n * n);
    if (!a || !b || !c)
        return 1;
    for (int i = 0; i < n * n; i++) {
        a[i] = (float)((i * 7) % 13) - 6.0f;
        b[i] = (float)((i * 5) % 11) * 0.125f;
    }
    for (int r = 0; r < reps; r++) {
        matmul(n, a, b, c);
        a[r % (n * n)] += 1.0f;
    }
    for (int i = 0; i < n * n; i++)
        sum += c[i] * (double)(i % 7 + 1);
    printf("checksum %.9e\n", sum);
    return 0;
}
