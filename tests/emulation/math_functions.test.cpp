// SPDX-License-Identifier: Apache-2.0
// CUDA's Math API in kernels, in the device suite (emulation, and nvcc where a GPU is lent, which
// checks emulation's answers against a GPU's): conversions at the edges of their types, arithmetic
// in each rounding mode, bit casts, the functions the C library lacks (erfinv, normcdfinv, erfcx,
// norms, sincospi, Bessel functions), classification, and half precision's conversions, shuffles
// and atomics. Expected values are worked from CUDA's documentation and written here; inputs come
// in as kernel parameters, so no compiler folds an intrinsic away.
#include "device_support.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuguard/cuguard.hpp>
#if CUGUARD_EMULATION // (what a translated .cu that speaks of half precision includes)
#  include <cuguard/detail/emulation/half_intrinsics.hpp>
#endif
#include <doctest/doctest.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace math_functions_tests {

constexpr float infinity = std::numeric_limits<float>::infinity();
constexpr float quiet_nan = std::numeric_limits<float>::quiet_NaN();

// 2^31, -2^31 - 1 (which rounds to -2^31 as a float), NaN, 1e20, -1.5, 2.5.
__global__ void float_to_int(long long* out, float two31, float below, float not_a_number, float big, float x) {
  out[0] = __float2int_rn(two31);
  out[1] = __float2int_rz(below);
  out[2] = __float2int_rd(-2.0f * two31 * 1.5f);
  out[3] = __float2int_rn(not_a_number);
  out[4] = __float2uint_rn(big);
  out[5] = __float2uint_rz(-1.5f * x);
  out[6] = __float2uint_rn(-1.5f * x);
  out[7] = __float2int_rn(2.5f * x);
  out[8] = __float2int_ru(2.5f * x);
  out[9] = __float2int_rd(2.5f * x);
  out[10] = __float2int_rz(2.5f * x);
  out[11] = __double2int_rd(-2.5 * x);
  out[12] = __double2int_ru(-2.5 * x);
  out[13] = __double2int_rz(-2.5 * x);
  out[14] = __double2int_rn(-2.5 * x);
  out[15] = __double2int_rn(3.5 * x);
  out[16] = __float2ll_rz(big * big);
  out[17] = __double2ll_rn(static_cast<double>(not_a_number));
  out[18] = __double2uint_ru(0.25 * x);
  out[19] = __float2ll_rd(-0.5f * x);
}

__global__ void float_to_unsigned(unsigned long long* out, float big, float not_a_number, float x) {
  out[0] = __float2ull_rn(big * big);
  out[1] = __float2ull_rn(-x);
  out[2] = __double2ull_rd(static_cast<double>(not_a_number));
  out[3] = __float2ull_ru(0.5f * x);
}

__global__ void rounded_float(float* out, float one, float tiny, float three) {
  out[0] = __fadd_rd(one, tiny);
  out[1] = __fadd_ru(one, tiny);
  out[2] = __fadd_rn(one, tiny);
  out[3] = __fadd_rd(-one, -tiny);
  out[4] = __fsub_rd(one, tiny);
  out[5] = __fdiv_rz(one, three);
  out[6] = __fdiv_ru(one, three);
  out[7] = __fmul_ru(three, one + 0x1p-23f);
  out[8] = __fmul_rd(three, one + 0x1p-23f);
  out[9] = __fmaf_rz(one + 0x1p-23f, one + 0x1p-23f, 0.0f);
  out[10] = __fmaf_ru(one + 0x1p-23f, one + 0x1p-23f, 0.0f);
  out[11] = __frcp_rd(three);
  out[12] = __fsqrt_rd(2.0f * one);
  out[13] = __fsqrt_ru(2.0f * one);
  out[14] = __frsqrt_rn(2.0f * one);
  out[15] = __double2float_ru(1.0 + 0x1p-30 * one);
  out[16] = __int2float_ru(16777217 * static_cast<int>(one));
  out[17] = __int2float_rz(16777217 * static_cast<int>(one));
  out[18] = __ull2float_rd(~0ull * static_cast<unsigned long long>(one));
  out[19] = __uint2float_rn(4294967295u * static_cast<unsigned>(one));
  out[20] = __fdividef(one, 0x1p127f * one); // 0: the intrinsic's documented edge
}
const float rounded_float_want[21] = {
    1.0f, 0x1.000002p+0f, 1.0f, -0x1.000002p+0f, 0x1.fffffep-1f, 0x1.555554p-2f, 0x1.555556p-2f,
    0x1.800004p+1f, 0x1.800002p+1f, 0x1.000004p+0f, 0x1.000006p+0f, 0x1.555554p-2f, 0x1.6a09e6p+0f,
    0x1.6a09e8p+0f, 0x1.6a09e6p-1f, 0x1.000002p+0f, 16777218.0f, 16777216.0f, 0x1.fffffep+63f,
    4294967296.0f, 0.0f};

__global__ void rounded_double(double* out, double one, double tiny, double three) {
  const double e = one + 0x1p-52;
  out[0] = __dmul_ru(e, e);
  out[1] = __dmul_rd(e, e);
  out[2] = __dadd_rz(one, tiny);
  out[3] = __dadd_ru(one, tiny);
  out[4] = __ddiv_rd(one, three);
  out[5] = __ddiv_ru(one, three);
  out[6] = __dsqrt_rd(2.0 * one);
  out[7] = __fma_rz(e, e, 0.0);
  out[8] = __fma_ru(e, e, 0.0);
  out[9] = __drcp_rn(three);
  out[10] = __dsub_ru(one, tiny);
  out[11] = __ll2double_ru((1ll << 62) + static_cast<long long>(one));
}
const double rounded_double_want[12] = {
    0x1.0000000000003p+0, 0x1.0000000000002p+0, 1.0, 0x1.0000000000001p+0, 0x1.5555555555555p-2,
    0x1.5555555555556p-2, 0x1.6a09e667f3bccp+0, 0x1.0000000000002p+0, 0x1.0000000000003p+0,
    0x1.5555555555555p-2, 1.0, 0x1.0000000000001p+62};

__global__ void bit_casts(long long* out, float one, double two) {
  out[0] = __float_as_int(one);
  out[1] = __float_as_uint(-0.0f * one);
  out[2] = __float_as_int(__int_as_float(0x40490fdb));
  out[3] = __double_as_longlong(-two);
  out[4] = __double2hiint(one);
  out[5] = __double2loint(1.0 + 0x1p-52 * one);
  out[6] = __double_as_longlong(__hiloint2double(0x40000000, 1));
  out[7] = __double_as_longlong(__longlong_as_double(0x3ff0000000000000ll));
  out[8] = __float_as_int(__uint_as_float(0x7f800000u));
}

__global__ void functions(double* out, double x) {
  out[0] = erfinv(0.5 * x);
  out[1] = erfinv(erf(0.3 * x));
  out[2] = normcdfinv(normcdf(1.5 * x));
  out[3] = normcdfinv(0.975 * x);
  out[4] = normcdf(0.0 * x);
  out[5] = erfcx(30.0 * x);
  out[6] = erfcx(1e10 * x);
  out[7] = rcbrt(8.0 * x);
  out[8] = norm3d(2.0 * x, 3.0, 6.0);
  out[9] = norm4d(1.0 * x, 2.0, 2.0, 4.0);
  const double v[2] = {3.0 * x, 4.0};
  out[10] = norm(2, v);
  out[11] = rnorm3d(2.0 * x, 3.0, 6.0);
  out[12] = rhypot(3.0 * x, 4.0);
  out[13] = rsqrt(4.0 * x);
  double s = -1.0, c = -1.0;
  sincospi(0.5 * x, &s, &c);
  out[14] = s;
  out[15] = c;
  out[16] = cospi(1.0 * x);
  out[17] = cyl_bessel_i0(1.0 * x);
  out[18] = cyl_bessel_i1(-1.0 * x);
  out[19] = erfcinv(erfc(2.5 * x));
  out[20] = erfinv(-1.0 * x);
}

__global__ void float_functions(float* out, float x) {
  out[0] = rcbrtf(8.0f * x);
  out[1] = norm3df(2.0f * x, 3.0f, 6.0f);
  const float v[3] = {2.0f * x, 3.0f, 6.0f};
  out[2] = normf(3, v);
  out[3] = rsqrtf(0.25f * x);
  float s = -1.0f, c = -1.0f;
  sincospif(0.5f * x, &s, &c);
  out[4] = s;
  out[5] = c;
  out[6] = erfinvf(0.5f * x);
  out[7] = normcdfinvf(0.975f * x);
  out[8] = erfcxf(30.0f * x);
  out[9] = cyl_bessel_i0f(2.0f * x);
  out[10] = fdividef(3.0f * x, 4.0f);
}

__global__ void classify(int* out, float infinite, float not_a_number, double one) {
  out[0] = isfinite(infinite) ? 1 : 0;
  out[1] = isfinite(static_cast<double>(infinite)) ? 1 : 0;
  out[2] = isfinite(one) ? 1 : 0;
  out[3] = isnan(not_a_number) ? 1 : 0;
  out[4] = isinf(-infinite) ? 1 : 0;
  out[5] = signbit(-0.0 * one) ? 1 : 0;
  out[6] = isnan(one) ? 1 : 0;
}

__global__ void half_conversions(long long* out, float x, float infinite, float not_a_number) {
  out[0] = __half2int_rn(__float2half(2.5f * x));
  out[1] = __half2int_ru(__float2half(2.5f * x));
  out[2] = __half2int_rd(__float2half(-2.5f * x));
  out[3] = __half2short_rn(__float2half(infinite));
  out[4] = __half2ushort_ru(__float2half(-1.5f * x));
  out[5] = __half2ll_rd(__float2half(not_a_number));
  out[6] = __half2uint_rn(__float2half(65504.0f * x));
  out[7] = __bfloat162int_ru(__float2bfloat16(1.5f * x));
  out[8] = __bfloat162ll_rn(__float2bfloat16(-2.5f * x));
  out[9] = static_cast<long long>(__bfloat162float(__int2bfloat16_rz(257 * static_cast<int>(x))));
  out[10] = static_cast<long long>(__bfloat162float(__int2bfloat16_ru(257 * static_cast<int>(x))));
  out[11] = static_cast<long long>(__bfloat162float(__ll2bfloat16_rd(-257ll * static_cast<long long>(x))));
  const auto all_ones = static_cast<unsigned short>(65535 * static_cast<int>(x));
  out[12] = static_cast<long long>(__bfloat162float(__ushort2bfloat16_ru(all_ones)));
}

// 64 threads: each lane's (lane, -lane) shuffled down by one, its bfloat16 lane number swapped
// with its neighbour's, and (1, 0.5) added to one pair of each type (held in an unsigned int: the
// pairs are not trivially copyable, which device_buffer asks).
__global__ void half_warps(float* out, unsigned* sum, unsigned* bsum, __half* copy) {
  const unsigned t = threadIdx.x, lane = t % 32;
  const __half2 mine = __floats2half2_rn(static_cast<float>(lane), -static_cast<float>(lane));
  const __half2 next = __shfl_down_sync(0xffffffffu, mine, 1u);
  out[3 * t] = __low2float(next);
  out[3 * t + 1] = __high2float(next);
  out[3 * t + 2] = __bfloat162float(__shfl_xor_sync(0xffffffffu, __float2bfloat16(static_cast<float>(lane)), 1));
  atomicAdd(reinterpret_cast<__half2*>(sum), __floats2half2_rn(1.0f, 0.5f));
  atomicAdd(reinterpret_cast<__nv_bfloat162*>(bsum), __floats2bfloat162_rn(1.0f, 0.5f));
  if (t == 0) __stcs(copy, __ldcg(copy + 1));
}

__global__ void half_math(float* out, float x) {
  const __half2 a = __floats2half2_rn(1.0f * x, 2.0f), b = __floats2half2_rn(3.0f, 4.0f), c = __floats2half2_rn(0.5f, 0.25f);
  const __half2 m = __hcmadd(a, b, c); // (1 + 2i)(3 + 4i) + (0.5 + 0.25i)
  out[0] = __low2float(m);
  out[1] = __high2float(m);
  out[2] = __half2float(htanh(__float2half(0.5f * x)));
  out[3] = __bfloat162float(htanh(__float2bfloat16(0.0f * x)));
}

__global__ void packed_integers(long long* out, int x) {
  bool hi = false, lo = false;
  out[0] = __vimax3_s32(1 * x, -5, 3);
  out[1] = __vimax3_s32_relu(-1 * x, -5, -3);
  out[2] = __viaddmax_s32(INT_MAX * x, 1, 0); // the sum wraps to INT_MIN
  out[3] = __vimin3_u32(7u * static_cast<unsigned>(x), 9u, 8u);
  out[4] = __vimax3_s16x2(0x0001ffffu * static_cast<unsigned>(x), 0x00020000u, 0xffff0001u);
  out[5] = __vibmax_s16x2(0x0001ffffu * static_cast<unsigned>(x), 0x0002ffffu, &hi, &lo);
  out[6] = (hi ? 2 : 0) + (lo ? 1 : 0);
  out[7] = __viaddmin_u16x2(0xfffe0001u * static_cast<unsigned>(x), 0x00030001u, 0x00050005u);
  out[8] = __dp4a(static_cast<int>(0xff020304u) * x, 0x01010101 * x, 0); // bytes 4, 3, 2, -1
  out[9] = __dp4a(0x01020304u * static_cast<unsigned>(x), 0x01010101u, 10u);
  out[10] = __dp2a_lo(static_cast<int>(0x0003fffeu) * x, 0x00000502, 1);
  out[11] = __dp2a_hi(static_cast<int>(0x0003fffeu) * x, 0x05020000, 1);
  out[12] = __nv_bswap32(0x01020304u * static_cast<unsigned>(x));
}

} // namespace math_functions_tests

namespace mft = math_functions_tests;

TEST_CASE("float and double to integer conversions round per their suffix and saturate") {
  cuguard::device_buffer<long long> d(20, "out");
  cuguard::launch(mft::float_to_int, 1, 1, d.data(), 2147483648.0f, -2147483649.0f, mft::quiet_nan, 1e20f, 1.0f);
  cuguard::check();
  std::vector<long long> v(20);
  d.copy_to_host(v.data(), v.size());
  const long long want[20] = {INT_MAX, INT_MIN, INT_MIN, 0, UINT_MAX, 0, 0, 2, 3, 2, 2, -3, -2, -2, -2, 4,
                              LLONG_MAX, LLONG_MIN, 1, -1};
  for (int i = 0; i < 20; ++i) {
    INFO("conversion " << i);
    CHECK(v[static_cast<std::size_t>(i)] == want[i]);
  }
}

TEST_CASE("conversions to unsigned 64-bit integers saturate, and NaN gives the sign bit alone") {
  cuguard::device_buffer<unsigned long long> d(4, "out");
  cuguard::launch(mft::float_to_unsigned, 1, 1, d.data(), 1e20f, mft::quiet_nan, 1.0f);
  cuguard::check();
  std::vector<unsigned long long> v(4);
  d.copy_to_host(v.data(), v.size());
  CHECK(v[0] == ULLONG_MAX);
  CHECK(v[1] == 0u);
  CHECK(v[2] == 0x8000000000000000ull);
  CHECK(v[3] == 1u);
}

TEST_CASE("single-precision arithmetic and conversions are correctly rounded in each mode") {
  cuguard::device_buffer<float> d(21, "out");
  cuguard::launch(mft::rounded_float, 1, 1, d.data(), 1.0f, 1e-8f, 3.0f);
  cuguard::check();
  std::vector<float> v(21);
  d.copy_to_host(v.data(), v.size());
  for (int i = 0; i < 21; ++i) {
    INFO("operation " << i);
    CHECK(v[static_cast<std::size_t>(i)] == mft::rounded_float_want[i]);
  }
}

TEST_CASE("double-precision arithmetic is correctly rounded in each mode") {
  cuguard::device_buffer<double> d(12, "out");
  cuguard::launch(mft::rounded_double, 1, 1, d.data(), 1.0, 1e-20, 3.0);
  cuguard::check();
  std::vector<double> v(12);
  d.copy_to_host(v.data(), v.size());
  for (int i = 0; i < 12; ++i) {
    INFO("operation " << i);
    CHECK(v[static_cast<std::size_t>(i)] == mft::rounded_double_want[i]);
  }
}

TEST_CASE("bit casts keep the bits") {
  cuguard::device_buffer<long long> d(9, "out");
  cuguard::launch(mft::bit_casts, 1, 1, d.data(), 1.0f, 2.0);
  cuguard::check();
  std::vector<long long> v(9);
  d.copy_to_host(v.data(), v.size());
  const long long want[9] = {0x3f800000, 0x80000000ll, 0x40490fdb, static_cast<long long>(0xc000000000000000ull),
                             0x3ff00000, 1, 0x4000000000000001ll, 0x3ff0000000000000ll, 0x7f800000};
  for (int i = 0; i < 9; ++i) {
    INFO("cast " << i);
    CHECK(v[static_cast<std::size_t>(i)] == want[i]);
  }
}

TEST_CASE("the double math functions the C library lacks give CUDA's values") {
  cuguard::device_buffer<double> d(21, "out");
  cuguard::launch(mft::functions, 1, 1, d.data(), 1.0);
  cuguard::check();
  std::vector<double> v(21);
  d.copy_to_host(v.data(), v.size());
  using doctest::Approx;
  CHECK(v[0] == Approx(0.4769362762044698733).epsilon(1e-15)); // erfinv(0.5)
  CHECK(v[1] == Approx(0.3).epsilon(1e-15));
  CHECK(v[2] == Approx(1.5).epsilon(1e-14));
  CHECK(v[3] == Approx(1.9599639845400542355).epsilon(1e-15));
  CHECK(v[4] == Approx(0.5).epsilon(1e-15));
  CHECK(v[5] == Approx(0.018795888861416751497).epsilon(1e-15)); // erfcx(30): finite where erfc underflows
  CHECK(v[6] == Approx(5.641895835477562869e-11).epsilon(1e-15));
  CHECK(v[7] == Approx(0.5).epsilon(1e-15)); // rcbrt(8)
  CHECK(v[8] == Approx(7.0).epsilon(1e-15)); // norm3d(2, 3, 6)
  CHECK(v[9] == Approx(5.0).epsilon(1e-15));
  CHECK(v[10] == Approx(5.0).epsilon(1e-15));
  CHECK(v[11] == Approx(1.0 / 7.0).epsilon(1e-15));
  CHECK(v[12] == Approx(0.2).epsilon(1e-15));
  CHECK(v[13] == Approx(0.5).epsilon(1e-15));
  CHECK(v[14] == 1.0); // sincospi(0.5)
  CHECK(v[15] == 0.0);
  CHECK(v[16] == -1.0);
  CHECK(v[17] == Approx(1.2660658777520083356).epsilon(1e-15)); // I0(1)
  CHECK(v[18] == Approx(-0.56515910399248502721).epsilon(1e-15)); // I1(-1)
  CHECK(v[19] == Approx(2.5).epsilon(1e-14));
  CHECK(v[20] == -std::numeric_limits<double>::infinity());
}

TEST_CASE("the float math functions give CUDA's values") {
  cuguard::device_buffer<float> d(11, "out");
  cuguard::launch(mft::float_functions, 1, 1, d.data(), 1.0f);
  cuguard::check();
  std::vector<float> v(11);
  d.copy_to_host(v.data(), v.size());
  using doctest::Approx;
  CHECK(v[0] == Approx(0.5f).epsilon(1e-6));
  CHECK(v[1] == Approx(7.0f).epsilon(1e-6));
  CHECK(v[2] == Approx(7.0f).epsilon(1e-6));
  CHECK(v[3] == Approx(2.0f).epsilon(1e-6));
  CHECK(v[4] == 1.0f);
  CHECK(v[5] == 0.0f);
  CHECK(v[6] == Approx(0.47693628f).epsilon(1e-6));
  CHECK(v[7] == Approx(1.959964f).epsilon(1e-6));
  CHECK(v[8] == Approx(0.018795889f).epsilon(1e-6));
  CHECK(v[9] == Approx(2.2795853f).epsilon(1e-6));
  CHECK(v[10] == Approx(0.75f).epsilon(1e-6));
}

TEST_CASE("isfinite, isnan, isinf and signbit classify float and double in kernels") {
  cuguard::device_buffer<int> d(7, "out");
  cuguard::launch(mft::classify, 1, 1, d.data(), mft::infinity, mft::quiet_nan, 1.0);
  cuguard::check();
  std::vector<int> v(7);
  d.copy_to_host(v.data(), v.size());
  const int want[7] = {0, 0, 1, 1, 1, 1, 0};
  for (int i = 0; i < 7; ++i) {
    INFO("test " << i);
    CHECK(v[static_cast<std::size_t>(i)] == want[i]);
  }
}

TEST_CASE("half and bfloat16 conversions to and from integers round per their suffix") {
  cuguard::device_buffer<long long> d(13, "out");
  cuguard::launch(mft::half_conversions, 1, 1, d.data(), 1.0f, mft::infinity, mft::quiet_nan);
  cuguard::check();
  std::vector<long long> v(13);
  d.copy_to_host(v.data(), v.size());
  const long long want[13] = {2, 3, -3, SHRT_MAX, 0, LLONG_MIN, 65504, 2, -2, 256, 258, -258, 65536};
  for (int i = 0; i < 13; ++i) {
    INFO("conversion " << i);
    CHECK(v[static_cast<std::size_t>(i)] == want[i]);
  }
}

TEST_CASE("half-precision pairs shuffle across a warp and add atomically") {
  cuguard::device_buffer<float> d(64 * 3, "out");
  cuguard::device_buffer<unsigned> sum(1, "sum");
  cuguard::device_buffer<unsigned> bsum(1, "bsum");
  cuguard::device_buffer<__half> copy(2, "copy");
  sum.fill_bytes(0);
  bsum.fill_bytes(0);
  const __half halves[2] = {__float2half(0.0f), __float2half(1.5f)};
  copy.copy_from_host(halves, 2);
  cuguard::launch(mft::half_warps, 1, 64, d.data(), sum.data(), bsum.data(), copy.data());
  cuguard::check();
  std::vector<float> v(64 * 3);
  d.copy_to_host(v.data(), v.size());
  for (unsigned t = 0; t < 64; ++t) {
    INFO("thread " << t);
    const unsigned lane = t % 32, from = lane < 31 ? lane + 1 : lane;
    CHECK(v[3 * t] == static_cast<float>(from));
    CHECK(v[3 * t + 1] == -static_cast<float>(from));
    CHECK(v[3 * t + 2] == static_cast<float>(lane ^ 1u));
  }
  unsigned total = 0, btotal = 0;
  __half copied[2];
  sum.copy_to_host(&total, 1);
  bsum.copy_to_host(&btotal, 1);
  copy.copy_to_host(copied, 2);
  CHECK(total == 0x50005400u);  // (64, 32) as halves: 0x5400 low, 0x5000 high
  CHECK(btotal == 0x42004280u); // (64, 32) as bfloat16s: 0x4280 low, 0x4200 high
  CHECK(__half2float(copied[0]) == 1.5f);
}

TEST_CASE("__hcmadd multiplies and adds complex halves, htanh takes half and bfloat16") {
  const std::vector<float> v = [] {
    cuguard::device_buffer<float> d(4, "out");
    cuguard::launch(mft::half_math, 1, 1, d.data(), 1.0f);
    cuguard::check();
    std::vector<float> out(4);
    d.copy_to_host(out.data(), out.size());
    return out;
  }();
  CHECK(v[0] == -4.5f);
  CHECK(v[1] == 10.25f);
  CHECK(v[2] == doctest::Approx(0.46211716f).epsilon(1e-3));
  CHECK(v[3] == 0.0f);
}

TEST_CASE("the DPX functions, dot products and byte swaps work lane by lane") {
  cuguard::device_buffer<long long> d(13, "out");
  cuguard::launch(mft::packed_integers, 1, 1, d.data(), 1);
  cuguard::check();
  std::vector<long long> v(13);
  d.copy_to_host(v.data(), v.size());
  // halves, high then low: max(1, 2, -1), max(-1, 0, 1); max(1, 2), max(-1, -1) with a >= b;
  // min(0xfffe + 3 wrapping to 1, 5), min(1 + 1, 5)
  const long long want[13] = {3, 0, 0, 7, 0x00020001, 0x0002ffff, 1, 0x00010002, 8, 20, 12, 12, 0x04030201};
  for (int i = 0; i < 13; ++i) {
    INFO("function " << i);
    CHECK(v[static_cast<std::size_t>(i)] == want[i]);
  }
}
