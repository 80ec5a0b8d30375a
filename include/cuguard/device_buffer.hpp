// SPDX-License-Identifier: Apache-2.0
// cuguard::device_buffer: an owning, labelled, tracked device allocation and its views.
#pragma once

#include <cuguard/checked_view.hpp>
#include <cuguard/config.hpp>
#include <cuguard/cuda_error.hpp>
#include <cuguard/detail/platform/throw_std.hpp>
#include <cuguard/detail/report/text.hpp>
#include <cuguard/detail/runtime/backend.hpp>
#include <cuguard/detail/runtime/device_runtime.hpp>
#include <cuguard/lifetime.hpp>

#include <cuda/std/source_location>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

CUGUARD_IMPL_BEGIN_NAMESPACE

/// An owning, labelled device allocation of `count` elements of T. Its views carry a lifetime
/// token: after release (or destruction) every access through them reports use_after_free,
/// naming where the buffer was allocated and released. Release is stream-ordered: kernels
/// queued on the stream before the release are not flagged.
template <class T>
class device_buffer {
  static_assert(std::is_trivially_copyable<T>::value, "device_buffer: T must be trivially copyable");

 public:
  device_buffer() = default;

  /// Allocates `count` elements (uninitialized) on the current device, in the order of `stream`.
  /// The buffer keeps a copy of `label`. A count whose size in bytes does not fit an int64 throws
  /// cuda_error (cudaErrorMemoryAllocation) before anything is allocated.
  device_buffer(std::size_t count, const char* label, cudaStream_t stream = nullptr,
                cuda::std::source_location where = cuda::std::source_location::current())
      : size_(count), label_(detail::keep_label(label)), stream_(stream) {
    constexpr std::size_t max_count = static_cast<std::size_t>(INT64_MAX) / sizeof(T);
    if (count > max_count)
      throw cuda_error(2, (detail::text("cuguard: cannot allocate device_buffer '")
                           << label_ << "' of " << count << " elements of " << sizeof(T)
                           << " bytes: its size exceeds " << INT64_MAX << " bytes")
                              .c_str());
    void* p = nullptr;
    if (const detail::backend::status s = detail::backend::allocate_device(&p, bytes(), stream))
      detail::throw_cuda(s, detail::text("cannot allocate device_buffer '") << label_ << "' of " << bytes() << " bytes");
    data_ = static_cast<T*>(p);
    device_ = detail::backend::current_device();
    track(data_, bytes(), label_, memory_space::device, device_, where);
  }

  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& other) noexcept { swap(other); }
  device_buffer& operator=(device_buffer&& other) noexcept {
    if (this != &other) {
      reset_quietly();
      swap(other);
    }
    return *this;
  }
  ~device_buffer() { reset_quietly(); }

  /// Releases the memory in the order of `stream` (default: the allocation's stream).
  void release(cuda::std::source_location where = cuda::std::source_location::current()) {
    release(stream_, where);
  }
  void release(cudaStream_t stream, cuda::std::source_location where = cuda::std::source_location::current()) {
    if (data_ == nullptr) return;
#if CUGUARD_IMPL_CHECKS
    detail::registry().release(data_, where, stream);
#else
    (void)where;
#endif
    detail::backend::free_device(data_, stream);
    data_ = nullptr;
    size_ = 0;
  }

  T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t bytes() const noexcept { return size_ * sizeof(T); }
  const char* label() const noexcept { return label_; }
  int device() const noexcept { return device_; }

  /// A checked view of the buffer with the given extents (their product may be smaller than size()).
  template <std::size_t Rank>
  checked_view<T, Rank> view(const detail::integer (&extents)[Rank],
                             cuda::std::source_location where = cuda::std::source_location::current()) const {
    return checked_view<T, Rank>(data_, extents, label_, where);
  }
  template <class I, std::size_t Rank, std::enable_if_t<std::is_integral<I>::value, int> = 0>
  checked_view<T, Rank> view(const I (&extents)[Rank],
                             cuda::std::source_location where = cuda::std::source_location::current()) const {
    return checked_view<T, Rank>(data_, detail::to_integers(extents).v, label_, where);
  }
  /// The whole buffer as a rank-1 view.
  checked_view<T, 1> view(cuda::std::source_location where = cuda::std::source_location::current()) const {
    return checked_view<T, 1>(data_, {static_cast<std::int64_t>(size_)}, label_, where);
  }

  /// Copies `count` elements from host memory into the buffer (synchronous).
  void copy_from_host(const T* src, std::size_t count) {
    check_count(count, "copy_from_host");
    if (const detail::backend::status s = detail::backend::copy(data_, src, count * sizeof(T), stream_))
      detail::throw_cuda(s, detail::text("copy to device_buffer '") << label_ << "' failed");
  }
  /// Copies a whole vector into the buffer: it must hold exactly size() elements (else
  /// std::out_of_range, naming the buffer and both sizes).
  void copy_from_host(const std::vector<T>& src) {
    check_exact(src.size(), "copy_from_host");
    copy_from_host(src.data(), src.size());
  }

  /// Copies `count` elements of the buffer into host memory (synchronous).
  void copy_to_host(T* dst, std::size_t count) const {
    check_count(count, "copy_to_host");
    if (const detail::backend::status s = detail::backend::copy(dst, data_, count * sizeof(T), stream_))
      detail::throw_cuda(s, detail::text("copy from device_buffer '") << label_ << "' failed");
  }
  std::vector<T> to_host() const {
    std::vector<T> out(size_);
    copy_to_host(out.data(), size_);
    return out;
  }

  /// Sets every byte to `value` (asynchronous, in the allocation's stream).
  void fill_bytes(int value) { detail::backend::set_async(data_, value, bytes(), stream_); }

 private:
  void check_count(std::size_t count, const char* what) const {
    if (count > size_)
      detail::throw_out_of_range((detail::text("cuguard::device_buffer::")
                                  << what << ": " << count << " elements do not fit '" << label_ << "' of " << size_
                                  << " elements")
                                     .c_str());
  }
  void check_exact(std::size_t count, const char* what) const {
    if (count != size_)
      detail::throw_out_of_range((detail::text("cuguard::device_buffer::")
                                  << what << ": a vector of " << count << " elements for '" << label_ << "' of "
                                  << size_ << " elements; pass a pointer and a count to copy part of it")
                                     .c_str());
  }
  void reset_quietly() noexcept {
    try {
      release(stream_, cuda::std::source_location::current("the destructor of cuguard::device_buffer", "", 0, 0));
    } catch (...) {
    }
  }
  void swap(device_buffer& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(size_, o.size_);
    std::swap(label_, o.label_);
    std::swap(stream_, o.stream_);
    std::swap(device_, o.device_);
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  const char* label_ = "";
  cudaStream_t stream_ = nullptr;
  int device_ = -1;
};

CUGUARD_IMPL_END_NAMESPACE
