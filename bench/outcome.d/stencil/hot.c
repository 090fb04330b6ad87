/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hot.c: a 2-D five-point Jacobi stencil on a W x H float grid, STEPS
 * sweeps; the borders stay fixed. Each point is computed with the same
 * operations in the same order whether vectorized or not. */
void
stencil(int w, int h, int steps, float *restrict u, float *restrict v)
{
    for (int s = 0; s < steps; s++) {
        for (int y = 1; y < h - 1; y++)
            for (int x = 1; x < w - 1; x++)
                v[y * w + x] = 0.2f * (u[y * w + x] + u[y * w + x - 1] +
                                       u[y * w + x + 1] + u[(y - 1) * w + x] +
                                       u[(y + 1) * w + x]);
        for (int y = 1; y < h - 1; y++)
            for (int x = 1; x < w - 1; x++)
                u[y * w + x] = v[y * w + x];
    }
}
