// SPDX-License-Identifier: Apache-2.0
// <ATen/cuda/CUDAContext.h> under emulation: its host API with its CPU meaning, from detail/adapters/torch_cuda_host.hpp;
// cuguard.torch puts this folder ahead of Torch's headers in an emulated build.
#pragma once

#include <cuguard/detail/adapters/torch_cuda_host.hpp> // IWYU pragma: export
