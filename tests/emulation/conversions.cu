// SPDX-License-Identifier: Apache-2.0
// Casts of floating-point values to integers in device code, as nvcc compiles them (cvt.rzi,
// which saturates) and as the emulated build of this file, unchanged, computes them: toward zero;
// past the type's range its minimum or maximum (0 for a negative value to an unsigned type); NaN
// 0, or 0x8000000000000000 for the 64-bit types (CUDA's __float2ll_rz and its twins). The host's
// own conversions differ (x86: the minimum for every value out of range and for NaN).
#include "device_support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

namespace {

constexpr int count = 12;

// Each value of `in` cast to the four integer types, C-style and by static_cast (the two must agree).
template <typename F>
__global__ void casts(const F* in, int32_t* i32, uint32_t* u32, int64_t* i64, uint64_t* u64, int* agree) {
  const int i = threadIdx.x;
  if (i >= count) return;
  const F v = in[i];
  i32[i] = (int)v;
  u32[i] = (unsigned int)(v);
  i64[i] = (long long)in[i];
  u64[i] = (unsigned long long)-(-v);
  agree[i] = static_cast<int>(v) == i32[i] && static_cast<unsigned>(v) == u32[i] && static_cast<int64_t>(v) == i64[i] &&
             static_cast<uint64_t>(v) == u64[i];
}

template <typename F>
void check_casts() {
  const F inf = std::numeric_limits<F>::infinity();
  const F values[count] = {std::numeric_limits<F>::quiet_NaN(), inf, -inf, F(2.75), F(-2.75), F(3e9), F(-3e9),
                           F(4294967296.0), F(9223372036854775808.0), F(18446744073709551616.0),
                           F(-9223372036854775808.0), F(-1)};
  constexpr int32_t i32_min = std::numeric_limits<int32_t>::min(), i32_max = std::numeric_limits<int32_t>::max();
  constexpr uint32_t u32_max = std::numeric_limits<uint32_t>::max();
  constexpr int64_t i64_min = std::numeric_limits<int64_t>::min(), i64_max = std::numeric_limits<int64_t>::max();
  constexpr uint64_t u64_max = std::numeric_limits<uint64_t>::max(), sign = uint64_t{1} << 63;
  const int32_t i32_expected[count] = {0, i32_max, i32_min, 2, -2, i32_max, i32_min, i32_max, i32_max, i32_max, i32_min, -1};
  const uint32_t u32_expected[count] = {0, u32_max, 0, 2, 0, 3000000000u, 0, u32_max, u32_max, u32_max, 0, 0};
  const int64_t i64_expected[count] = {i64_min, i64_max,   i64_min, 2, -2, 3000000000, -3000000000, 4294967296,
                                       i64_max, i64_max, i64_min, -1};
  const uint64_t u64_expected[count] = {sign, u64_max, 0, 2, 0, 3000000000u, 0, 4294967296u, sign, u64_max, 0, 0};
  cuguard::device_buffer<F> in(count, "in");
  in.copy_from_host(values, count);
  cuguard::device_buffer<int32_t> i32(count, "i32");
  cuguard::device_buffer<uint32_t> u32(count, "u32");
  cuguard::device_buffer<int64_t> i64(count, "i64");
  cuguard::device_buffer<uint64_t> u64(count, "u64");
  cuguard::device_buffer<int> agree(count, "agree");
  casts<<<1, 32>>>(in.data(), i32.data(), u32.data(), i64.data(), u64.data(), agree.data());
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  int32_t got_i32[count];
  uint32_t got_u32[count];
  int64_t got_i64[count];
  uint64_t got_u64[count];
  int got_agree[count];
  i32.copy_to_host(got_i32, count);
  u32.copy_to_host(got_u32, count);
  i64.copy_to_host(got_i64, count);
  u64.copy_to_host(got_u64, count);
  agree.copy_to_host(got_agree, count);
  for (int i = 0; i < count; ++i) {
    CAPTURE(i);
    CHECK(got_i32[i] == i32_expected[i]);
    CHECK(got_u32[i] == u32_expected[i]);
    CHECK(got_i64[i] == i64_expected[i]);
    CHECK(got_u64[i] == u64_expected[i]);
    CHECK(got_agree[i] == 1);
  }
}

} // namespace

TEST_CASE("a cast of a float or a double to an integer in device code saturates as the GPU's, NaN 0") {
  check_casts<float>();
  check_casts<double>();
}
