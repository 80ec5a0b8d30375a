// SPDX-License-Identifier: Apache-2.0
// <c10/cuda/CUDAGraphsC10Utils.h> under emulation: no stream captured; from detail/adapters/torch_cuda_generator.hpp.
// cuguard.torch puts this folder ahead of Torch's headers in an emulated build.
#pragma once

#include <cuguard/detail/adapters/torch_cuda_generator.hpp> // IWYU pragma: export
