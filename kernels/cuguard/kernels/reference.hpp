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

} // namespace cuguard::kernels::reference
