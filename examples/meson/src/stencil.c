/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * stencil.c: STEPS sweeps of a 5-point average over an h x w grid,
 * written column by column: the inner loop strides a whole row. The
 * pragma marks the file for maxcode (paths relative to this directory,
 * the glob quoted).
 */
#pragma maxcode optimize link=main.c inputs="../inputs/*.in" budget=8

void
stencil(int h, int w, int steps, double *out, const double *in)
{
    for (int s = 0; s < steps; s++)
        for (int j = 1; j < w - 1; j++)
            for (int i = 1; i < h - 1; i++)
                out[i * w + j] = 0.2 * (in[i * w + j] + in[(i - 1) * w + j] +
                                        in[(i + 1) * w + j] +
                                        in[i * w + j - 1] +
                                        in[i * w + j + 1]);
}
