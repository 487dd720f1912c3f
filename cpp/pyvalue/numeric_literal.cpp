// Numeric literal text -> value (see repr.h): int literals to decimal digits
// and float literals to correctly rounded doubles.
#include <cctype>
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <limits>
#include <vector>

#include "pyvalue/repr.h"

namespace c2t::pyvalue {
namespace {

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

// Digits of `base` with single '_' between digits (and, after a 0x/0o/0b
// prefix, optionally one '_' first: "0x_ff"), as Python/tokenizer.c
// tok_decimal_tail and the prefixed-literal loops accept them. Appends the
// digit values to `out`.
bool scan_digits(std::string_view s, int base, bool leading_underscore_ok, std::vector<uint8_t>& out) {
  if (s.empty()) return false;
  bool need_digit = true;  // after '_' (or at the start) a digit must follow
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '_') {
      if (need_digit && !(i == 0 && leading_underscore_ok)) return false;
      need_digit = true;
      continue;
    }
    int d = digit_value(s[i]);
    if (d >= base) return false;
    out.push_back(static_cast<uint8_t>(d));
    need_digit = false;
  }
  return !need_digit;
}

// Big number in base 1e9 limbs, least significant first.
std::string to_decimal(const std::vector<uint8_t>& digits, int base) {
  std::vector<uint32_t> limbs;
  for (uint8_t d : digits) {
    uint64_t carry = d;
    for (auto& l : limbs) {
      uint64_t v = static_cast<uint64_t>(l) * static_cast<uint64_t>(base) + carry;
      l = static_cast<uint32_t>(v % 1000000000u);
      carry = v / 1000000000u;
    }
    while (carry) {
      limbs.push_back(static_cast<uint32_t>(carry % 1000000000u));
      carry /= 1000000000u;
    }
  }
  if (limbs.empty()) return "0";
  std::string out = std::to_string(limbs.back());
  for (size_t i = limbs.size() - 1; i-- > 0;) {
    std::string part = std::to_string(limbs[i]);
    out.append(9 - part.size(), '0');
    out += part;
  }
  return out;
}

// digitpart: digit (["_"] digit)*, copied to `out` without the '_'.
// Returns the length consumed (0 if no digit at s[0]).
size_t digitpart(std::string_view s, std::string& out) {
  size_t i = 0;
  while (i < s.size()) {
    if (s[i] >= '0' && s[i] <= '9') {
      out.push_back(s[i++]);
    } else if (s[i] == '_' && i > 0 && i + 1 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '9') {
      ++i;
    } else {
      break;
    }
  }
  return i;
}

}  // namespace

bool int_literal_to_decimal(std::string_view lit, std::string& out) {
  // Fast path: plain decimal digits without '_' or a leading zero.
  if (!lit.empty() && lit[0] >= '1' && lit[0] <= '9' &&
      std::all_of(lit.begin(), lit.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    out.assign(lit);
    return true;
  }
  std::vector<uint8_t> digits;
  if (lit.size() >= 2 && lit[0] == '0' && lit[1] != '_' && !(lit[1] >= '0' && lit[1] <= '9')) {
    int base;
    switch (lit[1]) {
      case 'x': case 'X': base = 16; break;
      case 'o': case 'O': base = 8; break;
      case 'b': case 'B': base = 2; break;
      default: return false;
    }
    if (!scan_digits(lit.substr(2), base, true, digits)) return false;
    std::string dec = to_decimal(digits, base);
    out.swap(dec);
    return true;
  }
  if (!scan_digits(lit, 10, false, digits)) return false;
  // "0", "00", "0_0" are zero; other decimal literals must not start with 0.
  size_t first = 0;
  while (first < digits.size() && digits[first] == 0) ++first;
  if (first == digits.size()) {
    out.assign(1, '0');  // (not `out = "0"`: GCC 12 -Wrestrict false positive)
    return true;
  }
  if (first != 0) return false;
  out.clear();
  out.reserve(digits.size());
  for (uint8_t d : digits) out.push_back(static_cast<char>('0' + d));
  return true;
}

std::string int_literal_limit_error(std::string_view literal, std::string_view decimal) {
  bool prefixed = literal.size() >= 2 && literal[0] == '0' && std::isalpha(static_cast<unsigned char>(literal[1]));
  if (prefixed || decimal.size() <= kIntMaxStrDigits) return {};
  return "Exceeds the limit (4300 digits) for integer string conversion: value has " +
         std::to_string(decimal.size()) +
         " digits; use sys.set_int_max_str_digits() to increase the limit - Consider hexadecimal for huge "
         "integer literals to avoid decimal conversion limits.";
}

std::string int_repr_limit_error(std::string_view decimal) {
  if (decimal.size() <= kIntMaxStrDigits) return {};
  return "Exceeds the limit (4300 digits) for integer string conversion; use sys.set_int_max_str_digits() to "
         "increase the limit";
}

bool parse_float_literal(std::string_view lit, double& out) {
  // Validate against the float/imaginary literal grammar while copying the
  // text without '_':  (digitpart ["." [digitpart]] | "." digitpart) [exponent]
  std::string clean;
  clean.reserve(lit.size());
  size_t i = digitpart(lit, clean);
  bool mantissa_digits = i > 0;
  if (i < lit.size() && lit[i] == '.') {
    clean.push_back('.');
    ++i;
    size_t n = digitpart(lit.substr(i), clean);
    i += n;
    mantissa_digits = mantissa_digits || n > 0;
  }
  if (!mantissa_digits) return false;
  long long exp10 = 0;  // value of the exponent, clamped, for range errors
  if (i < lit.size() && (lit[i] == 'e' || lit[i] == 'E')) {
    clean.push_back('e');
    ++i;
    bool neg = false;
    if (i < lit.size() && (lit[i] == '+' || lit[i] == '-')) {
      neg = lit[i] == '-';
      clean.push_back(lit[i++]);
    }
    size_t start = clean.size();
    size_t n = digitpart(lit.substr(i), clean);
    if (n == 0) return false;
    i += n;
    for (size_t k = start; k < clean.size(); ++k)
      exp10 = std::min<long long>(exp10 * 10 + (clean[k] - '0'), 1LL << 40);
    if (neg) exp10 = -exp10;
  }
  if (i != lit.size()) return false;
  auto res = std::from_chars(clean.data(), clean.data() + clean.size(), out);
  if (res.ptr != clean.data() + clean.size()) return false;
  if (res.ec == std::errc::result_out_of_range) {
    // The value was not stored; decide between overflow and underflow from
    // the decimal magnitude: position of the first non-zero digit + exponent.
    long long pos = 0;  // 10^pos is the magnitude of the leading digit
    bool seen_point = false, found = false;
    long long int_digits = 0, lead_zeros_frac = 0;
    for (char c : clean) {
      if (c == 'e') break;
      if (c == '.') { seen_point = true; continue; }
      if (!seen_point) {
        if (found || c != '0') { found = true; ++int_digits; }
      } else if (!found) {
        if (c == '0') ++lead_zeros_frac;
        else found = true;
      }
    }
    pos = int_digits > 0 ? int_digits - 1 : -(lead_zeros_frac + 1);
    out = pos + exp10 > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  } else if (res.ec != std::errc()) {
    return false;
  }
  return true;
}

}  // namespace c2t::pyvalue
