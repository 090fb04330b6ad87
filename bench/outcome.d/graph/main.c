/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c: reads "NV DEG REPS", builds a pseudo-random graph of NV
 * vertices with DEG edges each (plus a ring), runs REPS breadth-first
 * searches from different sources and prints a checksum. */
#include <stdio.h>
#include <stdlib.h>

long bfs(int nv, const int *restrict off, const int *restrict adj, int src,
         int *restrict dist, int *restrict queue);

int
main(void)
{
    int nv, deg, reps;
    unsigned long long sum = 0;
    unsigned s = 4242;

    if (scanf("%d %d %d", &nv, &deg, &reps) != 3 || nv < 2 || deg < 0 ||
        reps < 1)
        return 1;
    int *off = malloc(sizeof(int) * (nv + 1));
    int *adj = malloc(sizeof(int) * (size_t)nv * (deg + 1));
    int *dist = malloc(sizeof(int) * nv), *queue = malloc(sizeof(int) * nv);
    if (!off || !adj || !dist || !queue)
        return 1;
    for (int v = 0; v <= nv; v++)
        off[v] = v * (deg + 1);
    for (int v = 0; v < nv; v++) {
        adj[off[v]] = (v + 1) % nv;
        for (int d = 1; d <= deg; d++) {
            s = s * 1103515245u + 12345u;
            adj[off[v] + d] = (int)((s >> 8) % (unsigned)nv);
        }
    }
    for (int r = 0; r < reps; r++)
        sum = sum * 31 + (unsigned long long)bfs(nv, off, adj, (r * 7919) % nv,
                                                 dist, queue);
    printf("checksum %llu\n", sum);
    return 0;
}
