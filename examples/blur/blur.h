/* SPDX-License-Identifier: GPL-3.0-or-later */
/* blur.h: the kernel's interface. */
#ifndef BLUR_H
#define BLUR_H
void blur(float *restrict a, float *restrict tmp, int n, int reps);
#endif
