// SPDX-License-Identifier: Apache-2.0
// The extension's source as cuguard.torch.load builds it (build.py): with nvcc on a GPU, and
// unchanged by the host compiler under emulation elsewhere. Its code is cuguard_ops.cpp.
#include "cuguard_ops.cpp"
