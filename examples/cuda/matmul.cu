/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * matmul.cu: the kernel the example's Makefile marks with
 * $(maxcode matmul.cu, kernel=matmul, ...): C = A * B for square
 * row-major N x N matrices of floats, one thread per element of C.
 *
 * It is deliberately naive: every thread reads a whole row of A and a
 * whole column of B from global memory, with no reuse through shared
 * memory or registers, so a tiled variant is several times faster. The
 * harness (harness.cu) launches it with 16 x 16 blocks covering C.
 */
__global__ void
matmul(const float *A, const float *B, float *C, int n)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;

    if (row < n && col < n) {
        float sum = 0.0f;
        for (int k = 0; k < n; k++)
            sum += A[row * n + k] * B[k * n + col];
        C[row * n + col] = sum;
    }
}
