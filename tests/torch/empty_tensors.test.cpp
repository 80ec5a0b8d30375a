// SPDX-License-Identifier: Apache-2.0
// Views of the zero-size tensors Torch makes: every shape of rank 1 to 4 with an extent of 0,
// contiguous, transposed, permuted, expanded and sliced to nothing, through view() and the
// 32- and 64-bit accessors. None is reported; each keeps Torch's sizes and strides and has no
// element; make_view's row-major strides are Torch's; to_mdspan() keeps every one whose strides
// are at least 1; a slice or select moves the data where narrow and select put Torch's.
#include <cuguard/torch.hpp>
#include <doctest/doctest.h>

#include <cuguard/mdspan.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace {

using shape = std::vector<std::int64_t>;

/// Every shape of `rank` with extents from `values` and at least one extent of 0.
std::vector<shape> zero_size_shapes(std::size_t rank, const std::vector<std::int64_t>& values) {
  std::vector<shape> all{{}};
  for (std::size_t r = 0; r < rank; ++r) {
    std::vector<shape> longer;
    for (const shape& s : all)
      for (const std::int64_t e : values) {
        shape t = s;
        t.push_back(e);
        longer.push_back(t);
      }
    all = longer;
  }
  std::vector<shape> out;
  for (const shape& s : all)
    for (const std::int64_t e : s)
      if (e == 0) {
        out.push_back(s);
        break;
      }
  return out;
}

std::string text_of(c10::IntArrayRef values) {
  std::string s = "[";
  for (std::size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

/// The tensors of one zero-size shape Torch makes: contiguous, transposed, permuted, expanded
/// from a size-1 dimension, and narrowed to nothing from a tensor with elements.
std::vector<at::Tensor> zero_size_tensors(const shape& s) {
  const at::Tensor t = at::empty(s);
  std::vector<at::Tensor> out{t, t.transpose(0, static_cast<std::int64_t>(s.size()) - 1)};
  std::vector<std::int64_t> reversed(s.size());
  for (std::size_t r = 0; r < s.size(); ++r) reversed[r] = static_cast<std::int64_t>(s.size() - 1 - r);
  out.push_back(t.permute(reversed));
  // Shapes whose tensors with elements are small (Torch cannot make the large ones).
  const auto small = [](const shape& s) {
    std::int64_t reach = 1;
    for (const std::int64_t e : s) reach = e > 1 && reach <= 4096 ? reach * e : reach;
    return reach <= 4096;
  };
  for (std::size_t r = 0; r < s.size(); ++r) {
    if (s[r] != 0) continue;
    shape one = s;
    one[r] = 1;
    if (small(one)) out.push_back(at::empty(one).expand(s)); // an extent-1 dimension and a 0 elsewhere: strides 0
    shape full = s;
    full[r] = 3;
    if (small(full)) out.push_back(at::zeros(full).narrow(static_cast<std::int64_t>(r), 3, 0)); // the end of a dimension
  }
  return out;
}

template <std::size_t R>
void views_of_zero_size_tensors(const std::vector<std::int64_t>& values, bool strides_fit_int32) {
  for (const shape& s : zero_size_shapes(R, values))
    for (const at::Tensor& t : zero_size_tensors(s)) {
      INFO("sizes ", text_of(t.sizes()), " strides ", text_of(t.strides()));
      REQUIRE(t.numel() == 0);
      cuguard::checked_view<const float, R> v;
      REQUIRE_NOTHROW(v = cuguard::torch::view<const float, R>(t, "t"));
      CHECK(v.empty());
      bool positive = true;
      for (std::size_t r = 0; r < R; ++r) {
        CHECK(v.extent(r) == t.size(static_cast<std::int64_t>(r)));
        CHECK(v.stride(r) == t.stride(static_cast<std::int64_t>(r)));
        positive &= t.stride(static_cast<std::int64_t>(r)) >= 1;
      }
      // Torch's strides of an empty tensor are each at least 1 but where it expands, and
      // layout_stride takes those (its other precondition, distinct offsets, holds for them).
      if (positive) CHECK_NOTHROW((void)v.to_mdspan());
      // ATen's accessors take an empty tensor of any strides; a 32-bit one holds a stride past
      // 2^31 - 1 at the int32 maximum.
      CHECK_NOTHROW([&] {
        const auto a32 = cuguard::torch::packed_accessor32<const float, R>(t, "t");
        const auto a64 = cuguard::torch::packed_accessor64<const float, R>(t, "t");
        for (std::size_t r = 0; r < R; ++r) {
          const auto d = static_cast<std::int64_t>(r);
          CHECK(a32.size(d) == t.size(d));
          CHECK(a64.stride(d) == t.stride(d));
          if (strides_fit_int32) CHECK(a32.stride(d) == t.stride(d));
          else CHECK((a32.stride(d) == t.stride(d) || a32.stride(d) == INT32_MAX));
        }
      }());
      // The row-major strides of make_view are those of Torch's contiguous tensor of the shape.
      std::int64_t ext[R];
      for (std::size_t r = 0; r < R; ++r) ext[r] = t.size(static_cast<std::int64_t>(r));
      const auto m = cuguard::make_view(static_cast<const float*>(nullptr), ext, "m");
      const at::Tensor packed = at::empty(t.sizes());
      for (std::size_t r = 0; r < R; ++r) CHECK(m.stride(r) == packed.stride(static_cast<std::int64_t>(r)));
    }
}

/// For every dimension of a view over `base` with the shape and strides of `t`: each slice (of
/// any length) and each select leaves the data where narrow and select put Torch's, counted
/// from the same first element.
template <std::size_t R>
void slices_as_torch(const at::Tensor& t, float* base) {
  std::int64_t ext[R];
  std::int64_t str[R];
  for (std::size_t r = 0; r < R; ++r) ext[r] = t.size(static_cast<std::int64_t>(r)), str[r] = t.stride(static_cast<std::int64_t>(r));
  const auto v = cuguard::make_strided_view(base, ext, str, "v");
  for (std::size_t r = 0; r < R; ++r) {
    const auto d = static_cast<std::int64_t>(r);
    for (std::int64_t b = 0; b <= ext[r]; ++b) {
      for (std::int64_t e = b; e <= ext[r]; ++e) {
        INFO("sizes ", text_of(t.sizes()), " slice(", d, ", ", b, ", ", e, ")");
        CHECK(v.slice(r, b, e).data() - base == t.narrow(d, b, e - b).storage_offset());
      }
      if constexpr (R >= 2) {
        if (b == ext[r]) continue;
        INFO("sizes ", text_of(t.sizes()), " select(", d, ", ", b, ")");
        CHECK(v.select(r, b).data() - base == t.select(d, b).storage_offset());
      }
    }
  }
}

} // namespace

TEST_CASE("every zero-size tensor Torch makes is a view without elements, with Torch's sizes and strides") {
  views_of_zero_size_tensors<1>({0, 1, 3}, true);
  views_of_zero_size_tensors<2>({0, 1, 3}, true);
  views_of_zero_size_tensors<3>({0, 1, 2, 3}, true);
  views_of_zero_size_tensors<4>({0, 1, 3}, true);
  // Extents whose products pass 2^31 and 2^62 beside the 0: still nothing to reach.
  views_of_zero_size_tensors<3>({0, INT32_MAX}, false);
  views_of_zero_size_tensors<4>({0, 70000}, false);
}

TEST_CASE("a view of an empty tensor reports every access, and an extent its index type cannot hold") {
  const auto v = cuguard::torch::view<const float, 2>(at::empty({4, 0}), "batch");
  CHECK_THROWS_AS((void)v(0, 0), cuguard::violation_error);
  CHECK(v.slice(0, 1, 3).empty());
  CHECK(v.select(0, 3).extent(0) == 0);
  // An extent is what a kernel's loops count to: one past 2^31 - 1 is not held by a 32-bit view.
  CHECK_THROWS_AS((void)cuguard::make_view32(static_cast<const float*>(nullptr), {std::int64_t{0}, std::int64_t{1} << 32}, "wide"),
                  cuguard::violation_error);
}

TEST_CASE("a slice or select of a view, with elements or not, puts the data where narrow and select put Torch's") {
  at::Tensor storage = at::zeros({4096});
  float* const base = storage.data_ptr<float>();
  for (const shape& s : std::vector<shape>{{4, 3}, {3, 0}, {0, 5}, {2, 0, 3}, {1, 4, 0, 5}, {3, 2, 2}}) {
    const at::Tensor contiguous = storage.as_strided(s, at::empty(s).strides(), 0);
    if (s.size() == 2) {
      slices_as_torch<2>(contiguous, base);
      slices_as_torch<2>(contiguous.t(), base);
    } else if (s.size() == 3) {
      slices_as_torch<3>(contiguous, base);
      slices_as_torch<3>(contiguous.permute({2, 0, 1}), base);
    } else {
      slices_as_torch<4>(contiguous, base);
    }
  }
  slices_as_torch<1>(storage.as_strided({0}, {1}, 0), base);
  slices_as_torch<1>(storage.as_strided({5}, {7}, 0), base);
}
