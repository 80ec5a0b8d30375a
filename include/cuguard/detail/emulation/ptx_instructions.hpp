// SPDX-License-Identifier: Apache-2.0
// The inline PTX interpreter's instructions, defined (detail/emulation/ptx_interpreter.hpp).
#pragma once
// Part of <cuguard/detail/emulation/ptx_interpreter.hpp>, which includes it after the class.

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace ptx {

/// What a PTX type suffix says of its values: bits, floating point, signed.
struct type_info {
  unsigned bits;
  bool floating;
  bool is_signed;
};
inline type_info type_of(const std::string& t) {
  const unsigned bits = t.size() > 1 ? static_cast<unsigned>(std::stoul(t.substr(1))) : 32u;
  return {bits, t[0] == 'f', t[0] == 's'};
}
inline std::uint64_t width_mask(unsigned bits) { return bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1; }
inline std::int64_t as_signed(std::uint64_t v, unsigned bits) {
  return bits >= 64 ? static_cast<std::int64_t>(v)
                    : static_cast<std::int64_t>(((v & width_mask(bits)) ^ (std::uint64_t{1} << (bits - 1))) -
                                                (std::uint64_t{1} << (bits - 1)));
}
inline double as_float(std::uint64_t v, unsigned bits) {
  if (bits == 64) {
    double d;
    std::memcpy(&d, &v, 8);
    return d;
  }
  float f;
  const std::uint32_t w = static_cast<std::uint32_t>(v);
  std::memcpy(&f, &w, 4);
  return f;
}
inline std::uint64_t from_float(double d, unsigned bits) {
  if (bits == 64) {
    std::uint64_t v;
    std::memcpy(&v, &d, 8);
    return v;
  }
  const float f = static_cast<float>(d);
  std::uint32_t w;
  std::memcpy(&w, &f, 4);
  return w;
}

// The template's statements (split at ';', '{' and '}'), parsed on its first run on this OS thread.
inline const std::vector<statement>& interpreter::compiled(const char* text) {
  static thread_local std::unordered_map<const char*, std::vector<statement>> programs;
  auto found = programs.find(text);
  if (found != programs.end()) return found->second;
  std::vector<statement> program;
  std::string piece;
  int operand_braces = 0; // (a brace inside an instruction is a vector operand's, not a block's)
  for (const char* p = text;; ++p) {
    if (*p == '{' && !trim(piece).empty()) ++operand_braces;
    const bool operand_brace = operand_braces > 0 && (*p == '{' || *p == '}');
    if (*p == '}' && operand_brace) --operand_braces;
    if (!operand_brace && (*p == ';' || *p == '{' || *p == '}' || *p == '\0')) {
      const std::string s = trim(piece);
      if (!s.empty()) program.push_back(parse(s));
      piece.clear();
      if (*p == '\0') break;
    } else {
      piece += *p;
    }
  }
  return programs.emplace(text, std::move(program)).first->second;
}

inline statement interpreter::parse(const std::string& text) {
  statement st;
  std::string s = text;
  if (s.compare(0, 4, ".reg") == 0) {
    st.declares = split(s.substr(s.find(' ', s.find('.', 4))));
    return st;
  }
  if (s[0] == '@') { // a guard: @p, @!p
    const std::size_t end = s.find_first_of(" \t");
    st.negate = s[1] == '!';
    st.guard = s.substr(st.negate ? 2 : 1, end - (st.negate ? 2 : 1));
    s = trim(s.substr(end));
  }
  const std::size_t space = s.find_first_of(" \t");
  const std::string opcode = s.substr(0, space);
  if (space != std::string::npos) st.args = split(s.substr(space));
  for (std::size_t at = 0; at <= opcode.size();) {
    const std::size_t dot = opcode.find('.', at);
    st.parts.push_back(opcode.substr(at, dot == std::string::npos ? std::string::npos : dot - at));
    if (dot == std::string::npos) break;
    at = dot + 1;
  }
  const std::size_t bar = st.args.empty() ? std::string::npos : st.args[0].find('|');
  if (bar != std::string::npos) { // shfl's d|p
    st.predicate_out = trim(st.args[0].substr(bar + 1));
    st.args[0] = trim(st.args[0].substr(0, bar));
  }
  return st;
}

// The instructions other than arithmetic: true if the statement's opcode named one.
inline bool interpreter::dispatch(const statement& st) {
  const std::vector<std::string>& parts = st.parts;
  const std::vector<std::string>& a = st.args;
  const std::string& head = parts[0];
  const std::string& type = parts.back();
  if (head == "exit") unpaused([] { engine::runner().exit_thread(); });
  if (head == "membar" || head == "fence") std::atomic_thread_fence(std::memory_order_seq_cst);
  else if (head == "shfl") shuffle(parts.size() > 2 ? parts[2] : "", a, st.predicate_out);
  else if (head == "vote") vote(parts, a);
  else if (head == "ld" || head == "st") {
    bool vector = false;
    for (const std::string& p : parts) vector = vector || (p.size() == 2 && p[0] == 'v');
    memory(head == "ld", type, vector, a);
  } else if (head == "mov" && a.size() == 2 && (a[0][0] == '{' || a[1][0] == '{')) move_vector(type, a);
  else if (head == "setp" && parts.size() >= 2) compare(parts[1], type, a);
  else if (head == "selp") set(a[0], value(a[3]) != 0 ? value(a[1]) : value(a[2]));
  else if (head == "prmt")
    set(a[0], __byte_perm(static_cast<unsigned>(value(a[1])), static_cast<unsigned>(value(a[2])),
                          static_cast<unsigned>(value(a[3]))));
  else if (head == "cvt" && parts.size() >= 3) convert(parts, a);
  else if ((head == "vadd" || head == "vsub" || head == "vmin" || head == "vmax" || head == "vabsdiff" ||
            head == "vmad") && parts.size() >= 4) video(parts, a);
  else if (head == "bfind" && parts.size() >= 2) { // the most significant non-sign bit's index, or ~0
    const type_info t = type_of(type);
    std::uint64_t x = value(a[1]) & width_mask(t.bits);
    if (t.is_signed && ((x >> (t.bits - 1)) & 1u)) x = ~x & width_mask(t.bits);
    int top = -1;
    for (int bit = static_cast<int>(t.bits) - 1; bit >= 0 && top < 0; --bit)
      if ((x >> bit) & 1u) top = bit;
    const bool shift = parts.size() > 2 && parts[1] == "shiftamt";
    set(a[0], top < 0 ? 0xffffffffu : static_cast<std::uint64_t>(shift ? static_cast<int>(t.bits) - 1 - top : top));
  }
  else if ((head == "fma" || head == "rcp" || head == "sqrt" || head == "div") && parts.size() >= 3) rounded(parts, a);
  else if (head == "slct" && parts.size() == 3) { // slct.dtype.ctype d, a, b, c: c >= 0 ? a : b
    const type_info c = type_of(type);
    const std::uint64_t v = value(a[3]);
    const bool pick = c.floating ? as_float(v, c.bits) >= 0 : as_signed(v, c.bits) >= 0;
    set(a[0], pick ? value(a[1]) : value(a[2]));
  } else if (head == "set" && parts.size() >= 4) { // set.cmp.dtype.stype d, a, b: all ones (1.0f) or 0
    compare(parts[1], type, a);
    const type_info d = type_of(parts[parts.size() - 2]);
    set(a[0], value(a[0]) != 0 ? (d.floating ? from_float(1.0, d.bits) : width_mask(d.bits)) : 0);
  } else return false;
  return true;
}

// Packing and unpacking: the vector's elements split the register's bits evenly.
inline void interpreter::move_vector(const std::string& type, const std::vector<std::string>& a) {
  const bool pack = a[1][0] == '{';
  const std::string& braced = a[pack ? 1 : 0];
  const std::vector<std::string> elements = split(braced.substr(1, braced.size() - 2));
  const unsigned each = type_of(type).bits / static_cast<unsigned>(elements.size());
  std::uint64_t bits = pack ? 0 : value(a[1]);
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (pack) bits |= (value(elements[i]) & width_mask(each)) << (each * i);
    else set(elements[i], (bits >> (each * i)) & width_mask(each));
  }
  if (pack) set(a[0], bits);
}

inline void interpreter::compare(const std::string& cmp, const std::string& type, const std::vector<std::string>& a) {
  const type_info t = type_of(type);
  const std::uint64_t x = value(a[1]), y = value(a[2]);
  int order = 0;
  if (t.floating) {
    const double p = as_float(x, t.bits), q = as_float(y, t.bits);
    order = p < q ? -1 : (p > q ? 1 : 0);
  } else if (t.is_signed) {
    const std::int64_t p = as_signed(x, t.bits), q = as_signed(y, t.bits);
    order = p < q ? -1 : (p > q ? 1 : 0);
  } else {
    const std::uint64_t p = x & width_mask(t.bits), q = y & width_mask(t.bits);
    order = p < q ? -1 : (p > q ? 1 : 0);
  }
  const bool r = cmp == "eq" ? order == 0 : cmp == "ne" ? order != 0 : cmp == "lt" || cmp == "lo" ? order < 0
               : cmp == "le" || cmp == "ls" ? order <= 0 : cmp == "gt" || cmp == "hi" ? order > 0 : order >= 0;
  set(a[0], r ? 1 : 0);
}

// vote.sync.mode / vote.mode.sync: d, p, membermask.
inline void interpreter::vote(const std::vector<std::string>& parts, const std::vector<std::string>& a) {
  const std::string mode = parts[1] == "sync" ? parts[2] : parts[1];
  const unsigned mask = static_cast<unsigned>(value(a[2]));
  unsigned voters = 0;
  const bool predicate = value(a[1]) != 0;
  const engine::warp_call call{mask, {file_, "", line_}, "vote.sync"};
  const unsigned votes = unpaused([&] { return engine::runner().ballot(predicate, call, &voters); });
  if (mode == "ballot") set(a[0], votes);
  else if (mode == "any") set(a[0], votes != 0 ? 1 : 0);
  else if (mode == "all") set(a[0], votes == voters ? 1 : 0);
  else if (mode == "uni") set(a[0], votes == 0 || votes == voters ? 1 : 0);
  else unsupported("vote." + mode);
}

inline void interpreter::arithmetic(const std::string& op, const std::string& type, const std::vector<std::string>& a) {
  const type_info t = type_of(type);
  const std::uint64_t x = a.size() > 1 ? value(a[1]) : 0, y = a.size() > 2 ? value(a[2]) : 0;
  if (op == "mov") return set(a[0], x & width_mask(t.bits));
  if (op == "bfe") {
    const unsigned pos = static_cast<unsigned>(y & 0xff), len = static_cast<unsigned>(value(a[3]) & 0xff);
    if (len == 0) return set(a[0], 0);
    const std::uint64_t field = pos >= t.bits ? 0 : (x & width_mask(t.bits)) >> pos;
    std::uint64_t r = field & width_mask(len);
    const unsigned top = pos + len - 1 < t.bits - 1 ? pos + len - 1 : t.bits - 1;
    if (t.is_signed && ((x >> top) & 1u)) r |= ~width_mask(len < t.bits ? len : t.bits);
    return set(a[0], r & width_mask(t.bits));
  }
  if (op == "bfi") {
    const unsigned pos = static_cast<unsigned>(value(a[3]) & 0xff), len = static_cast<unsigned>(value(a[4]) & 0xff);
    const std::uint64_t field = width_mask(len < t.bits ? len : t.bits) << pos;
    return set(a[0], ((y & ~field) | ((x << pos) & field)) & width_mask(t.bits));
  }
  if (t.floating) {
    const double p = as_float(x, t.bits), q = as_float(y, t.bits);
    double r;
    if (op == "add") r = p + q;
    else if (op == "sub") r = p - q;
    else if (op == "mul") r = p * q;
    else if (op == "min") r = q < p ? q : p;
    else if (op == "max") r = p < q ? q : p;
    else if (op == "neg") r = -p;
    else if (op == "abs") r = p < 0 ? -p : p;
    else unsupported(op + "." + type);
    return set(a[0], from_float(t.bits == 32 ? static_cast<double>(static_cast<float>(r)) : r, t.bits));
  }
  const unsigned shift = static_cast<unsigned>(y > 255 ? 255 : y);
  std::uint64_t r;
  if (op == "add") r = x + y;
  else if (op == "sub") r = x - y;
  else if (op == "mul") r = x * y;
  else if (op == "and") r = x & y;
  else if (op == "or") r = x | y;
  else if (op == "xor") r = x ^ y;
  else if (op == "not") r = ~x;
  else if (op == "neg") r = ~x + 1;
  else if (op == "shl") r = shift >= t.bits ? 0 : x << shift;
  else if (op == "shr" && t.is_signed) r = static_cast<std::uint64_t>(as_signed(x, t.bits) >> (shift >= t.bits ? t.bits - 1 : shift));
  else if (op == "shr") r = shift >= t.bits ? 0 : (x & width_mask(t.bits)) >> shift;
  else if (op == "min" || op == "max") {
    const bool less = t.is_signed ? as_signed(x, t.bits) < as_signed(y, t.bits) : (x & width_mask(t.bits)) < (y & width_mask(t.bits));
    r = (op == "min") == less ? x : y;
  } else unsupported(op + "." + type);
  set(a[0], r & width_mask(t.bits));
}

inline void interpreter::memory(bool load, const std::string& type, bool vector, const std::vector<std::string>& a) {
  const std::string& address = load ? a[1] : a[0];
  const std::string& data = load ? a[0] : a[1];
  if (address.size() < 2 || address.front() != '[') unsupported(address);
  const std::string inside = trim(address.substr(1, address.size() - 2));
  const std::size_t plus = inside.find('+');
  std::uint64_t at = value(trim(inside.substr(0, plus)));
  if (plus != std::string::npos) at += value(trim(inside.substr(plus + 1)));
  const unsigned bytes = type_of(type).bits / 8;
  const std::vector<std::string> elements = vector ? split(data.substr(1, data.size() - 2)) : std::vector<std::string>{data};
  for (std::size_t i = 0; i < elements.size(); ++i) {
    auto* p = reinterpret_cast<unsigned char*>(static_cast<std::uintptr_t>(at)) + i * bytes;
    std::uint64_t bits = 0;
    if (load) {
      std::memcpy(&bits, p, bytes);
      set(elements[i], bits);
    } else {
      bits = value(elements[i]);
      std::memcpy(p, &bits, bytes);
    }
  }
}

// shfl.sync.mode.b32 d[|p], a, b, c, membermask, as the PTX ISA defines it.
inline void interpreter::shuffle(const std::string& mode, const std::vector<std::string>& a,
                                 const std::string& predicate_out) {
  const std::string& dst = a[0];
  const unsigned lane = engine::lane(), b = static_cast<unsigned>(value(a[2])) & 31u;
  const unsigned c = static_cast<unsigned>(value(a[3])), mask = static_cast<unsigned>(value(a[4]));
  const unsigned seg = (c >> 8) & 31u, clamp = c & 31u;
  const unsigned max_lane = (lane & seg) | (clamp & ~seg), min_lane = lane & seg;
  int j = static_cast<int>(lane);
  bool in_range = false;
  if (mode == "up") j = static_cast<int>(lane) - static_cast<int>(b), in_range = j >= static_cast<int>(max_lane);
  else if (mode == "down") j = static_cast<int>(lane + b), in_range = j <= static_cast<int>(max_lane);
  else if (mode == "bfly") j = static_cast<int>(lane ^ b), in_range = j <= static_cast<int>(max_lane);
  else if (mode == "idx") j = static_cast<int>(min_lane | (b & ~seg)), in_range = j <= static_cast<int>(max_lane);
  else unsupported("shfl.sync." + mode);
  if (!in_range) j = static_cast<int>(lane);
  const std::uint64_t mine = value(a[1]) & 0xffffffffu;
  const engine::warp_call call{mask, {file_, "", line_}, "shfl.sync"};
  set(dst, unpaused([&] { return engine::runner().exchange(mine, static_cast<unsigned>(j), call); }));
  if (!predicate_out.empty()) set(predicate_out, in_range ? 1 : 0);
}

} // namespace ptx
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
