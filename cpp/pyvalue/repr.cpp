// repr() of str, bytes, float and imaginary constants (see repr.h).
#include "pyvalue/repr.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "pyvalue/unicode.h"

namespace c2t::pyvalue {
namespace {

constexpr char kHex[] = "0123456789abcdef";

void append_hex(std::string& out, char32_t v, int digits) {
  for (int i = digits - 1; i >= 0; --i) out.push_back(kHex[(v >> (4 * i)) & 0xF]);
}

// Objects/unicodeobject.c unicode_repr / bytesobject.c PyBytes_Repr: single
// quotes unless the text has a ' and no ".
char pick_quote(std::string_view s) {
  bool squote = s.find('\'') != std::string_view::npos;
  bool dquote = s.find('"') != std::string_view::npos;
  return squote && !dquote ? '"' : '\'';
}

// Shortest round-trip digits of a finite, non-zero |v| and the decimal
// exponent of the first digit: v = 0.d1d2d3... * 10^decpt.
void shortest_digits(double v, std::string& digits, int& decpt) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string_view s(buf, static_cast<size_t>(res.ptr - buf));  // "d.ddde+XX"
  size_t e = s.find('e');
  digits.clear();
  for (size_t i = 0; i < e; ++i)
    if (s[i] != '.') digits.push_back(s[i]);
  int exp = 0;
  std::from_chars(s.data() + e + (s[e + 1] == '+' ? 2 : 1), s.data() + s.size(), exp);
  decpt = exp + 1;
}

// Python/pystrtod.c format_float_short for mode 'r' (repr): positional when
// -4 < decpt <= 16, otherwise exponent with a sign and at least 2 digits.
// `add_dot_0` appends ".0" to integral positional values (float repr does,
// the imaginary part of a complex repr does not).
std::string format_repr(double v, bool add_dot_0) {
  if (std::isnan(v)) return "nan";
  std::string out;
  if (std::signbit(v)) out.push_back('-');
  if (std::isinf(v)) return out + "inf";
  if (v == 0) return out + (add_dot_0 ? "0.0" : "0");
  std::string digits;
  int decpt;
  shortest_digits(std::fabs(v), digits, decpt);
  const int n = static_cast<int>(digits.size());
  if (decpt <= -4 || decpt > 16) {
    out.push_back(digits[0]);
    if (n > 1) {
      out.push_back('.');
      out.append(digits, 1, std::string::npos);
    }
    int exp = decpt - 1;
    char buf[16];
    std::snprintf(buf, sizeof buf, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    out += buf;
  } else if (decpt <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-decpt), '0');
    out += digits;
  } else if (decpt >= n) {
    out += digits;
    out.append(static_cast<size_t>(decpt - n), '0');
    if (add_dot_0) out += ".0";
  } else {
    out.append(digits, 0, static_cast<size_t>(decpt));
    out.push_back('.');
    out.append(digits, static_cast<size_t>(decpt), std::string::npos);
  }
  return out;
}

}  // namespace

std::string escape_str(std::string_view s, char quote, bool raw_newlines) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    // Bulk-copy the run of characters that need no escape.
    size_t j = i;
    while (j < s.size() && s[j] >= ' ' && s[j] < 0x7F && s[j] != quote && s[j] != '\\') ++j;
    out.append(s, i, j - i);
    i = j;
    if (i >= s.size()) break;
    unsigned char b = static_cast<unsigned char>(s[i]);
    if (b < 0x80) {
      ++i;
      if (b == static_cast<unsigned char>(quote) || b == '\\') {
        out.push_back('\\');
        out.push_back(static_cast<char>(b));
      } else if (raw_newlines && (b == '\n' || b == '\t')) {
        out.push_back(static_cast<char>(b));
      } else if (b == '\t') {
        out += "\\t";
      } else if (b == '\n') {
        out += "\\n";
      } else if (b == '\r') {
        out += "\\r";
      } else if (b < ' ' || b == 0x7F) {
        out += "\\x";
        append_hex(out, b, 2);
      } else {
        out.push_back(static_cast<char>(b));
      }
      continue;
    }
    char32_t c;
    int len = utf8_decode(s, i, c, /*allow_surrogates=*/true);
    if (len == 0) {  // not produced by the decoders; show it as surrogateescape would
      out += "\\udc";
      append_hex(out, b, 2);
      ++i;
      continue;
    }
    if (is_printable(c)) {
      out.append(s, i, static_cast<size_t>(len));
    } else if (c <= 0xFF) {
      out += "\\x";
      append_hex(out, c, 2);
    } else if (c <= 0xFFFF) {
      out += "\\u";
      append_hex(out, c, 4);
    } else {
      out += "\\U";
      append_hex(out, c, 8);
    }
    i += static_cast<size_t>(len);
  }
  return out;
}

std::string repr_str(std::string_view s) {
  const char quote = pick_quote(s);
  return quote + escape_str(s, quote) + quote;
}

std::string repr_bytes(std::string_view s) {
  const char quote = pick_quote(s);
  std::string out = "b";
  out.reserve(s.size() + 3);
  out.push_back(quote);
  for (unsigned char b : s) {
    if (b == static_cast<unsigned char>(quote) || b == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(b));
    } else if (b == '\t') {
      out += "\\t";
    } else if (b == '\n') {
      out += "\\n";
    } else if (b == '\r') {
      out += "\\r";
    } else if (b < ' ' || b >= 0x7F) {
      out += "\\x";
      append_hex(out, b, 2);
    } else {
      out.push_back(static_cast<char>(b));
    }
  }
  out.push_back(quote);
  return out;
}

std::string repr_float(double v) { return format_repr(v, /*add_dot_0=*/true); }

// Objects/complexobject.c complex_repr: a real part of +0.0 is omitted and
// the imaginary part is formatted with 'r' and no added ".0".
std::string repr_imag(double x) { return format_repr(x, /*add_dot_0=*/false) + "j"; }

}  // namespace c2t::pyvalue
