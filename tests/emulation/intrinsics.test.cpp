// SPDX-License-Identifier: Apache-2.0
// Device intrinsics that CUB and cooperative groups call, in the device suite (emulation, and nvcc
// where a GPU is lent, which checks emulation's answers against a GPU's): the SIMD video
// intrinsics, cuda::ptx's lane registers, a tile's cg::reduce and scan, and coalesced_threads() in
// a divergent branch. Expected values are worked by hand from CUDA's documentation.
#include "device_support.hpp"

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda/ptx>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuguard/cuguard.hpp>
#if CUGUARD_EMULATION // (what a translated .cu that speaks of half precision includes)
#  include <cuguard/detail/emulation/half_intrinsics.hpp>
#endif
#include <doctest/doctest.h>

#include <vector>

namespace cg = cooperative_groups;

namespace intrinsics_tests {

__global__ void simd(unsigned* out) {
  out[0] = __vadd2(0x7fff0001u, 0x00010002u);
  out[1] = __vaddss2(0x7fff0001u, 0x00010002u);
  out[2] = __vaddus2(0xffff0001u, 0x00010002u);
  out[3] = __vsub4(0x01020304u, 0x02020202u);
  out[4] = __vmins2(0x8000ffffu, 0x00010001u);
  out[5] = __vminu2(0x8000ffffu, 0x00010001u);
  out[6] = __vmaxs2(0x8000ffffu, 0x00010001u);
  out[7] = __vmaxu2(0x8000ffffu, 0x00010001u);
  out[8] = __vcmpgts4(0x80017f00u, 0u);
  out[9] = __vsetgtu4(0x80017f00u, 0u);
  out[10] = __vabsdiffu4(0x0a00ff10u, 0x0f01f020u);
  out[11] = __vsadu4(0x0a00ff10u, 0x0f01f020u);
  out[12] = __vavgu2(0x00030001u, 0x00040002u);
  out[13] = __vabs2(0x8000fffeu);
  out[14] = __vabsss2(0x8000fffeu);
  out[15] = __vneg4(0x01ff8000u);
}

// Thread 37 of a block of 64 writes its lane registers.
__global__ void lane_registers(unsigned* out) {
  if (threadIdx.x != 37) return;
  out[0] = cuda::ptx::get_sreg_laneid();
  out[1] = cuda::ptx::get_sreg_lanemask_lt();
  out[2] = cuda::ptx::get_sreg_lanemask_le();
  out[3] = cuda::ptx::get_sreg_lanemask_eq();
  out[4] = cuda::ptx::get_sreg_lanemask_gt();
  out[5] = cuda::ptx::get_sreg_lanemask_ge();
}

// Each thread: its tile's sum of ranks, its inclusive scan, and, for odd threads, the size of the
// coalesced group of odd lanes and its rank there.
__global__ void groups(int* out) {
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(cg::this_thread_block());
  const int r = static_cast<int>(tile.thread_rank());
  out[threadIdx.x * 4 + 0] = cg::reduce(tile, r, cg::plus<int>());
  out[threadIdx.x * 4 + 1] = cg::inclusive_scan(tile, r);
  if (threadIdx.x % 2 == 1) {
    cg::coalesced_group odd = cg::coalesced_threads();
    out[threadIdx.x * 4 + 2] = static_cast<int>(odd.size());
    out[threadIdx.x * 4 + 3] = static_cast<int>(odd.thread_rank());
  }
}

// Half-precision intrinsics whose results are exact in either type.
__global__ void halves(float* out) {
  const __half2 f = __hfma2(__floats2half2_rn(1.5f, -1.0f), __floats2half2_rn(2.0f, 2.0f), __floats2half2_rn(0.25f, 0.5f));
  out[0] = __low2float(f);
  out[1] = __high2float(f);
  out[2] = __half2float(hsqrt(__float2half(2.25f)));
  out[3] = __half2float(hrcp(__float2half(4.0f)));
  out[4] = __half2float(__hfma_sat(__float2half(0.75f), __float2half(2.0f), __float2half(0.0f)));
  out[5] = __half2float(__hfma_relu(__float2half(-1.0f), __float2half(2.0f), __float2half(0.5f)));
  const __half2 fl = h2floor(__floats2half2_rn(2.5f, -2.5f));
  out[6] = __low2float(fl);
  out[7] = __high2float(fl);
  out[8] = __bfloat162float(__hfma(__float2bfloat16(1.5f), __float2bfloat16(2.0f), __float2bfloat16(0.25f)));
  out[9] = __half2float(hexp(__float2half(0.0f)));
}

} // namespace intrinsics_tests

TEST_CASE("half-precision fused multiply-adds and math functions") {
  cuguard::device_buffer<float> d(10, "out");
  cuguard::launch(intrinsics_tests::halves, 1, 1, d.data());
  cuguard::check();
  std::vector<float> v(10);
  d.copy_to_host(v.data(), v.size());
  const float want[10] = {3.25f, -1.5f, 1.5f, 0.25f, 1.0f, 0.0f, 2.0f, -3.0f, 3.25f, 1.0f};
  for (int i = 0; i < 10; ++i) {
    INFO("result " << i);
    CHECK(v[static_cast<std::size_t>(i)] == want[i]);
  }
}

TEST_CASE("the SIMD video intrinsics work lane by lane, as CUDA documents them") {
  cuguard::device_buffer<unsigned> d(16, "out");
  cuguard::launch(intrinsics_tests::simd, 1, 1, d.data());
  cuguard::check();
  std::vector<unsigned> v(16);
  d.copy_to_host(v.data(), v.size());
  const unsigned want[16] = {0x80000003u, 0x7fff0003u, 0xffff0003u, 0xff000102u, 0x8000ffffu, 0x00010001u,
                             0x00010001u, 0x8000ffffu, 0x00ffff00u, 0x01010100u, 0x05010f10u, 37u,
                             0x00040002u, 0x80000002u, 0x7fff0002u, 0xff018000u};
  for (int i = 0; i < 16; ++i) {
    INFO("intrinsic " << i);
    CHECK(v[static_cast<std::size_t>(i)] == want[i]);
  }
}

TEST_CASE("cuda::ptx's lane registers: lane 5 of the second warp") {
  cuguard::device_buffer<unsigned> d(6, "out");
  cuguard::launch(intrinsics_tests::lane_registers, 1, 64, d.data());
  cuguard::check();
  std::vector<unsigned> v(6);
  d.copy_to_host(v.data(), v.size());
  CHECK(v[0] == 5u);
  CHECK(v[1] == 0x1fu);
  CHECK(v[2] == 0x3fu);
  CHECK(v[3] == 0x20u);
  CHECK(v[4] == 0xffffffc0u);
  CHECK(v[5] == 0xffffffe0u);
}

TEST_CASE("a tile's cg::reduce and cg::inclusive_scan, and coalesced_threads() of the odd lanes") {
  cuguard::device_buffer<int> d(64 * 4, "out");
  d.fill_bytes(0);
  cuguard::launch(intrinsics_tests::groups, 1, 64, d.data());
  cuguard::check();
  std::vector<int> v(64 * 4);
  d.copy_to_host(v.data(), v.size());
  for (int t = 0; t < 64; ++t) {
    INFO("thread " << t);
    const int r = t % 32;
    CHECK(v[static_cast<std::size_t>(t * 4)] == 31 * 32 / 2);
    CHECK(v[static_cast<std::size_t>(t * 4 + 1)] == r * (r + 1) / 2);
    CHECK(v[static_cast<std::size_t>(t * 4 + 2)] == (t % 2 == 1 ? 16 : 0));
    CHECK(v[static_cast<std::size_t>(t * 4 + 3)] == (t % 2 == 1 ? r / 2 : 0));
  }
}
