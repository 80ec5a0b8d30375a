// SPDX-License-Identifier: Apache-2.0
// Kernels written in ATen's accessor style, each compiled twice: with ATen's accessors
// (aten_twin::) and with cuguard::torch's (cuguard_twin::). With checks off each pair must compile
// to the same PTX (accessor_twin.py); with checks on they must differ.
#include <ATen/core/TensorAccessor.h>
#include <cuguard/detail/adapters/torch_accessor.hpp>

#include <cstddef>
#include <cstdint>

namespace body {

template <class T>
__device__ __forceinline__ T sigmoid(T z) {
  return T(1) / (T(1) + exp(-z));
}

// The LLTM tutorial's forward cell: 3-D gates, 2-D states, size_t indices, RestrictPtrTraits.
template <class A3, class A2, class C2>
__device__ __forceinline__ void lltm_forward(const A3& gates, const C2& old_cell, A2& new_h, A2& new_cell) {
  const int n = blockIdx.y;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < gates.size(2)) {
    const auto input_gate = sigmoid(gates[n][0][c]);
    const auto output_gate = sigmoid(gates[n][1][c]);
    const auto candidate = tanh(gates[n][2][c]);
    new_cell[n][c] = old_cell[n][c] + candidate * input_gate;
    new_h[n][c] = tanh(new_cell[n][c]) * output_gate;
  }
}

// A row held as a TensorAccessor across a loop (32-bit indices).
template <class A2, class A1>
__device__ __forceinline__ void row_sums(const A2& in, A1& out) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n < in.size(0)) {
    const auto row = in[n];
    float s = 0;
    for (int j = 0; j < row.size(0); ++j) s += row[j];
    out[n] = s;
  }
}

// An embedding lookup through an index accessor (64-bit indices).
template <class W, class I, class O>
__device__ __forceinline__ void embedding(const W& weight, const I& ids, O& out) {
  const std::int64_t i = blockIdx.x;
  for (std::int64_t j = threadIdx.x; j < out.size(1); j += blockDim.x) out[i][j] = weight[ids[i]][j];
}

} // namespace body

#define CUGUARD_TWIN_KERNELS(NS, P)                                                                          \
  namespace NS##_twin {                                                                                     \
  __global__ void lltm_forward(const P::PackedTensorAccessor<float, 3, P::RestrictPtrTraits, std::size_t> gates, \
                               const P::PackedTensorAccessor<float, 2, P::RestrictPtrTraits, std::size_t> old_cell, \
                               P::PackedTensorAccessor<float, 2, P::RestrictPtrTraits, std::size_t> new_h,     \
                               P::PackedTensorAccessor<float, 2, P::RestrictPtrTraits, std::size_t> new_cell) { \
    body::lltm_forward(gates, old_cell, new_h, new_cell);                                                   \
  }                                                                                                         \
  __global__ void row_sums(const P::PackedTensorAccessor32<float, 2> in, P::PackedTensorAccessor32<float, 1> out) { \
    body::row_sums(in, out);                                                                                \
  }                                                                                                         \
  __global__ void embedding(const P::PackedTensorAccessor64<float, 2, P::RestrictPtrTraits> weight,        \
                            const P::PackedTensorAccessor64<std::int64_t, 1, P::RestrictPtrTraits> ids,    \
                            P::PackedTensorAccessor64<float, 2, P::RestrictPtrTraits> out) {               \
    body::embedding(weight, ids, out);                                                                      \
  }                                                                                                         \
  }

CUGUARD_TWIN_KERNELS(aten, at)
CUGUARD_TWIN_KERNELS(cuguard, cuguard::torch)
