// SPDX-License-Identifier: Apache-2.0
// The gather family, written with checked views: index_select (embedding lookup), gather,
// scatter_add and masked_rows, each a native kernel with a validating host entry point.
#pragma once

#include <cuguard/cuguard.hpp>
#include <cuguard/kernels/common.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>

namespace cuguard::kernels {

// =================================================================================================
// Kernels
// =================================================================================================

/// out[o, k, :] = input[o, index[k], :] for views collapsed to [outer, size, inner]. One block per
/// output row; V > 1 moves V elements per access (16-byte vector loads and stores).
template <int V, class T, class I>
__global__ void index_select_kernel(checked_view<const T, 3> input, checked_view<const I, 1> index,
                                    checked_view<T, 3> out) {
  const std::int64_t rows = out.extent(0) * out.extent(1);
  const std::int64_t width = out.extent(2) / V;
  for (std::int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const std::int64_t o = row / out.extent(1);
    const std::int64_t k = row % out.extent(1);
    const auto src = index_from(index, k);
    for (std::int64_t j = threadIdx.x; j < width; j += blockDim.x) {
      if constexpr (V == 1) {
        out(o, k, j) = input(o, src, j); // cuguard-kernel-access: index_select
      } else {
        out.template store<V>(input.template load<V>(o, src, j * V), o, k, j * V); // cuguard-kernel-access: index_select_vector
      }
    }
  }
}

/// out[p] = input[p with p[dim] replaced by index[p]] (PyTorch's gather), for any rank.
template <class T, class I, std::size_t R>
__global__ void gather_kernel(checked_view<const T, R> input, int dim, checked_view<const I, R> index,
                              checked_view<T, R> out) {
  const std::int64_t n = out.size();
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t linear = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; linear < n;
       linear += step) {
    std::int64_t pos[R];
    impl::unravel(linear, out, pos);
    const checked_index<std::int64_t> src(index_from(index, pos));
    checked_index<std::int64_t> from[R];
    for (std::size_t r = 0; r < R; ++r) from[r] = static_cast<int>(r) == dim ? src : checked_index<std::int64_t>(pos[r]);
    out.at(pos) = input.at(from); // cuguard-kernel-access: gather
  }
}

/// out[p with p[dim] replaced by index[p]] += src[p] for every position p of index (PyTorch's
/// scatter_add_), with atomics: duplicate indices add up.
namespace impl {
/// Threads of exclusive_scan_kernel's one block (its launch bounds: checked builds, -G builds
/// included, must fit 1024 threads' registers).
inline constexpr int scan_threads = 1024;
/// Rows of the mask per block of mask_counts_kernel and mask_positions_kernel.
inline constexpr int mask_block = 256;

/// atomicAdd for every element type scatter_add takes. CUDA has it for int, unsigned int,
/// unsigned long long, float, double, __half and __nv_bfloat16; other 64-bit integers (int64_t,
/// PyTorch's default) add through unsigned long long, which two's complement makes the same sum.
template <class T>
__device__ inline void atomic_add(T* address, T value) {
  if constexpr (std::is_integral<T>::value && sizeof(T) == 8) {
    atomicAdd(reinterpret_cast<unsigned long long*>(address), static_cast<unsigned long long>(value));
  } else {
    atomicAdd(address, value);
  }
}
} // namespace impl

template <class T, class I, std::size_t R>
__global__ void scatter_add_kernel(checked_view<T, R> out, int dim, checked_view<const I, R> index,
                                   checked_view<const T, R> src) {
  const std::int64_t n = index.size();
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t linear = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; linear < n;
       linear += step) {
    std::int64_t pos[R];
    impl::unravel(linear, index, pos);
    const checked_index<std::int64_t> dst(index_from(index, pos));
    checked_index<std::int64_t> to[R];
    for (std::size_t r = 0; r < R; ++r) to[r] = static_cast<int>(r) == dim ? dst : checked_index<std::int64_t>(pos[r]);
    impl::atomic_add(&out.at(to), src.at(pos)); // cuguard-kernel-access: scatter_add
  }
}

/// The inclusive prefix sum of `value` over the threads of the block (thread t gets the sum of
/// threads 0..t), through `scan`, a shared view of blockDim.x elements.
__device__ inline std::int64_t block_inclusive_scan(const checked_view<std::int64_t, 1>& scan, std::int64_t value) {
  const std::int64_t t = threadIdx.x;
  scan[t] = value;
  __syncthreads();
  for (std::int64_t offset = 1; offset < blockDim.x; offset *= 2) {
    const std::int64_t add = t >= offset ? scan[t - offset] : 0;
    __syncthreads();
    scan[t] += add;
    __syncthreads();
  }
  const std::int64_t sum = scan[t];
  __syncthreads(); // scan is free again
  return sum;
}

/// counts[b] = the selected rows among block b's blockDim.x rows of mask: the first pass of
/// masked_rows, every block counting its own rows.
template <class M>
__global__ void mask_counts_kernel(checked_view<const M, 1> mask, checked_view<std::int64_t, 1> counts) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const int selected = __syncthreads_count(i < mask.extent(0) && mask[i] != M{});
  if (threadIdx.x == 0) counts[blockIdx.x] = selected;
}

/// values[i] = values[0] + ... + values[i - 1] in place, and total[0] = the sum of them all. One
/// block; a block-wide scan per chunk of blockDim.x values (the per-block counts of masked_rows).
template <class I>
__global__ void __launch_bounds__(impl::scan_threads, 1)
    exclusive_scan_kernel(checked_view<I, 1> values, checked_view<I, 1> total) {
  static_assert(std::is_same<I, std::int64_t>::value, "exclusive_scan_kernel: int64 values");
  __shared__ std::int64_t storage[impl::scan_threads];
  const std::int64_t threads = blockDim.x;
  const auto scan = make_view(storage, {threads}, "scan");
  std::int64_t base = 0;
  for (std::int64_t chunk = 0; chunk < values.extent(0); chunk += threads) {
    const std::int64_t i = chunk + threadIdx.x;
    const std::int64_t value = i < values.extent(0) ? values[i] : 0;
    const std::int64_t inclusive = block_inclusive_scan(scan, value);
    if (i < values.extent(0)) values[i] = base + inclusive - value;
    if (threadIdx.x == threads - 1) scan[0] = inclusive; // the chunk's sum, to every thread
    __syncthreads();
    base += scan[0];
    __syncthreads();
  }
  if (threadIdx.x == 0) total[0] = base;
}

/// positions[i] = the number of selected rows before row i, or -1 where mask[i] is 0: the
/// block's offset (the exclusive scan of mask_counts_kernel's counts) plus a scan within the block.
template <class M>
__global__ void mask_positions_kernel(checked_view<const M, 1> mask, checked_view<const std::int64_t, 1> offsets,
                                      checked_view<std::int64_t, 1> positions) {
  __shared__ std::int64_t storage[impl::scan_threads];
  const std::int64_t threads = blockDim.x;
  const auto scan = make_view(storage, {threads}, "scan");
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * threads + threadIdx.x;
  const std::int64_t flag = i < mask.extent(0) && mask[i] != M{} ? 1 : 0;
  const std::int64_t before = block_inclusive_scan(scan, flag) - flag;
  if (i < mask.extent(0)) positions[i] = flag ? offsets[blockIdx.x] + before : -1;
}

/// out[positions[i], :] = input[i, :] for the rows whose position is not -1.
template <class T>
__global__ void masked_rows_kernel(checked_view<const T, 2> input, checked_view<const std::int64_t, 1> positions,
                                   checked_view<T, 2> out) {
  for (std::int64_t i = blockIdx.x; i < input.extent(0); i += gridDim.x) {
    const auto p = index_from(positions, i);
    if (p.value() < 0) continue;
    for (std::int64_t j = threadIdx.x; j < input.extent(1); j += blockDim.x)
      out(p, j) = input(i, j); // cuguard-kernel-access: masked_rows
  }
}

// =================================================================================================
// Host entry points: validate, then launch on `stream`. Each records the caller's line as the
// launch site of its kernels, so that a report names the user's call, not this file.
// =================================================================================================

namespace impl {

template <class T, std::size_t R, class I>
void index_select_impl(checked_view<const T, R> input, int dim, checked_view<const I, 1> index, checked_view<T, R> out,
                       cudaStream_t stream, const cuda::std::source_location& where) {
  static_assert(std::is_integral<I>::value, "index_select: index must hold integers");
  const impl::entry_point fn{"index_select", where};
  impl::expect_dim(fn, "input", dim, R);
  std::int64_t expected[R];
  for (std::size_t r = 0; r < R; ++r) expected[r] = r == static_cast<std::size_t>(dim) ? index.extent(0) : input.extent(r);
  impl::expect_shape_argument(fn, "out", out, expected,
                                "input " + impl::shape_of(input) + " with dim " + std::to_string(dim) +
                                    " of size " + std::to_string(index.extent(0)) + " = the length of index");
  impl::expect_contiguous_argument(fn, "input", input);
  impl::expect_contiguous_argument(fn, "out", out);
  impl::expect_device_memory(fn, "input", input);
  impl::expect_device_memory(fn, "index", index);
  impl::expect_device_memory(fn, "out", out);
  if (out.size() == 0) return;

  std::int64_t outer = 1, inner = 1;
  for (int r = 0; r < dim; ++r) outer *= input.extent(static_cast<std::size_t>(r));
  for (std::size_t r = static_cast<std::size_t>(dim) + 1; r < R; ++r) inner *= input.extent(r);
  const auto in3 = input.reshape({outer, input.extent(static_cast<std::size_t>(dim)), inner});
  const auto out3 = out.reshape({outer, index.extent(0), inner});
  constexpr int vector = 16 / static_cast<int>(sizeof(T)) >= 1 ? 16 / static_cast<int>(sizeof(T)) : 1;
  const bool aligned = reinterpret_cast<std::uintptr_t>(input.data()) % 16 == 0 &&
                       reinterpret_cast<std::uintptr_t>(out.data()) % 16 == 0;
  const std::int64_t rows = outer * index.extent(0);
  if constexpr (vector > 1 && sizeof(T) * vector == 16) {
    if (aligned && inner % vector == 0) {
      const unsigned threads = static_cast<unsigned>(std::clamp<std::int64_t>(inner / vector, 32, 256));
      launch<index_select_kernel<vector, T, I>>({dim3(impl::blocks_for(rows, 1)), dim3(threads), 0, stream, nullptr, where}, in3,
             index, out3);
      return;
    }
  }
  const unsigned threads = static_cast<unsigned>(std::clamp<std::int64_t>(inner, 32, 256));
  launch<index_select_kernel<1, T, I>>({dim3(impl::blocks_for(rows, 1)), dim3(threads), 0, stream, nullptr, where}, in3, index,
         out3);
}

template <class T, std::size_t R, class I>
void gather_impl(checked_view<const T, R> input, int dim, checked_view<const I, R> index, checked_view<T, R> out,
                 cudaStream_t stream, const cuda::std::source_location& where) {
  static_assert(std::is_integral<I>::value, "gather: index must hold integers");
  const impl::entry_point fn{"gather", where};
  impl::expect_dim(fn, "input", dim, R);
  for (std::size_t r = 0; r < R; ++r) {
    if (static_cast<int>(r) != dim && index.extent(r) > input.extent(r))
      impl::fail(fn, "index has shape " + impl::shape_of(index) + " and input " + impl::shape_of(input) +
                           ": dim " + std::to_string(r) + " of index (" + std::to_string(index.extent(r)) +
                           ") exceeds input's (" + std::to_string(input.extent(r)) + ")");
  }
  std::int64_t expected[R];
  for (std::size_t r = 0; r < R; ++r) expected[r] = index.extent(r);
  impl::expect_shape_argument(fn, "out", out, expected, "the shape of index");
  impl::expect_device_memory(fn, "input", input);
  impl::expect_device_memory(fn, "index", index);
  impl::expect_device_memory(fn, "out", out);
  if (out.size() == 0) return;
  launch<gather_kernel<T, I, R>>({dim3(impl::blocks_for(out.size(), 256)), dim3(256), 0, stream, nullptr, where}, input, dim,
         index, out);
}

template <class T, std::size_t R, class I>
void scatter_add_impl(checked_view<T, R> out, int dim, checked_view<const I, R> index, checked_view<const T, R> src,
                      cudaStream_t stream, const cuda::std::source_location& where) {
  static_assert(std::is_integral<I>::value, "scatter_add: index must hold integers");
  const impl::entry_point fn{"scatter_add", where};
  impl::expect_dim(fn, "out", dim, R);
  for (std::size_t r = 0; r < R; ++r) {
    if (index.extent(r) > src.extent(r))
      impl::fail(fn, "index has shape " + impl::shape_of(index) + " and src " + impl::shape_of(src) + ": dim " +
                           std::to_string(r) + " of index (" + std::to_string(index.extent(r)) +
                           ") exceeds src's (" + std::to_string(src.extent(r)) + ")");
    if (static_cast<int>(r) != dim && index.extent(r) > out.extent(r))
      impl::fail(fn, "index has shape " + impl::shape_of(index) + " and out " + impl::shape_of(out) + ": dim " +
                           std::to_string(r) + " of index (" + std::to_string(index.extent(r)) +
                           ") exceeds out's (" + std::to_string(out.extent(r)) + ")");
  }
  impl::expect_device_memory(fn, "out", out);
  impl::expect_device_memory(fn, "index", index);
  impl::expect_device_memory(fn, "src", src);
  if (index.size() == 0) return;
  launch<scatter_add_kernel<T, I, R>>({dim3(impl::blocks_for(index.size(), 256)), dim3(256), 0, stream, nullptr, where}, out, dim,
         index, src);
}

template <class T, class M>
void masked_rows_impl(checked_view<const T, 2> input, checked_view<const M, 1> mask, checked_view<T, 2> out,
                      cudaStream_t stream, const cuda::std::source_location& where) {
  const impl::entry_point fn{"masked_rows", where};
  if (mask.extent(0) != input.extent(0))
    impl::fail(fn, "mask has shape " + impl::shape_of(mask) + ", expected [" + std::to_string(input.extent(0)) +
                         "] (one entry per row of input " + impl::shape_of(input) + ")");
  if (out.extent(1) != input.extent(1))
    impl::fail(fn, "out has shape " + impl::shape_of(out) + ", expected [M, " + std::to_string(input.extent(1)) +
                         "] (the row length of input " + impl::shape_of(input) + ")");
  impl::expect_device_memory(fn, "input", input);
  impl::expect_device_memory(fn, "mask", mask);
  impl::expect_device_memory(fn, "out", out);
  const std::int64_t n = input.extent(0);
  const std::int64_t blocks = (n + mask_block - 1) / mask_block; // one block per mask_block rows, no stride
  if (blocks > std::numeric_limits<int>::max())
    impl::fail(fn, "mask has " + std::to_string(n) + " rows, more than " +
                         std::to_string(static_cast<std::int64_t>(std::numeric_limits<int>::max()) * mask_block) +
                         " (the most one grid of " + std::to_string(mask_block) + "-row blocks covers)");
  device_buffer<std::int64_t> positions(static_cast<std::size_t>(std::max<std::int64_t>(n, 1)),
                                        "masked_rows positions", stream);
  device_buffer<std::int64_t> offsets(static_cast<std::size_t>(std::max<std::int64_t>(blocks, 1)),
                                      "masked_rows offsets", stream);
  device_buffer<std::int64_t> count(1, "masked_rows count", stream);
  const auto block_offsets = offsets.view({blocks});
  if (n != 0) {
    launch<mask_counts_kernel<M>>({dim3(static_cast<unsigned>(blocks)), dim3(mask_block), 0, stream, nullptr, where},
           mask, block_offsets);
  }
  launch<exclusive_scan_kernel<std::int64_t>>({dim3(1), dim3(scan_threads), 0, stream, nullptr, where}, block_offsets,
         count.view());
  if (n != 0) {
    launch<mask_positions_kernel<M>>({dim3(static_cast<unsigned>(blocks)), dim3(mask_block), 0, stream, nullptr, where},
           mask, checked_view<const std::int64_t, 1>(block_offsets), positions.view({n}));
  }
  std::int64_t selected = 0;
  count.copy_to_host(&selected, 1);
  if (out.extent(0) != selected)
    impl::fail(fn, "out has shape " + impl::shape_of(out) + ", expected [" + std::to_string(selected) + ", " +
                         std::to_string(input.extent(1)) + "] (the mask selects " + std::to_string(selected) +
                         " rows)");
  if (selected == 0) return;
  const unsigned threads = static_cast<unsigned>(std::clamp<std::int64_t>(input.extent(1), 32, 256));
  launch<masked_rows_kernel<T>>({dim3(impl::blocks_for(input.extent(0), 1)), dim3(threads), 0, stream, nullptr, where}, input,
         checked_view<const std::int64_t, 1>(positions.view({n})), out);
}

template <class View>
using const_view_t = checked_view<const typename View::value_type, View::rank(), typename View::index_type>;

} // namespace impl

/// PyTorch's index_select: out = input with dimension `dim` replaced by input's slices at
/// index[0], ..., index[K-1]. input and out are contiguous device tensors of one rank; out's
/// extent along dim is K, the others are input's. index_select(table, 0, ids, out) is an
/// embedding lookup. Views of T or const T; index of any integer type.
template <class In, class Index, class Out>
void index_select(const In& input, int dim, const Index& index, const Out& out, cudaStream_t stream = nullptr,
                  cuda::std::source_location where = cuda::std::source_location::current()) {
  static_assert(impl::is_view<In>::value && impl::is_view<Index>::value && impl::is_view<Out>::value,
                "index_select: arguments are checked views");
  impl::index_select_impl(impl::const_view_t<In>(input), dim, impl::const_view_t<Index>(index), out, stream, where);
}

/// PyTorch's gather: out[p] = input[p with p[dim] = index[p]]; out has index's shape, and
/// index.size(d) <= input.size(d) for d != dim.
template <class In, class Index, class Out>
void gather(const In& input, int dim, const Index& index, const Out& out, cudaStream_t stream = nullptr,
            cuda::std::source_location where = cuda::std::source_location::current()) {
  static_assert(impl::is_view<In>::value && impl::is_view<Index>::value && impl::is_view<Out>::value,
                "gather: arguments are checked views");
  impl::gather_impl(impl::const_view_t<In>(input), dim, impl::const_view_t<Index>(index), out, stream, where);
}

/// PyTorch's scatter_add_: out[p with p[dim] = index[p]] += src[p] for every position p of
/// index (duplicates add up); index.size(d) <= src.size(d), and <= out.size(d) for d != dim.
template <class Out, class Index, class Src>
void scatter_add(const Out& out, int dim, const Index& index, const Src& src, cudaStream_t stream = nullptr,
                 cuda::std::source_location where = cuda::std::source_location::current()) {
  static_assert(impl::is_view<Out>::value && impl::is_view<Index>::value && impl::is_view<Src>::value,
                "scatter_add: arguments are checked views");
  impl::scatter_add_impl(out, dim, impl::const_view_t<Index>(index), impl::const_view_t<Src>(src), stream, where);
}

/// The rows of input [N, D] whose mask entry is non-zero, in order, into out [M, D]; M must be
/// the number of selected rows (counted on the device, then checked).
template <class In, class Mask, class Out>
void masked_rows(const In& input, const Mask& mask, const Out& out, cudaStream_t stream = nullptr,
                 cuda::std::source_location where = cuda::std::source_location::current()) {
  static_assert(impl::is_view<In>::value && impl::is_view<Mask>::value && impl::is_view<Out>::value,
                "masked_rows: arguments are checked views");
  impl::masked_rows_impl(impl::const_view_t<In>(input), impl::const_view_t<Mask>(mask), out, stream, where);
}

} // namespace cuguard::kernels
