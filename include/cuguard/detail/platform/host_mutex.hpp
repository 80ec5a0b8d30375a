// SPDX-License-Identifier: Apache-2.0
// A plain host mutex and its guard: what the runtime locks, without <mutex> (which brings
// <chrono>, <ratio> and <system_error> into every translation unit that launches a kernel).
#pragma once

#include <cuguard/config.hpp>

#include <pthread.h>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// A non-recursive mutex, constant-initialized (usable from static initializers).
class host_mutex {
 public:
  host_mutex() = default;
  host_mutex(const host_mutex&) = delete;
  host_mutex& operator=(const host_mutex&) = delete;
  void lock() noexcept { pthread_mutex_lock(&m_); }
  void unlock() noexcept { pthread_mutex_unlock(&m_); }

 private:
  pthread_mutex_t m_ = PTHREAD_MUTEX_INITIALIZER;
};

/// Holds `m` locked for its scope.
class host_lock {
 public:
  explicit host_lock(host_mutex& m) noexcept : m_(m) { m_.lock(); }
  host_lock(const host_lock&) = delete;
  host_lock& operator=(const host_lock&) = delete;
  ~host_lock() { m_.unlock(); }

 private:
  host_mutex& m_;
};

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
