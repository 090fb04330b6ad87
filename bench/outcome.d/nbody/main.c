/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c: reads "N STEPS SEED", places N bodies at random in a unit
 * cube, at rest, with random masses, from a linear congruential
 * generator seeded with SEED, runs STEPS steps of 0.001 time units and
 * prints checksums of the positions and velocities and one body's
 * position. */
#include <stdio.h>
#include <stdlib.h>

void nbody(int n, int steps, double dt, double *x, double *y, double *z,
           double *vx, double *vy, double *vz, const double *m, double *ax,
           double *ay, double *az);

static unsigned long long seed;

/* A number in [0, 1). */
static double
rnd(void)
{
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(long long)(seed >> 32) * 0x1.0p-32;
}

int
main(void)
{
    int n, steps;
    double sp = 0, sv = 0;

    if (scanf("%d %d %llu", &n, &steps, &seed) != 3 || n < 1 || steps < 0)
        return 1;
    double *v[10];
    for (int k = 0; k < 10; k++)
        if (!(v[k] = malloc(sizeof(double) * n)))
            return 1;
    double *x = v[0], *y = v[1], *z = v[2], *vx = v[3], *vy = v[4], *vz = v[5],
           *m = v[6];
    for (int i = 0; i < n; i++) {
        x[i] = rnd();
        y[i] = rnd();
        z[i] = rnd();
        vx[i] = vy[i] = vz[i] = 0.0;
        m[i] = (0.5 + rnd()) / n;
    }
    nbody(n, steps, 0.001, x, y, z, vx, vy, vz, m, v[7], v[8], v[9]);
    for (int i = 0; i < n; i++) {
        sp += (x[i] + 2.0 * y[i] + 3.0 * z[i]) * (double)(i % 5 + 1);
        sv += (vx[i] + 2.0 * vy[i] + 3.0 * vz[i]) * (double)(i % 5 + 1);
    }
    printf("positions %.6e\nvelocities %.6e\n", sp, sv);
    printf("body %d at %.6e %.6e %.6e\n", n / 2, x[n / 2], y[n / 2], z[n / 2]);
    return 0;
}
