/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hot.c: y = A^T (A x) for an M x N double matrix A: first tmp = A x,
 * walking A along its rows, then y = A^T tmp, one column of A at a time,
 * so that loop's innermost walk strides N doubles. Each y[j] is summed
 * over i in order, so the i-outer order (adding row i of A, times tmp[i],
 * into all of y) computes the same bits with a unit-stride inner loop. */
void
atax(int m, int n, double (*a)[n], double *x, double *y, double *tmp)
{
    for (int i = 0; i < m; i++) {
        double s = 0.0;
        for (int j = 0; j < n; j++)
            s += a[i][j] * x[j];
        tmp[i] = s;
    }
    for (int j = 0; j < n; j++) {
        double s = 0.0;
        for (int i = 0; i < m; i++)
            s += a[i][j] * tmp[i];
        y[j] = s;
    }
}
