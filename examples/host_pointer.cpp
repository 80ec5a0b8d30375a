// SPDX-License-Identifier: Apache-2.0
// A host (CPU) tensor handed to a kernel: reported before the kernel runs, not as an illegal
// address somewhere later.
#include <cuguard/cuguard.hpp>

#include <cstdio>
#include <string> // describe() returns a std::string
#include <vector>

__global__ void add_one(cuguard::checked_view<float, 1> x) {
  const auto i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < x.extent(0)) x[i] += 1.0f;
}

int main() {
  std::vector<float> cpu_tensor(100, 0.0f);
  const auto x = cuguard::make_view(cpu_tensor.data(), {100}, "cpu_tensor");
  std::printf("%s\n\n", cuguard::describe(x).c_str());
  try {
    cuguard::launch(add_one, 1, 128, x);
    cuguard::check();
  } catch (const cuguard::violation_error& e) {
    std::printf("%s\n", e.what());
  }
}
