// SPDX-License-Identifier: Apache-2.0
// The API in brief (docs/views.md shows these lines): every call of the public API a kernel file
// uses, once, in a program that runs (under emulation, and on the GPU in its .gpu twin). Prints
// what it checked and exits 0; a call that stopped doing what the page says fails it.
#include <cuguard/cuguard.hpp>
#include <cuguard/mdspan.hpp>

#include <cstdint>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

namespace brief {

__global__ void k(cuguard::ptr<const float> x, cuguard::ptr<float> out) {
  const int i = static_cast<int>(threadIdx.x);
  out[i] = x[i] + *x;
  atomicAdd(out + i, __ldg(x + i));
}

__global__ void scale(cuguard::checked_view<float, 2> v, float by) { v(blockIdx.x, threadIdx.x) *= by; }

__global__ void scale_shared(cuguard::checked_view<float, 2> v, float by) {
  float* tile = cuguard::dynamic_shared<float>(); // dynamic shared memory, under nvcc and emulation
  tile[threadIdx.x] = by;
  v(blockIdx.x, threadIdx.x) *= tile[threadIdx.x];
}

int run() {
  const std::int64_t rows = 4, cols = 8;
  std::vector<float> host(rows * cols, 1.0f);
  float* ptr = host.data();
  cuguard::checked_view<float, 2> v = cuguard::make_view(ptr, {rows, cols}, "label"); // contiguous, row-major
  auto s = cuguard::make_strided_view(ptr, {rows, cols}, {1, rows}, "label");         // column-major
  auto v32 = cuguard::make_view32(ptr, {rows, cols}, "label"); // 32-bit Index (as packed_accessor32)
  v(1, 2) = 3.0f;
  bool ok = v.extent(1) == cols && v.stride(0) == cols && v.size() == rows * cols && v.data() == ptr;
  ok = ok && std::string(v.label()) == "label" && v.is_contiguous() && !s.is_contiguous() && v32.extent(0) == rows;
  auto part = v.slice(1, 2, 6).select(0, 1);                   // columns 2..5 of row 1
  auto t = v.permute({1, 0}).transpose(0, 1).reshape({rows * cols});
  ok = ok && part(0) == 3.0f && t(cols + 2) == 3.0f;
  auto q = v.load<4>(1, 0);                                    // checks bounds, inner stride 1 and alignment
  v.store<4>(q, 2, 4);
  cuguard::checked_view<const float, 2> c = v;                 // views of T convert to views of const T
  auto m = v.to_mdspan();                                      // the unchecked cuda::std::mdspan (explicit)
  auto w = cuguard::make_view(m, "label");                     // and back
  ok = ok && c(2, 6) == 3.0f && m(2, 6) == 3.0f && w.extent(0) == rows;

  std::vector<std::int64_t> picks = {3, 1};
  auto indices = cuguard::make_view(picks.data(), {2}, "indices");
  auto row = cuguard::index_from(indices, 0);                  // a checked_index: the value and its origin
  ok = ok && indices[1] == 1;                                  // operator[]: rank 1
  auto col = cuguard::bounded(std::int64_t{5}, cols);          // checked once, here
  ok = ok && v(row, col) == 1.0f;
  cuguard::expect_contiguous(v);
  cuguard::expect_shape(v, {4, 8});
  cuguard::expect_finite(v(row, col), v, 3, 5);                // before storing a value that may have overflowed
  std::cout << v << '\n';                                      // 'label' float[4, 8], strides [8, 1], contiguous, ...
  std::string d = cuguard::describe(v);                        // the same line
  ok = ok && d.find("'label' float[4, 8]") == 0;

  cuguard::device_buffer<float> buf(rows * cols, "label");     // owning; buf.view({..}), copy_from_host, to_host
  buf.copy_from_host(host);
  cuguard::device_buffer<float> out(rows * cols, "out");
  out.fill_bytes(0);
  cuguard::launch(k, 1, 8, buf.data(), out.data());            // a T* on the host: its allocation's bounds
  cuguard::launch(k, 1, 8, cuguard::make_ptr(buf.view({rows * cols})), cuguard::make_ptr(out.view({rows * cols})));
  cuguard::launch(scale, rows, cols, buf.view({rows, cols}), 2.0f); // numbered, named, arguments checked first
  cuguard::launch({dim3(rows), dim3(cols), cols * sizeof(float), nullptr}, scale_shared, buf.view({rows, cols}), 2.0f);
  cuguard::launch<scale>(rows, cols, buf.view({rows, cols}), 0.5f); // the kernel named at compile time
  cuguard::check();                                            // violation_error / cuda_error
  cuguard::poll();                                             // the same if a violation was recorded
  ok = ok && buf.to_host()[0] == 2.0f;
  buf.release(nullptr);                                        // stream-ordered; later uses report use_after_free
  std::vector<float> mine(4);
  cuguard::track(mine.data(), mine.size() * sizeof(float), "mine"); // lifetime for memory cuguard did not allocate
  cuguard::release(mine.data());
  try {
    cuguard::make_view(ptr, {rows, cols}, "label")(rows, 0) = 0;
  } catch (const cuguard::violation_error& e) {
    ok = ok && e.report().kind == cuguard::violation_kind::out_of_bounds && e.report().line > 0 && e.what()[0] == 'c';
  }
  return ok ? 0 : 1;
}

} // namespace brief

int main() {
  const int rc = brief::run();
  std::printf("%s\n", rc == 0 ? "every call did what docs/views.md says" : "a call did not do what docs/views.md says");
  return rc;
}
