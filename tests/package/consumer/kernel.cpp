// SPDX-License-Identifier: Apache-2.0
// A kernel program outside cuguard: under cuguard::emulation (g++) or cuguard::cuguard (nvcc, on
// a GPU; exit 77 without one), check() reports the kernel's own line with label, index and extent.
#include <cuguard/cuguard.hpp>
#include <cuguard/kernels/gather.hpp>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

__global__ void scale(cuguard::checked_view<float, 1> x, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) x[i] *= 2.0f;
}
constexpr unsigned scale_line = __LINE__ - 2;

int main() {
#if !CUGUARD_EMULATION
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("no CUDA device: skipped\n");
    return 77;
  }
#endif
  // A packaged kernel: rows 2 and 0 of a 3 x 2 table.
  cuguard::device_buffer<float> table(6, "table"), rows(4, "rows");
  cuguard::device_buffer<std::int64_t> ids(2, "ids");
  table.copy_from_host(std::vector<float>{0, 1, 2, 3, 4, 5});
  ids.copy_from_host(std::vector<std::int64_t>{2, 0});
  cuguard::kernels::index_select(table.view({3, 2}), 0, ids.view(), rows.view({2, 2}));
  cuguard::check();
  if (rows.to_host() != std::vector<float>{4, 5, 0, 1}) {
    std::printf("kernel consumer: 0 passed, 1 failed (index_select)\n");
    return 1;
  }

  // The kernel by pointer, then named at compile time (inlined into the function that runs it as
  // a thread, in an optimized emulated build): the same report.
  cuguard::device_buffer<float> x(100, "x");
  x.fill_bytes(0);
  int passed = 0;
  for (const bool named : {false, true}) {
    if (named)
      cuguard::launch<scale>(1, 128, x.view(), 101); // n one too large
    else
      cuguard::launch(scale, 1, 128, x.view(), 101); // n one too large
    try {
      cuguard::check();
      std::printf("kernel consumer: no report (%s)\n", named ? "launch<scale>" : "launch(scale)");
    } catch (const cuguard::violation_error& e) {
      std::printf("%s\n", e.what());
      const cuguard::violation& v = e.report();
      const bool ok = v.kind == cuguard::violation_kind::out_of_bounds && v.line == scale_line &&
                      std::strcmp(v.label, "x") == 0 && v.index[0] == 100 && v.extent[0] == 100 &&
                      v.thread[0] == 100;
      passed += ok ? 1 : 0;
    }
  }
  std::printf("kernel consumer: %d passed, %d failed\n", passed, 2 - passed);
  return passed == 2 ? 0 : 1;
}
