#include <stdio.h>
static long
work(int n)
{
    volatile int vn = n;
    long s = 0;
    for (int r = 0; r < @REPS@; r++) {
        long t = 0;
        for (int i = 0; i < vn; i++)
            t += i % 7;
        s = t@TAIL@;
    }
    return s;
}
int main(void)
{
    int n;
    if (scanf("%d", &n) != 1) return 1;
    printf("%ld\n", work(n));
    return 0;
}
