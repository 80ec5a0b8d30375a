// SPDX-License-Identifier: Apache-2.0
// The host side of device checking, whole: launch(), check(), device_buffer and cuda_error.
// Needs nvcc, or CUGUARD_EMULATION=1 with a host compiler. Each part has a header of its own.
#pragma once

#include <cuguard/check.hpp>
#include <cuguard/cuda_error.hpp>
#include <cuguard/device_buffer.hpp>
#include <cuguard/launch.hpp>
