// SPDX-License-Identifier: Apache-2.0
// CUDA's warp matrix functions (<mma.h>: nvcuda::wmma) under emulation, which the toolkit's header
// declares for nvcc only. A fragment holds its whole tile in every lane of the warp (on a GPU each
// lane holds a part, in a layout CUDA leaves unspecified): `frag.x[i]` for i < num_elements is an
// element, so element-wise code (`for (i < frag.num_elements) frag.x[i] *= alpha`) means what it
// means on a GPU. load_matrix_sync reads the tile in every lane; mma_sync computes it in every
// lane, in float (double for double); store_matrix_sync writes it from the warp's first lane and
// then synchronizes the warp, so that a store is one write of each element, as on a GPU.
// The translation of a .cu file includes this header where the file or a header it includes
// names `wmma` (python/cuguard/emulate.py).
#pragma once

#include <cuguard/emulation.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace nvcuda {
namespace wmma {

struct row_major;
struct col_major;
struct matrix_a;
struct matrix_b;
struct accumulator;
namespace precision {
struct tf32;
} // namespace precision

/// How an accumulator's tile lies in memory (load_matrix_sync and store_matrix_sync of one).
enum layout_t { mem_row_major, mem_col_major };

/// A float rounded to TensorFloat-32 (10 bits of mantissa, to nearest, ties away from zero), as
/// `cvt.rna.tf32.f32`; infinities and NaNs kept.
inline float __float_to_tf32(float in) {
  std::uint32_t bits;
  std::memcpy(&bits, &in, sizeof bits);
  if ((bits & 0x7f800000u) != 0x7f800000u) bits = (bits + 0x1000u) & 0xffffe000u;
  float out;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

namespace cuguard_impl {
/// The type a fragment's elements are stored as (TensorFloat-32's: float).
template <class T>
struct storage {
  using type = T;
};
template <>
struct storage<precision::tf32> {
  using type = float;
};

/// The rows and columns of a fragment's tile: A is m x k, B is k x n, an accumulator m x n.
template <class Use, int M, int N, int K>
struct shape;
template <int M, int N, int K>
struct shape<matrix_a, M, N, K> {
  static constexpr int rows = M, cols = K;
};
template <int M, int N, int K>
struct shape<matrix_b, M, N, K> {
  static constexpr int rows = K, cols = N;
};
template <int M, int N, int K>
struct shape<accumulator, M, N, K> {
  static constexpr int rows = M, cols = N;
};

template <class T>
double widen(const T& v) {
  if constexpr (std::is_same<T, __half>::value) {
    return static_cast<double>(__half2float(v));
  } else if constexpr (std::is_same<T, __nv_bfloat16>::value) {
    return static_cast<double>(__bfloat162float(v));
  } else {
    return static_cast<double>(v);
  }
}
template <class T>
T narrow(double v) {
  if constexpr (std::is_same<T, __half>::value) {
    return __float2half_rn(static_cast<float>(v));
  } else if constexpr (std::is_same<T, __nv_bfloat16>::value) {
    return __float2bfloat16_rn(static_cast<float>(v));
  } else {
    return static_cast<T>(v);
  }
}

/// The lane of the calling thread in its warp (threads numbered x fastest, as CUDA's).
inline unsigned lane() {
  const unsigned linear = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  return linear % 32u;
}

/// Element (r, c) of a tile at `p` with leading dimension `ldm`, row-major or not.
template <class T>
T& at(T* p, unsigned ldm, bool row_major_memory, int r, int c) {
  return row_major_memory ? p[static_cast<std::size_t>(r) * ldm + c] : p[static_cast<std::size_t>(c) * ldm + r];
}
} // namespace cuguard_impl

/// A warp's tile of A (m x k), B (k x n) or an accumulator (m x n), of element type T (half,
/// __nv_bfloat16, precision::tf32, signed/unsigned char, double; float or int for
/// accumulators), its memory layout `Layout` (row_major, col_major) for A and B.
template <class Use, int M, int N, int K, class T, class Layout = void>
class fragment {
 public:
  using element_type = T;
  using storage_element_type = typename cuguard_impl::storage<T>::type;
  static constexpr int rows = cuguard_impl::shape<Use, M, N, K>::rows;
  static constexpr int cols = cuguard_impl::shape<Use, M, N, K>::cols;
  enum { num_elements = rows * cols, num_storage_elements = rows * cols };
  storage_element_type x[num_elements]; ///< the tile, row by row

  storage_element_type& operator()(int r, int c) { return x[r * cols + c]; }
  const storage_element_type& operator()(int r, int c) const { return x[r * cols + c]; }
};

/// Every element of `f` set to `v`.
template <class Use, int M, int N, int K, class T, class Layout>
void fill_fragment(fragment<Use, M, N, K, T, Layout>& f,
                   const typename fragment<Use, M, N, K, T, Layout>::storage_element_type& v) {
  for (auto& e : f.x) e = v;
}

/// A or B read from `p` (leading dimension `ldm`, in elements) in the fragment's layout.
template <class Use, int M, int N, int K, class T, class Layout, class P>
void load_matrix_sync(fragment<Use, M, N, K, T, Layout>& f, const P* p, unsigned ldm) {
  static_assert(!std::is_same<Use, accumulator>::value,
                "load_matrix_sync: an accumulator's load takes its layout (mem_row_major or mem_col_major)");
  using F = fragment<Use, M, N, K, T, Layout>;
  const bool row = std::is_same<Layout, row_major>::value;
  for (int r = 0; r < F::rows; ++r)
    for (int c = 0; c < F::cols; ++c)
      f(r, c) = static_cast<typename F::storage_element_type>(cuguard_impl::at(p, ldm, row, r, c));
}

/// An accumulator read from `p` (leading dimension `ldm`) laid out as `layout` says.
template <int M, int N, int K, class T, class P>
void load_matrix_sync(fragment<accumulator, M, N, K, T>& f, const P* p, unsigned ldm, layout_t layout) {
  for (int r = 0; r < M; ++r)
    for (int c = 0; c < N; ++c) f(r, c) = cuguard_impl::at(p, ldm, layout == mem_row_major, r, c);
}

/// An accumulator written to `p` (leading dimension `ldm`) laid out as `layout` says: by the
/// warp's first lane, then the warp synchronized.
template <int M, int N, int K, class T, class P>
void store_matrix_sync(P* p, const fragment<accumulator, M, N, K, T>& f, unsigned ldm, layout_t layout) {
  if (cuguard_impl::lane() == 0)
    for (int r = 0; r < M; ++r)
      for (int c = 0; c < N; ++c) cuguard_impl::at(p, ldm, layout == mem_row_major, r, c) = f(r, c);
  __syncwarp();
}

/// d = a * b + c (satf: an overflow saturates to the largest finite value, a NaN gives 0).
template <int M, int N, int K, class TA, class LA, class TB, class LB, class TC, class TD>
void mma_sync(fragment<accumulator, M, N, K, TD>& d, const fragment<matrix_a, M, N, K, TA, LA>& a,
              const fragment<matrix_b, M, N, K, TB, LB>& b, const fragment<accumulator, M, N, K, TC>& c,
              bool satf = false) {
  using cuguard_impl::widen;
  fragment<accumulator, M, N, K, TD> out;
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      double sum = widen(c(i, j));
      for (int k = 0; k < K; ++k) {
        const double term = widen(a(i, k)) * widen(b(k, j));
        // (float precision, as tensor cores accumulate; exact for double and integers)
        if constexpr (std::is_same<TD, double>::value || std::is_integral<TD>::value) {
          sum += term;
        } else {
          sum = static_cast<double>(static_cast<float>(sum + term));
        }
      }
      if (satf && !std::is_integral<TD>::value) {
        const double largest = std::is_same<TD, __half>::value ? 65504.0 : 3.4028234663852886e38;
        sum = sum != sum ? 0.0 : (sum > largest ? largest : (sum < -largest ? -largest : sum));
      }
      out(i, j) = cuguard_impl::narrow<TD>(sum);
    }
  d = out;
}

} // namespace wmma
} // namespace nvcuda
