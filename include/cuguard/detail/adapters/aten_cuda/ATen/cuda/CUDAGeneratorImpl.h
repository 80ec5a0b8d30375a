// SPDX-License-Identifier: Apache-2.0
// <ATen/cuda/CUDAGeneratorImpl.h> under emulation: the emulated device's random generator (Philox seeds
// and offsets); from detail/adapters/torch_cuda_generator.hpp.
// cuguard.torch puts this folder ahead of Torch's headers in an emulated build.
#pragma once

#include <cuguard/detail/adapters/torch_cuda_generator.hpp> // IWYU pragma: export
