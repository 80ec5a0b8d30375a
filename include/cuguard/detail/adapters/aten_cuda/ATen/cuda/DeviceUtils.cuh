// SPDX-License-Identifier: Apache-2.0
// <ATen/cuda/DeviceUtils.cuh> under emulation: its device helpers as CUDA operations, from detail/adapters/torch_cuda_device.hpp;
// cuguard.torch puts this folder ahead of Torch's headers in an emulated build.
#pragma once

#include <cuguard/detail/adapters/torch_cuda_host.hpp> // IWYU pragma: export
#include <cuguard/detail/adapters/torch_cuda_device.hpp> // IWYU pragma: export
