// SPDX-License-Identifier: Apache-2.0
// A program outside cuguard: every violation kind is caught with this file's line, the label, the
// dimension, the index and the extent; with checks off the in-bounds accesses run unchecked.
#include <cuguard/cuguard.hpp>

#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

namespace {
int passed = 0;
int failed = 0;

void expect(bool ok, const char* what, int line) {
  if (ok) {
    ++passed;
  } else {
    ++failed;
    std::printf("FAILED: %s (consumer.cpp:%d)\n", what, line);
  }
}
#define EXPECT(cond) expect((cond), #cond, __LINE__)

bool ends_with(const char* text, const char* tail) {
  const std::size_t n = std::strlen(text), m = std::strlen(tail);
  return n >= m && std::strcmp(text + n - m, tail) == 0;
}

// Runs `body`, which must raise a violation of `kind` at `line` of this file.
template <class F>
cuguard::violation caught(F body, cuguard::violation_kind kind, int line, const char* what) {
  try {
    body();
  } catch (const cuguard::violation_error& e) {
    const cuguard::violation& v = e.report();
    expect(v.kind == kind, what, line);
    expect(ends_with(v.file, "consumer.cpp") && v.line == static_cast<unsigned>(line), what, line);
    std::printf("%s\n", e.what());
    return v;
  }
  expect(false, what, line);
  return cuguard::violation{};
}
} // namespace

int main() {
  alignas(16) float data[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  auto x = cuguard::make_view(data, {3, 4}, "x");
  EXPECT(x(2, 3) == 11.0f);

#if CUGUARD_ENABLE_CHECKS
  using kind = cuguard::violation_kind;
  cuguard::violation v{};

  v = caught([&] { (void)x(3, 0); }, kind::out_of_bounds, __LINE__, "out_of_bounds");
  EXPECT(std::strcmp(v.label, "x") == 0 && v.dim == 0 && v.index[0] == 3 && v.extent[0] == 3);

  std::int64_t idx[2] = {1, 7};
  auto mask_idx = cuguard::make_view(idx, {2}, "mask_idx");
  v = caught([&] { (void)x(0, cuguard::index_from(mask_idx, 1)); }, kind::out_of_bounds, __LINE__, "index origin");
  EXPECT(v.dim == 1 && v.index[1] == 7 && v.extent[1] == 4 && std::strcmp(v.origin_label, "mask_idx") == 0 &&
         v.origin_index[0] == 1);

  // clang-format off
  v = caught([&] { (void)cuguard::checked_view<float, 2, int>(data, {70000, 70000}, "big"); }, kind::index_overflow, __LINE__, "index_overflow");
  // clang-format on
  EXPECT(std::strcmp(v.label, "big") == 0 && v.extent[0] == 70000);

  v = caught([&] { (void)x.transpose(0, 1).reshape({12}); }, kind::non_contiguous, __LINE__, "non_contiguous");
  EXPECT(std::strcmp(v.label, "x") == 0 && v.extent[0] == 4 && v.stride[0] == 1);

  v = caught([&] { (void)x.load<2>(0, 1); }, kind::misaligned, __LINE__, "misaligned");
  EXPECT(v.index[0] == 0 && v.index[1] == 1 && v.bytes == 8);

  auto heap = std::make_unique<float[]>(4);
  cuguard::track(heap.get(), 4 * sizeof(float), "hidden");
  auto h = cuguard::make_view(heap.get(), {4}, "h0");
  cuguard::release(heap.get());
  v = caught([&] { (void)h[2]; }, kind::use_after_free, __LINE__, "use_after_free");
  EXPECT(std::strcmp(v.label, "h0") == 0 && v.index[0] == 2 && v.extent[0] == 4 && std::strcmp(v.alloc_label, "hidden") == 0);

  v = caught([&] { cuguard::expect_shape(x, {3, 5}); }, kind::shape_mismatch, __LINE__, "shape_mismatch");
  EXPECT(v.dim == 1 && v.extent[1] == 4 && v.expected[1] == 5);

  float* none = nullptr;
  v = caught([&] { (void)cuguard::make_view(none, {2}, "null_view"); }, kind::null_data, __LINE__, "null_data");
  EXPECT(std::strcmp(v.label, "null_view") == 0 && v.extent[0] == 2);

  v = caught([&] { (void)x.slice(5, 0, 1); }, kind::invalid_argument, __LINE__, "invalid_argument");
  EXPECT(v.dim == 5);
#else
  // Checks off: nothing but the pointer, extents and strides; no check runs.
  EXPECT(sizeof(x) == sizeof(float*) + 4 * sizeof(std::int64_t));
  cuguard::expect_shape(x, {3, 5});
  EXPECT(x.transpose(0, 1)(3, 2) == 11.0f);
#endif
  std::printf("consumer: %d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
