// The lossless Python 3.12 tokenizer (stage 1: syntax).
//
// tokenize() produces the token stream of CPython 3.12's C tokenizer in its
// "extra tokens" mode (the one the `tokenize` module of 3.12 uses): COMMENT and
// NL tokens are included, f-strings are split into FSTRING_START /
// FSTRING_MIDDLE / FSTRING_END with the replacement-field tokens in between
// (PEP 701), keywords are Name tokens, and every operator is an Op token (the
// parser compares the token text, see token_text()).
//
// Positions: `line` is 1-based, `col` is the 0-based UTF-8 byte offset within
// the line, exactly as CPython reports them (ast col_offset / tokenize's
// columns). Lines end at "\n", "\r\n" or a lone "\r". CPython translates all
// three to "\n" before tokenizing, and the Source's line table only knows
// "\n", so callers should pass text through pyvalue::translate_newlines first;
// positions then match CPython's exactly.
//
// Lossless: for consecutive tokens a, b the bytes text[a.end, b.begin) are only
// spaces, tabs, form feeds and backslash-newline continuations (plus, after an
// FStringMiddle, the second brace of a "{{" / "}}" escape, see below), so the
// tokens' texts plus these gaps reproduce the source. Special tokens:
//   * Indent spans the indentation whitespace of its line (only the last
//     line's part when the indentation is continued with a backslash); Dedent
//     is empty (begin == end) at the first token of the dedented line.
//   * Newline spans the line break ("\n", "\r\n" or "\r"). At EOF without a
//     final line break CPython adds an implicit newline: that Newline (or NL,
//     after a comment-only last line) is empty (begin == end == text size) but
//     reports col = length of the line, end_col = col + 1, as CPython does.
//   * Dedents at EOF and the EndMarker are empty, at (last line + 1, 0) when
//     the text ends with a line break (i.e. at Source::offset(line, 0)).
//   * FStringMiddle: as in CPython, a "{{" or "}}" escape ends the piece: the
//     token text keeps the first brace and the second one is skipped (left in
//     the gap), so f"a{{b" gives FStringMiddle "a{" then FStringMiddle "b".
//     Escape sequences are not decoded. Empty FStringMiddle tokens occur
//     where CPython emits them (e.g. an empty format spec before '}').
//   * Multi-line tokens (strings, f-string pieces) end at their true byte
//     position (3.12's tokenize module mis-converts such end columns).
//
// Errors: the tokenizer stops at the first error. It then appends exactly one
// diagnostic to `diags` (CPython's message at CPython's line/column, see
// OffsetStyle for how CPython turns it into SyntaxError.offset), emits one
// Error token covering [start of the offending token, or the end of the
// previous token if that is later, end of text) so the stream stays lossless,
// and ends with the EndMarker. The stream before the
// Error token is exactly what CPython would have produced up to that point, so
// a parser can report an earlier syntax error first, as CPython does.
// Never crashes, never loops, on any bytes (NUL bytes and invalid UTF-8 are
// reported as errors). Runs in linear time; tokens are spans into the source.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "support/diagnostics.h"
#include "syntax/source.h"
#include "syntax/token.h"

namespace c2t::syntax {

/// How the tokenizer error (if any) arose, mirroring CPython's distinction
/// between errors raised at once by the tokenizer (`Syntax`: a SyntaxError
/// such as "unterminated string literal", which CPython's parser reports even
/// after it has itself failed, by re-tokenizing the rest of the file) and
/// errors that CPython's parser only reports if it reaches them (the tokenizer
/// `done` codes E_EOF, E_DEDENT, E_TABSPACE, E_TOODEEP, E_LINECONT).
enum class TokErrorKind : uint8_t {
  None,
  Syntax,     // SyntaxError raised by the tokenizer itself
  Eof,        // E_EOF: EOF inside brackets ("'(' was never closed") or after '\'
  Dedent,     // E_DEDENT: IndentationError "unindent does not match any outer indentation level"
  TabSpace,   // E_TABSPACE: TabError "inconsistent use of tabs and spaces in indentation"
  TooDeep,    // E_TOODEEP: IndentationError "too many levels of indentation"
  LineCont,   // E_LINECONT: "unexpected character after line continuation character"
};

/// How CPython turns the diagnostic's byte column `col` into the 1-based
/// SyntaxError.offset it reports (CPython is not uniform here).
enum class OffsetStyle : uint8_t {
  Chars,  // offset = number of characters before `col` on the line + 1
          // (errors raised by the tokenizer's syntaxerror(): always so)
  Bytes,  // offset = col + 1 whatever the text (the leading-zeros error,
          // raised with an explicit byte range)
  Pegen,  // raised by the parser from a tokenizer `done` code: like Bytes for
          // ast.parse(bytes) without coding cookie or BOM (tok->encoding is
          // NULL), like Chars otherwise (str input, or a declared encoding)
};

/// Extra information about a tokenize() run.
struct TokenizeInfo {
  TokErrorKind error = TokErrorKind::None;
  OffsetStyle offset_style = OffsetStyle::Chars;
  /// The CPython exception class of the error: "SyntaxError",
  /// "IndentationError" or "TabError" (empty when there is no error).
  std::string_view error_type;
  /// For errors CPython reports with an explicit end (e.g. the leading-zeros
  /// error), the 1-based end line and 0-based end byte column (exclusive;
  /// SyntaxError.end_offset = end_col + 1); else 0, -1.
  int end_line = 0, end_col = -1;
};

/// Tokenizes `src` (UTF-8). Always returns a stream ending with EndMarker.
/// On error: one Error diagnostic in `diags`, an Error token before the
/// EndMarker, and `info->error` set (when `info` is given).
std::vector<Token> tokenize(const Source& src, Diagnostics& diags, TokenizeInfo* info = nullptr);

/// The source bytes of `t`.
inline std::string_view token_text(const Source& src, const Token& t) {
  return src.text().substr(t.begin, t.end - t.begin);
}

/// Printable name of a kind ("NAME", "OP", "FSTRING_START", ... as in CPython's token module).
std::string_view token_kind_name(TokenKind k);

}  // namespace c2t::syntax
