// Decoding of Python string and bytes literals (the text between the quotes)
// into their values, with CPython 3.11's escapes and error messages.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace c2t::pyvalue {

/// A string token split into its parts, e.g. rb'''x''' -> prefix "rb",
/// quote "'''", body "x".
struct StringParts {
  std::string_view prefix;  // letters before the quote, as written ("", "u", "Rb", "f", ...)
  std::string_view quote;   // "'", "\"", "'''" or "\"\"\""
  std::string_view body;    // between the opening and closing quotes
  bool raw = false;         // prefix has r/R
  bool bytes = false;       // prefix has b/B
  bool fstring = false;     // prefix has f/F
};

/// Splits a complete string token (prefix + quotes + body + closing quotes).
/// Returns false if `token` is not of that shape (no quote, unknown prefix
/// letter, or missing closing quote); valid prefixes are those of
/// Python/tokenizer.c: any case/order of r, b, u, f with u alone and not with
/// b/f/r, b not with f.
bool split_string_token(std::string_view token, StringParts& out);

/// How to decode a literal body.
struct DecodeOptions {
  bool raw = false;    // r-prefix: no escapes at all (bytes still checked for ASCII)
  bool bytes = false;  // b-prefix: result is bytes; \u \U \N are not escapes
  /// f-string literal text (no replacement fields in it): "{{" -> "{" and
  /// "}}" -> "}"; a single brace is kept. Braces of "\N{...}" are not folded.
  /// Error positions restart after each doubled brace, as CPython 3.11's
  /// fstring_find_literal decodes the literal in pieces split there (for a
  /// raw f-string too).
  bool fstring_braces = false;
};

/// An escape that CPython accepts with a DeprecationWarning (3.11): an unknown
/// escape such as "\d" ("invalid escape sequence '\d'") or an octal escape
/// above 0o377 ("invalid octal escape sequence '\777'"). Only the first one is
/// reported: CPython warns once per decoded literal (per f-string piece; the
/// first warning it emits is this one). A backslash before a non-ASCII char
/// is kept without a warning, as in CPython.
struct EscapeWarning {
  bool present = false;
  size_t offset = 0;      // byte offset in the body of the backslash
  std::string message;    // the exact warning text, e.g. "invalid escape sequence '\d'"
};

/// A decoding error, with CPython's SyntaxError message, e.g.
///   "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-1: truncated \xXX escape"
///   "(unicode error) 'unicodeescape' codec can't decode bytes in position 0-6: unknown Unicode character name"
///   "(unicode error) 'utf-8' codec can't decode byte 0xff in position 0: invalid start byte"
///   "(value error) invalid \x escape at position 0"
///   "bytes can only contain ASCII literal characters"
/// The positions inside the message are CPython's: for escapes they count in
/// the buffer Parser/string_parser.c decode_unicode_with_escapes builds (each
/// non-ASCII character is 10 bytes there, a backslash before a non-ASCII char
/// or at the end 6); for invalid UTF-8 they count from the start of the run of
/// non-ASCII bytes (or of the body, if it has no backslash or is raw, or of
/// the f-string piece if raw). f-string pieces restart the count (see
/// DecodeOptions::fstring_braces).
/// `offset` / `end_offset` are plain byte offsets into the body of the
/// offending escape or bytes (backslash to past the last consumed byte), for
/// locating a caret. CPython itself reports all of these at the string token
/// (the SyntaxError's location is the token / the last string token of an
/// implicit concatenation), not at `offset`.
struct DecodeError {
  size_t offset = 0;
  size_t end_offset = 0;
  std::string message;
};

/// Decodes the literal body `body` (between the quotes) into `out`:
///  - str: UTF-8; lone surrogates from \ud800-style escapes are stored as
///    3-byte WTF-8 sequences (see repr_str).
///  - bytes: the raw byte values.
/// Escapes as CPython 3.11 (Objects/unicodeobject.c
/// _PyUnicode_DecodeUnicodeEscapeInternal, Objects/bytesobject.c
/// _PyBytes_DecodeEscape): \\ \' \" \a \b \f \n \r \t \v, backslash-newline
/// (skipped), \ooo (1-3 octal digits; str: chr(value) even above 0o377,
/// bytes: value & 0xFF), \xhh, and for str \uXXXX \UXXXXXXXX \N{NAME}.
/// Unknown escapes are kept verbatim (backslash included) with a warning.
/// `body` is the source text after translate_newlines (a "\r" is never a
/// line continuation here); it may hold invalid UTF-8 (sources without a
/// coding cookie are not validated up front), reported as CPython does.
/// Without a backslash (or with r) the body is taken as it is.
/// Returns false and fills `err` on the first error; `out` is then
/// unspecified. `warning` (may be null) receives the first deprecated escape.
bool decode_string_body(std::string_view body, const DecodeOptions& opts, std::string& out,
                        DecodeError& err, EscapeWarning* warning = nullptr);

}  // namespace c2t::pyvalue
