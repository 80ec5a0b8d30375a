// SPDX-License-Identifier: Apache-2.0
// CPU references in double precision for the kernels: the definition each kernel is tested against.
#pragma once

#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace cuguard::kernels::reference {

/// A dense row-major tensor of doubles.
struct tensor {
  std::vector<std::int64_t> shape;
  std::vector<double> data;

  tensor() = default;
  explicit tensor(std::vector<std::int64_t> s, double fill = 0.0) : shape(std::move(s)), data(count(shape), fill) {}

  static std::size_t count(const std::vector<std::int64_t>& s) {
    return static_cast<std::size_t>(std::accumulate(s.begin(), s.end(), std::int64_t{1}, std::multiplies<>()));
  }
  std::size_t offset(const std::vector<std::int64_t>& pos) const {
    std::int64_t off = 0;
    for (std::size_t r = 0; r < shape.size(); ++r) {
      if (pos[r] < 0 || pos[r] >= shape[r]) throw std::out_of_range("reference::tensor: position out of range");
      off = off * shape[r] + pos[r];
    }
    return static_cast<std::size_t>(off);
  }
  double& at(const std::vector<std::int64_t>& pos) { return data[offset(pos)]; }
  double at(const std::vector<std::int64_t>& pos) const { return data[offset(pos)]; }
  std::vector<std::int64_t> unravel(std::int64_t linear) const {
    std::vector<std::int64_t> pos(shape.size());
    for (std::size_t r = shape.size(); r-- > 0;) {
      pos[r] = linear % shape[r];
      linear /= shape[r];
    }
    return pos;
  }
};

inline tensor index_select(const tensor& input, int dim, const std::vector<std::int64_t>& index) {
  std::vector<std::int64_t> shape = input.shape;
  shape[static_cast<std::size_t>(dim)] = static_cast<std::int64_t>(index.size());
  tensor out(shape);
  for (std::size_t i = 0; i < out.data.size(); ++i) {
    auto pos = out.unravel(static_cast<std::int64_t>(i));
    pos[static_cast<std::size_t>(dim)] = index[static_cast<std::size_t>(pos[static_cast<std::size_t>(dim)])];
    out.data[i] = input.at(pos);
  }
  return out;
}

/// index holds integers stored as doubles, in the shape of the result.
inline tensor gather(const tensor& input, int dim, const tensor& index) {
  tensor out(index.shape);
  for (std::size_t i = 0; i < out.data.size(); ++i) {
    auto pos = out.unravel(static_cast<std::int64_t>(i));
    pos[static_cast<std::size_t>(dim)] = static_cast<std::int64_t>(index.data[i]);
    out.data[i] = input.at(pos);
  }
  return out;
}

inline tensor scatter_add(tensor out, int dim, const tensor& index, const tensor& src) {
  for (std::size_t i = 0; i < index.data.size(); ++i) {
    const auto at_index = index.unravel(static_cast<std::int64_t>(i));
    auto pos = at_index;
    pos[static_cast<std::size_t>(dim)] = static_cast<std::int64_t>(index.data[i]);
    out.at(pos) += src.at(at_index);
  }
  return out;
}

inline tensor masked_rows(const tensor& input, const std::vector<int>& mask) {
  const std::int64_t width = input.shape[1];
  std::vector<double> rows;
  for (std::int64_t i = 0; i < input.shape[0]; ++i)
    if (mask[static_cast<std::size_t>(i)] != 0)
      for (std::int64_t j = 0; j < width; ++j) rows.push_back(input.at({i, j}));
  tensor out({static_cast<std::int64_t>(rows.size()) / (width == 0 ? 1 : width), width});
  out.data = rows;
  return out;
}

/// The parameters of one LSTM layer and direction (PyTorch's shapes and gate order i, f, g, o).
struct lstm_layer {
  tensor w_ih; ///< [4H, input]
  tensor w_hh; ///< [4H, H]
  tensor b_ih; ///< [4H]
  tensor b_hh; ///< [4H]
};

/// torch.nn.LSTM's forward in double precision: input [T, B, I], h0/c0 [L*D, B, H], layers at
/// [l * D + d]; returns output [T, B, D*H] and fills h_n, c_n.
inline tensor lstm(const tensor& input, const tensor& h0, const tensor& c0, const std::vector<lstm_layer>& layers,
                   int num_layers, bool bidirectional, tensor& h_n, tensor& c_n) {
  const int dirs = bidirectional ? 2 : 1;
  const std::int64_t seq = input.shape[0], batch = input.shape[1], hidden = h0.shape[2];
  h_n = tensor(h0.shape);
  c_n = tensor(c0.shape);
  tensor layer_in = input;
  for (int l = 0; l < num_layers; ++l) {
    tensor out({seq, batch, dirs * hidden});
    const std::int64_t in = layer_in.shape[2];
    for (int d = 0; d < dirs; ++d) {
      const lstm_layer& p = layers[static_cast<std::size_t>(l * dirs + d)];
      const std::int64_t state = l * dirs + d;
      std::vector<double> h(static_cast<std::size_t>(batch * hidden)), c(h.size());
      for (std::int64_t b = 0; b < batch; ++b)
        for (std::int64_t j = 0; j < hidden; ++j) {
          h[static_cast<std::size_t>(b * hidden + j)] = h0.at({state, b, j});
          c[static_cast<std::size_t>(b * hidden + j)] = c0.at({state, b, j});
        }
      for (std::int64_t s = 0; s < seq; ++s) {
        const std::int64_t t = d == 0 ? s : seq - 1 - s;
        std::vector<double> h_next(h.size());
        for (std::int64_t b = 0; b < batch; ++b) {
          for (std::int64_t j = 0; j < hidden; ++j) {
            double g[4];
            for (int gate = 0; gate < 4; ++gate) {
              const std::int64_t row = gate * hidden + j;
              double acc = p.b_ih.at({row}) + p.b_hh.at({row});
              for (std::int64_t k = 0; k < in; ++k) acc += p.w_ih.at({row, k}) * layer_in.at({t, b, k});
              for (std::int64_t k = 0; k < hidden; ++k) acc += p.w_hh.at({row, k}) * h[static_cast<std::size_t>(b * hidden + k)];
              g[gate] = acc;
            }
            auto sigmoid = [](double x) { return 1.0 / (1.0 + std::exp(-x)); };
            const std::size_t at = static_cast<std::size_t>(b * hidden + j);
            c[at] = sigmoid(g[1]) * c[at] + sigmoid(g[0]) * std::tanh(g[2]);
            h_next[at] = sigmoid(g[3]) * std::tanh(c[at]);
            out.at({t, b, d * hidden + j}) = h_next[at];
          }
        }
        h = h_next;
      }
      for (std::int64_t b = 0; b < batch; ++b)
        for (std::int64_t j = 0; j < hidden; ++j) {
          h_n.at({state, b, j}) = h[static_cast<std::size_t>(b * hidden + j)];
          c_n.at({state, b, j}) = c[static_cast<std::size_t>(b * hidden + j)];
        }
    }
    layer_in = out;
  }
  return layer_in;
}

} // namespace cuguard::kernels::reference
