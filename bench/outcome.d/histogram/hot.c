/* SPDX-License-Identifier: GPL-3.0-or-later */
/* hot.c: a histogram of N 16-bit samples: each sample is scaled to a bin
 * (a computation per sample), then the bins are counted. */
void
histogram(int n, const unsigned short *restrict x, int nbins, int scale,
          unsigned short *restrict bin, unsigned *restrict count)
{
    for (int i = 0; i < n; i++)
        bin[i] = (unsigned short)(((unsigned)x[i] * (unsigned)scale) >> 16);
    for (int i = 0; i < nbins; i++)
        count[i] = 0;
    for (int i = 0; i < n; i++)
        count[bin[i]]++;
}
