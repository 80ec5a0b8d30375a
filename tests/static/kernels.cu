// SPDX-License-Identifier: Apache-2.0
// Every kernel of kernels/ instantiated for the static checks (ptx_static.py): compiled with
// checks off (compared with the raw twins) and on (its static cost).
#include <cuguard/kernels/gather.hpp>
#include <cuguard/kernels/lstm.hpp>

#ifndef CUGUARD_STATIC_KERNELS_ONLY
#  include "twins.cuh"
#endif

#include <cstdint>

#define CUGUARD_STATIC_INSTANTIATE(...) template __global__ void __VA_ARGS__;

namespace ck = cuguard::kernels;
template <class T, std::size_t R>
using cv = cuguard::checked_view<T, R>;
#ifndef CUGUARD_STATIC_KERNELS_ONLY
template <class T, int R>
using rv = twin::raw<T, R>;
#endif

// clang-format off
CUGUARD_STATIC_INSTANTIATE(ck::index_select_kernel<1, float, std::int64_t>(cv<const float, 3>, cv<const std::int64_t, 1>, cv<float, 3>))
CUGUARD_STATIC_INSTANTIATE(ck::index_select_kernel<4, float, std::int64_t>(cv<const float, 3>, cv<const std::int64_t, 1>, cv<float, 3>))
CUGUARD_STATIC_INSTANTIATE(ck::gather_kernel<float, std::int64_t, 3>(cv<const float, 3>, int, cv<const std::int64_t, 3>, cv<float, 3>))
CUGUARD_STATIC_INSTANTIATE(ck::scatter_add_kernel<float, std::int32_t, 2>(cv<float, 2>, int, cv<const std::int32_t, 2>, cv<const float, 2>))
CUGUARD_STATIC_INSTANTIATE(ck::mask_counts_kernel<unsigned char>(cv<const unsigned char, 1>, cv<std::int64_t, 1>))
CUGUARD_STATIC_INSTANTIATE(ck::exclusive_scan_kernel<std::int64_t>(cv<std::int64_t, 1>, cv<std::int64_t, 1>))
CUGUARD_STATIC_INSTANTIATE(ck::mask_positions_kernel<unsigned char>(cv<const unsigned char, 1>, cv<const std::int64_t, 1>, cv<std::int64_t, 1>))
CUGUARD_STATIC_INSTANTIATE(ck::masked_rows_kernel<float>(cv<const float, 2>, cv<const std::int64_t, 1>, cv<float, 2>))
CUGUARD_STATIC_INSTANTIATE(ck::gemm_nt_kernel<16, float>(cv<const float, 2>, cv<const float, 2>, cv<const float, 1>, cv<float, 2>, int))
CUGUARD_STATIC_INSTANTIATE(ck::gemm_nt_kernel<16, __half>(cv<const __half, 2>, cv<const __half, 2>, cv<const __half, 1>, cv<__half, 2>, int))
CUGUARD_STATIC_INSTANTIATE(ck::lstm_cell_kernel<float>(cv<const float, 2>, cv<const float, 2>, cv<float, 2>, cv<float, 2>, int))
CUGUARD_STATIC_INSTANTIATE(ck::copy2d_kernel<float>(cv<const float, 2>, cv<float, 2>))

#ifndef CUGUARD_STATIC_KERNELS_ONLY // (the compile-time measurement compiles the kernels alone)
CUGUARD_STATIC_INSTANTIATE(twin::index_select_kernel<1, float, std::int64_t>(rv<const float, 3>, rv<const std::int64_t, 1>, rv<float, 3>))
CUGUARD_STATIC_INSTANTIATE(twin::index_select_kernel<4, float, std::int64_t>(rv<const float, 3>, rv<const std::int64_t, 1>, rv<float, 3>))
CUGUARD_STATIC_INSTANTIATE(twin::gather_kernel<float, std::int64_t, 3>(rv<const float, 3>, int, rv<const std::int64_t, 3>, rv<float, 3>))
CUGUARD_STATIC_INSTANTIATE(twin::scatter_add_kernel<float, std::int32_t, 2>(rv<float, 2>, int, rv<const std::int32_t, 2>, rv<const float, 2>))
CUGUARD_STATIC_INSTANTIATE(twin::mask_counts_kernel<unsigned char>(rv<const unsigned char, 1>, rv<std::int64_t, 1>))
CUGUARD_STATIC_INSTANTIATE(twin::exclusive_scan_kernel<std::int64_t>(rv<std::int64_t, 1>, rv<std::int64_t, 1>))
CUGUARD_STATIC_INSTANTIATE(twin::mask_positions_kernel<unsigned char>(rv<const unsigned char, 1>, rv<const std::int64_t, 1>, rv<std::int64_t, 1>))
CUGUARD_STATIC_INSTANTIATE(twin::masked_rows_kernel<float>(rv<const float, 2>, rv<const std::int64_t, 1>, rv<float, 2>))
CUGUARD_STATIC_INSTANTIATE(twin::gemm_nt_kernel<16, float>(rv<const float, 2>, rv<const float, 2>, rv<const float, 1>, rv<float, 2>, int))
CUGUARD_STATIC_INSTANTIATE(twin::gemm_nt_kernel<16, __half>(rv<const __half, 2>, rv<const __half, 2>, rv<const __half, 1>, rv<__half, 2>, int))
CUGUARD_STATIC_INSTANTIATE(twin::lstm_cell_kernel<float>(rv<const float, 2>, rv<const float, 2>, rv<float, 2>, rv<float, 2>, int))
CUGUARD_STATIC_INSTANTIATE(twin::copy2d_kernel<float>(rv<const float, 2>, rv<float, 2>))
#endif
// clang-format on
