// SPDX-License-Identifier: Apache-2.0
// A function's name as a report gives it, from the compiler's __PRETTY_FUNCTION__ ("void
// S<T, U>::operator()(int, float*) [with T = float; U = int]": S<float, int>::operator()).
#pragma once

#include <cuguard/config.hpp>

#include <cstddef>

CUGUARD_IMPL_BEGIN_NAMESPACE
namespace detail {

/// A text read as a function's pretty name: where its parts lie.
struct pretty_name {
  const char* text;
  std::size_t name_begin = 0, name_end = 0; // the qualified name, before its parameters
  std::size_t with_begin = 0, with_end = 0; // "T = float; U = int" ([with ...]'s inside)
};

CUGUARD_HOST_DEVICE constexpr bool is_word_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

CUGUARD_HOST_DEVICE inline bool starts_with_at(const char* s, std::size_t at, const char* prefix) noexcept {
  for (std::size_t k = 0; prefix[k] != '\0'; ++k)
    if (s[at + k] != prefix[k]) return false;
  return true;
}

/// Reads `s` as a pretty name: false where it is none (a plain name, "operator()", a lambda's,
/// an operator whose name holds an angle bracket), which is then given as it is.
CUGUARD_HOST_DEVICE inline bool read_pretty_name(const char* s, pretty_name& p) noexcept {
  std::size_t n = 0, close = 0;
  while (s[n] != '\0') ++n;
  p.text = s;
  std::size_t end = n;
  for (std::size_t k = 0; k + 7 <= n; ++k)
    if (starts_with_at(s, k, " [with ") && s[n - 1] == ']') p.with_begin = k + 7, p.with_end = n - 1, end = k, k = n;
  for (close = end; close > 0 && s[close - 1] != ')'; --close) // (past " const", " &&", " noexcept")
    if (!is_word_char(s[close - 1]) && s[close - 1] != ' ' && s[close - 1] != '&') return false;
  if (close == 0) return false;
  int depth = 0;
  std::size_t open = close - 1;
  do {
    depth += s[open] == ')', depth -= s[open] == '(';
  } while (depth != 0 && open-- > 0);
  if (depth != 0 || open == 0) return false;
  std::size_t begin = open;
  for (depth = 0; begin > 0 && !(depth == 0 && s[begin - 1] == ' '); --begin) {
    const char c = s[begin - 1];
    depth += c == ')' || c == '>', depth -= c == '(' || c == '<';
    if (depth < 0) return false;
  }
  while (s[begin] == '*' || s[begin] == '&') ++begin; // ("float *f(int)": EDG's spacing)
  if (depth != 0 || (begin == 0 && p.with_begin == 0) || begin == open) return false;
  for (std::size_t k = begin; k + 8 <= open; ++k)
    if (starts_with_at(s, k, "operator") && (s[k + 8] == '<' || s[k + 8] == '>')) return false;
  p.name_begin = begin, p.name_end = open;
  return true;
}

/// The value [with ...] gives the template parameter named s[at, at + len), or false.
CUGUARD_HOST_DEVICE inline bool with_value(const pretty_name& p, std::size_t at, std::size_t len, std::size_t& value,
                                           std::size_t& value_end) noexcept {
  const char* s = p.text;
  for (std::size_t k = p.with_begin; k < p.with_end;) {
    std::size_t entry_end = k;
    while (entry_end < p.with_end && !(s[entry_end] == ';' && s[entry_end + 1] == ' ')) ++entry_end;
    std::size_t eq = k;
    while (eq + 3 <= entry_end && !starts_with_at(s, eq, " = ")) ++eq;
    std::size_t name = eq;
    while (name > k && is_word_char(s[name - 1])) --name;
    bool same = eq - name == len && eq + 3 <= entry_end;
    for (std::size_t c = 0; same && c < len; ++c) same = s[name + c] == s[at + c];
    if (same) {
      value = eq + 3, value_end = entry_end;
      return true;
    }
    k = entry_end + 2;
  }
  return false;
}

/// Whether s[at, at + len) is a whole word of the qualified name.
CUGUARD_HOST_DEVICE inline bool in_name(const pretty_name& p, std::size_t at, std::size_t len) noexcept {
  for (std::size_t k = p.name_begin; k + len <= p.name_end; ++k) {
    bool same = (k == p.name_begin || !is_word_char(p.text[k - 1])) &&
                (k + len == p.name_end || !is_word_char(p.text[k + len]));
    for (std::size_t c = 0; same && c < len; ++c) same = p.text[k + c] == p.text[at + c];
    if (same) return true;
  }
  return false;
}

/// Appends to dst[out...] the function template's own arguments ("<3, 128>"), where [with ...]
/// gives them beyond the class's: only where each is a value (`int N = 3`: a type before the
/// name), since a type's parameter reads as a typedef of the signature does (`T = float`,
/// `size_t = long unsigned int`).
template <std::size_t N>
CUGUARD_HOST_DEVICE inline void append_own_arguments(char (&dst)[N], std::size_t& out, const pretty_name& p) noexcept {
  const char* s = p.text;
  std::size_t values[8][2], count = 0;
  for (std::size_t k = p.with_begin; k < p.with_end;) {
    std::size_t end = k, eq = k, name;
    while (end < p.with_end && !(s[end] == ';' && s[end + 1] == ' ')) ++end;
    while (eq + 3 <= end && !starts_with_at(s, eq, " = ")) ++eq;
    for (name = eq; name > k && is_word_char(s[name - 1]);) --name;
    if (eq + 3 > end) return;
    if (!in_name(p, name, eq - name)) {
      if (name == k || count == 8) return; // (no type before the name: a type's parameter, or a typedef)
      values[count][0] = eq + 3, values[count++][1] = end;
    }
    k = end + 2;
  }
  for (std::size_t v = 0; v < count && out + 1 < N; ++v) {
    dst[out++] = v == 0 ? '<' : ',';
    if (v != 0 && out + 1 < N) dst[out++] = ' ';
    for (std::size_t c = values[v][0]; c < values[v][1] && out + 1 < N; ++c) dst[out++] = s[c];
  }
  if (count != 0 && out + 1 < N) dst[out++] = '>';
}

/// Copies the name of the function `pretty` names into `dst` (truncating at its end): its
/// qualified name with the template arguments [with ...] gives put in for their parameters, no
/// return type, no parameters, with the function template's own arguments where they are values
/// (append_own_arguments); a text that is no pretty name as it is.
template <std::size_t N>
CUGUARD_HOST_DEVICE inline void copy_function(char (&dst)[N], const char* pretty) noexcept {
  pretty_name p;
  std::size_t out = 0;
  if (pretty == nullptr || !read_pretty_name(pretty, p)) {
    for (; pretty != nullptr && pretty[out] != '\0' && out + 1 < N; ++out) dst[out] = pretty[out];
    dst[out] = '\0';
    return;
  }
  for (std::size_t k = p.name_begin; k < p.name_end && out + 1 < N;) {
    std::size_t word = k, value = 0, value_end = 0;
    while (word < p.name_end && is_word_char(pretty[word])) ++word;
    if (word > k && !(k > p.name_begin && is_word_char(pretty[k - 1])) && with_value(p, k, word - k, value, value_end)) {
      for (; value < value_end && out + 1 < N; ++value) dst[out++] = pretty[value];
      k = word;
    } else {
      for (word = word > k ? word : k + 1; k < word && out + 1 < N; ++k) dst[out++] = pretty[k];
    }
  }
  append_own_arguments(dst, out, p);
  dst[out] = '\0';
}

} // namespace detail
CUGUARD_IMPL_END_NAMESPACE
