/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hot.c: the covariance matrix of N variables over M samples (DATA is
 * M x N, one sample per row): column means, centring, then the upper
 * triangle of COV, mirrored. The loops for the means and for each
 * covariance run over the samples innermost, walking DATA down its
 * columns, N doubles apart. Each mean and covariance takes its terms in
 * sample order, so the sample-outer order (unit-stride inner loops over
 * the variables) computes the same bits. */
void
covariance(int m, int n, double (*data)[n], double (*cov)[n], double *mean)
{
    for (int j = 0; j < n; j++) {
        mean[j] = 0.0;
        for (int i = 0; i < m; i++)
            mean[j] += data[i][j];
        mean[j] /= m;
    }
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++)
            data[i][j] -= mean[j];
    for (int i = 0; i < n; i++)
        for (int j = i; j < n; j++) {
            cov[i][j] = 0.0;
            for (int k = 0; k < m; k++)
                cov[i][j] += data[k][i] * data[k][j];
            cov[i][j] /= m - 1;
            cov[j][i] = cov[i][j];
        }
}
