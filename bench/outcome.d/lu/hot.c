/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hot.c: LU decomposition in place, without pivoting (the input is
 * diagonally dominant), of an N x N double matrix: row by row, L's part
 * of row i, then U's. The innermost loops run over k and walk A down a
 * column, N doubles apart. Each element takes its updates in k order, so
 * the right-looking order (for each k: divide row i's element k by the
 * pivot, then subtract its multiple of row k from the rest of row i, a
 * unit-stride loop) computes the same bits. */
void
lu(int n, double (*a)[n])
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++) {
            for (int k = 0; k < j; k++)
                a[i][j] -= a[i][k] * a[k][j];
            a[i][j] /= a[j][j];
        }
        for (int j = i; j < n; j++)
            for (int k = 0; k < i; k++)
                a[i][j] -= a[i][k] * a[k][j];
    }
}
