#include <stdio.h>
#include "util.h"
int main(void)
{
    int x, s = 0;
    while (scanf("%d", &x) == 1)
        s += twice(x);
    printf("%d\n", s);
    return 0;
}
