// SPDX-License-Identifier: Apache-2.0
// The seed scenario: an embedding lookup, a masked gather whose index list holds one index past
// the end, then an LSTM. Without cuguard the bad read is silent (or, when it faults, surfaces at a
// later, innocent CUDA call); with checks on it is reported at the access, with the tensor, the
// bad index and where the index came from.
#include <cuguard/cuguard.hpp>
#include <cuguard/kernels/gather.hpp>
#include <cuguard/kernels/lstm.hpp>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <random>
#include <vector>

namespace k = cuguard::kernels;

namespace {

constexpr std::int64_t vocab = 1024, embed = 64, hidden = 64, seq_len = 8, batch = 4, tokens = seq_len * batch;

std::vector<float> random_values(std::size_t n, unsigned seed, float scale) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

template <class T>
std::unique_ptr<cuguard::device_buffer<T>> upload(const std::vector<T>& values, const char* label) {
  auto buf = std::make_unique<cuguard::device_buffer<T>>(values.size(), label);
  buf->copy_from_host(values);
  return buf;
}

/// The pipeline: returns the sum of |output| (a checksum of the LSTM's output).
double run(const std::vector<std::int64_t>& mask_values) {
  // Model and batch.
  auto table = upload(random_values(vocab * embed, 1, 1.0f), "embeddings");
  std::vector<std::int64_t> token_ids(tokens);
  for (std::int64_t i = 0; i < tokens; ++i) token_ids[static_cast<std::size_t>(i)] = (i * 37) % vocab;
  auto ids = upload(token_ids, "token_ids");
  auto mask_idx = upload(mask_values, "mask_idx");
  const k::lstm_config config{embed, hidden, 2, true};
  std::vector<std::unique_ptr<cuguard::device_buffer<float>>> params;
  std::vector<k::lstm_weights<float>> weights;
  for (int l = 0; l < config.num_layers * config.directions(); ++l) {
    const std::int64_t in = l < config.directions() ? embed : config.directions() * hidden;
    const auto u = static_cast<unsigned>(10 * l);
    params.push_back(upload(random_values(static_cast<std::size_t>(4 * hidden * in), u + 2, 0.1f), "weight_ih"));
    params.push_back(upload(random_values(static_cast<std::size_t>(4 * hidden * hidden), u + 3, 0.1f), "weight_hh"));
    params.push_back(upload(random_values(static_cast<std::size_t>(4 * hidden), u + 4, 0.1f), "bias_ih"));
    params.push_back(upload(random_values(static_cast<std::size_t>(4 * hidden), u + 5, 0.1f), "bias_hh"));
    const std::size_t p = params.size() - 4;
    weights.push_back({params[p]->view({4 * hidden, in}), params[p + 1]->view({4 * hidden, hidden}),
                       params[p + 2]->view({4 * hidden}), params[p + 3]->view({4 * hidden})});
  }

  // 1. Embedding lookup: [tokens] -> [tokens, embed].
  cuguard::device_buffer<float> embedded(tokens * embed, "embedded");
  k::index_select(table->view({vocab, embed}), 0, ids->view(), embedded.view({tokens, embed}));

  // 2. Masked gather: keep the tokens that mask_idx lists (the bug: one index past the end).
  cuguard::device_buffer<float> packed(tokens * embed, "packed");
  k::index_select(embedded.view({tokens, embed}), 0, mask_idx->view(), packed.view({tokens, embed}));

  // 3. The LSTM allocates its hidden and cell state, then runs.
  const std::int64_t states = config.num_layers * config.directions();
  cuguard::device_buffer<float> h0(states * batch * hidden, "h0"), c0(states * batch * hidden, "c0");
  h0.fill_bytes(0);
  c0.fill_bytes(0);
  cuguard::device_buffer<float> output(seq_len * batch * config.directions() * hidden, "output");
  cuguard::device_buffer<float> h_n(states * batch * hidden, "h_n"), c_n(states * batch * hidden, "c_n");
  k::lstm_forward(config, packed.view({seq_len, batch, embed}), h0.view({states, batch, hidden}),
                  c0.view({states, batch, hidden}), weights, output.view({seq_len, batch, 2 * hidden}),
                  h_n.view({states, batch, hidden}), c_n.view({states, batch, hidden}));
  cuguard::check();
  const std::vector<float> out = output.to_host();
  return std::accumulate(out.begin(), out.end(), 0.0, [](double s, float x) { return s + std::fabs(x); });
}

} // namespace

int main() {
  std::printf("cuguard demo: embedding lookup -> masked gather -> LSTM, on %s, checks %s%s\n",
              cuguard::emulated ? "CPU threads (emulation)" : "the GPU", cuguard::checks_enabled ? "on" : "off",
              std::getenv("CUGUARD_LAUNCH_BLOCKING") ? ", CUGUARD_LAUNCH_BLOCKING=1" : "");
  std::vector<std::int64_t> good(tokens);
  std::iota(good.begin(), good.end(), 0);
  std::vector<std::int64_t> bad = good;
  bad[17] = tokens; // one past the end of `embedded`
  try {
    const double expected = run(good);
    const double got = run(bad);
    std::printf("output checksum with the bad index: %.6f; without it: %.6f\n", got, expected);
    std::printf(got == expected ? "no difference: the bad read returned the value it should have had\n"
                                : "the output is silently wrong, and no error was raised anywhere\n");
  } catch (const cuguard::violation_error& e) {
    std::printf("%s\n", e.what());
  } catch (const cuguard::cuda_error& e) {
    std::printf("%s\n", e.what());
    return 1;
  }
  return 0;
}
