// SPDX-License-Identifier: Apache-2.0
// Padded batches: a [batch, max_len, dim] tensor whose row n holds lengths[n] valid steps and then
// padding (pytorch3d's padded layout, a packed sequence padded back). A read past a row's length
// stays inside the tensor: the view of the whole batch cannot see it. The recipe: the kernel
// narrows each row to its length (select, then slice to lengths[n]), so a read past it is reported
// with the row's own extent. The kernel below sums max_len steps of every row: row 1 has 2.
#include <cuguard/cuguard.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

__global__ void sum_steps(cuguard::checked_view<const float, 3> x, cuguard::checked_view<const std::int64_t, 1> lengths,
                          cuguard::checked_view<float, 2> out, int steps) {
  const int n = static_cast<int>(blockIdx.x), d = static_cast<int>(threadIdx.x);
  const auto seq = x.select(0, n).slice(0, 0, lengths[n]); // row n: its lengths[n] valid steps
  float sum = 0;
  for (int t = 0; t < steps; ++t) sum += seq(t, d);        // the bug: steps is max_len, not lengths[n]
  out(n, d) = sum;
}

int main() {
  const std::int64_t batch = 3, max_len = 4, dim = 8;
  const std::vector<std::int64_t> row_lengths = {4, 2, 3};
  cuguard::device_buffer<float> x(batch * max_len * dim, "x");
  cuguard::device_buffer<std::int64_t> lengths(batch, "lengths");
  cuguard::device_buffer<float> out(batch * dim, "out");
  x.fill_bytes(0);
  lengths.copy_from_host(row_lengths);
  cuguard::launch(sum_steps, batch, dim, x.view({batch, max_len, dim}), lengths.view(), out.view({batch, dim}),
                  static_cast<int>(max_len));
  try {
    cuguard::check();
  } catch (const cuguard::violation_error& e) {
    std::printf("%s\n", e.what());
    return 0;
  }
  std::printf("no violation reported%s\n", cuguard::checks_enabled ? " (unexpected)" : ": checks are off");
  return cuguard::checks_enabled ? 1 : 0;
}
