// SPDX-License-Identifier: Apache-2.0
// cuda::memcpy_async's barrier forms under emulation: libcu++ declares them for CUDA compilers
// only, and the emulation's copy of its cuda/__memcpy_async/memcpy_async.h (emulate.py --cccl)
// includes this at its end. The copy is done at once (libcu++'s own fallback where no
// asynchronous copy applies), so it is complete when the barrier's phase is, as CUDA promises;
// in a group's call its first thread copies. Each returns async_contract_fulfillment::none (no
// part of the copy is left to the barrier).
#pragma once

#include <cuda/__barrier/aligned_size.h>
#include <cuda/__barrier/async_contract_fulfillment.h>
#include <cuda/__barrier/barrier.h>

#include <cstddef>
#include <cstring>

_LIBCUDACXX_BEGIN_NAMESPACE_CUDA

/// Copies `size` bytes (a size_t or an aligned_size_t) from `source` to `destination`, complete
/// by the end of `barrier`'s current phase.
template <class _Tp, class _Size, thread_scope _Sco, class _CompF>
async_contract_fulfillment memcpy_async(_Tp* destination, const _Tp* source, _Size size, barrier<_Sco, _CompF>& barrier) {
  (void)barrier;
  std::memcpy(static_cast<void*>(destination), static_cast<const void*>(source), static_cast<std::size_t>(size));
  return async_contract_fulfillment::none;
}

/// The same, of untyped memory.
template <class _Size, thread_scope _Sco, class _CompF>
async_contract_fulfillment memcpy_async(void* destination, const void* source, _Size size, barrier<_Sco, _CompF>& barrier) {
  (void)barrier;
  std::memcpy(destination, source, static_cast<std::size_t>(size));
  return async_contract_fulfillment::none;
}

/// The copy by every thread of `group` (each calls it with the same arguments): its first thread copies.
template <class _Group, class _Tp, class _Size, thread_scope _Sco, class _CompF>
async_contract_fulfillment memcpy_async(const _Group& group, _Tp* destination, const _Tp* source, _Size size,
                                        barrier<_Sco, _CompF>& barrier) {
  if (group.thread_rank() == 0) (void)memcpy_async(destination, source, size, barrier);
  return async_contract_fulfillment::none;
}

/// The same, of untyped memory.
template <class _Group, class _Size, thread_scope _Sco, class _CompF>
async_contract_fulfillment memcpy_async(const _Group& group, void* destination, const void* source, _Size size,
                                        barrier<_Sco, _CompF>& barrier) {
  if (group.thread_rank() == 0) (void)memcpy_async(destination, source, size, barrier);
  return async_contract_fulfillment::none;
}

_LIBCUDACXX_END_NAMESPACE_CUDA
