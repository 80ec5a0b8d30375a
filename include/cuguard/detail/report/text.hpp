// SPDX-License-Identifier: Apache-2.0
// detail::text: the growable text that reports and error messages are built in. It stands in for
// std::string so that the view layer and the launch path do not parse <string> (about a third of
// a small CUDA file's compile time under nvcc).
#pragma once

#include <cuguard/config.hpp>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <iosfwd> // declares std::string in libstdc++ and libc++ (<string> is the caller's: host_string)
#if !defined(__GLIBCXX__) && !defined(_LIBCPP_VERSION)
#  include <string> // the standard does not promise that <iosfwd> declares it
#endif
#include <type_traits>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// std::string, named through a template parameter: a function template of a header can return
/// one with <iosfwd> alone, and the string is complete where a caller uses it (a file that uses
/// a std::string includes <string>). What keeps <string> out of the headers of cuguard.hpp.
template <class Deferred>
using host_string = typename std::conditional<true, std::string, Deferred>::type;

/// A number written in hexadecimal by text's operator<< ("0x7f00").
struct hex {
  unsigned long long value;
};

/// A zero-terminated text on the heap, appended to with <<. It never throws: where memory runs
/// out, what could not be appended is left out (a report is cut short rather than lost).
class text {
 public:
  text() noexcept = default;
  text(const char* s) noexcept { *this << s; } // NOLINT: a text literal reads as a text
  text(const text& other) noexcept { append(other.c_str(), other.size_); }
  text(text&& other) noexcept : data_(other.data_), size_(other.size_), capacity_(other.capacity_) {
    other.data_ = nullptr;
    other.size_ = other.capacity_ = 0;
  }
  text& operator=(text other) noexcept { // the old text leaves with `other`
    char* d = data_;
    const std::size_t s = size_, c = capacity_;
    data_ = other.data_, size_ = other.size_, capacity_ = other.capacity_;
    other.data_ = d, other.size_ = s, other.capacity_ = c;
    return *this;
  }
  ~text() { std::free(data_); }

  const char* c_str() const noexcept { return data_ != nullptr ? data_ : ""; }
  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  char operator[](std::size_t i) const noexcept { return data_[i]; }
  /// Keeps the first `n` characters (n <= size()).
  void truncate(std::size_t n) noexcept {
    if (n < size_) data_[size_ = n] = '\0';
  }
  /// Drops the first `n` characters (n <= size()).
  void drop_front(std::size_t n) noexcept {
    if (n == 0 || n > size_) return;
    std::memmove(data_, data_ + n, size_ - n + 1);
    size_ -= n;
  }
  bool starts_with(const char* prefix) const noexcept {
    return std::strncmp(c_str(), prefix, std::strlen(prefix)) == 0;
  }

  void append(const char* s, std::size_t n) noexcept {
    if (n == 0 || !reserve(size_ + n)) return;
    std::memcpy(data_ + size_, s, n);
    size_ += n;
    data_[size_] = '\0';
  }
  text& operator<<(const char* s) noexcept {
    if (s != nullptr) append(s, std::strlen(s));
    return *this;
  }
  text& operator<<(const text& t) noexcept {
    append(t.c_str(), t.size_);
    return *this;
  }
  text& operator<<(char c) noexcept {
    append(&c, 1);
    return *this;
  }
  /// Integers in decimal (bool and char are not numbers here).
  template <class I, std::enable_if_t<std::is_integral<I>::value && !std::is_same<I, bool>::value &&
                                          !std::is_same<I, char>::value,
                                      int> = 0>
  text& operator<<(I value) noexcept {
    char digits[24];
    char* end = digits + sizeof digits;
    char* p = end;
    bool negative = false;
    if constexpr (std::is_signed<I>::value) negative = value < 0;
    // The magnitude as unsigned: -value would overflow for the most negative value.
    unsigned long long m = static_cast<unsigned long long>(value);
    if (negative) m = 0ull - m;
    do {
      *--p = static_cast<char>('0' + m % 10);
      m /= 10;
    } while (m != 0);
    if (negative) *--p = '-';
    append(p, static_cast<std::size_t>(end - p));
    return *this;
  }
  text& operator<<(hex h) noexcept {
    char digits[20];
    char* end = digits + sizeof digits;
    char* p = end;
    unsigned long long m = h.value;
    do {
      *--p = "0123456789abcdef"[m % 16];
      m /= 16;
    } while (m != 0);
    *this << "0x";
    append(p, static_cast<std::size_t>(end - p));
    return *this;
  }

 private:
  bool reserve(std::size_t n) noexcept {
    if (n + 1 <= capacity_) return true;
    std::size_t want = capacity_ < 64 ? 64 : capacity_ * 2;
    while (want < n + 1) want *= 2;
    char* grown = static_cast<char*>(std::realloc(data_, want));
    if (grown == nullptr) return false;
    data_ = grown;
    capacity_ = want;
    return true;
  }

  char* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
