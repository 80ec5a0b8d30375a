// A launch and a dynamic shared array in a header, as NVIDIA's samples keep some kernels: the
// translation reaches included headers too.
#pragma once

__global__ void reverse_block(const int* in, int* out) {
  extern __shared__ int tile[];
  tile[threadIdx.x] = in[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}

inline void reverse_blocks(const int* in, int* out, int blocks, int threads) {
  reverse_block<<<blocks, threads, threads * sizeof(int)>>>(in, out);
}
