/* SPDX-License-Identifier: GPL-3.0-or-later */
/*
 * harness.cu: the program around matmul.cu. `harness N` (N defaults to
 * 1024) multiplies two N x N matrices of deterministic pseudo-random
 * floats on the GPU, times the kernel with CUDA events (a
 * `maxcode-time:` line, which maxcode uses as the run's time) and prints
 * checksums and a sample of C, which maxcode compares with the original
 * kernel's within tolerance=.
 */
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include <maxcode/cuda_harness.h>

/* In matmul.cu: the kernel under optimization. */
__global__ void matmul(const float *A, const float *B, float *C, int n);

int
main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1024;

    if (n < 1 || n > 16384) {
        fprintf(stderr, "usage: %s [N]   (1 <= N <= 16384)\n", argv[0]);
        return 2;
    }
    size_t count = (size_t)n * (size_t)n, bytes = count * sizeof(float);
    std::vector<float> a(count), b(count), c(count);
    maxcode_fill_floats(a.data(), count, 1);
    maxcode_fill_floats(b.data(), count, 2);

    float *dA, *dB, *dC;
    MAXCODE_CUDA_CHECK(cudaMalloc(&dA, bytes));
    MAXCODE_CUDA_CHECK(cudaMalloc(&dB, bytes));
    MAXCODE_CUDA_CHECK(cudaMalloc(&dC, bytes));
    MAXCODE_CUDA_CHECK(
        cudaMemcpy(dA, a.data(), bytes, cudaMemcpyHostToDevice));
    MAXCODE_CUDA_CHECK(
        cudaMemcpy(dB, b.data(), bytes, cudaMemcpyHostToDevice));
    /* All bits set is a NaN: an element the kernel never writes shows up
     * in the nonfinite count. */
    MAXCODE_CUDA_CHECK(cudaMemset(dC, 0xff, bytes));

    dim3 block(16, 16);
    dim3 grid((n + block.x - 1) / block.x, (n + block.y - 1) / block.y);
    maxcode_cuda_time(3, 20, [&] { matmul<<<grid, block>>>(dA, dB, dC, n); });

    MAXCODE_CUDA_CHECK(
        cudaMemcpy(c.data(), dC, bytes, cudaMemcpyDeviceToHost));
    maxcode_print_floats("C", c.data(), count);

    MAXCODE_CUDA_CHECK(cudaFree(dA));
    MAXCODE_CUDA_CHECK(cudaFree(dB));
    MAXCODE_CUDA_CHECK(cudaFree(dC));
    return 0;
}
