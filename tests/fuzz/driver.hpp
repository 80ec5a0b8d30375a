// SPDX-License-Identifier: Apache-2.0
// The differential fuzz test's driver: draws operations on views from a source of numbers (a
// seeded generator, or libFuzzer's bytes), applies each to a cuguard view and to the reference
// model (model.hpp), and counts every disagreement: a violation where the model has none, none
// where it has one, another kind or dimension, or a view with other extents, strides or data.
// Views are of rank 1 to 4, with int64 and int32 Index, over one tracked buffer.
#pragma once

#include "model.hpp"

#include <cuguard/cuguard.hpp>
#include <cuguard/mdspan.hpp>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <type_traits>
#include <utility>
#include <variant>

namespace fuzz {

using fuzz_model::i128;
using fuzz_model::kind;
using fuzz_model::outcome;

/// Numbers from a seed (splitmix64).
struct seeded {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

/// Numbers from libFuzzer's input, 8 bytes each; zeros once it is used up.
struct from_bytes {
  const std::uint8_t* data;
  std::size_t size;
  bool done() const { return size == 0; }
  std::uint64_t next() {
    std::uint64_t v = 0;
    const std::size_t n = size < 8 ? size : 8;
    std::memcpy(&v, data, n);
    data += n;
    size -= n;
    return v;
  }
};

inline kind kind_of(cuguard::violation_kind k) {
  switch (k) {
    case cuguard::violation_kind::out_of_bounds: return kind::out_of_bounds;
    case cuguard::violation_kind::invalid_argument: return kind::invalid_argument;
    case cuguard::violation_kind::index_overflow: return kind::index_overflow;
    case cuguard::violation_kind::null_data: return kind::null_data;
    case cuguard::violation_kind::shape_mismatch: return kind::shape_mismatch;
    case cuguard::violation_kind::non_contiguous: return kind::non_contiguous;
    case cuguard::violation_kind::misaligned: return kind::misaligned;
    default: return kind::none; // any other kind is a mismatch (the model never expects none from a report)
  }
}

/// What the fuzz run counted.
struct tally {
  std::uint64_t operations = 0;
  std::uint64_t views = 0;      // views made or derived that the model accepted too
  std::uint64_t accesses = 0;   // element and vector accesses that read memory
  std::uint64_t violations = 0; // violations reported where the model expected them
  std::uint64_t mismatches = 0;
};

constexpr std::int64_t buffer_elements = 1024;
constexpr std::int64_t padding = 64; // untracked floats on each side of the tracked buffer

template <class Index>
using any_view = std::variant<cuguard::checked_view<float, 1, Index>, cuguard::checked_view<float, 2, Index>,
                              cuguard::checked_view<float, 3, Index>, cuguard::checked_view<float, 4, Index>>;

template <class Source>
class driver {
 public:
  driver(Source& source, tally& t, float* storage, bool verbose) : src_(source), tally_(t), storage_(storage), verbose_(verbose) {}

  void step() {
    ++tally_.operations;
    const std::uint64_t op = src_.next() % 16;
    if (op == 15) wide_ = !wide_;
    if (wide_) run<std::int64_t>(op, s64_);
    else run<std::int32_t>(op, s32_);
  }

 private:
  template <class Index>
  struct state {
    any_view<Index> view{};
    fuzz_model::view model{};
    bool live = false;
  };

  float* base() const { return storage_ + padding; }
  template <class Index>
  fuzz_model::world world_of() const {
    return {buffer_elements, sizeof(Index) * 8, reinterpret_cast<std::uintptr_t>(base())};
  }

  // ---- numbers ---------------------------------------------------------------------------

  std::uint64_t below(std::uint64_t n) { return n == 0 ? 0 : src_.next() % n; }

  std::int64_t edge() {
    static constexpr std::int64_t values[] = {0, 1, 2, 3, 4, 7, 8, 31, 32, 1023, 1024, 1025, 65535,
                                              INT32_MAX - 1, INT32_MAX, std::int64_t{INT32_MAX} + 1,
                                              std::int64_t{1} << 32, (std::int64_t{1} << 32) + 1,
                                              std::int64_t{1} << 61, std::int64_t{1} << 62, INT64_MAX - 1,
                                              INT64_MAX, -1, -2, INT32_MIN, INT64_MIN};
    return values[below(sizeof(values) / sizeof(values[0]))];
  }
  // Mostly small (so that views fit the buffer and chains go deep), now and then an edge.
  std::int64_t extent() { return below(8) == 0 ? edge() : static_cast<std::int64_t>(below(9)); }
  std::int64_t index_near(std::int64_t e) {
    switch (below(6)) {
      case 0: return edge();
      case 1: return e;
      case 2: return e - 1;
      case 3: return -1;
      default: return e > 0 ? static_cast<std::int64_t>(below(static_cast<std::uint64_t>(e))) : 0;
    }
  }

  // ---- checking --------------------------------------------------------------------------

  template <class F>
  outcome run_cuguard(F&& f) {
    try {
      f();
      return {};
    } catch (const cuguard::violation_error& e) {
      const kind k = kind_of(e.report().kind);
      if (std::strlen(e.what()) == 0) return {kind::none, -2};
      return {k == kind::none ? kind::misaligned : k, e.report().dim}; // an unexpected kind never matches none
    }
  }

  bool agree(const char* what, const outcome& expected, const outcome& got) {
    if (expected.k == got.k && (expected.k == kind::none || expected.dim == got.dim)) {
      if (got.k != kind::none) ++tally_.violations;
      return true;
    }
    mismatch(what, "expected %s dim %d, cuguard %s dim %d", fuzz_model::name(expected.k), expected.dim,
             fuzz_model::name(got.k), got.dim);
    return false;
  }

  __attribute__((format(printf, 3, 4))) void mismatch(const char* what, const char* format, ...) {
    ++tally_.mismatches;
    if (verbose_ && tally_.mismatches <= 20) {
      std::fprintf(stderr, "fuzz mismatch at operation %llu (%s): ", static_cast<unsigned long long>(tally_.operations), what);
      std::va_list args;
      va_start(args, format);
      std::vfprintf(stderr, format, args);
      va_end(args);
      std::fprintf(stderr, "\n");
    }
  }

  template <class V>
  bool same(const char* what, const V& v, const fuzz_model::view& m) {
    bool ok = static_cast<int>(V::rank()) == m.rank;
    for (int r = 0; ok && r < m.rank; ++r) ok = v.extent(static_cast<std::size_t>(r)) == m.ext[r] && v.stride(static_cast<std::size_t>(r)) == m.str[r];
    const i128 data = static_cast<i128>(reinterpret_cast<std::uintptr_t>(v.data()));
    const i128 expected = m.null ? 0 : static_cast<i128>(reinterpret_cast<std::uintptr_t>(base())) + m.offset * 4;
    ok = ok && data == expected;
    if (!ok) {
      mismatch(what, "view differs: rank %d/%d, extent0 %lld/%lld, stride0 %lld/%lld, data offset %lld/%lld%s",
               static_cast<int>(V::rank()), m.rank, static_cast<long long>(v.extent(0)), static_cast<long long>(m.ext[0]),
               static_cast<long long>(v.stride(0)), static_cast<long long>(m.str[0]),
               static_cast<long long>((data - static_cast<i128>(reinterpret_cast<std::uintptr_t>(base()))) / 4),
               static_cast<long long>(m.offset), m.null ? " (model: null)" : "");
      return false;
    }
    ++tally_.views;
    return true;
  }

  template <class Index, std::size_t R>
  void adopt(state<Index>& s, const cuguard::checked_view<float, R, Index>& v, const fuzz_model::view& m, const char* what) {
    if (same(what, v, m)) {
      s.view = v;
      s.model = m;
      s.live = true;
    }
  }

  // ---- operations ------------------------------------------------------------------------

  template <class Index>
  void run(std::uint64_t op, state<Index>& s) {
    if (!s.live || op <= 1) return make<Index>(s, op == 1);
    std::visit([&](const auto& v) { derive(s, v, op); }, s.view);
  }

  template <std::size_t R, class Index>
  void make_rank(state<Index>& s, bool strided) {
    const fuzz_model::world w = world_of<Index>();
    std::int64_t ext[R];
    std::int64_t str[R];
    for (std::size_t r = 0; r < R; ++r) ext[r] = extent();
    for (std::size_t r = 0; r < R; ++r) str[r] = below(4) == 0 ? extent() : static_cast<std::int64_t>(below(3)) * 8 + 1;
    const bool null = below(16) == 0;
    const std::int64_t offset = static_cast<std::int64_t>(below(buffer_elements + 2 * 16)) - 16;
    float* data = null ? nullptr : base() + offset;
    fuzz_model::view m;
    const outcome expected = fuzz_model::make(w, static_cast<int>(R), ext, strided ? str : nullptr, offset, null, m);
    cuguard::checked_view<float, R, Index> v;
    const outcome got = run_cuguard([&] {
      if (strided) v = cuguard::checked_view<float, R, Index>(data, ext, str, "fuzz");
      else v = cuguard::checked_view<float, R, Index>(data, ext, "fuzz");
    });
    if (agree(strided ? "make_strided_view" : "make_view", expected, got) && got.k == kind::none)
      adopt(s, v, m, "make_view");
  }

  template <class Index>
  void make(state<Index>& s, bool strided) {
    switch (below(4)) {
      case 0: return make_rank<1>(s, strided);
      case 1: return make_rank<2>(s, strided);
      case 2: return make_rank<3>(s, strided);
      default: return make_rank<4>(s, strided);
    }
  }

  template <class Index, std::size_t R>
  void derive(state<Index>& s, const cuguard::checked_view<float, R, Index>& v, std::uint64_t op) {
    const fuzz_model::world w = world_of<Index>();
    const fuzz_model::view& m = s.model;
    fuzz_model::view out;
    switch (op) {
      case 2: { // slice
        const std::uint64_t dim = below(R + 1);
        const std::int64_t e = dim < R ? m.ext[dim] : 4;
        const std::int64_t b = index_near(e), end = below(2) ? index_near(e) : e;
        cuguard::checked_view<float, R, Index> got_view;
        const outcome expected = fuzz_model::slice(w, m, dim, b, end, out);
        if (agree("slice", expected, run_cuguard([&] { got_view = v.slice(dim, b, end); })) && expected.k == kind::none)
          adopt(s, got_view, out, "slice");
        return;
      }
      case 3: { // select
        if constexpr (R >= 2) {
          const std::uint64_t dim = below(R + 1);
          const std::int64_t i = index_near(dim < R ? m.ext[dim] : 4);
          cuguard::checked_view<float, R - 1, Index> got_view;
          const outcome expected = fuzz_model::select(w, m, dim, i, out);
          if (agree("select", expected, run_cuguard([&] { got_view = v.select(dim, i); })) && expected.k == kind::none)
            adopt(s, got_view, out, "select");
        }
        return;
      }
      case 4: { // permute
        int order[R];
        for (std::size_t r = 0; r < R; ++r) order[r] = static_cast<int>(r);
        for (std::size_t r = R; r > 1; --r) std::swap(order[r - 1], order[below(r)]);
        if (below(4) == 0) order[below(R)] = static_cast<int>(below(R + 2)) - 1; // maybe not a permutation
        cuguard::checked_view<float, R, Index> got_view;
        const outcome expected = fuzz_model::permute(m, order, out);
        if (agree("permute", expected, run_cuguard([&] { got_view = v.permute(order); })) && expected.k == kind::none)
          adopt(s, got_view, out, "permute");
        return;
      }
      case 5: { // transpose
        const std::uint64_t a = below(R + 1), b = below(R);
        cuguard::checked_view<float, R, Index> got_view;
        const outcome expected = fuzz_model::transpose(m, a, b, out);
        if (agree("transpose", expected, run_cuguard([&] { got_view = v.transpose(a, b); })) && expected.k == kind::none)
          adopt(s, got_view, out, "transpose");
        return;
      }
      case 6: // reshape
        switch (below(4)) {
          case 0: return reshape<1>(s, v, w);
          case 1: return reshape<2>(s, v, w);
          case 2: return reshape<3>(s, v, w);
          default: return reshape<4>(s, v, w);
        }
      case 7: { // a view of const elements, and an mdspan and back
        const cuguard::checked_view<const float, R, Index> c = v;
        if (!same("const view", c, m)) return;
        cuguard::checked_view<float, R, Index> back;
        fuzz_model::view mapped;
        const outcome expected = fuzz_model::to_mdspan(w, m, mapped);
        const outcome got = run_cuguard([&] { back = cuguard::make_view(v.to_mdspan(), "fuzz"); });
        if (agree("mdspan round trip", expected, got) && got.k == kind::none) (void)same("mdspan round trip", back, mapped);
        if constexpr (R == 2 && std::is_same<Index, std::int64_t>::value) {
          if (!m.null && m.offset >= 0 && m.offset < buffer_elements) mdspan_of_pointer(s);
        }
        return;
      }
      case 8: case 9: case 10: return element(s, v);
      case 11: case 12: return vector(s, v);
      case 13: return bounded();
      default: return make<Index>(s, below(2) == 0);
    }
  }

  template <class Index>
  void mdspan_of_pointer(state<Index>&) {
    // An mdspan with the size_t extents class template argument deduction gives.
    const std::int64_t offset = static_cast<std::int64_t>(below(buffer_elements));
    const std::size_t rows = below(5), cols = below(5);
    const cuda::std::mdspan md(base() + offset, rows, cols);
    const fuzz_model::world w = world_of<std::int64_t>();
    const std::int64_t ext[2] = {static_cast<std::int64_t>(rows), static_cast<std::int64_t>(cols)};
    fuzz_model::view m;
    const outcome expected = fuzz_model::make(w, 2, ext, nullptr, offset, false, m);
    cuguard::checked_view<float, 2> v;
    if (agree("make_view(mdspan)", expected, run_cuguard([&] { v = cuguard::make_view(md, "fuzz"); })) &&
        expected.k == kind::none)
      (void)same("make_view(mdspan)", v, m);
  }

  template <std::size_t N, class Index, std::size_t R>
  void reshape(state<Index>& s, const cuguard::checked_view<float, R, Index>& v, const fuzz_model::world& w) {
    const fuzz_model::view& m = s.model;
    std::int64_t shape[N];
    // Mostly a factorisation of the element count, so that reshapes succeed.
    i128 left = fuzz_model::count_of(m);
    const bool factor = below(3) != 0 && left <= INT64_MAX;
    for (std::size_t r = 0; r < N; ++r) {
      if (!factor) {
        shape[r] = extent();
      } else if (r + 1 == N) {
        shape[r] = static_cast<std::int64_t>(left);
      } else {
        std::int64_t d = static_cast<std::int64_t>(below(4)) + 1;
        if (left == 0) d = below(2) ? 0 : extent();
        else if (left % d != 0) d = 1;
        shape[r] = d;
        if (d != 0) left /= d;
      }
    }
    fuzz_model::view out;
    cuguard::checked_view<float, N, Index> got_view;
    const outcome expected = fuzz_model::reshape(w, m, static_cast<int>(N), shape, out);
    if (agree("reshape", expected, run_cuguard([&] { got_view = v.reshape(shape); })) && expected.k == kind::none)
      adopt(s, got_view, out, "reshape");
  }

  bool in_storage(i128 at, int n) const { return at >= -padding && at + n <= buffer_elements + padding; }

  template <class Index, std::size_t R>
  void element(state<Index>& s, const cuguard::checked_view<float, R, Index>& v) {
    const fuzz_model::view& m = s.model;
    std::int64_t idx[R];
    for (std::size_t r = 0; r < R; ++r) idx[r] = below(3) == 0 ? index_near(m.ext[r]) : index_near(m.ext[r]) & 0xff;
    // As the integer type a kernel might use (the model sees what that type holds), or as
    // checked_index values read from an index view (index_from).
    const std::uint64_t type = below(4);
    for (std::size_t r = 0; r < R; ++r)
      if (type == 1) idx[r] = static_cast<int>(idx[r]);
    i128 at = 0;
    const outcome expected = fuzz_model::access(m, idx, 0, 0, at);
    if (expected.k == kind::none && !in_storage(at, 1)) return; // a valid index into untracked memory beyond the test's
    const float* got_address = nullptr;
    const outcome got = run_cuguard([&] {
      if (type == 2) {
        std::size_t u[R];
        for (std::size_t r = 0; r < R; ++r) u[r] = static_cast<std::size_t>(idx[r]);
        got_address = &v.at(u);
      } else if (type == 3) {
        const auto ids = cuguard::make_view(idx, {static_cast<std::int64_t>(R)}, "ids");
        cuguard::checked_index<std::int64_t> from[R];
        for (std::size_t r = 0; r < R; ++r) from[r] = cuguard::index_from(ids, r);
        got_address = below(2) ? &v.at(from) : &call(v, from, std::make_index_sequence<R>{});
      } else if constexpr (R == 1) {
        got_address = &v[idx[0]];
      } else {
        got_address = &call(v, idx, std::make_index_sequence<R>{});
      }
    });
    if (!agree("element access", expected, got) || expected.k != kind::none) return;
    const float* want = base() + static_cast<std::int64_t>(at);
    if (got_address != want) {
      mismatch("element access", "address differs by %lld elements", static_cast<long long>(got_address - want));
      return;
    }
    ++tally_.accesses;
    const float x = *got_address; // ASan: inside the storage
    *const_cast<float*>(got_address) = x + 1;
  }

  template <class V, class I, std::size_t R, std::size_t... K>
  static auto call(const V& v, const I (&idx)[R], std::index_sequence<K...>) -> decltype(v(idx[K]...)) {
    return v(idx[K]...);
  }

  template <class Index, std::size_t R>
  void vector(state<Index>& s, const cuguard::checked_view<float, R, Index>& v) {
    const fuzz_model::view& m = s.model;
    std::int64_t idx[R];
    for (std::size_t r = 0; r < R; ++r) idx[r] = below(3) == 0 ? index_near(m.ext[r]) : index_near(m.ext[r]) & 0xfe;
    const int width = below(2) ? 4 : 2;
    i128 at = 0;
    const outcome expected = fuzz_model::access(m, idx, width, 0, at);
    if (expected.k == kind::none && !in_storage(at, width)) return;
    const bool store = below(2) == 0;
    float got[4] = {};
    const outcome result = run_cuguard([&] {
      if (width == 4) {
        const auto x = load<4>(v, idx, std::make_index_sequence<R>{});
        for (int k = 0; k < 4; ++k) got[k] = x[k];
        if (store) store_vec<4>(v, x, idx, std::make_index_sequence<R>{});
      } else {
        const auto x = load<2>(v, idx, std::make_index_sequence<R>{});
        for (int k = 0; k < 2; ++k) got[k] = x[k];
        if (store) store_vec<2>(v, x, idx, std::make_index_sequence<R>{});
      }
    });
    if (!agree(width == 4 ? "load<4>" : "load<2>", expected, result) || expected.k != kind::none) return;
    const float* want = base() + static_cast<std::int64_t>(at);
    for (int k = 0; k < width; ++k)
      if (std::memcmp(&got[k], &want[k], sizeof(float)) != 0) {
        mismatch("vector load", "element %d differs", k);
        return;
      }
    ++tally_.accesses;
  }

  template <int N, class V, std::size_t R, std::size_t... K>
  static auto load(const V& v, const std::int64_t (&idx)[R], std::index_sequence<K...>) {
    return v.template load<N>(idx[K]...);
  }
  template <int N, class V, class X, std::size_t R, std::size_t... K>
  static void store_vec(const V& v, const X& x, const std::int64_t (&idx)[R], std::index_sequence<K...>) {
    v.template store<N>(x, idx[K]...);
  }

  void bounded() {
    const std::int64_t a = below(2) ? edge() : static_cast<std::int64_t>(below(10));
    const std::int64_t b = below(2) ? edge() : static_cast<std::int64_t>(below(10));
    switch (below(4)) {
      case 0: return bounded_as(static_cast<int>(a), static_cast<std::int64_t>(b));
      case 1: return bounded_as(static_cast<std::size_t>(a), static_cast<std::size_t>(b));
      case 2: return bounded_as(static_cast<std::int64_t>(a), static_cast<std::size_t>(b));
      default: return bounded_as(static_cast<unsigned>(a), static_cast<int>(b));
    }
  }

  template <class I, class B>
  void bounded_as(I value, B bound) {
    const outcome expected = fuzz_model::in_bound(static_cast<i128>(value), static_cast<i128>(bound))
                                 ? outcome{}
                                 : outcome{kind::out_of_bounds, -1};
    I got_value{};
    if (agree("bounded", expected, run_cuguard([&] { got_value = cuguard::bounded(value, bound).value(); })) &&
        expected.k == kind::none && got_value != value)
      mismatch("bounded", "value changed from %lld", static_cast<long long>(value));
  }

  Source& src_;
  tally& tally_;
  float* storage_;
  bool verbose_;
  bool wide_ = true;
  state<std::int64_t> s64_;
  state<std::int32_t> s32_;
};

/// The tracked buffer and its untracked padding.
struct arena {
  alignas(256) float storage[buffer_elements + 2 * padding] = {};
  arena() { cuguard::track(storage + padding, buffer_elements * sizeof(float), "fuzz buffer"); }
  ~arena() { cuguard::release(storage + padding); }
  arena(const arena&) = delete;
  arena& operator=(const arena&) = delete;
};

} // namespace fuzz
