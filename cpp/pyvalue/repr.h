// repr() of Python constants and parsing of numeric literals, reproducing
// CPython 3.11 byte for byte (used by the AST dumper and the parser).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace c2t::pyvalue {

/// repr() of a str (Objects/unicodeobject.c unicode_repr): quotes with ' unless
/// the text contains ' and no ", escapes \\, the quote, \t \n \r, \xhh for
/// other non-printables below U+0100, \uhhhh / \Uhhhhhhhh above; printable
/// characters (is_printable) are kept as-is. `utf8` may hold lone surrogates
/// as 3-byte WTF-8 sequences (from "\ud800" escapes); they print as '\ud800'.
/// Invalid bytes (never produced by the decoder) are printed as '\udcXX'.
std::string repr_str(std::string_view utf8);

/// The body (no quotes) of a Python string literal whose value is `utf8`, escaped
/// as repr_str escapes it for `quote`; with `raw_newlines`, newline and tab stay
/// as they are (the body of a triple-quoted literal, e.g. a docstring; its
/// closing quotes cannot occur because every `quote` is escaped).
std::string escape_str(std::string_view utf8, char quote, bool raw_newlines = false);

/// repr() of bytes (Objects/bytesobject.c PyBytes_Repr): b'...' with the same
/// quote choice, \\ \t \n \r, \xhh for bytes < 0x20 or >= 0x7f.
std::string repr_bytes(std::string_view bytes);

/// repr() of a float (Python/pystrtod.c PyOS_double_to_string with 'r'):
/// shortest round-trip digits; exponent notation when exp < -4 or >= 16
/// ("1e-05", "1e+16", "1.5e+300"), else positional with ".0" if integral;
/// "inf", "-inf", "nan", "-0.0".
std::string repr_float(double v);

/// repr() of complex(0.0, x) as an imaginary literal evaluates to
/// (Objects/complexobject.c complex_repr): the real part is +0.0 so it is
/// omitted: "1j", "1.5j", "1e+16j", "infj", "nanj", "0j". The imaginary part
/// uses repr_float's digits with a trailing ".0" dropped ("1j", not "1.0j").
/// A negative x gives e.g. "-1j", as repr(complex(0.0, -1.0)).
std::string repr_imag(double x);

/// Converts the text of a Python int literal (decimal, 0x/0o/0b with any case
/// prefix, '_' separators, arbitrarily large) to its decimal digits without
/// sign or leading zeros ("0" for zero). Returns false if `literal` is not a
/// valid int literal by the rules of Python/tokenizer.c (e.g. "012", "1__0",
/// "0x", "1_", "0b2"); `out` is then unspecified.
bool int_literal_to_decimal(std::string_view literal, std::string& out);

/// CPython's default int/str conversion limit (sys.int_info.default_max_str_digits).
inline constexpr size_t kIntMaxStrDigits = 4300;

/// The SyntaxError CPython 3.11 raises for a decimal int literal with more
/// than 4300 digits (Python/pegen.c parsenumber -> PyLong_FromString), e.g.
/// "Exceeds the limit (4300 digits) for integer string conversion: value has
/// 4301 digits; use sys.set_int_max_str_digits() to increase the limit -
/// Consider hexadecimal for huge integer literals to avoid decimal conversion
/// limits.", or "" if there is none. `literal` is the token text, `decimal`
/// its int_literal_to_decimal result. Literals with a 0x/0o/0b prefix are
/// exempt at parse time (but see int_repr_limit_error).
std::string int_literal_limit_error(std::string_view literal, std::string_view decimal);

/// The ValueError message repr() of an int with more than 4300 decimal digits
/// raises ("Exceeds the limit (4300 digits) for integer string conversion; use
/// sys.set_int_max_str_digits() to increase the limit"), e.g. when ast.dump
/// meets a huge hexadecimal literal; "" if `decimal` is short enough.
std::string int_repr_limit_error(std::string_view decimal);

/// Parses a float literal ("1.5", "1e10", "1_000.5e-3", ".5", "5.") or the
/// numeric part of an imaginary literal (without the 'j'; "10" is allowed) to
/// the correctly rounded double, as CPython's PyOS_string_to_double after
/// removing '_'; overflow gives inf, underflow 0.0. Returns false if the text
/// is malformed (bad '_' placement, no digits, a sign, hex, inf/nan words...).
bool parse_float_literal(std::string_view literal, double& out);

}  // namespace c2t::pyvalue
