// Tokens of the lossless token stream.
#pragma once

#include <cstdint>
#include <string_view>

namespace c2t::syntax {

enum class TokenKind : uint8_t {
  Name, Number, String,       // String: a complete (non-f) string literal
  FStringStart, FStringMiddle, FStringEnd,  // PEP 701 f-string pieces
  Op,                         // operators and delimiters
  Newline,                    // logical line end
  NL,                         // non-logical line end (blank line, inside brackets)
  Comment,
  Indent, Dedent,
  EndMarker,
  Error,
};

/// One token. `begin`/`end` are byte offsets into Source::text(); the bytes
/// between one token's end and the next token's begin are whitespace, line
/// continuations (backslash-newline) or nothing, so the token stream plus the
/// gaps reproduces the text exactly. (One exception, as in CPython: after an
/// FStringMiddle ending in "{" or "}", the gap holds the second brace of that
/// "{{" / "}}" escape. See tokenizer.h for the other special cases.)
struct Token {
  TokenKind kind;
  uint32_t begin, end;
  int line, col;          // start: 1-based line, 0-based byte column
  int end_line, end_col;  // end (exclusive column)
};

}  // namespace c2t::syntax
