// SPDX-License-Identifier: Apache-2.0
// cuguard::torch from outside the project: a tensor of the wrong dtype is a ValueError naming it.
#include <cuguard/torch.hpp>

#include <cstdio>
#include <string>

int main() {
  const at::Tensor weight = at::zeros({2, 3}, at::kHalf);
  try {
    (void)CUGUARD_TORCH_VIEW(weight, const float, 2);
  } catch (const c10::ValueError& e) {
    const std::string what = e.what_without_backtrace();
    std::printf("%s\n", what.c_str());
    return what.rfind("'weight' has dtype Half, expected Float", 0) == 0 ? 0 : 1;
  }
  return 1;
}
