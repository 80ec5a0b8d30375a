// SPDX-License-Identifier: Apache-2.0
// The LSTM against its double-precision reference, its planted bugs and its argument errors.
#include "kernel_support.hpp"

#include <cuguard/cuguard.hpp>
#include <cuguard/kernels/lstm.hpp>
#include <doctest/doctest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace k = cuguard::kernels;
namespace ref = cuguard::kernels::reference;
using kernel_test_support::marker_line;
using kernel_test_support::max_relative_error;
using kernel_test_support::random_tensor;
using kernel_test_support::upload;

namespace lstm_tests {

/// Random parameters of an LSTM, on the host (reference) and on the device (kernels), stored as T.
template <class T = float>
struct model {
  k::lstm_config config;
  std::vector<ref::lstm_layer> host;
  std::vector<std::unique_ptr<cuguard::device_buffer<T>>> buffers;
  std::vector<k::lstm_weights<T>> weights;

  model(std::int64_t input, std::int64_t hidden, int layers, bool bidirectional, unsigned seed, double scale = 1.0)
      : config{input, hidden, layers, bidirectional} {
    const int dirs = config.directions();
    for (int l = 0; l < layers; ++l) {
      for (int d = 0; d < dirs; ++d) {
        const std::int64_t in = l == 0 ? input : dirs * hidden;
        ref::lstm_layer p{random_tensor({4 * hidden, in}, seed++), random_tensor({4 * hidden, hidden}, seed++),
                          random_tensor({4 * hidden}, seed++), random_tensor({4 * hidden}, seed++)};
        for (ref::tensor* t : {&p.w_ih, &p.w_hh, &p.b_ih, &p.b_hh})
          for (double& x : t->data) x = static_cast<double>(static_cast<float>(static_cast<T>(static_cast<float>(x * scale))));
        k::lstm_weights<T> w{keep(p.w_ih, "weight_ih").view({4 * hidden, in}),
                                 keep(p.w_hh, "weight_hh").view({4 * hidden, hidden}),
                                 keep(p.b_ih, "bias_ih").view({4 * hidden}), keep(p.b_hh, "bias_hh").view({4 * hidden})};
        host.push_back(std::move(p));
        weights.push_back(w);
      }
    }
  }
  cuguard::device_buffer<T>& keep(const ref::tensor& t, const char* label) {
    buffers.push_back(std::make_unique<cuguard::device_buffer<T>>(upload<T>(t, label)));
    return *buffers.back();
  }
};

/// Runs both and returns the largest relative error of output, h_n and c_n (T: storage type;
/// the reference gets the same rounded parameters and inputs).
template <class T = float>
double forward_error(std::int64_t seq, std::int64_t batch, std::int64_t input, std::int64_t hidden, int layers,
                     bool bidirectional, unsigned seed) {
  model<T> m(input, hidden, layers, bidirectional, seed);
  const std::int64_t states = static_cast<std::int64_t>(layers) * m.config.directions();
  auto x = random_tensor({seq, batch, input}, seed + 100);
  auto h0 = random_tensor({states, batch, hidden}, seed + 101);
  auto c0 = random_tensor({states, batch, hidden}, seed + 102);
  for (ref::tensor* t : {&x, &h0, &c0})
    for (double& v : t->data) v = static_cast<double>(static_cast<float>(static_cast<T>(static_cast<float>(v))));
  ref::tensor want_h, want_c;
  const auto want = ref::lstm(x, h0, c0, m.host, layers, bidirectional, want_h, want_c);

  auto d_x = upload<T>(x, "input");
  auto d_h0 = upload<T>(h0, "h0");
  auto d_c0 = upload<T>(c0, "c0");
  cuguard::device_buffer<T> d_out(want.data.size(), "output"), d_hn(want_h.data.size(), "h_n"),
      d_cn(want_c.data.size(), "c_n");
  k::lstm_forward(m.config, d_x.view({seq, batch, input}), d_h0.view({states, batch, hidden}),
                  d_c0.view({states, batch, hidden}), m.weights, d_out.view({seq, batch, m.config.directions() * hidden}),
                  d_hn.view({states, batch, hidden}), d_cn.view({states, batch, hidden}));
  cuguard::check();
  return std::max({max_relative_error(d_out.to_host(), want.data), max_relative_error(d_hn.to_host(), want_h.data),
                   max_relative_error(d_cn.to_host(), want_c.data)});
}

} // namespace lstm_tests

TEST_CASE("lstm_forward matches the reference: one layer, one direction") {
  CHECK(lstm_tests::forward_error(5, 3, 7, 6, 1, false, 1) < 1e-5);
}

TEST_CASE("lstm_forward matches the reference: two bidirectional layers") {
  CHECK(lstm_tests::forward_error(4, 2, 5, 9, 2, true, 2) < 1e-5);
}

TEST_CASE("lstm_forward matches the reference with a hidden size and input size beyond one tile") {
  CHECK(lstm_tests::forward_error(3, 4, 17, 20, 1, true, 3) < 1e-5);
}

TEST_CASE("lstm_forward with fp16 and bf16 storage accumulates in fp32 and stays near the reference") {
  // Storage rounds every stored value (gates, states): about 1e-3 for half, 1e-2 for bfloat16.
  CHECK(lstm_tests::forward_error<__half>(4, 2, 5, 9, 2, true, 4) < 1e-2);
  CHECK(lstm_tests::forward_error<__nv_bfloat16>(4, 2, 5, 9, 2, true, 5) < 5e-2);
}

CUGUARD_CHECKED_TEST("with check_finite, an fp16 overflow of the input projection is reported where it is stored") {
  lstm_tests::model<__half> m(8, 4, 1, false, 6, 1000.0); // large weights: |x W^T| far above 65504
  m.config.check_finite = true;
  std::vector<float> big(2 * 3 * 8, 100.0f);
  auto x = upload<__half>(big, "input");
  cuguard::device_buffer<__half> state(3 * 4, "state"), out(2 * 3 * 4, "output");
  state.fill_bytes(0);
  k::lstm_forward(m.config, x.view({2, 3, 8}), state.view({1, 3, 4}), state.view({1, 3, 4}), m.weights,
                  out.view({2, 3, 4}), state.view({1, 3, 4}), state.view({1, 3, 4}));
  const auto r = device_test_support::checked();
  REQUIRE(r.thrown);
  CHECK(r.report.kind == cuguard::violation_kind::non_finite);
  CHECK(std::string(r.report.label) == "gates_x");
  CHECK(std::string(r.report.type) == "half");
  CHECK(r.report.line == marker_line(r.report.file, "gemm_finite"));
  CHECK(r.what.find("cuguard: non-finite value ") == 0);
}

CUGUARD_CHECKED_TEST("a launch with a block wider than the tile overflows the gemm's shared tile, and says so") {
  cuguard::device_buffer<float> a(16 * 16, "a"), b(16 * 16, "b"), c(16 * 16, "c");
  const cuguard::checked_view<const float, 1> no_bias;
  cuguard::launch({dim3(1, 1), dim3(32, 16)}, k::gemm_nt_kernel<16, float>,
                  cuguard::checked_view<const float, 2>(a.view({16, 16})),
                  cuguard::checked_view<const float, 2>(b.view({16, 16})), no_bias, c.view({16, 16}), 0);
  const auto r = device_test_support::checked();
  REQUIRE(r.thrown);
  CHECK(device_test_support::ends_with(r.report.file, "cuguard/kernels/lstm.hpp"));
  CHECK(r.report.line == marker_line(r.report.file, "gemm_a"));
  CHECK(std::string(r.report.label) == "a_tile");
  CHECK(r.report.dim == 1);
  CHECK(r.report.index[1] >= 17);
  CHECK(r.report.extent[1] == 17);
}

CUGUARD_CHECKED_TEST("gates narrower than 4*hidden are reported at the cell's read") {
  cuguard::device_buffer<float> gx(2 * 11, "gates_x"), gh(2 * 12, "gates_h"), c(2 * 3, "c"), h(2 * 3, "h");
  cuguard::launch(k::lstm_cell_kernel<float>, 1, 32, cuguard::checked_view<const float, 2>(gx.view({2, 11})),
                  cuguard::checked_view<const float, 2>(gh.view({2, 12})), c.view({2, 3}), h.view({2, 3}), 0);
  const auto r = device_test_support::checked();
  REQUIRE(r.thrown);
  CHECK(r.report.line == marker_line(r.report.file, "lstm_cell_gates"));
  CHECK(std::string(r.report.label) == "gates_x");
  CHECK(r.report.index[1] == 11);
  CHECK(r.report.extent[1] == 11);
}

TEST_CASE("lstm_forward names every shape that does not fit, and the caller's line") {
  lstm_tests::model m(5, 6, 2, true, 7); // 2 layers x 2 directions = 4 states
  cuguard::device_buffer<float> x(4 * 2 * 5, "x"), state(4 * 2 * 6, "state"), out(4 * 2 * 12, "out"),
      wrong(64 * 64, "wrong");
  int line = 0;
  auto forward = [&](auto input, auto h0, const std::vector<k::lstm_weights<float>>& weights) {
    try {
      line = __LINE__ + 1;
      k::lstm_forward(m.config, input, h0, state.view({4, 2, 6}), weights, out.view({4, 2, 12}), state.view({4, 2, 6}),
                      state.view({4, 2, 6}));
    } catch (const k::argument_error& e) {
      const std::string what = e.what();
      const std::string at = "\n  at " __FILE__ ":" + std::to_string(line) + " in ";
      const auto cut = what.find(at);
      return cut == std::string::npos ? "no caller line in: " + what : what.substr(0, cut);
    }
    return std::string("no argument_error");
  };
  CHECK(forward(x.view({4, 2, 5}), state.view({2, 2, 6}), m.weights) ==
        "lstm_forward: h0 has shape [2, 2, 6], expected [4, 2, 6] (num_layers*num_directions = 4, batch = 2 from "
        "input's dim 1)");
  CHECK(forward(x.view({4, 2, 4}), state.view({4, 2, 6}), m.weights) ==
        "lstm_forward: input has shape [4, 2, 4], read as [seq_len = 4, batch = 2, input_size = 4], expected "
        "input_size = 5 (lstm_forward takes [seq_len, batch, input_size], as torch.nn.LSTM without batch_first)");
  auto bad = m.weights;
  bad[3].w_ih = wrong.view({24, 6});
  CHECK(forward(x.view({4, 2, 5}), state.view({4, 2, 6}), bad) ==
        "lstm_forward: weight_ih_l1_reverse has shape [24, 6], expected [24, 12] (4*hidden_size = 24, "
        "num_directions*hidden_size = 12)");
  bad = m.weights;
  bad.pop_back();
  CHECK(forward(x.view({4, 2, 5}), state.view({4, 2, 6}), bad) ==
        "lstm_forward: weights has 3 entries, expected 4 (num_layers*num_directions = 4, batch = 2 from input's dim 1)");
  // A batch-first input [batch = 2, seq_len = 4, input_size]: named as such, not blamed on h0.
  CHECK(forward(x.view({2, 4, 5}), state.view({4, 2, 6}), m.weights) ==
        "lstm_forward: input has shape [2, 4, 5], read as [seq_len = 2, batch = 4, input_size = 5], but h0 has shape "
        "[4, 2, 6], batch 2: is input batch-first? lstm_forward takes [seq_len, batch, input_size], as torch.nn.LSTM "
        "without batch_first: pass input.transpose(0, 1).contiguous()");
  // The same memory permuted to [seq_len, batch, input_size] is not contiguous: refused up front,
  // not inside the library's reshape.
  CHECK(forward(x.view({2, 4, 5}).transpose(0, 1), state.view({4, 2, 6}), m.weights) ==
        "lstm_forward: input has shape [4, 2, 5], read as [seq_len = 4, batch = 2, input_size = 5], with strides "
        "[5, 20, 1]: expected a contiguous (row-major) tensor (the steps are read as one [seq_len * batch, "
        "input_size] matrix): pass input.contiguous()");
}
