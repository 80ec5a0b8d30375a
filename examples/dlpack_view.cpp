// SPDX-License-Identifier: Apache-2.0
// A view of a DLPack tensor: the DLTensor another library (PyTorch's to_dlpack, CuPy, JAX) hands
// over, checked field by field. A tensor of float16 given where float32 is expected is refused
// with an error naming it; the right one becomes a checked view that a kernel can take.
#include <cuguard/cuguard.hpp>
#include <cuguard/dlpack.hpp>

#include <cstdint>
#include <cstdio>
#include <vector>

__global__ void scale(cuguard::checked_view<float, 2> x, float by) {
  for (std::int64_t i = threadIdx.x; i < x.size(); i += blockDim.x) x(i / x.extent(1), i % x.extent(1)) *= by;
}

int main() {
  cuguard::device_buffer<float> storage(6, "storage");
  storage.copy_from_host(std::vector<float>{1, 2, 3, 4, 5, 6});
  std::int64_t shape[2] = {2, 3};
  DLTensor tensor{};
  tensor.data = storage.data();
  tensor.device = {kDLCUDA, 0};
  tensor.ndim = 2;
  tensor.dtype = {static_cast<std::uint8_t>(kDLFloat), 16, 1}; // float16: not what the kernel takes
  tensor.shape = shape;
  try {
    cuguard::launch(scale, 1, 32, cuguard::make_view<float, 2>(tensor, "activations"), 2.0f);
  } catch (const cuguard::argument_error& e) {
    std::printf("%s\n", e.what());
  }
  tensor.dtype.bits = 32;
  cuguard::launch(scale, 1, 32, cuguard::make_view<float, 2>(tensor, "activations"), 2.0f);
  cuguard::check();
  std::printf("scaled: %g ... %g\n", static_cast<double>(storage.to_host()[0]), static_cast<double>(storage.to_host()[5]));
  return 0;
}
