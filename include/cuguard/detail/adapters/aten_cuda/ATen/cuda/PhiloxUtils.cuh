// SPDX-License-Identifier: Apache-2.0
// <ATen/cuda/PhiloxUtils.cuh> under emulation: PhiloxCudaState and its unpack (Torch's own), with the
// generator; from detail/adapters/torch_cuda_generator.hpp.
// cuguard.torch puts this folder ahead of Torch's headers in an emulated build.
#pragma once

#include <cuguard/detail/adapters/torch_cuda_generator.hpp> // IWYU pragma: export
