/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hot.c: dense float matrix multiply, C = A * B, in i-k-j order: each
 * C[i][j] is summed over k in order, so vectorizing over j does not
 * change any result. */
void
matmul(int n, const float *restrict a, const float *restrict b,
       float *restrict c)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++)
            c[i * n + j] = 0.0f;
        for (int k = 0; k < n; k++) {
            float aik = a[i * n + k];
            for (int j = 0; j < n; j++)
                c[i * n + j] += aik * b[k * n + j];
        }
    }
}
