// SPDX-License-Identifier: Apache-2.0
// <THC/THCDeviceUtils.cuh> under emulation: Torch's old THC header (which now only includes
// <ATen/cuda/DeviceUtils.cuh>; a CPU build of Torch has none), its device helpers as CUDA operations
// from detail/adapters/torch_cuda_device.hpp; cuguard.torch puts this folder ahead of Torch's
// headers in an emulated build.
#pragma once

#include <cuguard/detail/adapters/torch_cuda_host.hpp> // IWYU pragma: export
#include <cuguard/detail/adapters/torch_cuda_device.hpp> // IWYU pragma: export
