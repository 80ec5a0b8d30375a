// SPDX-License-Identifier: Apache-2.0
// A fault in an emulated kernel (SIGSEGV, SIGBUS: a wild pointer, a store to read-only memory;
// SIGFPE: an integer division by zero, which a GPU answers with an unspecified value) as a
// report, not a bare crash: the thread that faulted is stopped as a violation stops it, the
// grid goes on, and the record names the address, the signal, the faulting function, the thread
// and the launch (illegal_address). Installed at the first emulated launch where the program
// keeps the signals' default action or has a plain handler (Python's faulthandler, as pytest
// enables it), which a fault outside every kernel still reaches; a handler that takes the
// signal's details (a sanitizer's) is left alone.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/platform/emulated_thread.hpp>
#include <cuguard/detail/runtime/backend.hpp>
#include <cuguard/violation.hpp>

#include <signal.h>
#include <ucontext.h>

#include <cstdint>
#include <cstring>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace emulated_runtime {

/// The faulting instruction's address in the signal's context (0 where this machine's is unknown).
inline std::uintptr_t fault_pc(const void* context) noexcept {
#if defined(__x86_64__)
  return static_cast<std::uintptr_t>(static_cast<const ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<std::uintptr_t>(static_cast<const ucontext_t*>(context)->uc_mcontext.pc);
#else
  (void)context;
  return 0;
#endif
}

/// The signals on_fault takes, in the order of violation::value's codes (illegal_address).
inline constexpr int fault_signals[3] = {SIGSEGV, SIGBUS, SIGFPE};
inline int fault_code(int signal) noexcept { return signal == SIGBUS ? 1 : signal == SIGFPE ? 2 : 0; }

/// The actions on_fault replaced: the default, or a plain handler.
inline struct sigaction replaced_fault_actions[3];
inline struct sigaction& replaced_fault_action(int signal) { return replaced_fault_actions[fault_code(signal)]; }

/// SIGSEGV, SIGBUS or SIGFPE: in an emulated kernel's thread, a report and the thread stopped (the
/// handler never returns there); elsewhere the action it replaced, as without cuguard.
inline void on_fault(int signal, siginfo_t* info, void* context) {
  const platform::emulated_thread* t = platform::running;
  const device_state& state = current_device_state<void>(); // the running OS thread's channel
  if (t == nullptr || state.report == nullptr) { // no kernel, or no report channel (checks off)
    // The faulting instruction runs again, and the replaced action takes it as before.
    ::sigaction(signal, &replaced_fault_action(signal), nullptr);
    return;
  }
  const std::uintptr_t pc = fault_pc(context);
  backend::record_thread_finding(*t, reinterpret_cast<const void*>(pc), [&](violation& v) {
    v.kind = violation_kind::illegal_address;
    v.op = operation::access;
    v.address = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(info->si_addr));
    v.value = fault_code(signal);
    v.limit = static_cast<std::int64_t>(pc);
  }, state);
  t->engine->exit_thread(t->runner); // as a violation stops a thread: PTX exit, the grid goes on
}

/// Installs on_fault for the fault signals (once), where their action is the default or a plain
/// handler (not SA_SIGINFO, not ignored).
inline void install_fault_handler() {
  static const bool installed = [] {
    for (int s : fault_signals) {
      struct sigaction old {};
      if (::sigaction(s, nullptr, &old) != 0 || (old.sa_flags & SA_SIGINFO) != 0 || old.sa_handler == SIG_IGN) continue;
      replaced_fault_action(s) = old;
      struct sigaction act {};
      act.sa_sigaction = &on_fault;
      // Left by a switch, not a return: the signal stays unblocked. On the alternate signal stack
      // where the handler it replaces ran there (Python's faulthandler), so that a stack overflow
      // still reaches that handler.
      act.sa_flags = SA_SIGINFO | SA_NODEFER | (old.sa_flags & SA_ONSTACK);
      sigemptyset(&act.sa_mask);
      ::sigaction(s, &act, nullptr);
    }
    return true;
  }();
  (void)installed;
}

} // namespace emulated_runtime
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
