/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hot.c: all-pairs shortest paths (Floyd-Warshall) on an N x N matrix of
 * integer distances, updated in place. The innermost loop reloads
 * d[i][k], since the store to d[i][j] might change it, and stores only
 * when the path through k is shorter. With no negative cycles d[k][k] is
 * 0, so d[i][k] does not change during step k: loading it once per row
 * and storing the minimum unconditionally computes the same matrix. */
void
floyd_warshall(int n, int (*d)[n])
{
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++)
                if (d[i][k] + d[k][j] < d[i][j])
                    d[i][j] = d[i][k] + d[k][j];
}
