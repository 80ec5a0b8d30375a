// SPDX-License-Identifier: Apache-2.0
// ATen's CUDA generator and CUDA graph helpers with their CPU meaning, for an extension's .cu
// files built unchanged under emulation (<ATen/cuda/CUDAGeneratorImpl.h>,
// <ATen/cuda/CUDAGraphsUtils.cuh>, <c10/cuda/CUDAGraphsC10Utils.h> of detail/adapters/aten_cuda/
// include this one): the emulated device's default generator hands out Philox seeds and offsets
// as CUDA's does (philox_cuda_state, for kernels that draw with cuRAND's Philox: dropout), and no
// stream is ever being captured. Torch's own PhiloxCudaState and its unpack (pure headers) are
// used as they are. The names are in an inline namespace of their own, so that a CUDA build of
// Torch loaded beside them keeps its own.
#pragma once

#include <cuguard/detail/adapters/torch_cuda_host.hpp>

#include <ATen/core/Generator.h>
#include <ATen/cuda/detail/PhiloxCudaStateRaw.cuh>
#include <ATen/cuda/detail/UnpackRaw.cuh>
#include <c10/core/GeneratorImpl.h>
#include <c10/util/Exception.h>

#include <cstdint>
#include <random>
#include <utility>

namespace at {
inline namespace cuguard_emulation {

/// The emulated device's random generator: a seed and a Philox offset, as CUDAGeneratorImpl keeps
/// them (its state cannot be saved or restored under emulation).
struct CUDAGeneratorImpl : public c10::GeneratorImpl {
  explicit CUDAGeneratorImpl(c10::DeviceIndex index = 0)
      : c10::GeneratorImpl(c10::Device(c10::DeviceType::CUDA, index), c10::DispatchKeySet(c10::DispatchKey::CUDA)) {}

  static c10::DeviceType device_type() { return c10::DeviceType::CUDA; }

  void set_current_seed(std::uint64_t seed) override {
    seed_ = seed;
    offset_ = 0;
  }
  std::uint64_t current_seed() const override { return seed_; }
  std::uint64_t seed() override {
    std::random_device device;
    const std::uint64_t s = (static_cast<std::uint64_t>(device()) << 32) | device();
    set_current_seed(s);
    return s;
  }
  // (no `override`: Torch 1.13's GeneratorImpl has no offset)
  virtual void set_offset(std::uint64_t offset) { offset_ = offset; } // NOLINT(modernize-use-override)
  virtual std::uint64_t get_offset() const { return offset_; }        // NOLINT(modernize-use-override)
  void set_state(const c10::TensorImpl&) override {
    TORCH_CHECK(false, "cuguard: the emulated CUDA generator's state cannot be set (set its seed)");
  }
  c10::intrusive_ptr<c10::TensorImpl> get_state() const override {
    TORCH_CHECK(false, "cuguard: the emulated CUDA generator's state cannot be read (read its seed)");
  }

  /// The seed and offset (seed, offset) for a kernel that draws `increment` numbers per thread
  /// (rounded up to a multiple of 4, as CUDA's generator rounds it); the offset moves past them.
  std::pair<std::uint64_t, std::uint64_t> philox_engine_inputs(std::uint64_t increment) {
    const std::pair<std::uint64_t, std::uint64_t> inputs(seed_, offset_);
    offset_ += ((increment + 3) / 4) * 4;
    return inputs;
  }
  /// The same as ATen's PhiloxCudaState.
  PhiloxCudaState philox_cuda_state(std::uint64_t increment) {
    const auto inputs = philox_engine_inputs(increment);
    return PhiloxCudaState(inputs.first, inputs.second);
  }

 private:
  CUDAGeneratorImpl* clone_impl() const override {
    auto* copy = new CUDAGeneratorImpl(device().index());
    copy->seed_ = seed_;
    copy->offset_ = offset_;
    return copy;
  }

  std::uint64_t seed_ = 67280421310721ull; // (c10's default seed)
  std::uint64_t offset_ = 0;
};

} // namespace cuguard_emulation
} // namespace at

namespace at::cuda::detail { // (ATen's, not cuguard's)
inline namespace cuguard_emulation {
/// The emulated device's default generator (one device).
inline const at::Generator& getDefaultCUDAGenerator(c10::DeviceIndex = -1) {
  static const at::Generator generator = at::make_generator<at::CUDAGeneratorImpl>();
  return generator;
}
/// A new generator of the emulated device.
inline at::Generator createCUDAGenerator(c10::DeviceIndex index = -1) {
  return at::make_generator<at::CUDAGeneratorImpl>(index < 0 ? 0 : index);
}
} // namespace cuguard_emulation
} // namespace at::cuda::detail

namespace c10 {
namespace cuda {
inline namespace cuguard_emulation {
/// No stream of the emulated device is ever captured into a CUDA graph.
enum class CaptureStatus : int { None = 0, Active = 1, Invalidated = 2 };
using CaptureId_t = unsigned long long;
inline CaptureStatus currentStreamCaptureStatusMayInitCtx() { return CaptureStatus::None; }
/// A capture mode that nothing reads under emulation.
struct CUDAStreamCaptureModeGuard {
  explicit CUDAStreamCaptureModeGuard(cudaStreamCaptureMode) {}
  CUDAStreamCaptureModeGuard(const CUDAStreamCaptureModeGuard&) = delete;
  CUDAStreamCaptureModeGuard& operator=(const CUDAStreamCaptureModeGuard&) = delete;
};
} // namespace cuguard_emulation
} // namespace cuda
} // namespace c10

namespace at {
namespace cuda {
inline namespace cuguard_emulation {
using c10::cuda::CaptureId_t;
using c10::cuda::CaptureStatus;
inline CaptureStatus currentStreamCaptureStatus() { return CaptureStatus::None; }
inline void assertNotCapturing(const std::string&) {}
inline void errorIfCapturingCudnnBenchmark(const std::string&) {}
} // namespace cuguard_emulation
} // namespace cuda
} // namespace at
