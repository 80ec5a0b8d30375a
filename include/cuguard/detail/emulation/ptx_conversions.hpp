// SPDX-License-Identifier: Apache-2.0
// The inline PTX interpreter's conversions and rounded arithmetic (cvt, the scalar video
// instructions, fma/rcp/sqrt/div in a rounding mode), defined (detail/emulation/ptx_interpreter.hpp).
#pragma once
// Part of <cuguard/detail/emulation/ptx_interpreter.hpp>, which includes it after
// ptx_instructions.hpp (its type helpers).

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {
namespace ptx {

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

/// A video instruction's operand: its register, the part a selector names (.b0-.b3, .h0, .h1;
/// else all 32 bits) and a negation (vmad's `-a`).
struct video_part {
  std::string reg;
  unsigned offset = 0, bits = 32;
  bool negate = false;

  static video_part of(std::string token) {
    video_part p;
    if (!token.empty() && token[0] == '-') p.negate = true, token = token.substr(1);
    const std::size_t start = token.find_first_not_of(" \t");
    token = start == std::string::npos ? token : token.substr(start);
    const std::size_t dot = token.find('.');
    p.reg = token.substr(0, dot);
    if (dot != std::string::npos) {
      const std::string sel = token.substr(dot + 1);
      p.bits = sel[0] == 'b' ? 8u : 16u;
      p.offset = static_cast<unsigned>(sel[1] - '0') * p.bits;
    }
    return p;
  }
};

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
  const auto operand = [&](const video_part& p, const type_info& t) {
    const std::uint64_t bits = (value(p.reg) >> p.offset) & width_mask(p.bits);
    const std::int64_t v = t.is_signed ? as_signed(bits, p.bits) : static_cast<std::int64_t>(bits);
    return p.negate ? -v : v;
  };
  const auto read = [](const std::string& token) { return video_part::of(token); };
  const video_part d = read(a[0]), pa = read(a[1]), pb = read(a[2]);
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

} // namespace ptx
} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
