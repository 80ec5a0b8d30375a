// SPDX-License-Identifier: Apache-2.0
// ATen's and c10's CUDA host API with its CPU meaning, for an extension's .cu files built
// unchanged under emulation: the headers of detail/adapters/aten_cuda/ (<ATen/cuda/CUDAContext.h>,
// <c10/cuda/CUDAGuard.h>, ...), which cuguard.torch puts ahead of Torch's own on the include path
// of an emulated build, include this one. One device (index 0), whose memory is the host's: a
// stream is an emulated stream, a guard changes nothing, a CUDA error raises as ATen's checks
// raise it (c10::Error: RuntimeError in Python). The names are in an inline namespace of their
// own, so that a CUDA build of Torch loaded beside them keeps its own.
#pragma once

#include <cuguard/config.hpp>
#if !CUGUARD_IMPL_EMULATION
#  error "ATen's CUDA headers stand-ins (cuguard/detail/adapters/aten_cuda) are for builds under emulation only"
#endif
#include <cuguard/emulated_runtime.hpp>
#include <cuguard/torch.hpp>

#include <ATen/ATen.h>
#include <ATen/TensorUtils.h>
#include <c10/core/Device.h>
#include <c10/util/Exception.h>
#include <c10/util/Optional.h>

#include <cfloat> // (FLT_MIN, DBL_MAX: nvcc's builds get them through c10's <thrust/complex.h>)
#include <cstdint>
#include <initializer_list>
#include <string>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace torch_adapter {
/// A CPU tensor's memory is the emulated device's: cudaMemcpy and cudaMemset take it.
inline const bool tensors_are_device_memory = (emulated_runtime::unlisted_memory_is_device = true);
} // namespace torch_adapter
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

namespace c10 {
namespace cuda {
inline namespace cuguard_emulation {

/// CUDA's errors as ATen raises them (C10_CUDA_CHECK): a c10::Error, RuntimeError in Python.
class CUDAError : public c10::Error {
  using c10::Error::Error;
};

/// C10_CUDA_CHECK's test: a CUDAError naming `e` and the caller where it is an error.
inline void check_cuda(cudaError_t e, const char* function, const char* file, std::uint32_t line) {
  if (e != cudaSuccess) throw CUDAError({function, file, line}, std::string("CUDA error: ") + cudaGetErrorString(e));
}

/// An emulated stream, as c10::cuda::CUDAStream wraps a CUDA stream.
class CUDAStream {
 public:
  explicit CUDAStream(cudaStream_t stream = nullptr) : stream_(stream) {}
  cudaStream_t stream() const { return stream_; }
  operator cudaStream_t() const { return stream_; } // NOLINT: ATen's conversion
  c10::DeviceIndex device_index() const { return 0; }
  /// The device whose memory its kernels use: the host's under emulation.
  c10::Device device() const { return c10::Device(c10::kCPU); }
  c10::StreamId id() const { return 0; }
  bool query() const { return cudaStreamQuery(stream_) == cudaSuccess; }
  void synchronize() const { check_cuda(cudaStreamSynchronize(stream_), __func__, __FILE__, __LINE__); }
  int priority() const { return 0; }
  bool operator==(const CUDAStream& other) const { return stream_ == other.stream_; }
  bool operator!=(const CUDAStream& other) const { return stream_ != other.stream_; }

 private:
  cudaStream_t stream_;
};

/// The stream cuguard's launches run on (torch::current_stream()), as a CUDAStream.
inline CUDAStream getCurrentCUDAStream(c10::DeviceIndex = -1) {
  return CUDAStream(::cuguard::detail::torch_adapter::current_stream());
}
inline CUDAStream getDefaultCUDAStream(c10::DeviceIndex = -1) { return CUDAStream(nullptr); }
inline CUDAStream getStreamFromPool(bool = false, c10::DeviceIndex = -1) { return CUDAStream(nullptr); }
inline CUDAStream getStreamFromPool(int, c10::DeviceIndex = -1) { return CUDAStream(nullptr); }
inline void setCurrentCUDAStream(CUDAStream s) { ::cuguard::detail::torch_adapter::current_stream_cell() = s.stream(); }

/// Sets the current stream for its scope, as c10::cuda::CUDAStreamGuard.
class CUDAStreamGuard {
 public:
  explicit CUDAStreamGuard(CUDAStream s) : original_(getCurrentCUDAStream()), current_(s) { setCurrentCUDAStream(s); }
  CUDAStreamGuard(const CUDAStreamGuard&) = delete;
  CUDAStreamGuard& operator=(const CUDAStreamGuard&) = delete;
  ~CUDAStreamGuard() { setCurrentCUDAStream(original_); }
  void reset_stream(CUDAStream s) {
    current_ = s;
    setCurrentCUDAStream(s);
  }
  CUDAStream original_stream() const { return original_; }
  CUDAStream current_stream() const { return current_; }

 private:
  CUDAStream original_, current_;
};
/// The same, the stream optional.
class OptionalCUDAStreamGuard {
 public:
  OptionalCUDAStreamGuard() : original_(getCurrentCUDAStream()) {}
  explicit OptionalCUDAStreamGuard(CUDAStream s) : OptionalCUDAStreamGuard() { setCurrentCUDAStream(s); }
  explicit OptionalCUDAStreamGuard(c10::optional<CUDAStream> s) : OptionalCUDAStreamGuard() {
    if (s.has_value()) setCurrentCUDAStream(*s);
  }
  OptionalCUDAStreamGuard(const OptionalCUDAStreamGuard&) = delete;
  OptionalCUDAStreamGuard& operator=(const OptionalCUDAStreamGuard&) = delete;
  ~OptionalCUDAStreamGuard() { setCurrentCUDAStream(original_); }
  void reset_stream(CUDAStream s) { setCurrentCUDAStream(s); }
  void reset() { setCurrentCUDAStream(original_); }

 private:
  CUDAStream original_;
};

// The device: one, index 0; choosing one changes nothing (a CPU tensor's device() or
// get_device(), -1, is accepted).
inline c10::DeviceIndex device_count() noexcept { return 1; }
inline c10::DeviceIndex device_count_ensure_non_zero() { return 1; }
inline c10::DeviceIndex current_device() { return 0; }
inline void set_device(c10::DeviceIndex) {}
inline void device_synchronize() { check_cuda(cudaDeviceSynchronize(), __func__, __FILE__, __LINE__); }
inline cudaError_t GetDevice(c10::DeviceIndex* device) {
  *device = 0;
  return cudaSuccess;
}
inline cudaError_t SetDevice(c10::DeviceIndex) { return cudaSuccess; }
inline cudaError_t MaybeSetDevice(c10::DeviceIndex) { return cudaSuccess; }
inline c10::DeviceIndex ExchangeDevice(c10::DeviceIndex) { return 0; }
inline c10::DeviceIndex MaybeExchangeDevice(c10::DeviceIndex) { return 0; }

/// What a device guard does under emulation: nothing (one device, the host's memory).
struct device_guard_members {
  device_guard_members() = default;
  device_guard_members(const device_guard_members&) = delete;
  device_guard_members& operator=(const device_guard_members&) = delete;
  void set_device(c10::Device) {}
  void reset_device(c10::Device) {}
  void set_index(c10::DeviceIndex) {}
};
/// A device guard: at::cuda::CUDAGuard's constructors and members, changing nothing.
class CUDAGuard : public device_guard_members {
 public:
  explicit CUDAGuard(c10::DeviceIndex) {}
  explicit CUDAGuard(c10::Device) {}
  c10::Device original_device() const { return c10::Device(c10::kCPU); }
  c10::Device current_device() const { return c10::Device(c10::kCPU); }
};
/// The same, the device optional.
class OptionalCUDAGuard : public device_guard_members {
 public:
  OptionalCUDAGuard() = default;
  explicit OptionalCUDAGuard(c10::optional<c10::Device>) {}
  explicit OptionalCUDAGuard(c10::optional<c10::DeviceIndex>) {}
  explicit OptionalCUDAGuard(c10::Device) {}
  explicit OptionalCUDAGuard(c10::DeviceIndex) {}
  void reset() {}
  c10::optional<c10::Device> original_device() const { return c10::Device(c10::kCPU); }
  c10::optional<c10::Device> current_device() const { return c10::Device(c10::kCPU); }
};

} // namespace cuguard_emulation
} // namespace cuda
} // namespace c10

namespace at {
namespace cuda {
inline namespace cuguard_emulation {
using c10::cuda::CUDAGuard;
using c10::cuda::CUDAStream;
using c10::cuda::CUDAStreamGuard;
using c10::cuda::current_device;
using c10::cuda::device_count;
using c10::cuda::device_synchronize;
using c10::cuda::getCurrentCUDAStream;
using c10::cuda::getDefaultCUDAStream;
using c10::cuda::getStreamFromPool;
using c10::cuda::OptionalCUDAGuard;
using c10::cuda::OptionalCUDAStreamGuard;
using c10::cuda::set_device;
using c10::cuda::setCurrentCUDAStream;

inline bool is_available() { return true; }
inline std::int64_t getNumGPUs() { return 1; }
inline int warp_size() { return 32; }
/// The emulated device's properties (cudaGetDeviceProperties: what emulation models).
inline cudaDeviceProp* getDeviceProperties(std::int64_t = -1) {
  static cudaDeviceProp properties = [] {
    cudaDeviceProp p{};
    cudaGetDeviceProperties(&p, 0);
    return p;
  }();
  return &properties;
}
inline cudaDeviceProp* getCurrentDeviceProperties() { return getDeviceProperties(); }
/// True if every tensor of `ts` is on the current device, as ATen's (<ATen/cuda/CUDAUtils.h>):
/// here the emulated device's memory, a CPU tensor's.
inline bool check_device(at::ArrayRef<at::Tensor> ts) {
  for (const at::Tensor& t : ts)
    if (!t.device().is_cpu()) return false;
  return true;
}
/// ceil(a / b) for integers, as ATen's.
template <typename T>
__host__ __device__ constexpr T ATenCeilDiv(T a, T b) {
  return (a + b - 1) / b;
}
/// An emulated event, as at::cuda::CUDAEvent wraps a CUDA event (created at its first record).
class CUDAEvent {
 public:
  CUDAEvent() = default;
  explicit CUDAEvent(unsigned flags) : flags_(flags) {}
  CUDAEvent(const CUDAEvent&) = delete;
  CUDAEvent& operator=(const CUDAEvent&) = delete;
  ~CUDAEvent() {
    if (event_ != nullptr) cudaEventDestroy(event_);
  }
  bool isCreated() const { return event_ != nullptr; }
  cudaEvent_t event() const { return event_; }
  operator cudaEvent_t() const { return event_; } // NOLINT: ATen's conversion
  void record() { record(getCurrentCUDAStream()); }
  void recordOnce(const CUDAStream& s) {
    if (event_ == nullptr) record(s);
  }
  void record(const CUDAStream& s) {
    if (event_ == nullptr) c10::cuda::check_cuda(cudaEventCreateWithFlags(&event_, flags_), __func__, __FILE__, __LINE__);
    c10::cuda::check_cuda(cudaEventRecord(event_, s.stream()), __func__, __FILE__, __LINE__);
  }
  void block(const CUDAStream& s) {
    if (event_ != nullptr) c10::cuda::check_cuda(cudaStreamWaitEvent(s.stream(), event_, 0), __func__, __FILE__, __LINE__);
  }
  bool query() const { return event_ == nullptr || cudaEventQuery(event_) == cudaSuccess; }
  void synchronize() const {
    if (event_ != nullptr) c10::cuda::check_cuda(cudaEventSynchronize(event_), __func__, __FILE__, __LINE__);
  }
  float elapsed_time(const CUDAEvent& other) const {
    float ms = 0;
    c10::cuda::check_cuda(cudaEventElapsedTime(&ms, event_, other.event_), __func__, __FILE__, __LINE__);
    return ms;
  }

 private:
  unsigned flags_ = cudaEventDisableTiming;
  cudaEvent_t event_ = nullptr;
};

} // namespace cuguard_emulation
} // namespace cuda

/// at::checkAllSameGPU(op, {{t, "t", 1}, ...}) under emulation: every tensor a CPU tensor
/// (cuguard::torch::checkAllSameGPU); a braced list picks this overload over ATen's (an ArrayRef
/// or a vector, ATen's: it rejects CPU tensors).
inline void checkAllSameGPU(at::CheckedFrom op, std::initializer_list<at::TensorArg> tensors) {
  ::cuguard::torch::checkAllSameGPU(op, tensors);
}
/// at::checkSameGPU(op, t1, t2) under emulation: both CPU tensors. (TensorArg lvalues, as
/// extensions pass them, pick this overload over ATen's, whose const references libtorch exports.)
inline void checkSameGPU(at::CheckedFrom op, at::TensorArg& t1, at::TensorArg& t2) {
  ::cuguard::torch::checkAllSameGPU(op, {t1, t2});
}
} // namespace at

/// ATen's and c10's checks of a CUDA call: a c10::Error (RuntimeError) naming the error.
#define C10_CUDA_CHECK(EXPR) ::c10::cuda::check_cuda((EXPR), __func__, __FILE__, static_cast<std::uint32_t>(__LINE__))
#define C10_CUDA_CHECK_WARN(EXPR)                                                            \
  do {                                                                                       \
    const cudaError_t cuguard_impl_error = (EXPR);                                           \
    if (cuguard_impl_error != cudaSuccess)                                                   \
      TORCH_WARN("CUDA warning: ", cudaGetErrorString(cuguard_impl_error));                  \
  } while (0)
#define C10_CUDA_IGNORE_ERROR(EXPR) \
  do {                              \
    (void)(EXPR);                   \
    (void)cudaGetLastError();       \
  } while (0)
#define C10_CUDA_CLEAR_ERROR() (void)cudaGetLastError()
#define C10_CUDA_KERNEL_LAUNCH_CHECK() C10_CUDA_CHECK(cudaGetLastError())
#define TORCH_CUDA_KERNEL_LAUNCH_CHECK() C10_CUDA_KERNEL_LAUNCH_CHECK()
#define AT_CUDA_CHECK(EXPR) C10_CUDA_CHECK(EXPR)
