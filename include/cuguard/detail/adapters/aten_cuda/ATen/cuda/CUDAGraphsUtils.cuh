// SPDX-License-Identifier: Apache-2.0
// <ATen/cuda/CUDAGraphsUtils.cuh> under emulation: no stream captured, the generator, Philox's unpack; from detail/adapters/torch_cuda_generator.hpp.
// cuguard.torch puts this folder ahead of Torch's headers in an emulated build.
#pragma once

#include <cuguard/detail/adapters/torch_cuda_generator.hpp> // IWYU pragma: export
