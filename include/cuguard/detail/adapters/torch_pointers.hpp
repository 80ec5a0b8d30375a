// SPDX-License-Identifier: Apache-2.0
// Checked pointers bounded and named by the tensor they came from (cuguard.torch's builds with
// checks on, cuguard/pointers.py): the build's copy of an extension's host code calls
// `x.data_ptr<T>()` as `named_tensor(x, "x").data_ptr<T>()`, which notes the tensor's elements;
// a cuguard::ptr converted in host code from a pointer into them (a launch's argument, a struct's
// member) takes them as its bounds (host_hooks::narrow), not the whole storage, and a report of
// an access through it names the tensor, and the other tensor noted that the address lies in.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/fail/host_hooks.hpp>
#include <cuguard/detail/platform/host_mutex.hpp>
#include <cuguard/violation.hpp>

#include <ATen/core/TensorBase.h>
#include <c10/core/StorageImpl.h>
#include <c10/util/intrusive_ptr.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace torch_adapter {

/// A tensor whose data pointer host code took: the bytes of its elements (its first to the last
/// its sizes and strides reach), its data pointer, its name as the source spelled it, and its
/// storage (weakly: a noted tensor keeps nothing alive) with that storage's data when noted.
struct noted_tensor {
  std::uintptr_t begin = 0, end = 0, first = 0;
  const char* name = nullptr;
  const char* member = nullptr; // (`tl.addresses[0][i] = t.data_ptr();`: "tl.addresses[0][i]")
  c10::weak_intrusive_ptr<c10::StorageImpl> storage{c10::intrusive_ptr<c10::StorageImpl>()};
  const void* storage_data = nullptr;
};

/// The tensors noted last (at most `capacity`, the oldest forgotten first), as host_hooks: a
/// pointer into one whose storage is alive and unmoved is bounded by its elements.
class tensor_pointers final : public host_hooks {
 public:
  static constexpr std::size_t capacity = 256;

  void note(const at::TensorBase& t, const void* data, const char* name, const char* member) {
    if (data == nullptr || !t.defined() || !t.has_storage() || t.numel() == 0) return;
    const auto item = static_cast<std::int64_t>(t.element_size());
    std::int64_t low = 0, high = 0;
    for (std::int64_t d = 0; d < t.dim(); ++d) (t.stride(d) < 0 ? low : high) += t.stride(d) * (t.size(d) - 1);
    noted_tensor n;
    n.first = reinterpret_cast<std::uintptr_t>(data);
    n.begin = n.first + static_cast<std::uintptr_t>(low * item);
    n.end = n.first + static_cast<std::uintptr_t>((high + 1) * item);
    n.name = name;
    n.member = member;
    c10::StorageImpl* impl = t.storage().unsafeGetStorageImpl();
    n.storage = c10::weak_intrusive_ptr<c10::StorageImpl>(c10::intrusive_ptr<c10::StorageImpl>::reclaim_copy(impl));
    n.storage_data = impl->data_ptr().get();
    host_lock lock(mutex_);
    if (noted_.size() < capacity) {
      noted_.push_back(std::move(n));
    } else {
      noted_[next_ % capacity] = std::move(n);
    }
    ++next_;
  }

  /// Among the live tensors noted that hold `p`, those whose first element it is (else all of
  /// them), the largest: a pointer taken from a tensor is never bounded by a smaller one noted
  /// at the same place (a row of it, a slice that begins where it does).
  void narrow(const void* p, allocation_span& found) const override {
    host_hooks::narrow(p, found);
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    host_lock lock(mutex_);
    const noted_tensor* best = nullptr;
    newest_first([&](const noted_tensor& n) {
      if (address < n.begin || address >= n.end) return;
      if (found.bytes != 0 && (n.begin < found.begin || n.end > found.begin + found.bytes)) return;
      if (best != nullptr && (best->first == address) != (n.first == address)) {
        if (best->first == address) return; // (one that begins at p comes first)
      } else if (best != nullptr && n.end - n.begin <= best->end - best->begin) {
        return; // (of equal ones, the newest)
      }
      const c10::intrusive_ptr<c10::StorageImpl> alive = n.storage.lock();
      if (alive && alive->data_ptr().get() == n.storage_data) best = &n;
    });
    if (best == nullptr) return;
    found.begin = best->begin;
    found.bytes = best->end - best->begin;
    found.label = best->member;
  }

  /// The tensor whose elements are the bounds that begin at `first` and hold `v.extent[0]`
  /// elements of `element` bytes (where they are one's), and the smallest live other tensor that
  /// holds the access's address.
  void describe_tensor(std::uintptr_t first, std::size_t element, violation& v) const override {
    const std::uintptr_t address = first + static_cast<std::uintptr_t>(v.index[0]) * element;
    const std::uintptr_t end = first + static_cast<std::uintptr_t>(v.extent[0]) * element;
    host_lock lock(mutex_);
    const noted_tensor *own = nullptr, *hit = nullptr;
    newest_first([&](const noted_tensor& n) {
      if (own == nullptr && first >= n.begin && first - n.begin < element && end <= n.end && n.end - end < element)
        own = &n;
    });
    if (own == nullptr) return host_hooks::describe_tensor(first, element, v);
    newest_first([&](const noted_tensor& n) {
      if (&n == own || address < n.begin || address >= n.end || !n.storage.lock()) return;
      if (hit == nullptr || n.end - n.begin < hit->end - hit->begin) hit = &n;
    });
    copy_text(v.tensor, own->name);
    if (hit != nullptr) copy_text(v.tensor_hit, hit->name);
  }

 private:
  template <class F>
  void newest_first(F each) const {
    for (std::size_t age = 0; age < noted_.size(); ++age) each(noted_[(next_ - 1 - age) % noted_.size()]);
  }

  mutable host_mutex mutex_;
  std::vector<noted_tensor> noted_;
  std::size_t next_ = 0;
};

/// The one tensor_pointers, installed in front of the host hooks when first asked for (never
/// destroyed: hooks are asked until the process ends).
inline tensor_pointers& noted_tensors() {
  static tensor_pointers* const hooks = [] {
    auto* made = new tensor_pointers;
    install_host_hooks(*made);
    return made;
  }();
  return *hooks;
}

/// `x` as host code takes a data pointer from it: each of Torch's ways (data_ptr<T>(),
/// data_ptr(), data<T>(), const_data_ptr<T>(), mutable_data_ptr<T>()) as Tensor's, noting the
/// tensor under `name` (and the struct member the pointer is stored in, which names it); anything else (a class of the extension's own with a data_ptr) as it is.
template <class X>
struct named_tensor {
  X& x;
  const char* name;
  const char* member; // the struct member host code stores the pointer in, or null

  template <class P>
  P&& noted(P&& p) const { // (a reference as it is: c10::Storage's data_ptr() is a DataPtr&)
    if constexpr (std::is_base_of<at::TensorBase, std::remove_cv_t<X>>::value &&
                  std::is_pointer<std::remove_reference_t<P>>::value)
      noted_tensors().note(x, p, name, member);
    return std::forward<P>(p);
  }
  template <class T, class Y = X>
  auto data_ptr() const -> decltype(std::declval<Y&>().template data_ptr<T>()) {
    return noted(x.template data_ptr<T>());
  }
  template <class Y = X>
  auto data_ptr() const -> decltype(std::declval<Y&>().data_ptr()) {
    return noted(x.data_ptr());
  }
  template <class T, class Y = X>
  auto data() const -> decltype(std::declval<Y&>().template data<T>()) {
    return noted(x.template data<T>());
  }
  template <class T, class Y = X>
  auto const_data_ptr() const -> decltype(std::declval<Y&>().template const_data_ptr<T>()) {
    return noted(x.template const_data_ptr<T>());
  }
  template <class Y = X>
  auto const_data_ptr() const -> decltype(std::declval<Y&>().const_data_ptr()) {
    return noted(x.const_data_ptr());
  }
  template <class T, class Y = X>
  auto mutable_data_ptr() const -> decltype(std::declval<Y&>().template mutable_data_ptr<T>()) {
    return noted(x.template mutable_data_ptr<T>());
  }
};

/// The value of a subscript in a tensor's name (`tensor_lists[0][t]`), where it is an integer.
struct subscript {
  bool known = false;
  long long value = 0;
};
template <class I>
subscript subscript_of(const I& i) {
  if constexpr (std::is_integral<I>::value || std::is_enum<I>::value)
    return {true, static_cast<long long>(i)};
  else
    return {};
}

/// `spelled` (an expression as the source wrote it, `tensor_lists[0][t]`) with the value of each
/// of its subscripts, left to right, in place of its text where it is known
/// (`tensor_lists[0][3]`), kept for the life of the program: the name of the tensor, or of the
/// member, that host code took a data pointer from or stored it in. `spelled` itself once 4096
/// such names are kept.
inline const char* indexed(const char* spelled, std::initializer_list<subscript> values) {
  std::string name;
  const subscript* next = values.begin();
  int depth = 0;
  for (const char* c = spelled; *c != '\0'; ++c) {
    if (*c == ']') --depth;
    if (depth == 0 || (depth == 1 && *c == ']')) name += *c;
    if (*c != '[' || depth++ != 0) continue;
    if (next != values.end() && next->known) {
      name += std::to_string(next->value);
    } else {
      for (int inner = 1; c[1] != '\0' && (inner > 1 || c[1] != ']'); ++c) name += c[1], inner += (c[1] == '[') - (c[1] == ']');
    }
    if (next != values.end()) ++next;
  }
  static host_mutex mutex;
  static auto* const kept = new std::set<std::string>; // (never destroyed: reports read it at exit)
  host_lock lock(mutex);
  if (kept->size() >= 4096 && kept->count(name) == 0) return spelled;
  return kept->insert(std::move(name)).first->c_str();
}

/// (`x` may be a temporary, `x.contiguous()`: it lives to the end of the full expression, as the
/// named_tensor that refers to it does.)
template <class X>
named_tensor<std::remove_reference_t<X>> name_tensor(X&& x, const char* name, const char* member = nullptr) {
  return {x, name, member};
}

} // namespace torch_adapter
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
