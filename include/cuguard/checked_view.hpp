// SPDX-License-Identifier: Apache-2.0
// cuguard::checked_view: a pointer with shape, strides, label and lifetime, checked at every access.
#pragma once

#include <cuguard/checked_index.hpp>
#include <cuguard/config.hpp>
#include <cuguard/detail/fail/fail.hpp>
#include <cuguard/detail/fail/host_hooks.hpp>
#include <cuguard/detail/index/index_args.hpp>
#include <cuguard/detail/platform/device.hpp>
#include <cuguard/detail/view/lifetime_token.hpp>
#include <cuguard/detail/view/view_parts.hpp>
#include <cuguard/vec.hpp>
#include <cuguard/violation.hpp>

#include <cuda/std/source_location>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

CUGUARD_IMPL_BEGIN_NAMESPACE

template <class T, std::size_t Rank, class Index = std::int64_t>
class checked_view;

namespace detail {
struct view_internals;
} // namespace detail


/// A view of `T` elements in `Rank` dimensions with `Index` extents and strides (in elements).
///
/// With CUGUARD_ENABLE_CHECKS=1 every access checks each index against its extent (negative
/// indices included), the lifetime of the memory, and for vector accesses contiguity and
/// alignment; a failed check reports the caller's file and line, the label, the index, the
/// extent and, for a checked_index, where the index came from. With checks off the view holds
/// only the pointer, extents and strides, and an access is plain pointer arithmetic.
///
/// Views are trivially copyable and can be passed to kernels by value. Every member works in
/// host and device code.
template <class T, std::size_t Rank, class Index>
class checked_view {
  static_assert(Rank >= 1 && Rank <= static_cast<std::size_t>(violation::max_rank), "checked_view: Rank must be 1 to 8");
  static_assert(std::is_integral<Index>::value && std::is_signed<Index>::value,
                "checked_view: Index must be a signed integer type");
  static_assert(!std::is_reference<T>::value, "checked_view: T must not be a reference");

  template <class, std::size_t, class>
  friend class checked_view;
  friend struct detail::view_internals;

  static constexpr bool checks = CUGUARD_IMPL_CHECKS != 0;
  using location = cuda::std::source_location;

 public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;
  using index_type = Index;
  using reference = T&;
  using pointer = T*;

  /// An empty view: null data, every extent 0 and every stride 1 (the strides of
  /// `torch.empty(0, 0)`, which to_mdspan() can keep).
  CUGUARD_HOST_DEVICE constexpr checked_view() noexcept {
    for (std::size_t r = 0; r < Rank; ++r) strides_[r] = 1;
  }

  /// A contiguous row-major view of `data` with the given extents. `label` names the view in
  /// reports; it must outlive the view (a string literal is the usual choice). In device code it
  /// must be device memory, as a string literal there is: a host string passed to a kernel
  /// cannot be read by the report.
  CUGUARD_HOST_DEVICE checked_view(T* data, const detail::integer (&extents)[Rank], const char* label,
                                   location where = location::current())
      : checked_view(detail::shape_tag{}, data, extents, std::make_index_sequence<Rank>{}) {
    init(label, where, extents, nullptr);
  }

  /// A strided view: element (i0, ..., iR-1) is data[i0 * strides[0] + ... ]. Strides are in
  /// elements and must not be negative.
  CUGUARD_HOST_DEVICE checked_view(T* data, const detail::integer (&extents)[Rank],
                                   const detail::integer (&strides)[Rank], const char* label,
                                   location where = location::current())
      : checked_view(detail::shape_tag{}, data, extents, strides, std::make_index_sequence<Rank>{}) {
    init(label, where, extents, strides);
  }

  /// The same from arrays of any integer type (`std::int64_t shape[2]`).
  /// (These overloads, like every one that takes a source location, use static_assert rather
  /// than enable_if: see CUGUARD_IMPL_INTEGER_TYPES.)
  template <class I>
  CUGUARD_HOST_DEVICE checked_view(T* data, const I (&extents)[Rank], const char* label,
                                   location where = location::current())
      : checked_view(data, detail::to_integers(extents).v, label, where) {}
  template <class I, class J>
  CUGUARD_HOST_DEVICE checked_view(T* data, const I (&extents)[Rank], const J (&strides)[Rank], const char* label,
                                   location where = location::current())
      : checked_view(data, detail::to_integers(extents).v, detail::to_integers(strides).v, label, where) {}

  /// A view of a cuda::std::mdspan with a strided layout (layout_right, layout_left or
  /// layout_stride) and the default accessor. Needs <cuguard/mdspan.hpp> (which
  /// <cuguard/cuguard.hpp> leaves out): files that do not use it do not parse mdspan.
  template <class M>
  CUGUARD_HOST_DEVICE checked_view(const M& m, const char* label, location where = location::current());

  /// A view of const T from a view of T.
  template <class U, std::enable_if_t<std::is_same<const U, T>::value && !std::is_const<U>::value, int> = 0>
  CUGUARD_HOST_DEVICE constexpr checked_view(const checked_view<U, Rank, Index>& other) noexcept
      : checked_view(detail::raw_tag{}, other.data_, other.extents_, other.strides_, other.meta()) {}

  // ---------------------------------------------------------------------------------------------
  // Shape and metadata
  // ---------------------------------------------------------------------------------------------

  /// Number of dimensions.
  CUGUARD_HOST_DEVICE static constexpr std::size_t rank() noexcept { return Rank; }
  /// Extent of dimension r.
  CUGUARD_HOST_DEVICE constexpr Index extent(std::size_t r) const noexcept { return extents_[r]; }
  /// Stride of dimension r, in elements.
  CUGUARD_HOST_DEVICE constexpr Index stride(std::size_t r) const noexcept { return strides_[r]; }
  /// Number of elements (the product of the extents).
  CUGUARD_HOST_DEVICE constexpr Index size() const noexcept {
    // A valid view's count fits Index (checked builds check it); wrapping, so that an empty view
    // whose other extents multiply past Index (extents {2^32, 2^32, 0}) is 0, not overflow.
    Index n = 1;
    for (std::size_t r = 0; r < Rank; ++r) n = detail::wrapping_mul(n, extents_[r]);
    return n;
  }
  /// True if the view has no element.
  CUGUARD_HOST_DEVICE constexpr bool empty() const noexcept { return size() == 0; }
  /// The data pointer.
  CUGUARD_HOST_DEVICE constexpr T* data() const noexcept { return data_; }

  /// True if the elements are packed in row-major order (dimensions of extent 1 may have any
  /// stride, as in PyTorch; a view without elements is contiguous).
  CUGUARD_HOST_DEVICE constexpr bool is_contiguous() const noexcept {
    if (empty()) return true;
    Index expected = 1;
    for (std::size_t r = Rank; r-- > 0;) {
      if (extents_[r] != 1 && strides_[r] != expected) return false;
      expected = detail::wrapping_mul(expected, extents_[r]);
    }
    return true;
  }

  // What a view knows of its memory (with checks off, nothing: the defaults below).
  /// The label given at construction ("" if none). In device code, read it only from views
  /// made in device code: a label given in host code lives in host memory.
  CUGUARD_HOST_DEVICE constexpr const char* label() const noexcept { return meta().label ? meta().label : ""; }
  /// The label and whether it lives in host memory (for reports made in device code).
  CUGUARD_HOST_DEVICE constexpr detail::label_ref label_ref() const noexcept { return {meta().label, meta().label_on_host}; }
  /// False if the memory cannot be touched where this runs: host memory in device code, device
  /// memory in host code (always true with checks off).
#if CUGUARD_IMPL_CHECKS
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE bool space_ok() const noexcept {
    return !detail::wrong_space(meta_.space, detail::platform::in_kernel());
  }
#else
  CUGUARD_HOST_DEVICE constexpr bool space_ok() const noexcept { return true; }
#endif
  /// Lifetime token of the tracked allocation the view lies in (slot 0: untracked).
  CUGUARD_HOST_DEVICE constexpr lifetime_token token() const noexcept { return meta().token; }
  /// Memory space, as far as known (from the tracked allocation; unknown with checks off).
  CUGUARD_HOST_DEVICE constexpr memory_space space() const noexcept { return meta().space; }
  /// Device of the memory, -1 if none or unknown.
  CUGUARD_HOST_DEVICE constexpr int device() const noexcept { return meta().device; }
  /// The number of the cuguard::launch that passed this view to its kernel (kept by the views
  /// derived from it); 0 for a view that no cuguard::launch passed as an argument itself, such
  /// as one made in device code from shared memory. A report in device code records it next to
  /// the device's last launch number, and check() names the launch the evidence points to
  /// (this one where kernels of several streams may have overlapped and it fits the grid).
  CUGUARD_HOST_DEVICE constexpr std::uint64_t launch_number() const noexcept { return meta().launch; }

  // ---------------------------------------------------------------------------------------------
  // Element access
  // ---------------------------------------------------------------------------------------------

#if CUGUARD_IMPL_CHECKS
  /// The element at (i0, ..., iR-1). Indices are integers or checked_index values.
  template <class... Rest>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE T& operator()(detail::first_index i0, Rest... rest) const {
    return access(i0, rest...);
  }
  template <class... Rest>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE T& operator()(detail::first_checked_index i0, Rest... rest) const {
    return access(i0, rest...);
  }

  /// The element at the coordinates idx[0], ..., idx[Rank-1] (integers or checked_index values
  /// of one type), for kernels written for any rank. Reports the caller's line like operator().
  template <class I>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE T& at(const I (&idx)[Rank], location where = location::current()) const {
    return at_array(idx, where, std::make_index_sequence<Rank>{});
  }

  /// The element at i (rank 1 only).
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE T& operator[](detail::first_index i) const { return subscript(i); }
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE T& operator[](detail::first_checked_index i) const {
    return subscript(i);
  }

  /// N consecutive elements along the innermost dimension, starting at (i0, ..., iR-1), in one
  /// access. Checks bounds, a unit inner stride and alignment to N * sizeof(T) bytes.
  template <int N, class... Rest>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE vec<value_type, N> load(detail::first_index i0, Rest... rest) const {
    return vector_load<N>(i0, rest...);
  }
  template <int N, class... Rest>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE vec<value_type, N> load(detail::first_checked_index i0,
                                                                       Rest... rest) const {
    return vector_load<N>(i0, rest...);
  }

  /// Writes N consecutive elements along the innermost dimension (see load).
  template <int N, class... Rest>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void store(vec<value_type, N> x, detail::first_index i0,
                                                          Rest... rest) const {
    vector_store<N>(x, i0, rest...);
  }
  template <int N, class... Rest>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void store(vec<value_type, N> x,
                                                          detail::first_checked_index i0, Rest... rest) const {
    vector_store<N>(x, i0, rest...);
  }
#else // the same, unchecked: plain pointer arithmetic (defined in detail/view/checked_view_access.hpp)
  template <class... Is>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE T& operator()(Is... is) const noexcept;
  template <class I>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE T& at(const I (&idx)[Rank], location = location::current()) const noexcept;
  template <class I>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE T& operator[](I i) const noexcept;
  template <int N, class... Is>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE vec<value_type, N> load(Is... is) const noexcept;
  template <int N, class... Is>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void store(vec<value_type, N> x, Is... is) const noexcept;
#endif

  // ---------------------------------------------------------------------------------------------
  // Derived views (same memory, same label and lifetime)
  // ---------------------------------------------------------------------------------------------

  // Each operation below checks its arguments first. In device code a failed check is recorded
  // and the thread stops (default) or traps; under CUGUARD_ON_DEVICE_VIOLATION_CONTINUE execution
  // goes on, so the operation then returns an empty view of the same label (every access to it is
  // reported again) instead of computing with the bad arguments.

  /// Elements [begin, end) of dimension `dim`. Arguments are taken as int64 and checked before
  /// they are narrowed to Index (an int32 view's `slice(0, 0, 1LL << 32)` is reported). The data
  /// pointer moves by begin * stride, as PyTorch's narrow moves the storage offset, an empty slice
  /// at the end too; checked builds keep it where that is no pointer (null data, or past what a
  /// pointer can be offset by, as a view without elements may reach: detail::can_offset).
  CUGUARD_HOST_DEVICE checked_view slice(std::size_t dim, std::int64_t begin, std::int64_t end,
                                         location where = location::current()) const;

  /// The view at index i of dimension `dim`, one rank lower (i taken as int64, as in slice).
  CUGUARD_HOST_DEVICE checked_view<T, Rank - 1, Index> select(std::size_t dim, std::int64_t i,
                                                             location where = location::current()) const;

  /// The same elements with dimensions reordered: dimension r of the result is dimension
  /// order[r] of this view (PyTorch's permute).
  CUGUARD_HOST_DEVICE checked_view permute(const int (&order)[Rank], location where = location::current()) const;

  /// The same elements with dimensions a and b swapped.
  CUGUARD_HOST_DEVICE checked_view transpose(std::size_t a, std::size_t b, location where = location::current()) const;

  /// The same elements with another shape of the same size. Only for contiguous views: a
  /// strided view reports non_contiguous (PyTorch's view() would fail too; copy first).
  template <std::size_t N>
  CUGUARD_HOST_DEVICE checked_view<T, N, Index> reshape(const detail::integer (&extents)[N],
                                                       location where = location::current()) const;

  template <class I, std::size_t N>
  CUGUARD_HOST_DEVICE checked_view<T, N, Index> reshape(const I (&extents)[N],
                                                       location where = location::current()) const {
    return reshape(detail::to_integers(extents).v, where);
  }

  /// The unchecked cuda::std::mdspan (layout_stride) over the same elements. Explicit, because
  /// it drops every check: use it to hand the data to code that takes an mdspan. Needs
  /// <cuguard/mdspan.hpp> (which <cuguard/cuguard.hpp> leaves out).
  ///
  /// layout_stride's preconditions (C++23): every stride > 0 (a broadcast view's 0 is not), a
  /// largest offset below the Index maximum (none without elements), and some order of the
  /// dimensions with each stride at least the one before times its extent. Checked builds report
  /// a view that fails them (invalid_argument; in device code under
  /// CUGUARD_ON_DEVICE_VIOLATION_CONTINUE, then an empty mdspan); unchecked builds leave them to
  /// the caller. A view without elements whose strides libcu++'s own checks would refuse
  /// (CCCL_ENABLE_ASSERTIONS: the order by stride only) gets strides they take: the same elements.
  template <class Deferred = void>
  CUGUARD_HOST_DEVICE typename detail::mdspan_for<T, Rank, Index, Deferred>::type to_mdspan(
      location where = location::current()) const;
  template <class M, std::enable_if_t<detail::mdspan_traits<M>::template converts_from<T, Rank, Index>, int> = 0>
  CUGUARD_HOST_DEVICE explicit operator M() const {
    return to_mdspan();
  }

  /// A view of the same memory with every check of this build but a new label (in device code,
  /// a string literal: see the constructor).
  CUGUARD_HOST_DEVICE checked_view relabel(const char* label) const noexcept;

  /// A copy of this view that carries launch number `launch` (what cuguard::launch gives its
  /// copy of each view argument; see launch_number()). With checks off, the same view.
  CUGUARD_HOST_DEVICE checked_view with_launch_number(std::uint64_t launch) const noexcept;

 private:
  // A view assembled from parts that were already validated.
  CUGUARD_HOST_DEVICE constexpr checked_view(detail::raw_tag, T* data, const Index* extents, const Index* strides,
                                             const detail::view_meta& m) noexcept
      : checked_view(detail::raw_tag{}, data, extents, strides, m, std::make_index_sequence<Rank>{}) {}

  // No loops over the rank in what kernels inline (constructors, offsets): NVVM unrolls such a
  // loop in the same pass that narrows index arithmetic and unrolls the caller's loops, so until
  // then a stride is not a constant and the caller's loop holds a loop. The result was 64-bit
  // shared-memory offsets and grid-stride loops left rolled where raw-pointer code got neither.
  // Pack expansions give the optimizer the shape at once.
  template <std::size_t... K>
  CUGUARD_HOST_DEVICE constexpr checked_view(detail::shape_tag, T* data, const detail::integer (&extents)[Rank],
                                             std::index_sequence<K...>) noexcept;
  template <std::size_t... K>
  CUGUARD_HOST_DEVICE constexpr checked_view(detail::shape_tag, T* data, const detail::integer (&extents)[Rank],
                                             const detail::integer (&strides)[Rank], std::index_sequence<K...>) noexcept;
  template <std::size_t... K>
  CUGUARD_HOST_DEVICE constexpr checked_view(detail::raw_tag, T* data, const Index* extents, const Index* strides,
                                             const detail::view_meta& m, std::index_sequence<K...>) noexcept;

  CUGUARD_HOST_DEVICE checked_view bad_dim(operation op, std::size_t dim, const location& where) const;

  /// A view of no element with this view's pointer and metadata: what an operation whose check
  /// failed (and returned: device code under CUGUARD_ON_DEVICE_VIOLATION_CONTINUE) gives back.
  template <std::size_t N>
  CUGUARD_HOST_DEVICE checked_view<T, N, Index> emptied() const noexcept;

#if CUGUARD_IMPL_CHECKS
  CUGUARD_HOST_DEVICE constexpr const detail::view_meta& meta() const noexcept { return meta_; }
#else
  CUGUARD_HOST_DEVICE constexpr detail::view_meta meta() const noexcept { return {}; }
#endif

  // A fold, not a loop (see "No loops over the rank" above).
  template <class I, std::size_t... K>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE I offset(const I (&idx)[Rank], std::index_sequence<K...>) const noexcept {
    return ((idx[K] * static_cast<I>(strides_[K])) + ...);
  }
  template <class I>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE I offset(const I (&idx)[Rank]) const noexcept {
    return offset(idx, std::make_index_sequence<Rank>{});
  }
  // The same in unsigned arithmetic, which wraps: for indices not yet checked.
  template <std::size_t... K>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE std::uint64_t wrapping_offset(const std::int64_t (&idx)[Rank],
                                                                             std::index_sequence<K...>) const noexcept {
    return ((static_cast<std::uint64_t>(idx[K]) * static_cast<std::uint64_t>(strides_[K])) + ...);
  }

#if !CUGUARD_IMPL_CHECKS
  template <class I, std::size_t... K>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE T& at_array(const I (&idx)[Rank], std::index_sequence<K...>) const noexcept;
#endif

#if CUGUARD_IMPL_CHECKS
  template <class First, class... Rest>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE T& access(const First& i0, Rest... rest) const;

  template <class I, std::size_t... K>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE T& at_array(const I (&idx)[Rank], const location& where,
                                                          std::index_sequence<0, K...>) const;

  template <class First>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE T& subscript(const First& i) const {
    static_assert(Rank == 1, "checked_view: operator[] needs a rank-1 view; use operator() for more indices");
    return access(i);
  }

  template <int N, class First, class... Rest>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE vec<value_type, N> vector_load(const First& i0, Rest... rest) const;

  template <int N, class First, class... Rest>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE void vector_store(vec<value_type, N> x, const First& i0,
                                                                 Rest... rest) const;

  // The predicate of a vector access of N elements at idx, space_fine its space check (detail/record/access_check.hpp).
  template <int N>
  CUGUARD_HOST_DEVICE CUGUARD_IMPL_FORCEINLINE bool vector_fails(const std::int64_t (&idx)[Rank], bool space_fine) const noexcept;

  // After a failed construction check (which returns in device code under
  // CUGUARD_ON_DEVICE_VIOLATION_CONTINUE): no element to reach (the data kept, strides 1).
  CUGUARD_HOST_DEVICE void make_empty() noexcept {
    for (std::size_t r = 0; r < Rank; ++r) extents_[r] = 0, strides_[r] = 1;
  }

  // Checks a new view: extents and strides not negative and representable in Index (`ext` and
  // `str` are the arguments as given, null when there were none) and, for a view with elements,
  // data not null, every offset representable in Index and (host) inside its tracked allocation
  // (a view without elements reaches nothing, and is not checked for them). A failed check
  // (which returns in device code under CUGUARD_ON_DEVICE_VIOLATION_CONTINUE) leaves the view empty.
  CUGUARD_HOST_DEVICE void init(const char* label, const location& where, const detail::integer* ext,
                                const detail::integer* str);

  // Each extent and stride: not negative, and kept exactly by Index. Accumulates the largest
  // offset and the element count, both saturated at 2^63 (above every Index maximum).
  CUGUARD_HOST_DEVICE bool check_shape(const location& where, const detail::integer* ext, const detail::integer* str,
                                       std::uint64_t& largest, std::uint64_t& count);

  // A view with elements: data not null; the largest offset and the element count fit Index.
  CUGUARD_HOST_DEVICE bool check_reach(const location& where, std::uint64_t largest, std::uint64_t count);

  // reshape of a view without elements: each extent asked for fits Index.
  template <std::size_t N>
  CUGUARD_HOST_DEVICE bool reshape_fits(const detail::integer (&asked)[N], const Index (&ext)[N],
                                        const location& where) const;

  // layout_stride's preconditions (see to_mdspan): the strides to map into `str`, or
  // invalid_argument reported where one fails.
  CUGUARD_HOST_DEVICE bool layout_strides(Index (&str)[Rank], const location& where) const;

  // The largest offset and element count of a shape (saturated at 2^63) against what Index and
  // a pointer to T can hold: index_overflow of `op` where one does not fit.
  CUGUARD_HOST_DEVICE bool reach_fits(operation op, std::uint64_t largest, std::uint64_t count, const location& where) const;

#if !CUGUARD_IMPL_DEVICE_PASS
  // Host code: the tracked allocation the view lies in (through detail::host_hooks), its
  // lifetime token, memory space and device; a view that reaches past its end is reported.
  void bind_allocation(const location& where, std::uint64_t largest);
#endif
#else
  CUGUARD_HOST_DEVICE constexpr void init(const char*, const location&, const detail::integer*,
                                          const detail::integer*) noexcept {}
#endif

  T* data_ = nullptr;
  Index extents_[Rank] = {};
  Index strides_[Rank] = {};
#if CUGUARD_IMPL_CHECKS
  detail::view_meta meta_; // label, lifetime token, memory space, device, launch number
#endif
};


CUGUARD_IMPL_END_NAMESPACE

// The definitions of the longer members, then the factories and assertions of views: included
// here, so that this header gives the whole view.
#include <cuguard/detail/view/view_internals.hpp>
#include <cuguard/detail/view/checked_view_access.hpp>
#include <cuguard/detail/view/checked_view_construction.hpp>
#include <cuguard/detail/view/checked_view_derived.hpp>
#include <cuguard/detail/view/expect.hpp>
#include <cuguard/detail/view/make_view.hpp>
