// SPDX-License-Identifier: Apache-2.0
// Reached only through an ATen or c10 CUDA header that cuguard gives no CPU meaning under
// emulation (the compiler's "In file included from" lines above name it): a build error naming it,
// never a failure at run time.
#pragma once

#error "cuguard: this ATen/c10 CUDA header (named in the include chain above) has no CPU meaning under emulation; covered: <ATen/cuda/CUDAContext.h>, <ATen/cuda/Exceptions.h>, <ATen/cuda/CUDAEvent.h>, <ATen/cuda/CUDAUtils.h>, <ATen/cuda/Atomic.cuh>, <ATen/cuda/DeviceUtils.cuh>, <ATen/cuda/detail/KernelUtils.h>, <ATen/native/cuda/KernelUtils.cuh>, <c10/cuda/CUDAGuard.h>, <c10/cuda/CUDAStream.h>, <c10/cuda/CUDAException.h>, <c10/cuda/CUDAFunctions.h> (README: PyTorch extensions)"
