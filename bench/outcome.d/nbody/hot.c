/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hot.c: a softened gravitational N-body simulation, STEPS explicit
 * Euler steps over N bodies kept as separate coordinate, velocity and
 * mass arrays. Each body i pulls every body j (a body's pull on itself is
 * zero), so the innermost loop runs over j, with a sqrt per pair, and
 * adds into the accelerations of j: each acceleration takes its terms in
 * i order, whether or not the j loop is vectorized. The arrays might
 * overlap as far as the compiler knows, and sqrt might set errno. */
#include <math.h>

void
nbody(int n, int steps, double dt, double *x, double *y, double *z, double *vx,
      double *vy, double *vz, const double *m, double *ax, double *ay,
      double *az)
{
    const double eps2 = 1e-4;

    for (int s = 0; s < steps; s++) {
        for (int j = 0; j < n; j++)
            ax[j] = ay[j] = az[j] = 0.0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double dx = x[i] - x[j], dy = y[i] - y[j], dz = z[i] - z[j];
                double d2 = dx * dx + dy * dy + dz * dz + eps2;
                double f = m[i] / (d2 * sqrt(d2));
                ax[j] += dx * f;
                ay[j] += dy * f;
                az[j] += dz * f;
            }
        for (int j = 0; j < n; j++) {
            vx[j] += dt * ax[j];
            vy[j] += dt * ay[j];
            vz[j] += dt * az[j];
            x[j] += dt * vx[j];
            y[j] += dt * vy[j];
            z[j] += dt * vz[j];
        }
    }
}
