/* SPDX-License-Identifier: GPL-3.0-or-later */
/* main.c: reads "N REPS", builds a text of N bytes from words, runs the
 * text statistics REPS times and prints a checksum. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long textstats(int n, const unsigned char *restrict s, unsigned char *restrict out);

int
main(void)
{
    static const char *words[] = {"The", "quick", "Brown", "fox", "JUMPS",
                                  "over", "13", "lazy", "dogs", "at", "4:20"};
    int n, reps;
    unsigned long long sum = 0;
    unsigned st = 7;

    if (scanf("%d %d", &n, &reps) != 2 || n < 1 || reps < 1)
        return 1;
    unsigned char *s = malloc(n), *out = malloc(n);
    if (!s || !out)
        return 1;
    for (int i = 0; i < n;) {
        st = st * 1103515245u + 12345u;
        const char *w = words[(st >> 16) % 11];
        for (size_t k = 0; w[k] && i < n; k++)
            s[i++] = (unsigned char)w[k];
        if (i < n)
            s[i++] = ' ';
    }
    for (int r = 0; r < reps; r++) {
        sum = sum * 31 + (unsigned long long)textstats(n, s, out);
        sum += out[r % n];
        s[r % n] = (unsigned char)('A' + r % 26);
    }
    printf("checksum %llu\n", sum);
    return 0;
}
