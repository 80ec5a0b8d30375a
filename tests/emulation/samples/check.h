// The samples' error check (helper_cuda.h's checkCudaErrors): a failed call prints its code, name
// and text, and the program exits with EXIT_FAILURE.
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                                   \
  do {                                                                                                \
    const cudaError_t e = (call);                                                                     \
    if (e != cudaSuccess) {                                                                           \
      std::fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\"\n", __FILE__, __LINE__, static_cast<int>(e), \
                   cudaGetErrorName(e), #call);                                                       \
      std::exit(EXIT_FAILURE);                                                                        \
    }                                                                                                 \
  } while (0)
