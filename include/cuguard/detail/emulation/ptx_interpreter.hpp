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
#include <chrono>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
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

/// A register: its bits, and its width in bytes (for the instruction's type, the instruction says).
struct reg {
  std::string name;
  std::uint64_t bits = 0;
};

class interpreter {
 public:
  interpreter(const char* file, unsigned line, const char* text, const operand_ref* ops, std::size_t count)
      : file_(file), line_(line), text_(text), ops_(ops), count_(count) {
    for (std::size_t i = 0; i < count; ++i) {
      std::uint64_t bits = 0;
      if (ops[i].constraint[0] != '=') std::memcpy(&bits, ops[i].object, ops[i].bytes < 8 ? ops[i].bytes : 8);
      regs_.push_back({"%" + std::to_string(i), bits});
    }
  }

  void run() {
    std::string statement;
    for (const char* p = text_;; ++p) {
      if (*p == ';' || *p == '{' || *p == '}' || *p == '\0') {
        execute(trim(statement));
        statement.clear();
        if (*p == '\0') break;
      } else {
        statement += *p;
      }
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
    for (reg& r : regs_)
      if (r.name == name) return &r;
    return nullptr;
  }

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

  std::uint64_t special(const std::string& name) const {
    const unsigned lane = engine::lane();
    if (name == "%laneid") return lane;
    if (name == "%lanemask_lt") return (1u << lane) - 1u;
    if (name == "%lanemask_le") return (2u << lane) - 1u;
    if (name == "%lanemask_eq") return 1u << lane;
    if (name == "%lanemask_gt") return ~((2u << lane) - 1u) & 0xffffffffu;
    if (name == "%lanemask_ge") return ~((1u << lane) - 1u) & 0xffffffffu;
    if (name == "%tid.x") return threadIdx.x;
    if (name == "%tid.y") return threadIdx.y;
    if (name == "%tid.z") return threadIdx.z;
    if (name == "%ntid.x") return blockDim.x;
    if (name == "%ntid.y") return blockDim.y;
    if (name == "%ntid.z") return blockDim.z;
    if (name == "%ctaid.x") return blockIdx.x;
    if (name == "%ctaid.y") return blockIdx.y;
    if (name == "%ctaid.z") return blockIdx.z;
    if (name == "%nctaid.x") return gridDim.x;
    if (name == "%nctaid.y") return gridDim.y;
    if (name == "%nctaid.z") return gridDim.z;
    if (name == "%warpid") return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) / 32;
    if (name == "%clock" || name == "%clock64")
      return static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
    unsupported(name);
  }

  std::uint64_t value(const std::string& token) {
    if (token.empty()) unsupported("an empty operand");
    if (reg* r = find(token)) return r->bits;
    if (token.compare(0, 2, "%%") == 0) return special(token.substr(1));
    if (token[0] == '%') return special(token);
    if (token.compare(0, 2, "0f") == 0 || token.compare(0, 2, "0F") == 0) return std::stoull(token.substr(2), nullptr, 16);
    if (token.compare(0, 2, "0d") == 0 || token.compare(0, 2, "0D") == 0) return std::stoull(token.substr(2), nullptr, 16);
    if ((token[0] >= '0' && token[0] <= '9') || token[0] == '-') return static_cast<std::uint64_t>(std::stoll(token, nullptr, 0));
    unsupported(token);
  }
  void set(const std::string& token, std::uint64_t bits) {
    reg* r = find(token);
    if (r == nullptr) unsupported(token);
    r->bits = bits;
  }

  void execute(const std::string& s);
  bool dispatch(const std::vector<std::string>& parts, const std::vector<std::string>& a);
  void move_vector(const std::string& type, const std::vector<std::string>& a);
  void compare(const std::string& cmp, const std::string& type, const std::vector<std::string>& a);
  void vote(const std::vector<std::string>& parts, const std::vector<std::string>& a);
  void arithmetic(const std::string& op, const std::string& type, const std::vector<std::string>& a);
  void memory(bool load, const std::string& type, bool vector, const std::vector<std::string>& a);
  void shuffle(const std::string& mode, const std::vector<std::string>& a);

  const char* file_;
  unsigned line_;
  const char* text_;
  const operand_ref* ops_;
  std::size_t count_;
  std::vector<reg> regs_;
};

inline void add(std::vector<operand_ref>& list, const operand_ref& op) { list.push_back(op); }
inline void add(std::vector<operand_ref>&, const char*) {} // a clobber ("memory")

/// `asm("template" : outputs : inputs : clobbers)` at `file`:`line` of a rewritten header: the
/// template run on the calling emulated thread, its operands %0, %1, ... in the order given.
template <class... Operands>
void run(const char* file, unsigned line, const char* text, const Operands&... ops) {
  std::vector<operand_ref> list;
  (add(list, ops), ...);
  interpreter(file, line, text, list.data(), list.size()).run();
}

} // namespace ptx
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE

#include <cuguard/detail/emulation/ptx_instructions.hpp> // IWYU pragma: export
