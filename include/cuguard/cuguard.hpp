// SPDX-License-Identifier: Apache-2.0
// The one header users include: what a kernel file needs, and no code of its own. Parsed as
// lightly as the view layer and the launch (no <string>, <map>, <mutex> or <ostream>: a small
// CUDA file compiles at most 1.5x as long as on raw pointers; bench/compile). Three headers
// it leaves out, for what few files need: <cuguard/mdspan.hpp> (cuda::std::mdspan interop:
// libcu++'s mdspan alone doubles a small file's compile time), <cuguard/torch.hpp> and
// <cuguard/dlpack.hpp> (the adapters, with cuguard::argument_error).
#pragma once

#include <cuguard/config.hpp>
#if CUGUARD_IMPL_EMULATION
#  include <cuguard/emulation.hpp> // before anything that may include a CUDA header
#endif
#include <cuguard/version.hpp>
#include <cuguard/violation.hpp>
#include <cuguard/report.hpp>
#include <cuguard/violation_error.hpp>
#include <cuguard/type_name.hpp>
#include <cuguard/lifetime.hpp>
#include <cuguard/checked_index.hpp>
#include <cuguard/vec.hpp>
#include <cuguard/checked_view.hpp>
#include <cuguard/make_view.hpp>
#include <cuguard/expect.hpp>
#include <cuguard/describe.hpp>
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
