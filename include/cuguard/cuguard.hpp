// SPDX-License-Identifier: Apache-2.0
// The one header users include: what a kernel file needs, and no code of its own. Under nvcc it
// parses the view layer, the launch and the runtime, and of the heavy standard headers <vector>
// alone (device_buffer::to_host): no <string>, <stdexcept>, <map>, <mutex>, iostreams or mdspan
// (tests/static/layers/layers.py; compile times in bench/results/compile-time.md). Four headers it
// leaves out, for what few files need: <cuguard/mdspan.hpp> (cuda::std::mdspan interop: libcu++'s
// mdspan alone doubles a small file's compile time), <cuguard/argument_error.hpp>, and the
// adapters that throw it, <cuguard/torch.hpp> and <cuguard/dlpack.hpp>.
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
#include <cuguard/ptr.hpp>
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
