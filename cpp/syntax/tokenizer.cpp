// The Python 3.12 tokenizer: a port of the state machine of CPython 3.12's
// Parser/tokenizer.c (tok_get_normal_mode / tok_get_fstring_mode) working on
// byte offsets instead of a line buffer. Comments name the CPython code each
// part mirrors, because matching CPython's corner cases (error positions,
// tab rules, f-string modes) is the point.
#include "syntax/tokenizer.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "pyvalue/unicode.h"

namespace c2t::syntax {
namespace {

constexpr int kTabSize = 8;           // tok->tabsize
constexpr int kMaxIndent = 100;       // MAXINDENT
constexpr int kMaxLevel = 200;        // MAXLEVEL (bracket nesting)
constexpr int kMaxFStringLevel = 150; // MAXFSTRINGLEVEL
constexpr int kMaxExprNesting = 3;    // MAX_EXPR_NESTING
constexpr int kEOF = -1;

inline bool is_digit(int c) { return c >= '0' && c <= '9'; }
inline bool is_xdigit(int c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
// is_potential_identifier_start / _char: any byte >= 128 may be part of an
// identifier; verify_identifier() checks the decoded code points afterwards.
inline bool ident_start(int c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c >= 128;
}
inline bool ident_char(int c) { return ident_start(c) || is_digit(c); }

// One entry of CPython's tokenizer mode stack for an f-string (tokenizer_mode).
struct FMode {
  bool regular = false;  // TOK_REGULAR_MODE: inside a replacement field's expression
  char quote = '"';
  int quote_size = 1;
  bool raw = false;
  uint32_t start = 0;        // f_string_start: offset of the prefix
  int start_line = 0;        // f_string_line_start
  uint32_t start_line_begin = 0;  // f_string_multi_line_start
  int curly_depth = 0;       // curly_bracket_depth
  int expr_start_depth = -1; // curly_bracket_expr_start_depth
};

class Lexer {
 public:
  Lexer(const Source& src, Diagnostics& diags, TokenizeInfo* info)
      : s_(src.text().data()), n_(static_cast<uint32_t>(src.text().size())),
        diags_(diags), info_(info) {
    // CPython adds a '\n' to a last line that lacks one (tok_underflow_*).
    bool implicit = n_ > 0 && s_[n_ - 1] != '\n' && s_[n_ - 1] != '\r';
    vn_ = n_ + (implicit ? 1 : 0);
    indstack_[0] = altindstack_[0] = 0;
    const void* nul = n_ ? std::memchr(s_, 0, n_) : nullptr;
    if (nul) nul_line_ = line_of(static_cast<uint32_t>(static_cast<const char*>(nul) - s_));
    out_.reserve(n_ / 5 + 16);  // ~1 token per 6 bytes in real code (less with comments): rarely regrows
  }

  std::vector<Token> run() {
    if (nul_line_ == 1) null_error();
    validate_utf8();
    while (!done_) {
      if (modes_.empty() || modes_.back().regular) regular();
      else fstring();
    }
    return std::move(out_);
  }

 private:
  // ---- character access --------------------------------------------------
  // The text plus CPython's implicit final '\n' (at offset n_ when present).
  int at(uint32_t p) const {
    if (p < n_) return static_cast<unsigned char>(s_[p]);
    return p < vn_ ? '\n' : kEOF;
  }
  static bool is_nl(int c) { return c == '\n' || c == '\r'; }
  // Consumes the line break at pos_ ("\n", "\r\n" or a lone "\r").
  void consume_nl() {
    if (at(pos_) == '\r' && at(pos_ + 1) == '\n') pos_ += 2;
    else pos_ += 1;
    ++line_;
    line_begin_ = pos_;
    if (line_ == nul_line_) null_error();
  }
  // Consumes one character (a line break counts as one) and returns it, with
  // line breaks reported as '\n'; kEOF (without moving) at the end.
  int next() {
    int c = at(pos_);
    if (c == kEOF) return kEOF;
    if (is_nl(c)) { consume_nl(); return '\n'; }
    ++pos_;
    return c;
  }
  uint32_t clamp(uint32_t p) const { return p < n_ ? p : n_; }
  int line_of(uint32_t p) const {
    int l = 1;
    for (uint32_t i = 0; i < p && i < n_; ++i)
      if (s_[i] == '\n' || (s_[i] == '\r' && (i + 1 >= n_ || s_[i + 1] != '\n'))) ++l;
    return l;
  }

  // ---- token output -------------------------------------------------------
  void start_token() { tb_ = pos_; tline_ = line_; tcol_ = static_cast<int>(pos_ - line_begin_); }
  void emit(TokenKind k) { emit_span(k, tb_, tline_, tcol_); }
  void emit_span(TokenKind k, uint32_t b, int bl, int bc) {
    Token t;
    t.kind = k;
    t.begin = clamp(b);
    t.end = clamp(pos_);
    t.line = bl;
    t.col = bc;
    t.end_line = line_;
    t.end_col = static_cast<int>(pos_ - line_begin_);
    out_.push_back(t);
  }
  // Zero-width token at pos_ (Dedent, EndMarker).
  void emit_empty(TokenKind k) { start_token(); emit(k); }

  // ---- errors ---------------------------------------------------------------
  // Byte column of the character just before `cur` on the current line: the
  // position CPython's syntaxerror() reports (offset = chars up to tok->cur).
  int col_before(uint32_t cur) const {
    if (cur <= line_begin_) return 0;
    uint32_t p = cur - 1;
    while (p > line_begin_ && p < n_ && (static_cast<unsigned char>(s_[p]) & 0xC0) == 0x80) --p;
    return static_cast<int>(p - line_begin_);
  }
  int line_length() const {
    uint32_t p = line_begin_;
    while (p < n_ && !is_nl(at(p))) ++p;
    return static_cast<int>(p - line_begin_);
  }
  void fail(TokErrorKind kind, std::string_view type, int line, int col, std::string msg,
            int end_line = 0, int end_col = -1) {
    if (done_) return;
    done_ = true;
    diags_.error(line, col < 0 ? 0 : col, std::move(msg));
    if (info_) {
      info_->error = kind;
      info_->offset_style = kind == TokErrorKind::Syntax ? (end_col >= 0 ? OffsetStyle::Bytes : OffsetStyle::Chars)
                                                         : OffsetStyle::Pegen;
      info_->error_type = type;
      info_->end_line = end_line;
      info_->end_col = end_col;
    }
    // The Error token runs from the start of the offending token (or the end
    // of the last token, if that is later) to the end of the text, keeping
    // the stream lossless.
    uint32_t b = clamp(tb_);
    if (!out_.empty() && out_.back().end > b) b = out_.back().end;
    Token t;
    t.kind = TokenKind::Error;
    t.begin = b;
    t.end = n_;
    position_of(b, t.line, t.col);
    position_of(n_, t.end_line, t.end_col);
    out_.push_back(t);
    Token e{TokenKind::EndMarker, n_, n_, 0, 0, 0, 0};
    position_of(n_, e.line, e.col);
    e.end_line = e.line;
    e.end_col = e.col;
    out_.push_back(e);
  }
  void syntax_error(int line, int col, std::string msg) {
    fail(TokErrorKind::Syntax, "SyntaxError", line, col, std::move(msg));
  }
  // syntaxerror(tok, ...) with tok->cur == pos_.
  void syntax_error_here(std::string msg) { syntax_error(line_, col_before(pos_), std::move(msg)); }
  // Line and column of byte offset `p` (linear scan: used once, on error).
  void position_of(uint32_t p, int& line, int& col) const {
    int l = 1;
    uint32_t lb = 0;
    for (uint32_t i = 0; i < p && i < n_; ++i) {
      if (s_[i] == '\n' || (s_[i] == '\r' && (i + 1 >= n_ || s_[i + 1] != '\n'))) { ++l; lb = i + 1; }
    }
    line = l;
    col = static_cast<int>(p - lb);
  }
  void null_error() {
    // CPython 3.12 checks each line as it reads it (tok_nextc) and reports at
    // column 0 of that line.
    start_token();
    fail(TokErrorKind::Syntax, "SyntaxError", nul_line_, 0, "source code cannot contain null bytes");
  }
  // The text should be valid UTF-8 already (pyvalue::decode_source); report
  // the first invalid byte as the codec would rather than misbehave later.
  void validate_utf8() {
    std::string_view t(s_, n_);
    uint32_t i = 0;
    while (i < n_) {
      if (static_cast<unsigned char>(s_[i]) < 0x80) { ++i; continue; }
      char32_t cp;
      int k = pyvalue::utf8_decode(t, i, cp);
      if (k > 0) { i += k; continue; }
      const char* reason = "invalid start byte";
      pyvalue::utf8_error(t, i, reason);
      int line = line_of(i);
      uint32_t lb = i;
      while (lb > 0 && s_[lb - 1] != '\n' && s_[lb - 1] != '\r') --lb;
      char buf[128];
      std::snprintf(buf, sizeof buf, "(unicode error) 'utf-8' codec can't decode byte 0x%02x in position %u: %s",
                    static_cast<unsigned char>(s_[i]), static_cast<unsigned>(i), reason);
      tb_ = 0; tline_ = 1; tcol_ = 0;
      fail(TokErrorKind::Syntax, "SyntaxError", line, static_cast<int>(i - lb), buf);
      return;
    }
  }

  // ---- regular mode (tok_get_normal_mode) ----------------------------------
  void regular();
  bool indentation(bool& blankline);
  bool continuation();
  void identifier_or_prefixed_string();
  void number();
  bool decimal_tail(int& c);
  bool verify_end_of_number(int c, const char* kind);
  void string(uint32_t quote_pos);
  void fstring_start(uint32_t quote_pos);
  void op(int c);

  // ---- f-string mode (tok_get_fstring_mode) ---------------------------------
  void fstring();

  const char* s_;
  uint32_t n_, vn_;
  Diagnostics& diags_;
  TokenizeInfo* info_;
  std::vector<Token> out_;

  uint32_t pos_ = 0;
  int line_ = 1;
  uint32_t line_begin_ = 0;
  int nul_line_ = 0;
  // CPython's tok->buf: the start of the line read when no token was being
  // scanned (a line reached at a token boundary, or through a continuation
  // inside the indentation). Only E_LINECONT columns depend on it.
  uint32_t buf_ = 0;
  bool in_indentation_ = false;
  bool done_ = false;

  uint32_t tb_ = 0;  // current token start
  int tline_ = 1, tcol_ = 0;

  bool atbol_ = true;
  bool comment_newline_ = false;
  int pendin_ = 0;
  int indent_ = 0;
  int indstack_[kMaxIndent];
  int altindstack_[kMaxIndent];

  int level_ = 0;
  char parenstack_[kMaxLevel];
  int parenline_[kMaxLevel];
  int parencol_[kMaxLevel];

  std::vector<FMode> modes_;
};

// tok_continuation_line: at a '\\' outside strings. Consumes it and the line
// break; false (error reported) if another character follows or EOF comes next.
bool Lexer::continuation() {
  int bs_line = line_;
  int bs_col = static_cast<int>(pos_ - line_begin_);
  ++pos_;
  if (!is_nl(at(pos_))) {
    // pegen's tokenizer_error: col = tok->cur - tok->buf - 1, where cur is
    // past the character after the backslash and buf the start of the line
    // the current token group began on (see buf_), possibly an earlier line.
    (void)bs_col;
    fail(TokErrorKind::LineCont, "SyntaxError", line_, static_cast<int>(pos_ - buf_),
         "unexpected character after line continuation character");
    return false;
  }
  consume_nl();
  if (done_) return false;
  if (in_indentation_) buf_ = line_begin_;
  if (at(pos_) == kEOF) {
    fail(TokErrorKind::Eof, "SyntaxError", bs_line, bs_col + 1, "unexpected EOF while parsing");
    return false;
  }
  return true;
}

// The indentation part of tok_get_normal_mode, run at the beginning of a line.
// Returns false after an error.
bool Lexer::indentation(bool& blankline) {
  atbol_ = false;
  buf_ = line_begin_;
  in_indentation_ = true;
  struct Reset { bool& b; ~Reset() { b = false; } } reset{in_indentation_};
  int col = 0, altcol = 0, cont_line_col = 0;
  for (;;) {
    int c = at(pos_);
    if (c == ' ') { ++col; ++altcol; ++pos_; }
    else if (c == '\t') { col = (col / kTabSize + 1) * kTabSize; ++altcol; ++pos_; }
    else if (c == '\f') { col = altcol = 0; ++pos_; }
    else if (c == '\\') {
      // Indentation cannot be split over lines with backslashes: the first
      // backslash found determines the level (CPython's cont_line_col).
      cont_line_col = cont_line_col ? cont_line_col : col;
      start_token();
      if (!continuation()) return false;
    } else {
      break;
    }
  }
  int c = at(pos_);
  if (c == '#' || is_nl(c)) blankline = true;  // ignored for indentation
  if (blankline || level_ != 0) return true;
  if (cont_line_col) { col = cont_line_col; altcol = cont_line_col; }
  auto tab_error = [&] {
    start_token();
    fail(TokErrorKind::TabSpace, "TabError", line_, 0, "inconsistent use of tabs and spaces in indentation");
  };
  if (col == indstack_[indent_]) {
    if (altcol != altindstack_[indent_]) { tab_error(); return false; }
  } else if (col > indstack_[indent_]) {
    if (indent_ + 1 >= kMaxIndent) {
      start_token();
      fail(TokErrorKind::TooDeep, "IndentationError", line_, 0, "too many levels of indentation");
      return false;
    }
    if (altcol <= altindstack_[indent_]) { tab_error(); return false; }
    ++pendin_;
    ++indent_;
    indstack_[indent_] = col;
    altindstack_[indent_] = altcol;
  } else {
    while (indent_ > 0 && col < indstack_[indent_]) { --pendin_; --indent_; }
    if (col != indstack_[indent_]) {
      start_token();
      // pegen reports E_DEDENT at tok->cur == end of the line.
      fail(TokErrorKind::Dedent, "IndentationError", line_, line_length(),
           "unindent does not match any outer indentation level");
      return false;
    }
    if (altcol != altindstack_[indent_]) { tab_error(); return false; }
  }
  return true;
}

void Lexer::regular() {
  bool blankline = false;
  if (atbol_ && !indentation(blankline)) return;

  // Pending indents / dedents.
  if (pendin_ != 0) {
    if (pendin_ < 0) {
      ++pendin_;
      emit_empty(TokenKind::Dedent);
    } else {
      --pendin_;
      // From the start of the line of the first token (CPython's tok->buf),
      // even when the indentation was continued with a backslash.
      emit_span(TokenKind::Indent, line_begin_, line_, 0);
    }
    return;
  }

  FMode* cur = modes_.empty() ? nullptr : &modes_.back();
  int c;
  for (;;) {  // "again": after a line continuation
    while ((c = at(pos_)) == ' ' || c == '\t' || c == '\f') ++pos_;
    start_token();
    if (c != '\\') break;
    if (!continuation()) return;
  }

  if (c == '#') {
    while (c != kEOF && !is_nl(c)) c = at(++pos_);
    comment_newline_ = blankline;
    emit(TokenKind::Comment);
    return;
  }

  if (c == kEOF) {
    if (level_) {
      int l = level_ - 1;
      fail(TokErrorKind::Eof, "SyntaxError", parenline_[l], parencol_[l],
           std::string("'") + parenstack_[l] + "' was never closed");
      return;
    }
    emit(TokenKind::EndMarker);
    done_ = true;
    return;
  }

  if (ident_start(c)) { identifier_or_prefixed_string(); return; }

  if (is_nl(c)) {
    consume_nl();
    if (done_) return;
    atbol_ = true;
    if (blankline || level_ > 0 || comment_newline_) {
      comment_newline_ = false;
      emit(TokenKind::NL);
    } else {
      emit(TokenKind::Newline);
    }
    // Line breaks end on their own line, as in CPython; the implicit newline
    // is empty but still reported as one column wide.
    Token& t = out_.back();
    t.end_line = t.line;
    t.end_col = t.col + (t.end > t.begin ? static_cast<int>(t.end - t.begin) : 1);
    return;
  }

  if (c == '.') {
    int c2 = at(pos_ + 1);
    if (is_digit(c2)) { number(); return; }
    if (c2 == '.' && at(pos_ + 2) == '.') pos_ += 3;
    else pos_ += 1;
    emit(TokenKind::Op);
    return;
  }

  if (is_digit(c)) { number(); return; }

  if (c == '\'' || c == '"') { string(pos_); return; }

  // Punctuation that drives the f-string state machine.
  if (cur && cur->expr_start_depth >= 0 && (c == ':' || c == '}' || c == '!' || c == '{')) {
    int cursor = cur->curly_depth - (c != '{');
    if (c == ':' && cursor == cur->expr_start_depth) {
      // The format spec starts: back to f-string mode.
      cur->regular = false;
      ++pos_;
      emit(TokenKind::Op);
      return;
    }
  }
  op(c);
}

void Lexer::op(int c) {
  FMode* cur = modes_.empty() ? nullptr : &modes_.back();
  int c2 = at(pos_ + 1);
  int len = 1;
  switch (c) {  // _PyToken_TwoChars / _PyToken_ThreeChars
    case '!': if (c2 == '=') len = 2; break;
    case '%': case '&': case '^': case '|': case '@': case '+': case '=':
      if (c2 == '=') len = 2;
      break;
    case '-': if (c2 == '=' || c2 == '>') len = 2; break;
    case ':': if (c2 == '=') len = 2; break;
    case '*': case '/':
      if (c2 == c) len = at(pos_ + 2) == '=' ? 3 : 2;
      else if (c2 == '=') len = 2;
      break;
    case '<':
      if (c2 == '<') len = at(pos_ + 2) == '=' ? 3 : 2;
      else if (c2 == '=' || c2 == '>') len = 2;
      break;
    case '>':
      if (c2 == '>') len = at(pos_ + 2) == '=' ? 3 : 2;
      else if (c2 == '=') len = 2;
      break;
    default: break;
  }
  if (len > 1) {
    pos_ += len;
    emit(TokenKind::Op);
    return;
  }

  // Bracket nesting.
  switch (c) {
    case '(': case '[': case '{':
      if (level_ >= kMaxLevel) { ++pos_; syntax_error_here("too many nested parentheses"); return; }
      parenstack_[level_] = static_cast<char>(c);
      parenline_[level_] = line_;
      parencol_[level_] = static_cast<int>(pos_ - line_begin_);
      ++level_;
      if (cur) ++cur->curly_depth;
      break;
    case ')': case ']': case '}': {
      ++pos_;
      if (cur && cur->curly_depth == 0 && c == '}') {
        syntax_error_here("f-string: single '}' is not allowed");
        return;
      }
      if (!level_) { syntax_error_here(std::string("unmatched '") + static_cast<char>(c) + "'"); return; }
      --level_;
      int opening = parenstack_[level_];
      if (!((opening == '(' && c == ')') || (opening == '[' && c == ']') || (opening == '{' && c == '}'))) {
        if (cur && opening == '{' && cur->curly_depth - 1 == cur->expr_start_depth) {
          syntax_error_here(std::string("f-string: unmatched '") + static_cast<char>(c) + "'");
          return;
        }
        std::string msg = std::string("closing parenthesis '") + static_cast<char>(c) +
                          "' does not match opening parenthesis '" + static_cast<char>(opening) + "'";
        if (parenline_[level_] != line_) msg += " on line " + std::to_string(parenline_[level_]);
        syntax_error_here(std::move(msg));
        return;
      }
      if (cur) {
        --cur->curly_depth;
        if (c == '}' && cur->curly_depth == cur->expr_start_depth) {
          // The replacement field ends: back to f-string mode.
          --cur->expr_start_depth;
          cur->regular = false;
        }
      }
      emit(TokenKind::Op);
      return;
    }
    default: break;
  }
  ++pos_;
  if (c < 0x20 || c == 0x7f) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "invalid non-printable character U+%04X", c);
    syntax_error_here(buf);
    return;
  }
  emit(TokenKind::Op);  // also '$', '?', '`': the parser rejects them
}

void Lexer::identifier_or_prefixed_string() {
  // String prefixes: b, r, u, f in the combinations CPython accepts.
  bool saw_b = false, saw_r = false, saw_u = false, saw_f = false;
  for (;;) {
    int c = at(pos_);
    if (!(saw_b || saw_u || saw_f) && (c == 'b' || c == 'B')) saw_b = true;
    else if (!(saw_b || saw_u || saw_r || saw_f) && (c == 'u' || c == 'U')) saw_u = true;
    else if (!(saw_r || saw_u) && (c == 'r' || c == 'R')) saw_r = true;
    else if (!(saw_f || saw_b || saw_u) && (c == 'f' || c == 'F')) saw_f = true;
    else break;
    ++pos_;
    int q = at(pos_);
    if (q == '"' || q == '\'') {
      if (saw_f) fstring_start(pos_);
      else string(pos_);
      return;
    }
  }
  bool nonascii = false;
  int c;
  while (ident_char(c = at(pos_))) {
    if (c >= 128) nonascii = true;
    ++pos_;
  }
  if (nonascii) {
    // verify_identifier: first code point must be XID_Start (or '_'), the
    // others XID_Continue; report the first bad one.
    std::string_view t(s_, n_);
    uint32_t p = tb_;
    bool first = true;
    while (p < pos_) {
      char32_t cp;
      int k = pyvalue::utf8_decode(t, p, cp);
      if (k <= 0) { cp = 0xFFFD; k = 1; }  // unreachable after validate_utf8()
      bool ok = first ? (cp == '_' || pyvalue::is_xid_start(cp)) : pyvalue::is_xid_continue(cp);
      if (!ok) {
        pos_ = p + k;
        char buf[64];
        if (pyvalue::is_printable(cp)) {
          std::string ch(s_ + p, k);
          std::snprintf(buf, sizeof buf, "invalid character '%s' (U+%04X)", ch.c_str(), static_cast<unsigned>(cp));
        } else {
          std::snprintf(buf, sizeof buf, "invalid non-printable character U+%04X", static_cast<unsigned>(cp));
        }
        syntax_error(line_, static_cast<int>(p - line_begin_), buf);
        return;
      }
      first = false;
      p += k;
    }
  }
  emit(TokenKind::Name);
}

// tok_decimal_tail: digits with single '_' separators. On return `c` is the
// character after them (already consumed, like tok_nextc).
bool Lexer::decimal_tail(int& c) {
  for (;;) {
    do { c = at(pos_++); } while (is_digit(c));
    if (c != '_') return true;
    c = at(pos_++);
    if (!is_digit(c)) {
      --pos_;  // tok_backup(c): cur stays after the '_'
      syntax_error_here("invalid decimal literal");
      return false;
    }
  }
}

// verify_end_of_number: `c` has been consumed (pos_ is past it).
bool Lexer::verify_end_of_number(int c, const char* kind) {
  // A number directly followed by one of the keywords that may follow it in
  // valid code ("1if x else y") is only a warning.
  // lookahead(): the rest of the keyword, not followed by an identifier char.
  auto ahead = [&](const char* rest) {
    uint32_t i = 0;
    for (; rest[i]; ++i)
      if (at(pos_ + i) != rest[i]) return false;
    return !ident_char(at(pos_ + i));
  };
  bool r = false;
  switch (c) {
    case 'a': r = ahead("nd"); break;
    case 'e': r = ahead("lse"); break;
    case 'f': r = ahead("or"); break;
    case 'i': { int c2 = at(pos_); r = c2 == 'f' || c2 == 'n' || c2 == 's'; break; }
    case 'o': r = ahead("r"); break;
    case 'n': r = ahead("ot"); break;
    default: break;
  }
  if (r) return true;
  if (c >= 0 && c < 128 && ident_char(c)) {
    --pos_;  // tok_backup(c)
    syntax_error_here(std::string("invalid ") + kind + " literal");
    return false;
  }
  return true;
}

void Lexer::number() {
  // Mirrors the Number section of tok_get_normal_mode: `c` is always the
  // last consumed character and pos_ is past it (tok_nextc semantics), so
  // errors report CPython's columns; "--pos_" is tok_backup(c). The text
  // always ends with a line break, which no branch consumes, so pos_ never
  // passes the end.
  int c = at(pos_++);
  int e = 0;
  if (c == '.') {
    c = at(pos_++);
    goto fraction;
  }
  if (c == '0') {
    c = at(pos_++);
    if (c == 'x' || c == 'X') {
      c = at(pos_++);
      do {
        if (c == '_') c = at(pos_++);
        if (!is_xdigit(c)) { --pos_; syntax_error_here("invalid hexadecimal literal"); return; }
        do { c = at(pos_++); } while (is_xdigit(c));
      } while (c == '_');
      if (!verify_end_of_number(c, "hexadecimal")) return;
    } else if (c == 'o' || c == 'O' || c == 'b' || c == 'B') {
      bool octal = c == 'o' || c == 'O';
      const char* kind = octal ? "octal" : "binary";
      auto ok_digit = [&](int d) { return octal ? (d >= '0' && d < '8') : (d == '0' || d == '1'); };
      c = at(pos_++);
      do {
        if (c == '_') c = at(pos_++);
        if (!ok_digit(c)) {
          if (is_digit(c)) {
            syntax_error_here(std::string("invalid digit '") + static_cast<char>(c) + "' in " + kind + " literal");
          } else {
            --pos_;
            syntax_error_here(std::string("invalid ") + kind + " literal");
          }
          return;
        }
        do { c = at(pos_++); } while (ok_digit(c));
      } while (c == '_');
      if (is_digit(c)) {
        syntax_error_here(std::string("invalid digit '") + static_cast<char>(c) + "' in " + kind + " literal");
        return;
      }
      if (!verify_end_of_number(c, kind)) return;
    } else {
      bool nonzero = false;
      // Maybe old-style octal; in any case allow '0' as a literal.
      for (;;) {
        if (c == '_') {
          c = at(pos_++);
          if (!is_digit(c)) { --pos_; syntax_error_here("invalid decimal literal"); return; }
        }
        if (c != '0') break;
        c = at(pos_++);
      }
      uint32_t zeros_end = pos_;
      if (is_digit(c)) {
        nonzero = true;
        if (!decimal_tail(c)) return;
      }
      if (c == '.') { c = at(pos_++); goto fraction; }
      if (c == 'e' || c == 'E') goto exponent;
      if (c == 'j' || c == 'J') goto imaginary;
      if (nonzero) {
        --pos_;
        fail(TokErrorKind::Syntax, "SyntaxError", line_, tcol_,
             "leading zeros in decimal integer literals are not permitted; use an 0o prefix for octal integers",
             line_, static_cast<int>(zeros_end - line_begin_) - 1);
        return;
      }
      if (!verify_end_of_number(c, "decimal")) return;
    }
    --pos_;
    emit(TokenKind::Number);
    return;
  }
  // Decimal.
  if (!decimal_tail(c)) return;
  if (c == '.') {
    c = at(pos_++);
  fraction:
    if (is_digit(c) && !decimal_tail(c)) return;
  }
  if (c == 'e' || c == 'E') {
  exponent:
    e = c;
    c = at(pos_++);
    if (c == '+' || c == '-') {
      c = at(pos_++);
      if (!is_digit(c)) { --pos_; syntax_error_here("invalid decimal literal"); return; }
    } else if (!is_digit(c)) {
      --pos_;
      if (!verify_end_of_number(e, "decimal")) return;
      --pos_;  // the 'e' starts the next token ("1else")
      emit(TokenKind::Number);
      return;
    }
    if (!decimal_tail(c)) return;
  }
  if (c == 'j' || c == 'J') {
  imaginary:
    c = at(pos_++);
    if (!verify_end_of_number(c, "imaginary")) return;
  } else if (!verify_end_of_number(c, "decimal")) {
    return;
  }
  --pos_;
  emit(TokenKind::Number);
}

// A non-f string literal; `quote_pos` is the offset of its first quote
// (tb_ is the start of its prefix). The "letter_quote" section.
void Lexer::string(uint32_t quote_pos) {
  pos_ = quote_pos;
  int quote = at(pos_++);
  int quote_size = 1, end_quote_size = 0;
  if (at(pos_) == quote) {
    if (at(pos_ + 1) == quote) { quote_size = 3; pos_ += 2; }
    else { ++pos_; end_quote_size = 1; }  // empty string
  }
  while (end_quote_size != quote_size) {
    int c = at(pos_);
    if (c == kEOF || (quote_size == 1 && is_nl(c))) {
      // Reported at the token start, "detected at" the current line (the
      // last line read, at EOF the one before).
      int detected = c == kEOF ? line_ - 1 : line_;
      if (detected < tline_) detected = tline_;
      FMode* cur = modes_.empty() ? nullptr : &modes_.back();
      if (cur && cur->quote == quote && cur->quote_size == quote_size) {
        syntax_error(tline_, tcol_, "f-string: expecting '}'");
        return;
      }
      std::string msg = quote_size == 3 ? "unterminated triple-quoted string literal (detected at line "
                                        : "unterminated string literal (detected at line ";
      syntax_error(tline_, tcol_, msg + std::to_string(detected) + ")");
      return;
    }
    next();
    if (done_) return;
    if (c == quote) {
      ++end_quote_size;
    } else {
      end_quote_size = 0;
      if (c == '\\') { next(); if (done_) return; }  // skip the escaped character
    }
  }
  emit(TokenKind::String);
}

void Lexer::fstring_start(uint32_t quote_pos) {
  pos_ = quote_pos;
  int quote = at(pos_++);
  int quote_size = 1;
  if (at(pos_) == quote && at(pos_ + 1) == quote) { quote_size = 3; pos_ += 2; }
  if (modes_.size() + 1 >= static_cast<size_t>(kMaxFStringLevel)) {
    syntax_error_here("too many nested f-strings");
    return;
  }
  FMode m;
  m.quote = static_cast<char>(quote);
  m.quote_size = quote_size;
  int p0 = at(tb_) | 0x20, p1 = at(tb_ + 1) | 0x20;
  m.raw = p0 == 'r' || p1 == 'r';
  m.start = tb_;
  m.start_line = tline_;
  m.start_line_begin = line_begin_;
  modes_.push_back(m);
  emit(TokenKind::FStringStart);
}

void Lexer::fstring() {
  FMode& cur = modes_.back();
  start_token();
  bool in_format_spec = cur.expr_start_depth >= 0;

  // A replacement field right away: nothing to produce in this mode.
  if (at(pos_) == '{' && at(pos_ + 1) != '{') {
    if (++cur.expr_start_depth >= kMaxExprNesting) {
      syntax_error_here("f-string: expressions nested too deeply");
      return;
    }
    cur.regular = true;
    regular();
    return;
  }
  // The end of the f-string?
  {
    int i = 0;
    while (i < cur.quote_size && at(pos_ + i) == cur.quote) ++i;
    if (i == cur.quote_size) {
      pos_ += i;
      emit(TokenKind::FStringEnd);
      modes_.pop_back();
      return;
    }
  }

  int end_quote_size = 0;
  bool unicode_escape = false;
  while (end_quote_size != cur.quote_size) {
    int c = at(pos_);
    if (c == kEOF || (cur.quote_size == 1 && is_nl(c))) {
      if (in_format_spec && c != kEOF) {
        // A line break ends a single-quoted format spec: back to regular mode
        // (the parser then reports the missing '}').
        cur.regular = true;
        emit(TokenKind::FStringMiddle);
        return;
      }
      int detected = c == kEOF ? line_ - 1 : line_;
      int col = static_cast<int>(cur.start - cur.start_line_begin);
      if (detected < cur.start_line) detected = cur.start_line;
      tb_ = cur.start; tline_ = cur.start_line; tcol_ = col;
      std::string msg = cur.quote_size == 3 ? "unterminated triple-quoted f-string literal (detected at line "
                                            : "unterminated f-string literal (detected at line ";
      syntax_error(cur.start_line, col, msg + std::to_string(detected) + ")");
      return;
    }
    next();
    if (done_) return;
    if (c == cur.quote) { ++end_quote_size; continue; }
    end_quote_size = 0;
    if (c == '{') {
      int peek = at(pos_);
      if (peek != '{' || in_format_spec) {
        --pos_;  // the '{' starts the replacement field
        if (++cur.expr_start_depth >= kMaxExprNesting) {
          syntax_error_here("f-string: expressions nested too deeply");
          return;
        }
        cur.regular = true;
        emit(TokenKind::FStringMiddle);
      } else {
        // "{{": the token keeps the first brace; the second is skipped.
        emit(TokenKind::FStringMiddle);
        ++pos_;
      }
      return;
    }
    if (c == '}') {
      if (unicode_escape) { emit(TokenKind::FStringMiddle); return; }
      int peek = at(pos_);
      if (peek == '}' && !in_format_spec) {
        emit(TokenKind::FStringMiddle);
        ++pos_;
      } else {
        --pos_;
        cur.regular = true;
        emit(TokenKind::FStringMiddle);
      }
      return;
    }
    if (c == '\\') {
      int peek = at(pos_);
      if (peek == '{' || peek == '}') continue;  // handled by the next iteration
      if (peek == kEOF) continue;
      if (!cur.raw && peek == 'N') {
        ++pos_;
        if (at(pos_) == '{') { ++pos_; unicode_escape = true; }
        continue;
      }
      next();  // skip the escaped character (a quote, a line break, ...)
      if (done_) return;
    }
  }
  // Leave the closing quotes for the FStringEnd token.
  pos_ -= cur.quote_size;
  emit(TokenKind::FStringMiddle);
}

}  // namespace

std::vector<Token> tokenize(const Source& src, Diagnostics& diags, TokenizeInfo* info) {
  if (info) *info = TokenizeInfo{};
  Lexer lx(src, diags, info);
  return lx.run();
}

std::string_view token_kind_name(TokenKind k) {
  switch (k) {
    case TokenKind::Name: return "NAME";
    case TokenKind::Number: return "NUMBER";
    case TokenKind::String: return "STRING";
    case TokenKind::FStringStart: return "FSTRING_START";
    case TokenKind::FStringMiddle: return "FSTRING_MIDDLE";
    case TokenKind::FStringEnd: return "FSTRING_END";
    case TokenKind::Op: return "OP";
    case TokenKind::Newline: return "NEWLINE";
    case TokenKind::NL: return "NL";
    case TokenKind::Comment: return "COMMENT";
    case TokenKind::Indent: return "INDENT";
    case TokenKind::Dedent: return "DEDENT";
    case TokenKind::EndMarker: return "ENDMARKER";
    case TokenKind::Error: return "ERRORTOKEN";
  }
  return "?";
}

}  // namespace c2t::syntax
