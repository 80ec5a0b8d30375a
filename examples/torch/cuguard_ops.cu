// SPDX-License-Identifier: Apache-2.0
// cuguard_ops.cpp for nvcc: torch.utils.cpp_extension compiles .cu sources with nvcc (build.py,
// with a GPU).
#include "cuguard_ops.cpp"
