// SPDX-License-Identifier: Apache-2.0
// Helpers of the kernel suites: random tensors, device upload, comparison with the references,
// and the source line a kernel's report must name.
#pragma once

#include "device_support.hpp"

#include <cuguard/cuguard.hpp>
#include <cuguard/kernels/reference.hpp>

#include <cmath>
#include <cstdint>
#include <fstream>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace kernel_test_support {

using cuguard::kernels::reference::tensor;

/// A tensor of uniform values in [-1, 1) from a fixed seed.
inline tensor random_tensor(std::vector<std::int64_t> shape, unsigned seed) {
  tensor t(std::move(shape));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  for (double& x : t.data) x = dist(gen);
  return t;
}

/// `n` integers in [0, bound) from a fixed seed.
inline std::vector<std::int64_t> random_indices(std::size_t n, std::int64_t bound, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_int_distribution<std::int64_t> dist(0, bound - 1);
  std::vector<std::int64_t> v(n);
  for (auto& x : v) x = dist(gen);
  return v;
}

template <class T, class Source>
cuguard::device_buffer<T> upload(const Source& values, const char* label) {
  cuguard::device_buffer<T> buf(values.size() == 0 ? 1 : values.size(), label);
  std::vector<T> host;
  host.reserve(values.size());
  for (const auto& v : values) {
    if constexpr (std::is_arithmetic<T>::value)
      host.push_back(static_cast<T>(v));
    else
      host.push_back(static_cast<T>(static_cast<float>(v))); // __half, __nv_bfloat16
  }
  if (!host.empty()) buf.copy_from_host(host);
  return buf;
}
template <class T>
cuguard::device_buffer<T> upload(const tensor& t, const char* label) {
  return upload<T>(t.data, label);
}

/// Largest |got - want| / max(1, |want|).
template <class T>
double max_relative_error(const std::vector<T>& got, const std::vector<double>& want) {
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    double value;
    if constexpr (std::is_arithmetic<T>::value)
      value = static_cast<double>(got[i]);
    else
      value = static_cast<double>(static_cast<float>(got[i])); // __half, __nv_bfloat16
    const double err = std::fabs(value - want[i]) / std::max(1.0, std::fabs(want[i]));
    worst = std::max(worst, err != err ? 1e30 : err);
  }
  return got.size() < want.size() ? 1e30 : worst;
}

/// The line of `file` that holds `marker` (0 if none): kernels mark their checked accesses with
/// "cuguard-kernel-access: NAME" so that tests know which line a report must name.
inline unsigned marker_line(const std::string& file, const std::string& marker) {
  std::ifstream in(file);
  std::string line;
  for (unsigned n = 1; std::getline(in, line); ++n)
    if (line.find("cuguard-kernel-access: " + marker) != std::string::npos &&
        line.find("cuguard-kernel-access: " + marker + "_") == std::string::npos)
      return n;
  return 0;
}

} // namespace kernel_test_support
