/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hot.c: sorting: a bottom-up merge sort of N ints, with insertion sort
 * for runs of 16. */
#include <string.h>

static void
insertion(int *a, int n)
{
    for (int i = 1; i < n; i++) {
        int v = a[i], j = i - 1;
        while (j >= 0 && a[j] > v) {
            a[j + 1] = a[j];
            j--;
        }
        a[j + 1] = v;
    }
}

void
sort_ints(int *restrict a, int *restrict tmp, int n)
{
    for (int i = 0; i < n; i += 16)
        insertion(a + i, n - i < 16 ? n - i : 16);
    for (int w = 16; w < n; w *= 2) {
        for (int lo = 0; lo < n; lo += 2 * w) {
            int mid = lo + w < n ? lo + w : n;
            int hi = lo + 2 * w < n ? lo + 2 * w : n;
            int i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = a[j] < a[i] ? a[j++] : a[i++];
            while (i < mid)
                tmp[k++] = a[i++];
            while (j < hi)
                tmp[k++] = a[j++];
        }
        memcpy(a, tmp, sizeof(int) * (size_t)n);
    }
}
