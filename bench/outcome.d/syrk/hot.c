/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hot.c: symmetric rank-k update of the lower triangle, C = beta*C +
 * alpha*A*A^T, on double matrices passed as pointers that may alias, in
 * i-j-k order: each C[i][j] is loaded and stored on every step of the
 * k loop, because a store to C might change A. Keeping C[i][j] in a
 * register across the k loop (scalar replacement, with restrict) gives
 * the same sum in the same order, so the same bits. */
void
syrk(int n, int m, double alpha, double beta, double *c, const double *a)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j <= i; j++) {
            c[i * n + j] *= beta;
            for (int k = 0; k < m; k++)
                c[i * n + j] += alpha * a[i * m + k] * a[j * m + k];
        }
}
