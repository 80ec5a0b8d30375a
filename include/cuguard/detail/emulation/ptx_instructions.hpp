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

// cvt{.rnd}{.ftz}{.sat}.dtype.atype d, a: a float to an integer rounded as .rni/.rzi/.rmi/.rpi say
// (NaN to 0, saturating to the type's range, as PTX's float-to-integer conversions always do);
// integers to integers (.sat: clamped, else wrapped) or floats; floats to floats (an integral
// .rnd rounds to an integer; .sat clamps to [0, 1]; .rna.tf32 keeps 10 bits of mantissa).
inline void interpreter::convert(const std::vector<std::string>& parts, const std::vector<std::string>& a) {
  const std::string& dname = parts[parts.size() - 2];
  const type_info from = type_of(parts.back());
  std::string rnd;
  bool sat = false;
  for (std::size_t i = 1; i + 2 < parts.size(); ++i) {
    if (parts[i] == "sat") sat = true;
    else if (parts[i] != "ftz") rnd = parts[i];
  }
  const std::uint64_t x = value(a[1]);
  if (dname == "tf32") { // (to nearest, ties away from zero: .rna)
    std::uint64_t bits = x & 0xffffffffu;
    if ((bits & 0x7f800000u) != 0x7f800000u) bits = (bits + 0x1000u) & 0xffffe000u;
    return set(a[0], bits);
  }
  const type_info to = type_of(dname);
  if (from.bits == 16 && from.floating) unsupported("cvt from f16");
  if (from.floating) {
    double v = as_float(x, from.bits);
    const auto round = [&](double d) {
      if (rnd == "rzi" || rnd == "rz") return std::trunc(d);
      if (rnd == "rmi" || rnd == "rm") return std::floor(d);
      if (rnd == "rpi" || rnd == "rp") return std::ceil(d);
      return std::nearbyint(d); // rni, rn: to nearest even (the default rounding mode)
    };
    if (to.floating) {
      if (rnd.size() == 3 && rnd.back() == 'i') v = round(v);
      if (sat) v = v != v ? 0.0 : (v < 0 ? 0.0 : (v > 1 ? 1.0 : v));
      return set(a[0], from_float(v, to.bits));
    }
    if (v != v) return set(a[0], 0);
    v = round(v);
    if (to.is_signed) {
      const double hi = std::ldexp(1.0, static_cast<int>(to.bits) - 1);
      const std::int64_t r = v >= hi ? static_cast<std::int64_t>(width_mask(to.bits - 1))
                             : v < -hi ? -static_cast<std::int64_t>(width_mask(to.bits - 1)) - 1
                                       : static_cast<std::int64_t>(v);
      return set(a[0], static_cast<std::uint64_t>(r) & width_mask(to.bits));
    }
    const double hi = std::ldexp(1.0, static_cast<int>(to.bits));
    return set(a[0], v <= 0 ? 0 : v >= hi ? width_mask(to.bits) : static_cast<std::uint64_t>(v));
  }
  if (to.floating) {
    const double v = from.is_signed ? static_cast<double>(as_signed(x, from.bits))
                                    : static_cast<double>(x & width_mask(from.bits));
    return set(a[0], from_float(v, to.bits));
  }
  if (!sat) return set(a[0], (from.is_signed ? static_cast<std::uint64_t>(as_signed(x, from.bits)) : x & width_mask(from.bits)) &
                                 width_mask(to.bits));
  // (.sat between integers: clamped to the destination's range)
  const long double v = from.is_signed ? static_cast<long double>(as_signed(x, from.bits))
                                       : static_cast<long double>(x & width_mask(from.bits));
  const long double lo = to.is_signed ? -std::ldexp(1.0L, static_cast<int>(to.bits) - 1) : 0.0L;
  const long double hi = to.is_signed ? std::ldexp(1.0L, static_cast<int>(to.bits) - 1) - 1 : std::ldexp(1.0L, static_cast<int>(to.bits)) - 1;
  const long double c = v < lo ? lo : v > hi ? hi : v;
  set(a[0], (to.is_signed ? static_cast<std::uint64_t>(static_cast<std::int64_t>(c)) : static_cast<std::uint64_t>(c)) &
                width_mask(to.bits));
}

// The scalar video instructions: vop.dtype.atype.btype{.sat}{.op2} d{.dsel}, a{.asel}, b{.bsel}{, c}
// (vadd, vsub, vabsdiff, vmin, vmax), and vmad.dtype.atype.btype{.sat}{.shr7|.shr15} d, {-}a{.asel},
// {-}b{.bsel}, {-}c: the operands' selected bytes (.b0-.b3) or halves (.h0, .h1) extended as their
// type says, the operation in 64 bits, the secondary operation with c (.add, .min, .max), .sat
// clamping to the destination's range (to its selected part's with a .dsel), and a .dsel merging
// the result's low part into c.
inline void interpreter::video(const std::vector<std::string>& parts, const std::vector<std::string>& a) {
  const std::string& op = parts[0];
  const type_info dt = type_of(parts[1]), at = type_of(parts[2]), bt = type_of(parts[3]);
  bool sat = false;
  std::string op2;
  int shift = 0;
  for (std::size_t i = 4; i < parts.size(); ++i) {
    if (parts[i] == "sat") sat = true;
    else if (parts[i] == "shr7") shift = 7;
    else if (parts[i] == "shr15") shift = 15;
    else op2 = parts[i];
  }
  struct part {
    std::string reg;
    unsigned offset = 0, bits = 32;
    bool negate = false;
  };
  const auto read = [](std::string token) {
    part p;
    if (!token.empty() && token[0] == '-') p.negate = true, token = trim(token.substr(1));
    const std::size_t dot = token.find('.');
    p.reg = token.substr(0, dot);
    if (dot != std::string::npos) {
      const std::string sel = token.substr(dot + 1);
      p.bits = sel[0] == 'b' ? 8u : 16u;
      p.offset = static_cast<unsigned>(sel[1] - '0') * p.bits;
    }
    return p;
  };
  const auto operand = [&](const part& p, const type_info& t) {
    const std::uint64_t bits = (value(p.reg) >> p.offset) & width_mask(p.bits);
    const std::int64_t v = t.is_signed ? as_signed(bits, p.bits) : static_cast<std::int64_t>(bits);
    return p.negate ? -v : v;
  };
  const part d = read(a[0]), pa = read(a[1]), pb = read(a[2]);
  const std::int64_t x = operand(pa, at), y = operand(pb, bt);
  const bool has_c = a.size() > 3;
  const std::int64_t c = has_c ? operand(read(a[3]), dt) : 0;
  std::int64_t r;
  if (op == "vadd") r = x + y;
  else if (op == "vsub") r = x - y;
  else if (op == "vabsdiff") r = x > y ? x - y : y - x;
  else if (op == "vmin") r = x < y ? x : y;
  else if (op == "vmax") r = x > y ? x : y;
  else r = ((x * y) >> shift) + c; // vmad
  if (op != "vmad" && !op2.empty()) {
    if (op2 == "add") r += c;
    else if (op2 == "min") r = r < c ? r : c;
    else if (op2 == "max") r = r > c ? r : c;
    else unsupported(op + "." + op2);
  }
  const unsigned width = d.reg == a[0] ? dt.bits : d.bits;
  if (sat) {
    const std::int64_t hi = dt.is_signed ? static_cast<std::int64_t>(width_mask(width - 1)) : static_cast<std::int64_t>(width_mask(width));
    const std::int64_t lo = dt.is_signed ? -hi - 1 : 0;
    r = r < lo ? lo : r > hi ? hi : r;
  }
  std::uint64_t out = static_cast<std::uint64_t>(r) & width_mask(width);
  if (d.reg != a[0]) // (a .dsel: the part merged into c)
    out = (static_cast<std::uint64_t>(c) & ~(width_mask(d.bits) << d.offset) & width_mask(dt.bits)) | (out << d.offset);
  set(d.reg, out);
}

// fma.rnd.type d, a, b, c; rcp.{approx,rnd}.type d, a; sqrt and div likewise: in the rounding mode
// the statement names (.rn, .rz, .rm, .rp; .approx as .rn), in the type's precision.
inline void interpreter::rounded(const std::vector<std::string>& parts, const std::vector<std::string>& a) {
  const type_info t = type_of(parts.back());
  if (!t.floating || t.bits == 16) unsupported(parts[0] + "." + parts.back());
  std::string rnd = "rn";
  for (std::size_t i = 1; i + 1 < parts.size(); ++i)
    if (parts[i] == "rz" || parts[i] == "rm" || parts[i] == "rp") rnd = parts[i];
  const int mode = rnd == "rz" ? FE_TOWARDZERO : rnd == "rm" ? FE_DOWNWARD : rnd == "rp" ? FE_UPWARD : FE_TONEAREST;
  const int was = std::fegetround();
  std::fesetround(mode);
  const double p = as_float(value(a[1]), t.bits);
  std::uint64_t r = 0;
  if (t.bits == 32) {
    const float x = static_cast<float>(p);
    volatile float out = 0; // (computed here, in the mode set)
    if (parts[0] == "fma") out = std::fma(x, static_cast<float>(as_float(value(a[2]), 32)), static_cast<float>(as_float(value(a[3]), 32)));
    else if (parts[0] == "rcp") out = 1.0f / x;
    else if (parts[0] == "sqrt") out = std::sqrt(x);
    else out = x / static_cast<float>(as_float(value(a[2]), 32));
    r = from_float(out, 32);
  } else {
    volatile double out = 0;
    if (parts[0] == "fma") out = std::fma(p, as_float(value(a[2]), 64), as_float(value(a[3]), 64));
    else if (parts[0] == "rcp") out = 1.0 / p;
    else if (parts[0] == "sqrt") out = std::sqrt(p);
    else out = p / as_float(value(a[2]), 64);
    r = from_float(out, 64);
  }
  std::fesetround(was);
  set(a[0], r);
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
