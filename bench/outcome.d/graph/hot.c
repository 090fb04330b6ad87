/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hot.c: a graph walk: breadth-first search over a graph in CSR form
 * from a source vertex, returning the sum of the distances reached. */
long
bfs(int nv, const int *restrict off, const int *restrict adj, int src,
    int *restrict dist, int *restrict queue)
{
    long total = 0;
    int head = 0, tail = 0;

    for (int i = 0; i < nv; i++)
        dist[i] = -1;
    dist[src] = 0;
    queue[tail++] = src;
    while (head < tail) {
        int v = queue[head++];
        total += dist[v];
        for (int e = off[v]; e < off[v + 1]; e++) {
            int w = adj[e];
            if (dist[w] < 0) {
                dist[w] = dist[v] + 1;
                queue[tail++] = w;
            }
        }
    }
    return total;
}
