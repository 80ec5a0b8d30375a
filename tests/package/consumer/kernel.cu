// SPDX-License-Identifier: Apache-2.0
// The kernel consumer compiled by nvcc.
#include "kernel.cpp"
