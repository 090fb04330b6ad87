/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hot.c: a 3x3 convolution of an integer image with a 3x3 kernel of
 * integer weights, scaled down by a shift, over several passes, each
 * pass's output the next one's input: every output pixel reads its
 * eight neighbours and the nine weights. With OUT, IN and K passed as
 * int pointers that may alias, the nine weights are loaded again for
 * every pixel and the row cannot be vectorized safely; read once before
 * the row (scalar replacement, with restrict) they stay in registers.
 * Integer sums are exact, so every order gives the same values. */
void
conv3x3(int h, int w, int passes, int *out, int *in, const int *k)
{
    for (int p = 0; p < passes; p++) {
        for (int i = 1; i < h - 1; i++)
            for (int j = 1; j < w - 1; j++)
                out[i * w + j] = (k[0] * in[(i - 1) * w + j - 1] +
                                  k[1] * in[(i - 1) * w + j] +
                                  k[2] * in[(i - 1) * w + j + 1] +
                                  k[3] * in[i * w + j - 1] +
                                  k[4] * in[i * w + j] +
                                  k[5] * in[i * w + j + 1] +
                                  k[6] * in[(i + 1) * w + j - 1] +
                                  k[7] * in[(i + 1) * w + j] +
                                  k[8] * in[(i + 1) * w + j + 1]) >> 4;
        for (int i = 1; i < h - 1; i++)
            for (int j = 1; j < w - 1; j++)
                in[i * w + j] = out[i * w + j];
    }
}
