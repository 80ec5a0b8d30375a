// SPDX-License-Identifier: Apache-2.0
// Every check that device code can fail, each under its own #line: lines.py compiles this with
// checks on and requires each number below (but those marked "no check") to be stored by the
// cold path, i.e. to appear as an immediate in the PTX. nvcc's device pass can evaluate a
// source_location default argument at the library's declaration instead of the caller's line
// (an enable_if-constrained template in the overload set does it); this catches it without a GPU.
#include <cuguard/cuguard.hpp>

#include <cstdint>

using cuguard::checked_view;

__global__ void lines(checked_view<float, 2> v, checked_view<float, 1> r1, checked_view<const std::int64_t, 1> idx,
                      float* raw, std::int64_t i, std::int64_t j, float* out) {
  const std::int64_t pos[2] = {i, j};
  const std::int64_t one[1] = {j};
  const int ext[1] = {static_cast<int>(i)};
  const int str[1] = {1};
#line 100001
  out[0] = v(i, j);
#line 100002
  out[1] = r1[i];
#line 100003
  const auto c = cuguard::index_from(idx, i);
#line 100004
  out[2] = v(c, j);
#line 100005
  out[3] = v.at(pos);
#line 100006
  out[4] = v.template load<4>(i, j).v[0];
#line 100007
  v.template store<4>({}, i, j);
#line 100008
  out[5] = v.slice(0, i, j)(0, 0);
#line 100009
  out[6] = v.select(0, i)[0];
#line 100010
  out[7] = v.transpose(0, 1)(0, 0);
#line 100011
  out[8] = r1.reshape({i, j})(0, 0);
#line 100012
  out[9] = cuguard::make_view(raw, {i}, "braced")[0];
#line 100013
  out[10] = cuguard::make_view(raw, ext, "array")[0];
#line 100014
  out[11] = cuguard::make_strided_view(raw, {i}, {j}, "strided")[0];
#line 100015
  out[12] = cuguard::make_strided_view(raw, ext, str, "strided array")[0];
#line 100016
  cuguard::expect_contiguous(v);
#line 100017
  cuguard::expect_shape(v, {i, j});
#line 100018
  cuguard::expect_finite(out[0], v, i, j);
#line 100019
  const auto d = cuguard::index_from(idx, one);
#line 100020
  const auto b = cuguard::bounded(i, j);
#line 100021
  out[13] = static_cast<float>(d.value() + b.value()); // no check
#line 100022
  out[14] = v.permute({1, 0})(0, 0);
#line 100023
  const checked_view<float, 1> direct(raw, {j}, "direct");
#line 100024
  out[15] = direct[i + 1]; // (direct[0] is in range: a thread that gets here had 0 <= i < j)
#line 100025
  const checked_view<const float, 2> constant = v; // no check
#line 100026
  out[16] = constant(j, i);
}
