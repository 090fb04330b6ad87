/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * matmul.c: C += A * B for n x n matrices, in i-j-k order: the inner
 * loop walks a column of B, one cache line per element. The pragma
 * below marks the file for maxcode; its options are the make
 * function's, with paths relative to this directory (the glob quoted:
 * unquoted, its slash and star would open a C comment).
 */
#pragma maxcode optimize link=main.c inputs="../inputs/*.in" budget=8

void
matmul(int n, double *c, const double *a, const double *b)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            for (int k = 0; k < n; k++)
                c[i * n + j] += a[i * n + k] * b[k * n + j];
}
