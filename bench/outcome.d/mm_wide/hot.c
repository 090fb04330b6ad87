/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hot.c: C += A * B for a few rows of C and a B wider and taller than
 * the last-level cache, already in i-k-j order (the innermost loop is
 * unit-stride in B and C). Each row of C streams the whole of B from
 * memory once; blocking k and j keeps a tile of B in the caches across
 * the rows instead. Each C[i][j] still takes its terms in k order, so
 * the blocked loops compute the same bits. */
void
mm_wide(int m, int n, int p, float *c, const float *a, const float *b)
{
    for (int i = 0; i < m; i++)
        for (int k = 0; k < n; k++)
            for (int j = 0; j < p; j++)
                c[i * p + j] += a[i * n + k] * b[k * p + j];
}
