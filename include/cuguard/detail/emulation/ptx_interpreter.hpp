// SPDX-License-Identifier: Apache-2.0
// Inline PTX under emulation: an `asm("template" : outputs : inputs)` statement of a header the
// translator rewrote (python/cuguard/emulate.py: CUB's headers, which the host compiler would hand
// to its assembler) becomes `::cuguard::detail::ptx::run("template", operand("=r", x), ...)`,
// which interprets the template on the emulated thread: register declarations, guards (`@p`,
// `@!p`), mov (with %laneid, %lanemask_*, %tid, %ntid, %ctaid, %nctaid, %warpid, %clock and
// vector packing), the integer and floating-point arithmetic and logic CUB uses (add, sub, mul,
// min, max, and, or, xor, not, shl, shr, setp, selp, bfe, bfi, prmt), shfl.sync in its four modes
// (with its predicate), ld and st of any state space and cache operator (vectors too), fences, and
// exit. An instruction it does not know stops the launch with its text: never a wrong answer.
#pragma once

#include <cuguard/config.hpp>
#include <cuguard/detail/emulation/integer_intrinsics.hpp>
#include <cuguard/detail/emulation/intrinsics.hpp>

#include <atomic>
#include <cstdlib>
#include <cfenv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <vector>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace ptx {

/// One operand of an asm statement: its constraint ("=r", "l", ...), its object, and its bytes.
struct operand_ref {
  const char* constraint;
  void* object;
  std::size_t bytes;
};
template <class T>
operand_ref operand(const char* constraint, T&& value) {
  using U = std::remove_reference_t<T>;
  static_assert(std::is_trivially_copyable<U>::value, "inline PTX: an operand is a register's value");
  return {constraint, const_cast<void*>(static_cast<const void*>(&value)), sizeof(U)};
}

/// An input operand held by value (`"l"(&B[i])`): GCC binds no reference, in a template, to a
/// prvalue of a restrict-qualified pointer type (bitsandbytes' gemm_4bit_sm80.cu).
template <class T>
struct held_input {
  const char* constraint;
  T value;
};
template <class T>
held_input<T> input(const char* constraint, T value) {
  static_assert(std::is_trivially_copyable<T>::value, "inline PTX: an operand is a register's value");
  return {constraint, value};
}

/// A register: its bits; `name` null for an operand (%0, %1, ...: its place), else a `.reg`'s.
struct reg {
  const std::string* name;
  std::uint64_t bits;
};

/// A statement of a template, parsed once: the registers it declares, or its guard, its opcode's
/// parts ("shfl", "sync", "down", "b32") and its operands (a shuffle's predicate apart).
/// Adds `delta` to engine::hooks_paused for its lifetime (1: the interpreter's own work; -1: a
/// call of the runner from it, which may switch to other threads or never return).
struct hooks_shift {
  int delta;
  explicit hooks_shift(int d) noexcept : delta(d) { engine::hooks_paused += d; }
  ~hooks_shift() { engine::hooks_paused -= delta; }
  hooks_shift(const hooks_shift&) = delete;
  hooks_shift& operator=(const hooks_shift&) = delete;
};

struct statement {
  std::vector<std::string> declares;
  std::string guard;
  bool negate = false;
  std::vector<std::string> parts;
  std::vector<std::string> args;
  std::string predicate_out;
};

class interpreter {
 public:
  interpreter(const char* file, unsigned line, const char* text, const operand_ref* ops, std::size_t count)
      : file_(file), line_(line), text_(text), ops_(ops), count_(count) {
    if (count > max_registers) unsupported("more than 32 operands");
    for (std::size_t i = 0; i < count; ++i) {
      std::uint64_t bits = 0;
      if (ops[i].constraint[0] != '=') std::memcpy(&bits, ops[i].object, ops[i].bytes < 8 ? ops[i].bytes : 8);
      regs_[used_++] = {nullptr, bits};
    }
  }

  void run() {
    for (const statement& st : compiled(text_)) {
      for (const std::string& name : st.declares) {
        if (used_ == max_registers) unsupported("more than 32 registers");
        regs_[used_++] = {&name, 0};
      }
      if (st.parts.empty()) continue;
      if (!st.guard.empty() && (value(st.guard) != 0) == st.negate) continue;
      if (!dispatch(st)) arithmetic(st.parts[0], st.parts.back(), st.args);
    }
    for (std::size_t i = 0; i < count_; ++i)
      if (ops_[i].constraint[0] == '=' || ops_[i].constraint[0] == '+')
        std::memcpy(ops_[i].object, &regs_[i].bits, ops_[i].bytes < 8 ? ops_[i].bytes : 8);
  }

 private:
  static std::string trim(const std::string& s) {
    const std::size_t b = s.find_first_not_of(" \t\n\r"), e = s.find_last_not_of(" \t\n\r");
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
  }
  [[noreturn]] void unsupported(const std::string& what) const {
    throw std::logic_error("cuguard emulation: inline PTX '" + what + "' at " + file_ + ":" + std::to_string(line_) +
                           " (in \"" + text_ + "\") is not emulated");
  }
  reg* find(const std::string& name) {
    if (name.size() > 1 && name[0] == '%' && name[1] >= '0' && name[1] <= '9') {
      const std::size_t i = static_cast<std::size_t>(std::strtoul(name.c_str() + 1, nullptr, 10));
      return i < count_ ? &regs_[i] : nullptr;
    }
    for (std::size_t i = count_; i < used_; ++i)
      if (*regs_[i].name == name) return &regs_[i];
    return nullptr;
  }
  static const std::vector<statement>& compiled(const char* text);
  static statement parse(const std::string& s);

  // Splits "a, {b, c}, [d]" at its top-level commas.
  static std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::string cur;
    int depth = 0;
    for (char c : s) {
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') --depth;
      if (c == ',' && depth == 0) {
        out.push_back(trim(cur));
        cur.clear();
      } else {
        cur += c;
      }
    }
    if (!trim(cur).empty()) out.push_back(trim(cur));
    return out;
  }

  // Runs `f`, which may switch to the block's other threads (a warp exchange) or never return
  // (exit), with the access hooks on again: what pauses them is the running thread's alone.
  template <class F>
  static auto unpaused(F&& f) {
    const hooks_shift resumed{-1};
    return f();
  }

  std::uint64_t special(const char* name) const {
    const unsigned lane = engine::lane();
    if (std::strcmp(name, "%laneid") == 0) return lane;
    if (std::strcmp(name, "%lanemask_lt") == 0) return (1u << lane) - 1u;
    if (std::strcmp(name, "%lanemask_le") == 0) return (2u << lane) - 1u;
    if (std::strcmp(name, "%lanemask_eq") == 0) return 1u << lane;
    if (std::strcmp(name, "%lanemask_gt") == 0) return ~((2u << lane) - 1u) & 0xffffffffu;
    if (std::strcmp(name, "%lanemask_ge") == 0) return ~((1u << lane) - 1u) & 0xffffffffu;
    if (std::strcmp(name, "%tid.x") == 0) return threadIdx.x;
    if (std::strcmp(name, "%tid.y") == 0) return threadIdx.y;
    if (std::strcmp(name, "%tid.z") == 0) return threadIdx.z;
    if (std::strcmp(name, "%ntid.x") == 0) return blockDim.x;
    if (std::strcmp(name, "%ntid.y") == 0) return blockDim.y;
    if (std::strcmp(name, "%ntid.z") == 0) return blockDim.z;
    if (std::strcmp(name, "%ctaid.x") == 0) return blockIdx.x;
    if (std::strcmp(name, "%ctaid.y") == 0) return blockIdx.y;
    if (std::strcmp(name, "%ctaid.z") == 0) return blockIdx.z;
    if (std::strcmp(name, "%nctaid.x") == 0) return gridDim.x;
    if (std::strcmp(name, "%nctaid.y") == 0) return gridDim.y;
    if (std::strcmp(name, "%nctaid.z") == 0) return gridDim.z;
    if (std::strcmp(name, "%warpid") == 0) return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) / 32;
    if (std::strcmp(name, "%clock") == 0 || std::strcmp(name, "%clock64") == 0)
      return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    unsupported(name);
  }

  std::uint64_t value(const std::string& token) {
    if (token.empty()) unsupported("an empty operand");
    if (reg* r = find(token)) return r->bits;
    if (token.compare(0, 2, "%%") == 0) return special(token.c_str() + 1);
    if (token[0] == '%') return special(token.c_str());
    if (token.size() > 2 && token[0] == '0' && (token[1] == 'f' || token[1] == 'F' || token[1] == 'd' || token[1] == 'D'))
      return std::strtoull(token.c_str() + 2, nullptr, 16); // a float's or a double's bits
    if ((token[0] >= '0' && token[0] <= '9') || token[0] == '-') return static_cast<std::uint64_t>(std::strtoll(token.c_str(), nullptr, 0));
    unsupported(token);
  }
  void set(const std::string& token, std::uint64_t bits) {
    reg* r = find(token);
    if (r == nullptr) unsupported(token);
    r->bits = bits;
  }

  bool dispatch(const statement& st);
  void move_vector(const std::string& type, const std::vector<std::string>& a);
  void compare(const std::string& cmp, const std::string& type, const std::vector<std::string>& a);
  void vote(const std::vector<std::string>& parts, const std::vector<std::string>& a);
  void arithmetic(const std::string& op, const std::string& type, const std::vector<std::string>& a);
  void memory(bool load, const std::string& type, bool vector, const std::vector<std::string>& a);
  void shuffle(const std::string& mode, const std::vector<std::string>& a, const std::string& predicate_out);
  void convert(const std::vector<std::string>& parts, const std::vector<std::string>& a);
  void video(const std::vector<std::string>& parts, const std::vector<std::string>& a);
  void rounded(const std::vector<std::string>& parts, const std::vector<std::string>& a);

  const char* file_;
  unsigned line_;
  const char* text_;
  const operand_ref* ops_;
  std::size_t count_;
  static constexpr std::size_t max_registers = 32;
  reg regs_[max_registers]; ///< the operands, then the .reg declarations (no allocation a run)
  std::size_t used_ = 0;
};

inline void add(operand_ref* list, std::size_t& n, const operand_ref& op) { list[n++] = op; }
template <class T>
void add(operand_ref* list, std::size_t& n, const held_input<T>& op) { // (alive to the end of the call)
  list[n++] = {op.constraint, const_cast<T*>(&op.value), sizeof(T)};
}
inline void add(operand_ref*, std::size_t&, const char*) {} // a clobber ("memory")

/// `asm("template" : outputs : inputs : clobbers)` at `file`:`line` of a rewritten header: the
/// template run on the calling emulated thread, its operands %0, %1, ... in the order given.
template <class... Operands>
void run(const char* file, unsigned line, const char* text, const Operands&... ops) {
  operand_ref list[sizeof...(Operands) + 1];
  std::size_t n = 0;
  (add(list, n, ops), ...);
  const hooks_shift paused{1}; // (the interpreter's own accesses are no kernel's: engine::hooks_paused)
  interpreter(file, line, text, list, n).run();
}

} // namespace ptx
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

#include <cuguard/detail/emulation/ptx_instructions.hpp> // IWYU pragma: export
#include <cuguard/detail/emulation/ptx_conversions.hpp>  // IWYU pragma: export
