// SPDX-License-Identifier: Apache-2.0
// The consumer program compiled by nvcc.
#include "consumer.cpp"
