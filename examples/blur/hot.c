/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * hot.c: the hot translation unit of the demo: a 1-D three-point blur,
 * applied REPS times. The program spends nearly all its time here, so
 * this is the file the Makefile marks with $(maxcode ...).
 */
#include "blur.h"

void
blur(float *restrict a, float *restrict tmp, int n, int reps)
{
    for (int r = 0; r < reps; r++) {
        for (int i = 1; i < n - 1; i++)
            tmp[i] = 0.25f * a[i - 1] + 0.5f * a[i] + 0.25f * a[i + 1];
        for (int i = 1; i < n - 1; i++)
            a[i] = tmp[i];
    }
}
