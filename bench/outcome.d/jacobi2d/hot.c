/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hot.c: a 2-D five-point Jacobi stencil on an N x N double grid over
 * TSTEPS time steps, alternating between two arrays: each step computes
 * B from A, then A from B; the borders stay fixed. The loops run j outer
 * and i inner (the column-major order of a Fortran original), so the
 * innermost loop strides N doubles. Every point is computed from the
 * other array only, with the same operations in the same order, so the
 * i-outer order computes the same bits. */
void
jacobi2d(int tsteps, int n, double (*a)[n], double (*b)[n])
{
    for (int t = 0; t < tsteps; t++) {
        for (int j = 1; j < n - 1; j++)
            for (int i = 1; i < n - 1; i++)
                b[i][j] = 0.2 * (a[i][j] + a[i][j - 1] + a[i][j + 1] +
                                 a[i + 1][j] + a[i - 1][j]);
        for (int j = 1; j < n - 1; j++)
            for (int i = 1; i < n - 1; i++)
                a[i][j] = 0.2 * (b[i][j] + b[i][j - 1] + b[i][j + 1] +
                                 b[i + 1][j] + b[i - 1][j]);
    }
}
