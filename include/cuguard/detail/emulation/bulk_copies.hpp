// SPDX-License-Identifier: Apache-2.0
// cuda::ptx's mbarrier and bulk-copy functions that CUB's kernels name (DeviceTransform's
// bulk-copy path), which CCCL declares for device compilation only. Under emulation a bulk copy is
// made at once and completes its bytes on its barrier; a wait that finds its phase incomplete lets
// the block's other threads run (a block's threads take turns on one OS thread).
#pragma once

#include <cuguard/detail/emulation/grid_runner.hpp>

#include <cuda/std/detail/__config>

#include <cstdint>
#include <cstring>

namespace cuguard_impl_mbarrier {
/// The state an emulated mbarrier keeps in its 64-bit word: arrivals a phase expects, arrivals
/// still missing, transaction bytes still missing (negative where bytes came before they were
/// expected, as a bulk copy may), and the phase's parity.
struct state {
  std::int32_t bytes;
  std::uint16_t expected;
  std::uint16_t missing_and_phase; ///< bit 15: the phase's parity; below it, arrivals missing
};
static_assert(sizeof(state) == sizeof(std::uint64_t), "an mbarrier is one 64-bit word");

inline state read(const std::uint64_t* word) noexcept {
  state s;
  std::memcpy(&s, word, sizeof s);
  return s;
}
/// Writes `s` to `word`, completing the phase where nothing is missing.
inline void write(std::uint64_t* word, state s) noexcept {
  if ((s.missing_and_phase & 0x7fffu) == 0 && s.bytes == 0)
    s.missing_and_phase = static_cast<std::uint16_t>(((s.missing_and_phase ^ 0x8000u) & 0x8000u) | s.expected);
  std::memcpy(word, &s, sizeof s);
}
inline void arrive(std::uint64_t* word, std::int32_t expected_bytes) noexcept {
  state s = read(word);
  s.bytes += expected_bytes;
  s.missing_and_phase = static_cast<std::uint16_t>(s.missing_and_phase - 1u);
  write(word, s);
}
} // namespace cuguard_impl_mbarrier

_LIBCUDACXX_BEGIN_NAMESPACE_CUDA_PTX
template <typename = void>
inline void mbarrier_init(::std::uint64_t* addr, const ::std::uint32_t& count) {
  cuguard_impl_mbarrier::write(addr, {0, static_cast<::std::uint16_t>(count), static_cast<::std::uint16_t>(count)});
}
template <class Sem, class Scope, class Space>
inline ::std::uint64_t mbarrier_arrive_expect_tx(Sem, Scope, Space, ::std::uint64_t* addr, const ::std::uint32_t& tx_count) {
  const ::std::uint64_t before = *addr;
  cuguard_impl_mbarrier::arrive(addr, static_cast<::std::int32_t>(tx_count));
  return before;
}
template <class Sem, class Scope, class Space>
inline void mbarrier_expect_tx(Sem, Scope, Space, ::std::uint64_t* addr, const ::std::uint32_t& tx_count) {
  auto s = cuguard_impl_mbarrier::read(addr);
  s.bytes += static_cast<::std::int32_t>(tx_count);
  cuguard_impl_mbarrier::write(addr, s);
}
template <typename = void>
inline ::std::uint64_t mbarrier_arrive(::std::uint64_t* addr) {
  const ::std::uint64_t before = *addr;
  cuguard_impl_mbarrier::arrive(addr, 0);
  return before;
}
/// True once the phase of parity `phase_parity` has completed; else the block's other threads run.
template <typename = void>
inline bool mbarrier_try_wait_parity(::std::uint64_t* addr, const ::std::uint32_t& phase_parity) {
  const bool done = (cuguard_impl_mbarrier::read(addr).missing_and_phase >> 15) != (phase_parity & 1u);
  if (auto* runner = ::cuguard::detail::engine::kernel_thread_runner(); !done && runner != nullptr) runner->yield();
  return done;
}
template <class Sem, class Scope>
inline bool mbarrier_try_wait_parity(Sem, Scope, ::std::uint64_t* addr, const ::std::uint32_t& phase_parity) {
  return mbarrier_try_wait_parity(addr, phase_parity);
}
template <class Sem, class Scope>
inline bool mbarrier_test_wait_parity(Sem, Scope, ::std::uint64_t* addr, const ::std::uint32_t& phase_parity) {
  return (cuguard_impl_mbarrier::read(addr).missing_and_phase >> 15) != (phase_parity & 1u);
}
/// A bulk copy into shared memory, completing its bytes on `smem_bar`.
template <class DstSpace, class SrcSpace>
inline void cp_async_bulk(DstSpace, SrcSpace, void* dst, const void* src, const ::std::uint32_t& size,
                          ::std::uint64_t* smem_bar) {
  ::std::memcpy(dst, src, size);
  auto s = cuguard_impl_mbarrier::read(smem_bar);
  s.bytes -= static_cast<::std::int32_t>(size);
  cuguard_impl_mbarrier::write(smem_bar, s);
}
/// A bulk copy out of shared memory (complete at once: a bulk group's wait finds nothing pending).
template <class DstSpace, class SrcSpace>
inline void cp_async_bulk(DstSpace, SrcSpace, void* dst, const void* src, const ::std::uint32_t& size) {
  ::std::memcpy(dst, src, size);
}
template <typename = void>
inline void cp_async_bulk_commit_group() {}
template <class N>
inline void cp_async_bulk_wait_group(N) {}
template <class N>
inline void cp_async_bulk_wait_group_read(N) {}
template <class... Tags>
inline void fence_proxy_async(Tags...) {}
_LIBCUDACXX_END_NAMESPACE_CUDA_PTX
