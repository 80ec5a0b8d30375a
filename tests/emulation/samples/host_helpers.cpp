// A host source of the samples program, compiled by the host compiler as nvcc's builds compile a
// .cpp: it defines names the kernel language has (umin, max), as host code may.
#include <cuda_runtime.h>

static unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
template <class T>
T max(T a, T b) {
  return a < b ? b : a;
}

/// The smaller of the two, plus the larger: with the host's own umin and max.
unsigned int host_helper(unsigned int a, unsigned int b) { return umin(a, b) + max(a, b); }
