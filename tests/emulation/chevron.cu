// SPDX-License-Identifier: Apache-2.0
// A .cu file as nvcc builds it, built unchanged under emulation by cuguard_emulate: <<<>>> launches
// (a template kernel, a kernel of an anonymous namespace, a launch inside a lambda, dynamic shared
// memory and a stream, a template whose arguments the launch deduces, a static member of a class
// template, arguments that convert to the parameters), extern __shared__ arrays in a kernel and at
// namespace scope, reports that name this file, its lines and the function that launched, and
// launches CUDA refuses, which set cudaGetLastError and raise nothing.
#include "device_support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <cuda_fp16.h>
#include <mma.h>

#include <cstdint>
#include <string>

extern __shared__ float file_scope_tile[];

namespace {

// Reverses each block's part of `v` through dynamic shared memory.
template <typename T>
__global__ void reverse_blocks(cuguard::checked_view<T, 1> v) {
  extern __shared__ __align__(16) unsigned char raw_tile[];
  T* tile = reinterpret_cast<T*>(raw_tile);
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  tile[threadIdx.x] = v[i];
  __syncthreads();
  v[i] = tile[blockDim.x - 1 - threadIdx.x];
}

// A recursive __forceinline__ function (sputnik's Log2): nvcc inlines what it can.
__host__ __device__ __forceinline__ int log2_floor(int x) {
  if (x >>= 1) return log2_floor(x) + 1;
  return 0;
}

__global__ void scale(cuguard::checked_view<float, 1> v, float by, int past) {
  if (log2_floor(static_cast<int>(blockDim.x)) > 30) return;
  ((unsigned*)file_scope_tile)[threadIdx.x] = __float_as_uint(by); // (a C-style cast of the array, as mmcv's)
  __syncthreads();
  const int i = static_cast<int>(threadIdx.x) + past;
  v[i] = v[static_cast<int>(threadIdx.x)] * file_scope_tile[blockDim.x - 1 - threadIdx.x]; // chevron-test-write
}

template <class F>
void run(F&& f) {
  f();
}

int launch_line = 0;

void scale_in_a_lambda(cuguard::checked_view<float, 1> v, int past) {
  run([&] {
    launch_line = __LINE__ + 1;
    scale<<<1, 8, 8 * sizeof(float)>>>(v, 2.0f, past);
  });
}

__global__ void fill(cuguard::checked_view<float, 1> v, float value) { v[static_cast<int>(threadIdx.x)] = value; }
__global__ void fill_twice(cuguard::checked_view<float, 1> v, float value) {
  v[static_cast<int>(threadIdx.x)] = 2 * value;
}

// Raw pointers, as most extensions' kernels take them: T deduced from the launch's arguments.
template <typename T, typename Index>
__global__ void axpy(const T* __restrict__ x, T* __restrict__ y, T a, Index n) {
  const Index i = static_cast<Index>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) y[i] += a * x[i];
}

// A raw-pointer kernel renamed to cuguard::ptr, its __restrict__ kept (the translator drops it).
template <typename T>
__global__ void add_to(cuguard::ptr<const T> __restrict__ from, cuguard::ptr<T> __restrict__ to, int n) {
  const int i = static_cast<int>(threadIdx.x);
  if (i <= n) to[i] += from[i]; // (one past n: planted where n is the extent)
}

// A flag array polled through volatile pointers, as spin-waiting kernels take them.
__global__ void copy_flags(const volatile int* from, volatile int* to) { to[threadIdx.x] = from[threadIdx.x] + 1; }

// A kernel template whose arguments a dispatch macro's local constants give, as extensions write
// them: `k<scalar_t, DEGREE><<<...>>>` where DEGREE is a constant of the macro's lambda.
template <typename T, std::int64_t Degree>
__global__ void power_of_index(T* out, int n) {
  const int i = static_cast<int>(threadIdx.x);
  T p = 1;
  for (std::int64_t d = 0; d < Degree; ++d) p *= static_cast<T>(i);
  if (i < n) out[i] = p;
}

#define DISPATCH_DEGREE(degree, ...)                                                                                   \
  [&] {                                                                                                                \
    switch (degree) {                                                                                                  \
    case 1: {                                                                                                          \
      const std::int64_t DEGREE = 1;                                                                                   \
      return __VA_ARGS__();                                                                                            \
    }                                                                                                                  \
    default: {                                                                                                         \
      const std::int64_t DEGREE = 2;                                                                                   \
      return __VA_ARGS__();                                                                                            \
    }                                                                                                                  \
    }                                                                                                                  \
  }()

// C = alpha * A * B for one 16 x 16 tile per warp through CUDA's warp matrix functions, as a fused
// MLP or an implicit GEMM writes it: half A (row-major) and B (column-major), a float accumulator
// scaled element by element, stored row-major to shared memory and copied out by the block.
__global__ void wmma_tile(const __half* a, const __half* b, float* c, float alpha) {
  namespace wmma = nvcuda::wmma;
  __shared__ float tile[16 * 16];
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(acc, fa, fb, acc);
  for (int i = 0; i < acc.num_elements; i++) acc.x[i] *= alpha;
  wmma::store_matrix_sync(tile, acc, 16, wmma::mem_row_major);
  __syncthreads();
  for (int i = static_cast<int>(threadIdx.x); i < 256; i += 32) c[i] = tile[i];
}

// A load through the address of a restrict pointer's element in a template kernel, as
// bitsandbytes' gemm_4bit_sm80.cu loads its weights.
template <int N>
__global__ void load_element(const unsigned* __restrict__ in, unsigned* out) {
  unsigned v = 0;
  asm volatile("ld.global.u32 %0, [%1];" : "=r"(v) : "l"(&in[N]));
  out[0] = v;
}

// Inline PTX as nvdiffrast's cudaraster writes it: conversions with rounding modes and saturation,
// slct, set, fma with a rounding mode, rcp; each result in `out`, in order.
__global__ void ptx_conversions(float nan, unsigned* out) {
  int i = 0;
  const float rounds[] = {2.5f, -3.7f, 3e9f, nan};
  for (const float f : rounds) asm("cvt.rni.sat.s32.f32 %0, %1;" : "=r"(out[i++]) : "f"(f));
  asm("cvt.rzi.s32.f32 %0, %1;" : "=r"(out[i++]) : "f"(-3.7f));
  asm("cvt.rmi.s32.f32 %0, %1;" : "=r"(out[i++]) : "f"(-3.2f));
  asm("cvt.rpi.s32.f32 %0, %1;" : "=r"(out[i++]) : "f"(3.2f));
  asm("cvt.rzi.u32.f32 %0, %1;" : "=r"(out[i++]) : "f"(-5.0f));
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(out[i++]) : "f"(1.0f + 0x1p-11f));
  float f = 0;
  asm("cvt.rn.f32.s32 %0, %1;" : "=f"(f) : "r"(-7));
  out[i++] = static_cast<unsigned>(static_cast<int>(f));
  asm("cvt.sat.u8.s32 %0, %1;" : "=r"(out[i++]) : "r"(300));
  asm("slct.s32.s32 %0, %1, %2, %3;" : "=r"(out[i++]) : "r"(10), "r"(20), "r"(-1));
  asm("set.ge.u32.s32 %0, %1, %2;" : "=r"(out[i++]) : "r"(5), "r"(3));
  asm("set.ge.u32.s32 %0, %1, %2;" : "=r"(out[i++]) : "r"(2), "r"(3));
  float down = 0, up = 0;
  asm("fma.rm.f32 %0, %1, %2, %3;" : "=f"(down) : "f"(1.0f), "f"(1.0f), "f"(0x1p-30f));
  asm("fma.rp.f32 %0, %1, %2, %3;" : "=f"(up) : "f"(1.0f), "f"(1.0f), "f"(0x1p-30f));
  out[i++] = down == 1.0f && up == 1.0f + 0x1p-23f;
  double r = 0;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(4.0));
  out[i++] = r == 0.25;
  // The video instructions: selected bytes, secondary operations, saturation, a merge into c.
  asm("vadd.u32.u32.u32 %0.b0, %1, %2, %3;" : "=r"(out[i++]) : "r"(0x1234u), "r"(0x10u), "r"(0xabcd0000u));
  asm("vadd.u32.s32.s32.sat.min %0, %1, %2, %3;" : "=r"(out[i++]) : "r"(-10), "r"(3), "r"(100));
  asm("vadd.u32.s32.s32.sat.min %0, %1, %2, %3;" : "=r"(out[i++]) : "r"(50), "r"(60), "r"(100));
  asm("vmax.s32.s32.s32.max %0, %1, %2, %3;" : "=r"(out[i++]) : "r"(-5), "r"(3), "r"(7));
  asm("vmin.s32.s32.s32.add %0, %1, %2, %3;" : "=r"(out[i++]) : "r"(-5), "r"(3), "r"(10));
  asm("vmad.u32.u32.u32 %0, %1.b1, %2.b3, %3;" : "=r"(out[i++]) : "r"(0xab00u), "r"(0x02000000u), "r"(5));
  asm("vsub.s32.u32.u32 %0, %1, %2, %3;" : "=r"(out[i++]) : "r"(3), "r"(5), "r"(0));
  asm("bfind.u32 %0, %1;" : "=r"(out[i++]) : "r"(0x00f00000u));
  asm("bfind.u32 %0, %1;" : "=r"(out[i++]) : "r"(0u));
}

template <typename T>
struct ops {
  static __global__ void negate(T* v, int n) {
    const int i = static_cast<int>(threadIdx.x);
    if (i < n) v[i] = -v[i];
  }
};

} // namespace

TEST_CASE("a <<<>>> launch deduces a kernel template's arguments from its arguments, as nvcc does") {
  cuguard::device_buffer<float> x(40, "x"), y(40, "y");
  float host[40];
  for (int i = 0; i < 40; ++i) host[i] = static_cast<float>(i);
  x.copy_from_host(host, 40);
  y.copy_from_host(host, 40);
  float* const xs = x.data(); // float* for a const float* parameter
  const std::size_t blocks = 2; // an integer grid of another type
  axpy<<<blocks, 32>>>(xs, y.data(), 2.0f, std::int64_t{40});
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  y.copy_to_host(host, 40);
  CHECK(host[0] == 0.0f);
  CHECK(host[39] == 39.0f * 3);
  axpy<float><<<1, 40>>>(xs, y.data(), 1.0f, 40); // partly explicit: Index deduced
  ops<float>::negate<<<1, 64>>>(y.data(), 40);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  y.copy_to_host(host, 40);
  CHECK(host[39] == -39.0f * 4);
  CHECK(cudaGetLastError() == cudaSuccess);
}

TEST_CASE("a <<<>>> launch names a kernel template by a dispatch macro's local constants") {
  cuguard::device_buffer<float> out(8, "out");
  float host[8] = {};
  for (const int degree : {1, 2}) {
    [&] {
      using scalar_t = float;
      float* const data = out.data();
      DISPATCH_DEGREE(degree, [&] { power_of_index<scalar_t, DEGREE><<<1, 8>>>(data, 8); });
    }();
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    out.copy_to_host(host, 8);
    CHECK(host[3] == (degree == 1 ? 3.0f : 9.0f));
  }
}

TEST_CASE("CUDA's warp matrix functions (<mma.h>) multiply a tile as tensor cores do") {
  __half ha[256], hb[256];
  float expected[256], out[256];
  for (int i = 0; i < 256; ++i) {
    ha[i] = __float2half(static_cast<float>(i % 7) - 3.0f);
    hb[i] = __float2half(static_cast<float>(i % 5) * 0.5f);
  }
  for (int r = 0; r < 16; ++r)
    for (int col = 0; col < 16; ++col) {
      float sum = 0;
      for (int k = 0; k < 16; ++k) sum += __half2float(ha[r * 16 + k]) * __half2float(hb[col * 16 + k]); // B column-major
      expected[r * 16 + col] = 2.0f * sum;
    }
  cuguard::device_buffer<__half> a(256, "a"), b(256, "b");
  cuguard::device_buffer<float> c(256, "c");
  a.copy_from_host(ha, 256);
  b.copy_from_host(hb, 256);
  wmma_tile<<<1, 32>>>(a.data(), b.data(), c.data(), 2.0f);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  c.copy_to_host(out, 256);
  for (int i = 0; i < 256; ++i) CHECK(out[i] == expected[i]);
  // TensorFloat-32: 10 bits of mantissa, to nearest, a tie away from zero.
  CHECK(nvcuda::wmma::__float_to_tf32(1.0f + 0x1p-11f) == 1.0f + 0x1p-10f);
  CHECK(nvcuda::wmma::__float_to_tf32(-1.0f - 0x1p-11f) == -1.0f - 0x1p-10f);
  CHECK(nvcuda::wmma::__float_to_tf32(1.0f + 0x1.8p-12f) == 1.0f);
}

TEST_CASE("inline PTX's conversions, selections and rounded arithmetic give what the PTX ISA says") {
  cuguard::device_buffer<unsigned> out(25, "out");
  ptx_conversions<<<1, 1>>>(__builtin_nanf(""), out.data());
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  unsigned got[25] = {};
  out.copy_to_host(got, 25);
  const auto s = [](int v) { return static_cast<unsigned>(v); };
  const unsigned expected[] = {s(2), s(-4), s(2147483647), 0, s(-3), s(-4), s(4), 0, 0x3f802000u, s(-7), 255, 20,
                               0xffffffffu, 0, 1, 1,
                               0xabcd0044u, 0, 100, 7, 5, 0xab * 2 + 5, s(-2), 23, 0xffffffffu};
  for (int i = 0; i < 25; ++i) CHECK_MESSAGE(got[i] == expected[i], "result ", i);
  const unsigned values[3] = {10, 20, 30};
  cuguard::device_buffer<unsigned> in(3, "in");
  in.copy_from_host(values, 3);
  load_element<2><<<1, 1>>>(in.data(), out.data());
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  out.copy_to_host(got, 1);
  CHECK(got[0] == 30);
}

TEST_CASE("a <<<>>> launch CUDA refuses runs nothing and sets cudaGetLastError, as on a GPU") {
  cuguard::device_buffer<float> y(8, "y");
  float host[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  y.copy_from_host(host, 8);
  const unsigned no_blocks = 0;
  ops<float>::negate<<<no_blocks, 8>>>(y.data(), 8);
  CHECK(cudaPeekAtLastError() == cudaErrorInvalidConfiguration);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  CHECK(cudaGetLastError() == cudaSuccess);
  ops<float>::negate<<<1, 1025>>>(y.data(), 8);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  ops<float>::negate<<<dim3(1, 65536), 8>>>(y.data(), 8);
  CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
  y.copy_to_host(host, 8);
  CHECK(host[0] == 1.0f); // nothing ran
  ops<float>::negate<<<1, 8>>>(y.data(), 8);
  CHECK(cudaGetLastError() == cudaSuccess);
  y.copy_to_host(host, 8);
  CHECK(host[0] == -1.0f);
}

TEST_CASE("a <<<>>> launch runs a kernel given by a local pointer or by an expression") {
  cuguard::device_buffer<float> buf(8, "values");
  float host[8] = {};
  for (const bool twice : {false, true}) {
    void (*const kernel)(cuguard::checked_view<float, 1>, float) = twice ? fill_twice : fill;
    kernel<<<1, 8>>>(buf.view(), 3.0f);
    cuguard::check();
    buf.copy_to_host(host, 8);
    CHECK(host[7] == (twice ? 6.0f : 3.0f));
    (twice ? fill : fill_twice)<<<1, 8>>>(buf.view(), 5.0f);
    cuguard::check();
    buf.copy_to_host(host, 8);
    CHECK(host[0] == (twice ? 5.0f : 10.0f));
  }
}

TEST_CASE("a <<<>>> launch runs a template kernel with dynamic shared memory on a stream") {
  cuguard::device_buffer<float> buf(64, "values");
  float host[64];
  for (int i = 0; i < 64; ++i) host[i] = static_cast<float>(i);
  buf.copy_from_host(host, 64);
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreate(&stream) == cudaSuccess);
  reverse_blocks<float><<<dim3(2), dim3(32), 32 * sizeof(float), stream>>>(buf.view());
  cuguard::check(stream);
  buf.copy_to_host(host, 64);
  CHECK(host[0] == 31.0f);
  CHECK(host[31] == 0.0f);
  CHECK(host[32] == 63.0f);
  CHECK(cudaStreamDestroy(stream) == cudaSuccess);
}

TEST_CASE("a <<<>>> launch in a lambda reports this file's line and the function that launched") {
  cuguard::device_buffer<float> buf(8, "values");
  float host[8] = {1, 1, 1, 1, 1, 1, 1, 1};
  buf.copy_from_host(host, 8);
  scale_in_a_lambda(buf.view(), 0);
  cuguard::check();
  buf.copy_to_host(host, 8);
  CHECK(host[7] == 2.0f);
  scale_in_a_lambda(buf.view(), 1);
  const auto c = device_test_support::checked();
  REQUIRE(c.thrown);
  CHECK(c.report.kind == cuguard::violation_kind::out_of_bounds);
  CHECK(std::string(c.report.file).find("tests/emulation/chevron.cu") != std::string::npos);
  CHECK(std::string(c.report.launch.kernel) == "(anonymous namespace)::scale");
  CHECK(c.report.launch.site.line == static_cast<unsigned>(launch_line));
  CHECK(std::string(c.report.launch.site.function) == "{anonymous}::scale_in_a_lambda");
  CHECK(c.what.find("tests/emulation/chevron.cu:" + std::to_string(launch_line) + " in {anonymous}::scale_in_a_lambda") !=
        std::string::npos);
}

TEST_CASE("a <<<>>> launch of renamed pointers names each argument by its parameter, __restrict__ kept") {
  cuguard::device_buffer<float> a(4, "a"), b(4, "b");
  float ones[4] = {1, 1, 1, 1};
  a.copy_from_host(ones, 4);
  b.copy_from_host(ones, 4);
  add_to<float><<<1, 4>>>(a.data(), b.data(), 3);
  cuguard::check();
  b.copy_to_host(ones, 4);
  CHECK(ones[3] == 2.0f);
  add_to<float><<<1, 8>>>(a.data(), b.data(), 4);
  const auto c = device_test_support::checked();
  REQUIRE(c.thrown);
  CHECK(c.report.op == cuguard::operation::pointer_access);
  CHECK(std::string(c.report.label) == "from");
  CHECK(c.report.index[0] == 4);
  CHECK(c.report.extent[0] == 4);
}

// A runtime call's caller, for the lines that name one ("allocated at cudaMalloc in main"): a call
// that ends its function (to a [[noreturn]] function, or the cold end a compiler moved last)
// returns past the function's end, and is looked up in its call. (The stand-in for the runtime's
// function is named as the runtime's are: call_site passes over them.)
[[noreturn]] __attribute__((noinline)) void cudaStandInThrowingItsCaller() {
  throw std::string(cuguard::detail::emulated_runtime::call_site("cudaMalloc").function_name());
}
__attribute__((noinline)) void runtime_call_at_the_end() { cudaStandInThrowingItsCaller(); }
__attribute__((noinline)) void function_after_it() { throw std::string("never"); }

TEST_CASE("a runtime call's caller is named where the call ends its function") {
  std::string caller;
  try {
    runtime_call_at_the_end();
  } catch (const std::string& name) {
    caller = name;
  }
  CHECK(caller == "runtime_call_at_the_end");
}

TEST_CASE("a launch spelled as a formatter leaves it passes volatile pointers, as nvcc's does") {
  int* from = nullptr;
  int* to = nullptr;
  REQUIRE(cudaMalloc(&from, 4 * sizeof(int)) == cudaSuccess);
  REQUIRE(cudaMalloc(&to, 4 * sizeof(int)) == cudaSuccess);
  const int values[4] = {1, 2, 3, 4};
  REQUIRE(cudaMemcpy(from, values, sizeof values, cudaMemcpyHostToDevice) == cudaSuccess);
  const volatile int* volatile_from = from;
  volatile int* volatile_to = to;
  copy_flags << <1, 4 >> > (volatile_from, volatile_to);
  copy_flags<< /* the grid */ <1,
      4>>
      >(volatile_from, volatile_to);
  int out[4] = {};
  REQUIRE(cudaMemcpy(out, to, sizeof out, cudaMemcpyDeviceToHost) == cudaSuccess);
  CHECK(out[0] == 2);
  CHECK(out[3] == 5);
  cudaFree(from);
  cudaFree(to);
}
