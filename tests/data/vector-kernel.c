#include <stdio.h>
#include <stdlib.h>
static void
kernel(float *restrict a, const float *restrict b, int n, int reps)
{
    for (int r = 0; r < reps; r++)
        for (int i = 0; i < n; i++)
            a[i] = a[i] @OP@ 0.5f + b[i];
}
int main(void)
{
    int n, reps;
    if (scanf("%d %d", &n, &reps) != 2) return 1;
    float *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b);
    for (int i = 0; i < n; i++) b[i] = (float)(i % 5);
    kernel(a, b, n, reps);
    double s = 0;
    for (int i = 0; i < n; i++) s += a[i];
    printf("%.9e\n", s);
    return 0;
}
