/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hot.c: general matrix multiply, C = beta*C + alpha*A*B, on double
 * matrices passed as variably sized 2-D arrays, in i-j-k order: the
 * innermost loop walks A along a row and B down a column, NJ doubles
 * apart. Each C[i][j] takes its terms in k order, so the i-k-j order
 * (a unit-stride innermost loop over j) computes the same bits. */
void
gemm(int ni, int nj, int nk, double alpha, double beta, double (*c)[nj],
     double (*a)[nk], double (*b)[nj])
{
    for (int i = 0; i < ni; i++)
        for (int j = 0; j < nj; j++) {
            c[i][j] *= beta;
            for (int k = 0; k < nk; k++)
                c[i][j] += alpha * a[i][k] * b[k][j];
        }
}
