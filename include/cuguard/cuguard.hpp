// SPDX-License-Identifier: Apache-2.0
// The one header users include: every public cuguard header, no code of its own.
#pragma once

#include <cuguard/config.hpp>
#if CUGUARD_IMPL_EMULATION
#  include <cuguard/emulation.hpp> // before anything that may include a CUDA header
#endif
#include <cuguard/version.hpp>
#include <cuguard/violation.hpp>
#include <cuguard/report.hpp>
#include <cuguard/violation_error.hpp>
#include <cuguard/argument_error.hpp>
#include <cuguard/type_name.hpp>
#include <cuguard/lifetime.hpp>
#include <cuguard/checked_index.hpp>
#include <cuguard/vec.hpp>
#include <cuguard/checked_view.hpp>
#include <cuguard/make_view.hpp>
#include <cuguard/expect.hpp>
#include <cuguard/describe.hpp>
#include <cuguard/mdspan.hpp>
#if defined(__CUDACC__) || CUGUARD_IMPL_EMULATION
#  include <cuguard/shared_memory.hpp>
#  include <cuguard/cuda_error.hpp>
#  include <cuguard/launch.hpp>
#  include <cuguard/check.hpp>
#  include <cuguard/device_buffer.hpp>
#  include <cuguard/runtime.hpp>
#endif
#if CUGUARD_IMPL_EMULATION
#  include <cuguard/emulated_runtime.hpp> // cudaMalloc, streams, events, ... on CPU threads
#endif
