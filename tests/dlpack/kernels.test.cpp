// SPDX-License-Identifier: Apache-2.0
// DLPack tensors and the memory they name (under emulation and on a GPU): a device_buffer is
// kDLCUDA memory, a std::vector kDLCPU memory; a tensor that says otherwise is refused, and a
// view of a kDLCUDA tensor goes to a kernel.
#include "device_support.hpp"

#include <cuguard/cuguard.hpp>
#include <doctest/doctest.h>

#include <string>

#if __has_include(<dlpack/dlpack.h>)
#include <cuguard/dlpack.hpp>

#include <cstdint>
#include <vector>

namespace dlpack_device_tests {

__global__ void double_all(cuguard::checked_view<float, 1> x) {
  for (std::int64_t i = threadIdx.x; i < x.extent(0); i += blockDim.x) x(i) *= 2.0f;
}

/// A 1-D float32 tensor of `n` elements over `data` on `device`.
DLTensor tensor_of(void* data, std::int64_t& n, DLDeviceType device) {
  DLTensor t{};
  t.data = data;
  t.device = {device, 0};
  t.ndim = 1;
  t.dtype = {static_cast<std::uint8_t>(kDLFloat), 32, 1};
  t.shape = &n;
  return t;
}

std::string what_of(const std::exception& e) {
  const std::string what = e.what();
  return what.substr(0, what.find('\n'));
}

} // namespace dlpack_device_tests

TEST_CASE("a view of a kDLCUDA tensor over a device_buffer runs in a kernel") {
  using namespace dlpack_device_tests;
  cuguard::device_buffer<float> buf(8, "buf");
  buf.copy_from_host(std::vector<float>{0, 1, 2, 3, 4, 5, 6, 7});
  std::int64_t n = 8;
  const DLTensor t = tensor_of(buf.data(), n, kDLCUDA);
  cuguard::launch(double_all, 1, 32, cuguard::make_view<float, 1>(t, "t"));
  cuguard::check();
  CHECK(buf.to_host()[7] == 14.0f);
}

CUGUARD_CHECKED_TEST("a DLPack tensor whose device is not where its data is is refused") {
  using namespace dlpack_device_tests;
  cuguard::device_buffer<float> buf(8, "buf");
  std::vector<float> host(8);
  std::int64_t n = 8;
  std::string said;
  try {
    (void)cuguard::make_view<float, 1>(tensor_of(buf.data(), n, kDLCPU), "t");
  } catch (const cuguard::argument_error& e) {
    said = what_of(e);
  }
  CHECK(said == "'t' says kDLCPU device 0, but its data is device memory");
  // (A GPU whose driver lets it read pageable memory (HMM) treats it as managed: emulation only.)
  if (!cuguard::emulated) return;
  said.clear();
  try {
    (void)cuguard::make_view<float, 1>(tensor_of(host.data(), n, kDLCUDA), "t");
  } catch (const cuguard::argument_error& e) {
    said = what_of(e);
  }
  CHECK(said == "'t' says kDLCUDA device 0, but its data is pageable host memory");
}

#else
TEST_CASE("DLPack views of device memory" * doctest::skip(true)) {
  MESSAGE("dlpack/dlpack.h not found (Debian: libdlpack-dev): DLPack views not tested");
}
#endif
