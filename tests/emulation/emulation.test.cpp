// SPDX-License-Identifier: Apache-2.0
// Kernel semantics that emulation must reproduce (and the GPU does): barriers, shared memory,
// warp intrinsics, atomics, dynamic shared memory, multi-dimensional grids.
#include "device_support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

namespace device_tests {

// A helper whose parameters carry the built-ins' names, as user code may: they shadow the
// built-in variables (under emulation too, where they are variables, not macros).
#if defined(__GNUC__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wshadow"
#endif
__device__ inline unsigned flat_index(uint3 threadIdx, dim3 blockDim) { return threadIdx.y * blockDim.x + threadIdx.x; }
#if defined(__GNUC__)
#  pragma GCC diagnostic pop
#endif

// The built-in variables, read through a helper and directly; CUDA's mixed max and min.
__global__ void builtins(cuguard::checked_view<unsigned, 2> out) {
  const unsigned t = flat_index(threadIdx, blockDim);
  out(0, t) = flat_index(uint3{threadIdx.y, threadIdx.x, 0}, blockDim);
  out(1, t) = blockIdx.x * 100u + gridDim.x;
  out(2, t) = max(static_cast<int>(t) + 1, 4u) + min(t, 1u);
}

// Reverses each block's 64 elements through a shared tile: wrong without __syncthreads().
__global__ void reverse_blocks(cuguard::checked_view<const int, 1> in, cuguard::checked_view<int, 1> out) {
  __shared__ int storage[64];
  auto tile = cuguard::make_view(storage, {64}, "tile");
  const int base = static_cast<int>(blockIdx.x * blockDim.x);
  tile[threadIdx.x] = in[base + static_cast<int>(threadIdx.x)];
  __syncthreads();
  out[base + static_cast<int>(threadIdx.x)] = tile[63 - static_cast<int>(threadIdx.x)];
}

// Every thread adds 1 to element 1 of four halves: an atomic on a 2-byte value must leave its
// neighbours alone.
__global__ void half_atomics(cuguard::checked_view<__half, 1> values) { atomicAdd(&values[1], __float2half(1.0f)); }
// Vector accesses of a class type (__half): they must build with -Wall -Werror (-Wclass-memaccess).
__global__ void half_pairs(cuguard::checked_view<__half, 1> values) { values.store<2>(values.load<2>(0), 2); }

// Warp sum with __shfl_xor_sync, one atomicAdd per warp.
__global__ void warp_sum(cuguard::checked_view<const int, 1> in, cuguard::checked_view<int, 1> total) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  int v = in[i];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(&total[0], v);
}

// Lane 0's value broadcast with __shfl_sync; __shfl_down_sync; __ballot_sync.
__global__ void warp_ops(cuguard::checked_view<int, 2> out) {
  const int lane = static_cast<int>(threadIdx.x);
  out(0, lane) = __shfl_sync(0xffffffffu, lane * 10, 0);
  out(1, lane) = __shfl_down_sync(0xffffffffu, lane, 1u);
  out(2, lane) = static_cast<int>(__ballot_sync(0xffffffffu, lane % 2 == 1));
}

// Dynamic shared memory, sized at launch: a block-wide prefix sum of 128 values.
__global__ void block_scan(cuguard::checked_view<const int, 1> in, cuguard::checked_view<int, 1> out) {
  auto s = cuguard::make_view(cuguard::dynamic_shared<int>(), {static_cast<std::int64_t>(blockDim.x)}, "scan");
  const int t = static_cast<int>(threadIdx.x);
  s[t] = in[t];
  __syncthreads();
  for (int offset = 1; offset < static_cast<int>(blockDim.x); offset *= 2) {
    const int add = t >= offset ? s[t - offset] : 0;
    __syncthreads();
    s[t] += add;
    __syncthreads();
  }
  out[t] = s[t];
}

// Every thread of a 3-D grid of 3-D blocks writes its linear id.
__global__ void ids_3d(cuguard::checked_view<int, 6> out) {
  out(blockIdx.z, blockIdx.y, blockIdx.x, threadIdx.z, threadIdx.y, threadIdx.x) =
      static_cast<int>(((blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x) * blockDim.x * blockDim.y *
                           blockDim.z +
                       (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x);
}

} // namespace device_tests

TEST_CASE("threadIdx and the other built-ins are variables that parameters may shadow") {
  cuguard::device_buffer<unsigned> out(3 * 8, "out");
  cuguard::launch({dim3(1), dim3(4, 2)}, device_tests::builtins, out.view({3, 8}));
  cuguard::check();
  const std::vector<unsigned> got = out.to_host();
  for (unsigned y = 0; y < 2; ++y) {
    for (unsigned x = 0; x < 4; ++x) {
      const unsigned t = y * 4 + x;
      CHECK(got[0 * 8 + t] == x * 4 + y);
      CHECK(got[1 * 8 + t] == 1u);
      const unsigned m = t + 1 > 4u ? t + 1 : 4u; // max(int, unsigned): unsigned, as in CUDA
      CHECK(got[2 * 8 + t] == m + (t < 1u ? t : 1u));
    }
  }
}

TEST_CASE("__syncthreads orders shared-memory writes before reads") {
  std::vector<int> in(128);
  std::iota(in.begin(), in.end(), 0);
  cuguard::device_buffer<int> d_in(128, "in"), d_out(128, "out");
  d_in.copy_from_host(in);
  cuguard::launch(device_tests::reverse_blocks, 2, 64, d_in.view(), d_out.view());
  cuguard::check();
  const std::vector<int> out = d_out.to_host();
  CHECK(out[0] == 63);
  CHECK(out[63] == 0);
  CHECK(out[64] == 127);
  CHECK(out[127] == 64);
}

TEST_CASE("__shfl_xor_sync and atomicAdd compute a sum") {
  std::vector<int> in(256);
  std::iota(in.begin(), in.end(), 1);
  cuguard::device_buffer<int> d_in(256, "in"), total(1, "total");
  d_in.copy_from_host(in);
  total.copy_from_host(std::vector<int>{0});
  cuguard::launch(device_tests::warp_sum, 2, 128, d_in.view(), total.view());
  cuguard::check();
  CHECK(total.to_host()[0] == 256 * 257 / 2);
}

namespace device_tests {
/// Runs `kernel` with `threads` threads over four __half values, and returns them as floats.
inline std::vector<float> run_on_halves(void (*kernel)(cuguard::checked_view<__half, 1>), int threads,
                                        const std::vector<float>& start) {
  std::vector<__half> in;
  for (float f : start) in.push_back(__float2half(f));
  cuguard::device_buffer<__half> values(in.size(), "values");
  values.copy_from_host(in);
  cuguard::launch(kernel, 1, threads, values.view());
  cuguard::check();
  std::vector<float> out;
  for (__half h : values.to_host()) out.push_back(__half2float(h));
  return out;
}
} // namespace device_tests

TEST_CASE("atomicAdd on __half changes only its element") {
  CHECK(device_tests::run_on_halves(device_tests::half_atomics, 64, {3, 0, 5, 7}) == std::vector<float>{3, 64, 5, 7});
}

TEST_CASE("vector loads and stores of __half copy both halves") {
  CHECK(device_tests::run_on_halves(device_tests::half_pairs, 1, {1.5f, 2.5f, 0, 0}) ==
        std::vector<float>{1.5f, 2.5f, 1.5f, 2.5f});
}

TEST_CASE("__shfl_sync, __shfl_down_sync and __ballot_sync follow CUDA's lane rules") {
  cuguard::device_buffer<int> out(3 * 32, "out");
  cuguard::launch(device_tests::warp_ops, 1, 32, out.view({3, 32}));
  cuguard::check();
  const std::vector<int> h = out.to_host();
  CHECK(h[5] == 0);             // broadcast of lane 0's value
  CHECK(h[32 + 4] == 5);        // lane 4 reads lane 5
  CHECK(h[32 + 31] == 31);      // the last lane keeps its own value
  CHECK(static_cast<unsigned>(h[64]) == 0xaaaaaaaau);
}

TEST_CASE("dynamic shared memory has the size given at launch") {
  std::vector<int> in(128, 1);
  cuguard::device_buffer<int> d_in(128, "in"), d_out(128, "out");
  d_in.copy_from_host(in);
  cuguard::launch({dim3(1), dim3(128), 128 * sizeof(int)}, device_tests::block_scan, d_in.view(), d_out.view());
  cuguard::check();
  const std::vector<int> out = d_out.to_host();
  CHECK(out[0] == 1);
  CHECK(out[127] == 128);
}

TEST_CASE("a 3-D grid of 3-D blocks gives every thread its own ids") {
  const dim3 grid(3, 2, 2), block(4, 2, 2);
  cuguard::device_buffer<int> out(3 * 2 * 2 * 4 * 2 * 2, "ids");
  cuguard::launch({grid, block}, device_tests::ids_3d, out.view({2, 2, 3, 2, 2, 4}));
  cuguard::check();
  const std::vector<int> h = out.to_host();
  std::vector<int> expected(h.size());
  std::iota(expected.begin(), expected.end(), 0);
  CHECK(h == expected);
}

#if CUGUARD_IMPL_EMULATION
#  include <cfenv>
#  include <cmath>
#  include <xmmintrin.h>
namespace device_tests {
// What thread 0 leaves behind before it returns: a rounding mode, or flush-to-zero or
// denormals-are-zero set in MXCSR.
enum class float_mode { downward, toward_zero, upward, flush_to_zero, denormals_are_zero };

// Thread 0 changes a floating-point mode and returns; the other threads compute what each mode
// would change: 0.5, -0.5 and 1.5 rounded to integers in the current rounding mode (to nearest,
// even: 0, -0, 2), a denormal result (flushed to zero under FTZ) and a denormal operand (read
// as zero under DAZ). On a GPU rounding is per instruction; under emulation every thread starts
// from the default modes, whatever the thread before it left.
__global__ void float_mode_leak(cuguard::checked_view<float, 2> out, float half, float tiny, float_mode mode) {
  if (threadIdx.x == 0) {
    switch (mode) {
    case float_mode::downward: std::fesetround(FE_DOWNWARD); break;
    case float_mode::toward_zero: std::fesetround(FE_TOWARDZERO); break;
    case float_mode::upward: std::fesetround(FE_UPWARD); break;
    case float_mode::flush_to_zero: _mm_setcsr(_mm_getcsr() | 0x8000u); break;
    case float_mode::denormals_are_zero: _mm_setcsr(_mm_getcsr() | 0x0040u); break;
    }
    return;
  }
  volatile float x = half, t = tiny;
  out(threadIdx.x, 0) = std::nearbyint(static_cast<float>(x));
  out(threadIdx.x, 1) = std::nearbyint(-static_cast<float>(x));
  out(threadIdx.x, 2) = std::nearbyint(3 * static_cast<float>(x));
  out(threadIdx.x, 3) = static_cast<float>(t) * 0.5f;
  out(threadIdx.x, 4) = static_cast<float>(t) + 0.0f;
}
} // namespace device_tests

TEST_CASE("every emulated thread starts from the default floating-point modes") {
  using device_tests::float_mode;
  const float tiny = 0x1p-140f; // a denormal
  const std::vector<float> expected{0.0f, -0.0f, 2.0f, 0x1p-141f, tiny};
  const bool by_sum_here = cuguard::detail::engine::float_modes_by_sum;
  // Both ways of telling a changed mode, whichever this processor's maker chose (an add of
  // denormals on AMD's, MXCSR elsewhere).
  for (const bool by_sum : {false, true}) {
    for (const float_mode mode : {float_mode::downward, float_mode::toward_zero, float_mode::upward,
                                  float_mode::flush_to_zero, float_mode::denormals_are_zero}) {
      CAPTURE(by_sum);
      CAPTURE(static_cast<int>(mode));
      cuguard::detail::engine::float_modes_by_sum = by_sum;
      cuguard::device_buffer<float> out(3 * 5, "out");
      out.fill_bytes(0xff);
      cuguard::launch(device_tests::float_mode_leak, 1, 3, out.view({3, 5}), 0.5f, tiny, mode);
      cuguard::check();
      CHECK(std::fegetround() == FE_TONEAREST);
      CHECK((_mm_getcsr() & 0x8040u) == 0u);
      const std::vector<float> h = out.to_host();
      for (int t = 1; t < 3; ++t)
        for (int k = 0; k < 5; ++k) {
          CAPTURE(t);
          CAPTURE(k);
          const float got = h[static_cast<std::size_t>(t * 5 + k)], want = expected[static_cast<std::size_t>(k)];
          CHECK(std::memcmp(&got, &want, sizeof got) == 0); // bits: -0 is not 0
        }
    }
  }
  cuguard::detail::engine::float_modes_by_sum = by_sum_here;
}

TEST_CASE("a launch leaves the host thread's floating-point exception flags as they were") {
  cuguard::device_buffer<float> out(3 * 5, "out");
  for (const int host_flags : {0, FE_OVERFLOW}) {
    CAPTURE(host_flags);
    std::feclearexcept(FE_ALL_EXCEPT);
    if (host_flags != 0) std::feraiseexcept(host_flags);
    // The kernel's threads round, make denormals and change modes: flags of theirs, not the host's.
    cuguard::launch(device_tests::float_mode_leak, 1, 3, out.view({3, 5}), 0.5f, 0x1p-140f,
                    device_tests::float_mode::upward);
    cuguard::check();
    CHECK(std::fetestexcept(FE_ALL_EXCEPT) == host_flags);
  }
  std::feclearexcept(FE_ALL_EXCEPT);
}
#endif
