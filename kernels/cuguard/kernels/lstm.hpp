// SPDX-License-Identifier: Apache-2.0
// LSTM with torch.nn.LSTM's conventions, written with checked views: a tiled matrix product with
// shared-memory tiles, the fused cell, and a multi-layer, optionally bidirectional forward pass.
#pragma once

#include <cuguard/cuguard.hpp>
#include <cuguard/kernels/common.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace cuguard {
template <>
struct type_name<__half> {
  static constexpr const char* value = "half";
};
template <>
struct type_name<__nv_bfloat16> {
  static constexpr const char* value = "bfloat16";
};
} // namespace cuguard

namespace cuguard::kernels {

// =================================================================================================
// Kernels
// =================================================================================================

/// c[m, n] = sum_k a[m, k] * b[n, k] + bias[n]: a times b transposed, the shape of x * W^T with
/// PyTorch's [out_features, in_features] weights. Blocks of Tile x Tile threads, one output each;
/// both operands pass through shared-memory tiles held in checked views, and accumulate in
/// float whatever T is (float, __half, __nv_bfloat16). bias may be empty. With check_finite, a
/// result that is not finite once stored as T (an fp16 overflow) is reported.
template <int Tile, class T>
__global__ void gemm_nt_kernel(checked_view<const T, 2> a, checked_view<const T, 2> b, checked_view<const T, 1> bias,
                               checked_view<T, 2> c, int check_finite) {
  constexpr auto rows = static_cast<std::size_t>(Tile), cols = static_cast<std::size_t>(Tile + 1);
  __shared__ float a_storage[rows][cols]; // +1: no bank conflicts on the transposed read
  __shared__ float b_storage[rows][cols];
  auto a_tile = make_view(&a_storage[0][0], {Tile, Tile + 1}, "a_tile");
  auto b_tile = make_view(&b_storage[0][0], {Tile, Tile + 1}, "b_tile");
  const std::int64_t m_count = c.extent(0), n_count = c.extent(1), k_count = a.extent(1);
  const std::int64_t ty = threadIdx.y, tx = threadIdx.x;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.y) * Tile + ty;
  const std::int64_t col = static_cast<std::int64_t>(blockIdx.x) * Tile + tx;
  const std::int64_t b_row = static_cast<std::int64_t>(blockIdx.x) * Tile + ty;
  float acc = 0.0f;
  for (std::int64_t k0 = 0; k0 < k_count; k0 += Tile) {
    const std::int64_t k = k0 + tx;
    a_tile(ty, tx) = row < m_count && k < k_count ? static_cast<float>(a(row, k)) : 0.0f; // cuguard-kernel-access: gemm_a
    b_tile(ty, tx) = b_row < n_count && k < k_count ? static_cast<float>(b(b_row, k)) : 0.0f;
    __syncthreads();
    for (int kk = 0; kk < Tile; ++kk) acc += a_tile(ty, kk) * b_tile(tx, kk);
    __syncthreads();
  }
  if (row < m_count && col < n_count) {
    if (bias.extent(0) != 0) acc += static_cast<float>(bias(col));
    const T stored = static_cast<T>(acc);
    if (check_finite) expect_finite(static_cast<float>(stored), c, row, col); // cuguard-kernel-access: gemm_finite
    c(row, col) = stored; // cuguard-kernel-access: gemm_c
  }
}

/// The fused LSTM cell for one time step, gate order i, f, g, o (PyTorch):
/// gates = gates_x + gates_h ([B, 4H], biases included), c = f * c + i * g, h = o * tanh(c).
/// c is read and written in place; h may be strided (a slice of the output sequence). With
/// check_finite, an inf or NaN in c or h is reported.
template <class T>
__global__ void lstm_cell_kernel(checked_view<const T, 2> gates_x, checked_view<const T, 2> gates_h,
                                 checked_view<T, 2> c, checked_view<T, 2> h, int check_finite) {
  const std::int64_t hidden = c.extent(1);
  const std::int64_t n = c.extent(0) * hidden;
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t linear = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; linear < n;
       linear += step) {
    const std::int64_t b = linear / hidden, j = linear % hidden;
    float g[4];
    for (int gate = 0; gate < 4; ++gate) {
      const std::int64_t col = gate * hidden + j;
      g[gate] = static_cast<float>(gates_x(b, col)) + static_cast<float>(gates_h(b, col)); // cuguard-kernel-access: lstm_cell_gates
    }
    const float i = 1.0f / (1.0f + expf(-g[0]));
    const float f = 1.0f / (1.0f + expf(-g[1]));
    const float cand = tanhf(g[2]);
    const float o = 1.0f / (1.0f + expf(-g[3]));
    const float cell = f * static_cast<float>(c(b, j)) + i * cand;
    const float out = o * tanhf(cell);
    if (check_finite) {
      expect_finite(cell, c, b, j);
      expect_finite(out, h, b, j);
    }
    c(b, j) = static_cast<T>(cell);
    h(b, j) = static_cast<T>(out); // cuguard-kernel-access: lstm_cell_h
  }
}

/// dst = src for two views of one shape (strides may differ).
template <class T>
__global__ void copy2d_kernel(checked_view<const T, 2> src, checked_view<T, 2> dst) {
  const std::int64_t n = dst.size();
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t linear = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; linear < n;
       linear += step)
    dst(linear / dst.extent(1), linear % dst.extent(1)) = src(linear / dst.extent(1), linear % dst.extent(1));
}

// =================================================================================================
// Host entry points
// =================================================================================================

/// The parameters of one layer and direction, as torch.nn.LSTM names them (weight_ih_l0,
/// weight_hh_l0, bias_ih_l0, bias_hh_l0, and *_reverse for the second direction).
template <class T>
struct lstm_weights {
  checked_view<const T, 2> w_ih; ///< [4*hidden, input] (layer 0) or [4*hidden, directions*hidden]
  checked_view<const T, 2> w_hh; ///< [4*hidden, hidden]
  checked_view<const T, 1> b_ih; ///< [4*hidden]
  checked_view<const T, 1> b_hh; ///< [4*hidden]
};

/// The shape of an LSTM, as torch.nn.LSTM(input_size, hidden_size, num_layers, bidirectional).
struct lstm_config {
  std::int64_t input_size = 0;
  std::int64_t hidden_size = 0;
  int num_layers = 1;
  bool bidirectional = false;
  bool check_finite = false; ///< report inf/NaN in the gates, c and h (checked builds; the seed's fp16 overflow)
  int directions() const { return bidirectional ? 2 : 1; }
};

namespace impl {

template <class T>
void gemm_nt(checked_view<const T, 2> a, checked_view<const T, 2> b, checked_view<const T, 1> bias,
             checked_view<T, 2> c, bool check_finite, cudaStream_t stream, const cuda::std::source_location& where) {
  constexpr int tile = 16;
  const dim3 grid(static_cast<unsigned>((c.extent(1) + tile - 1) / tile),
                  static_cast<unsigned>((c.extent(0) + tile - 1) / tile));
  launch<gemm_nt_kernel<tile, T>>({grid, dim3(tile, tile), 0, stream, nullptr, where}, a, b, bias, c,
         check_finite ? 1 : 0);
}

template <class T>
void copy2d(checked_view<const T, 2> src, checked_view<T, 2> dst, cudaStream_t stream,
            const cuda::std::source_location& where) {
  launch<copy2d_kernel<T>>({dim3(blocks_for(dst.size(), 256)), dim3(256), 0, stream, nullptr, where}, src, dst);
}

inline std::string weight_name(const char* what, int layer, int direction) {
  return std::string(what) + "_l" + std::to_string(layer) + (direction == 1 ? "_reverse" : "");
}

} // namespace impl

/// torch.nn.LSTM's forward: input [seq_len, batch, input_size], h0 and c0
/// [num_layers * directions, batch, hidden_size], weights for layer l and direction d at
/// weights[l * directions + d]; writes output [seq_len, batch, directions * hidden_size] and
/// h_n, c_n (the shape of h0). Every argument is checked first; a wrong one throws argument_error
/// naming it, how it was read and the caller's line, for example "lstm_forward: h0 has shape
/// [1, 32, 256], expected [2, 32, 256] (num_layers*num_directions = 2, batch = 32 from input's
/// dim 1)". A batch-first input ([batch, seq_len, input_size]) is named as such; input must be
/// contiguous (the other views may be strided).
template <class T>
void lstm_forward(const lstm_config& config, checked_view<const T, 3> input, checked_view<const T, 3> h0,
                  checked_view<const T, 3> c0, const std::vector<lstm_weights<T>>& weights,
                  checked_view<T, 3> output, checked_view<T, 3> h_n, checked_view<T, 3> c_n,
                  cudaStream_t stream = nullptr,
                  cuda::std::source_location where = cuda::std::source_location::current()) {
  const impl::entry_point fn{"lstm_forward", where};
  using impl::fail;
  const std::int64_t hidden = config.hidden_size;
  const int dirs = config.directions();
  if (config.num_layers < 1) fail(fn, "num_layers is " + std::to_string(config.num_layers) + ", expected at least 1");
  if (hidden < 1) fail(fn, "hidden_size is " + std::to_string(hidden) + ", expected at least 1");
  const std::int64_t seq_len = input.extent(0), batch = input.extent(1);
  // How input was read, for every message about it: torch.nn.LSTM's layout without batch_first.
  const std::string read_as = "input has shape " + impl::shape_of(input) + ", read as [seq_len = " +
                              std::to_string(seq_len) + ", batch = " + std::to_string(batch) +
                              ", input_size = " + std::to_string(input.extent(2)) + "]";
  const char* layout = "lstm_forward takes [seq_len, batch, input_size], as torch.nn.LSTM without batch_first";
  if (input.extent(2) != config.input_size)
    fail(fn, read_as + ", expected input_size = " + std::to_string(config.input_size) + " (" + layout + ")");
  if (h0.extent(1) != batch && h0.extent(1) == seq_len && seq_len != batch)
    fail(fn, read_as + ", but h0 has shape " + impl::shape_of(h0) + ", batch " + std::to_string(h0.extent(1)) +
                 ": is input batch-first? " + layout + ": pass input.transpose(0, 1).contiguous()");
  if (!input.is_contiguous())
    fail(fn, read_as + ", with strides " + impl::strides_of(input) +
                 ": expected a contiguous (row-major) tensor (the steps are read as one [seq_len * batch, "
                 "input_size] matrix): pass input.contiguous()");
  const std::int64_t layers_dirs = static_cast<std::int64_t>(config.num_layers) * dirs;
  const std::string state_why = "num_layers*num_directions = " + std::to_string(layers_dirs) + ", batch = " +
                                std::to_string(batch) + " from input's dim 1";
  impl::expect_shape_argument(fn, "h0", h0, {layers_dirs, batch, hidden}, state_why);
  impl::expect_shape_argument(fn, "c0", c0, {layers_dirs, batch, hidden}, state_why);
  impl::expect_shape_argument(fn, "h_n", h_n, {layers_dirs, batch, hidden}, state_why);
  impl::expect_shape_argument(fn, "c_n", c_n, {layers_dirs, batch, hidden}, state_why);
  impl::expect_shape_argument(fn, "output", output, {seq_len, batch, dirs * hidden},
                                "seq_len, batch, num_directions*hidden_size = " + std::to_string(dirs * hidden));
  if (static_cast<std::int64_t>(weights.size()) != layers_dirs)
    fail(fn, "weights has " + std::to_string(weights.size()) + " entries, expected " + std::to_string(layers_dirs) +
                 " (" + state_why + ")");
  for (int l = 0; l < config.num_layers; ++l) {
    const std::int64_t in = l == 0 ? config.input_size : dirs * hidden;
    for (int d = 0; d < dirs; ++d) {
      const lstm_weights<T>& w = weights[static_cast<std::size_t>(l * dirs + d)];
      const std::string ih = impl::weight_name("weight_ih", l, d), hh = impl::weight_name("weight_hh", l, d);
      impl::expect_shape_argument(fn, ih.c_str(), w.w_ih, {4 * hidden, in},
                                    "4*hidden_size = " + std::to_string(4 * hidden) + ", " +
                                        (l == 0 ? "input_size" : "num_directions*hidden_size") + " = " +
                                        std::to_string(in));
      impl::expect_shape_argument(fn, hh.c_str(), w.w_hh, {4 * hidden, hidden},
                                    "4*hidden_size = " + std::to_string(4 * hidden) + ", hidden_size = " +
                                        std::to_string(hidden));
      impl::expect_shape_argument(fn, impl::weight_name("bias_ih", l, d).c_str(), w.b_ih, {4 * hidden},
                                    "4*hidden_size");
      impl::expect_shape_argument(fn, impl::weight_name("bias_hh", l, d).c_str(), w.b_hh, {4 * hidden},
                                    "4*hidden_size");
      impl::expect_device_memory(fn, ih.c_str(), w.w_ih);
      impl::expect_device_memory(fn, hh.c_str(), w.w_hh);
    }
  }
  impl::expect_device_memory(fn, "input", input);
  impl::expect_device_memory(fn, "h0", h0);
  impl::expect_device_memory(fn, "c0", c0);
  impl::expect_device_memory(fn, "output", output);
  impl::expect_device_memory(fn, "h_n", h_n);
  impl::expect_device_memory(fn, "c_n", c_n);
  if (seq_len == 0 || batch == 0) return;

  // Scratch: the input projection of every step, the recurrent product of one step, and the
  // output of the layers below the last.
  device_buffer<T> gates_x(static_cast<std::size_t>(seq_len * batch * 4 * hidden), "gates_x", stream);
  device_buffer<T> gates_h(static_cast<std::size_t>(batch * 4 * hidden), "gates_h", stream);
  device_buffer<T> between[2];
  if (config.num_layers > 1)
    for (auto& b : between) b = device_buffer<T>(static_cast<std::size_t>(seq_len * batch * dirs * hidden), "layer_output", stream);

  checked_view<const T, 3> layer_in = input;
  for (int l = 0; l < config.num_layers; ++l) {
    const bool last = l == config.num_layers - 1;
    const checked_view<T, 3> layer_out =
        last ? output : between[l % 2].view({seq_len, batch, static_cast<std::int64_t>(dirs) * hidden});
    const std::int64_t in = layer_in.extent(2);
    for (int d = 0; d < dirs; ++d) {
      const lstm_weights<T>& w = weights[static_cast<std::size_t>(l * dirs + d)];
      const std::int64_t state = static_cast<std::int64_t>(l) * dirs + d;
      // The input projection for all steps at once: [seq_len*batch, in] x W_ih^T + b_ih.
      const auto gx = gates_x.view({seq_len * batch, 4 * hidden});
      impl::gemm_nt<T>(layer_in.reshape({seq_len * batch, in}), w.w_ih, w.b_ih, gx, config.check_finite, stream, where);
      const auto c_state = c_n.select(0, state);
      impl::copy2d<T>(c0.select(0, state), c_state, stream, where);
      for (std::int64_t s = 0; s < seq_len; ++s) {
        const std::int64_t t = d == 0 ? s : seq_len - 1 - s;
        const std::int64_t prev = d == 0 ? t - 1 : t + 1;
        const checked_view<const T, 2> h_prev =
            s == 0 ? h0.select(0, state) : checked_view<const T, 2>(layer_out.select(0, prev).slice(1, d * hidden, (d + 1) * hidden));
        const auto gh = gates_h.view({batch, 4 * hidden});
        impl::gemm_nt<T>(h_prev, w.w_hh, w.b_hh, gh, config.check_finite, stream, where);
        const auto h_t = layer_out.select(0, t).slice(1, d * hidden, (d + 1) * hidden);
        launch<lstm_cell_kernel<T>>({dim3(impl::blocks_for(batch * hidden, 256)), dim3(256), 0, stream, nullptr, where},
               checked_view<const T, 2>(gx.reshape({seq_len, batch, 4 * hidden}).select(0, t)),
               checked_view<const T, 2>(gh), c_state, h_t, config.check_finite ? 1 : 0);
      }
      const std::int64_t t_last = d == 0 ? seq_len - 1 : 0;
      impl::copy2d<T>(layer_out.select(0, t_last).slice(1, d * hidden, (d + 1) * hidden), h_n.select(0, state),
                        stream, where);
    }
    layer_in = layer_out;
  }
}

/// lstm_forward for views of T or const T (the arguments convert as needed).
template <class T, class In, class H0, class C0, class Out, class HN, class CN>
void lstm_forward(const lstm_config& config, const In& input, const H0& h0, const C0& c0,
                  const std::vector<lstm_weights<T>>& weights, const Out& output, const HN& h_n, const CN& c_n,
                  cudaStream_t stream = nullptr,
                  cuda::std::source_location where = cuda::std::source_location::current()) {
  lstm_forward<T>(config, checked_view<const T, 3>(input), checked_view<const T, 3>(h0), checked_view<const T, 3>(c0),
                  weights, checked_view<T, 3>(output), checked_view<T, 3>(h_n), checked_view<T, 3>(c_n), stream,
                  where);
}

} // namespace cuguard::kernels
