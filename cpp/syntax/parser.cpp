// parse(): bytes -> decoded Source -> tokens -> AST (stage 1: syntax), and the
// parser's shared machinery: token classification, the cursor, errors and
// node construction. Grammar rules live in parser_*.cpp.
#include "syntax/parser.h"

#include <cstdint>
#include <cstring>

#include "pyvalue/source_decode.h"
#include "pyvalue/unicode.h"
#include "syntax/parser_internal.h"
#include "syntax/tokenizer.h"

namespace c2t::syntax {
namespace detail {

namespace {

struct Entry { std::string_view text; T code; };

constexpr Entry kKeywords[] = {
    {"False", T::False}, {"None", T::None}, {"True", T::True}, {"and", T::And},
    {"as", T::As}, {"assert", T::Assert}, {"async", T::Async}, {"await", T::Await},
    {"break", T::Break}, {"class", T::Class}, {"continue", T::Continue}, {"def", T::Def},
    {"del", T::Del}, {"elif", T::Elif}, {"else", T::Else}, {"except", T::Except},
    {"finally", T::Finally}, {"for", T::For}, {"from", T::From}, {"global", T::Global},
    {"if", T::If}, {"import", T::Import}, {"in", T::In}, {"is", T::Is},
    {"lambda", T::Lambda}, {"nonlocal", T::Nonlocal}, {"not", T::Not}, {"or", T::Or},
    {"pass", T::Pass}, {"raise", T::Raise}, {"return", T::Return}, {"try", T::Try},
    {"while", T::While}, {"with", T::With}, {"yield", T::Yield},
};

constexpr Entry kOps[] = {
    {"(", T::LPar}, {")", T::RPar}, {"[", T::LSqb}, {"]", T::RSqb}, {"{", T::LBrace},
    {"}", T::RBrace}, {":", T::Colon}, {",", T::Comma}, {";", T::Semi}, {"+", T::Plus},
    {"-", T::Minus}, {"*", T::Star}, {"/", T::Slash}, {"|", T::VBar}, {"&", T::Amper},
    {"<", T::Less}, {">", T::Greater}, {"=", T::Equal}, {".", T::Dot}, {"%", T::Percent},
    {"==", T::EqEqual}, {"!=", T::NotEqual}, {"<>", T::LessGreater}, {"<=", T::LessEqual},
    {">=", T::GreaterEqual}, {"~", T::Tilde}, {"^", T::Circumflex}, {"<<", T::LeftShift},
    {">>", T::RightShift}, {"**", T::DoubleStar}, {"+=", T::PlusEqual}, {"-=", T::MinEqual},
    {"*=", T::StarEqual}, {"/=", T::SlashEqual}, {"%=", T::PercentEqual},
    {"&=", T::AmperEqual}, {"|=", T::VBarEqual}, {"^=", T::CircumflexEqual},
    {"<<=", T::LeftShiftEqual}, {">>=", T::RightShiftEqual}, {"**=", T::DoubleStarEqual},
    {"//", T::DoubleSlash}, {"//=", T::DoubleSlashEqual}, {"@", T::At}, {"@=", T::AtEqual},
    {"->", T::RArrow}, {"...", T::Ellipsis}, {":=", T::ColonEqual}, {"!", T::Exclamation},
};

// The entries of a table by first character (indexes into the table, in table
// order), so that classify compares a token with the few entries that can match
// instead of scanning the whole table (the scans were ~2.5% of a whole conversion).
struct ByFirst {
  uint8_t start[129] = {};  // entries of first char c: order[start[c]] .. order[start[c + 1]]
  uint8_t order[64] = {};
};

template <size_t N>
constexpr ByFirst by_first(const Entry (&table)[N]) {
  static_assert(N <= 64);
  ByFirst b;
  size_t n = 0;
  for (int c = 0; c < 128; ++c) {
    b.start[c] = (uint8_t)n;
    for (size_t i = 0; i < N; ++i)
      if ((unsigned char)table[i].text[0] == c) b.order[n++] = (uint8_t)i;
  }
  b.start[128] = (uint8_t)n;
  return b;
}

constexpr ByFirst kKeywordsByFirst = by_first(kKeywords);
constexpr ByFirst kOpsByFirst = by_first(kOps);

template <size_t N>
const Entry* find_entry(const Entry (&table)[N], const ByFirst& b, std::string_view text) {
  unsigned char c = (unsigned char)text[0];
  if (c >= 128) return nullptr;
  for (int k = b.start[c]; k < b.start[c + 1]; ++k) {
    const Entry& e = table[b.order[k]];
    if (e.text == text) return &e;
  }
  return nullptr;
}

}  // namespace

T classify(const Token& t, std::string_view text) {
  switch (t.kind) {
    case TokenKind::Name: {
      // Keywords are ASCII words of 2..8 letters starting with a-z, F, N or T:
      // filter on length and first letter before comparing.
      if (text.size() < 2 || text.size() > 8) return T::Name;
      char c = text[0];
      if (!((c >= 'a' && c <= 'y') || c == 'F' || c == 'N' || c == 'T')) return T::Name;
      const Entry* e = find_entry(kKeywords, kKeywordsByFirst, text);
      return e ? e->code : T::Name;
    }
    case TokenKind::Number: return T::Number;
    case TokenKind::String: return T::String;
    case TokenKind::FStringStart: return T::FStart;
    case TokenKind::FStringMiddle: return T::FMiddle;
    case TokenKind::FStringEnd: return T::FEnd;
    case TokenKind::Op: {
      if (text.empty()) return T::OtherOp;
      const Entry* e = find_entry(kOps, kOpsByFirst, text);
      return e ? e->code : T::OtherOp;
    }
    case TokenKind::Newline: return T::Newline;
    case TokenKind::Indent: return T::Indent;
    case TokenKind::Dedent: return T::Dedent;
    case TokenKind::EndMarker: return T::End;
    case TokenKind::Error: return T::Error;
    case TokenKind::NL:
    case TokenKind::Comment: break;
  }
  return T::Error;
}

Parser::Parser(const Source& src, const std::vector<Token>& tokens, Tree& tree,
               const TokenizeInfo& tinfo, const Diagnostics& tdiags)
    : src_(src), tree_(tree), tinfo_(tinfo), tdiags_(tdiags) {
  tokens_front_ = tokens.data();
  t_.reserve(tokens.size());
  int level = 0;
  for (const Token& tk : tokens) {
    if (tk.kind == TokenKind::NL || tk.kind == TokenKind::Comment) continue;
    std::string_view text = token_text(src, tk);
    T code = classify(tk, text);
    if (code == T::RPar || code == T::RSqb || code == T::RBrace) level = level > 0 ? level - 1 : 0;
    t_.push_back({code, static_cast<int16_t>(level < 30000 ? level : 30000), &tk, text});
    if (code == T::LPar || code == T::LSqb || code == T::LBrace) ++level;
  }
  if (t_.empty() || t_.back().code != T::End) {
    // The tokenizer contract guarantees an EndMarker; keep the cursor safe anyway.
    static const Token kEnd{TokenKind::EndMarker, 0, 0, 1, 0, 1, 0};
    t_.push_back({T::End, 0, &kEnd, {}});
  }
  load_ = singleton("Load");
  store_ = singleton("Store");
  del_ = singleton("Del");
}

// ---- errors ---------------------------------------------------------------

void Parser::fail_pos(int line, int col, std::string msg) {
  // The latest failure is the one reported: a speculative parse that fails
  // is followed by the real one, whose error replaces it.
  error = Diagnostic{Severity::Error, line, col, std::move(msg)};
  failed_ = true;
  throw ParseFailure{};
}

void Parser::fail_at(size_t i, std::string msg) {
  if (i >= t_.size()) i = t_.size() - 1;
  const PTok& t = t_[i];
  if (t.code == T::Error && !tdiags_.items.empty()) {
    const Diagnostic& d = tdiags_.items.front();
    fail_pos(d.line, d.col, d.message);
  }
  if (t.code == T::End || ((t.code == T::Dedent || t.code == T::Newline) && t.tok->begin == src_.text().size() &&
                            t.tok->end_line > src_.line_count() - 1)) {
    // CPython's ENDMARKER (and EOF DEDENTs) sit at column 0 of the last
    // line that ends with a newline (or the unterminated last line).
    if (t.code != T::Newline) {
      int n = src_.line_count();
      if (n > 1 && !src_.text().empty() && src_.text().back() == '\n') --n;
      fail_pos(n, 0, std::move(msg));
    }
  }
  if (t.code == T::Newline && t.tok > &tokens_front_[0] && (t.tok - 1)->kind == TokenKind::Comment &&
      (t.tok - 1)->line == t.tok->line) {
    // 3.11's NEWLINE token after a comment starts where the comment starts.
    fail_pos(t.tok->line, (t.tok - 1)->col, std::move(msg));
  }
  fail_pos(t.tok->line, t.tok->col, std::move(msg));
}

void Parser::fail_node(const Node* n, std::string msg) { fail_pos(n->lineno, n->col_offset, std::move(msg)); }

void Parser::syntax_error() {
  // CPython reports "invalid syntax" at the token where parsing stopped; at
  // the end of an unfinished statement inside brackets the tokenizer's own
  // error (e.g. "'(' was never closed") is the one shown.
  if (at(T::End) && tinfo_.error != TokErrorKind::None && !tdiags_.items.empty()) {
    const Diagnostic& d = tdiags_.items.front();
    fail_pos(d.line, d.col, d.message);
  }
  // CPython reports its generic error at the furthest token its first pass
  // read, which may lie past the token where this rule failed.
  fail_at(furthest_ > p_ ? furthest_ : p_, "invalid syntax");
}

void Parser::too_deep() {
  // CPython fails such inputs with "too many nested parentheses" (tokenizer,
  // 200 brackets), MemoryError "Parser stack overflowed" or RecursionError;
  // we give one clean diagnostic at the token where the limit is crossed.
  fail_here("too complex: expression nested too deeply (limit " + std::to_string(kMaxDepth) + ")");
}

void Parser::expect(T c, const char* msg) {
  if (at(c)) { advance(); return; }
  // CPython's "expected ':'" comes from invalid_*_stmt rules that require a
  // NEWLINE right where the ':' should be; elsewhere it is "invalid syntax".
  // Other forced tokens (&&'(' ...) always give their message.
  if (msg && !at(T::Error) && (c != T::Colon || at(T::Newline))) fail_here(msg);
  syntax_error();
}

// ---- nodes ----------------------------------------------------------------

Node* Parser::make(std::string_view type, size_t first, size_t last_tok, size_t nfields) {
  Node* n = tree_.make(type);
  n->has_pos = true;
  set_start(n, t_[first]);
  set_end(n, t_[last_tok]);
  n->fields.reserve(nfields);
  return n;
}

Node* Parser::make_nopos(std::string_view type, size_t nfields) {
  Node* n = tree_.make(type);
  n->fields.reserve(nfields);
  return n;
}

Node* Parser::make_at(std::string_view type, const Node* from, const Node* to, size_t nfields) {
  Node* n = tree_.make(type);
  n->has_pos = true;
  n->lineno = from->lineno;
  n->col_offset = from->col_offset;
  n->end_lineno = to->end_lineno;
  n->end_col_offset = to->end_col_offset;
  n->fields.reserve(nfields);
  return n;
}

Node* Parser::singleton(std::string_view type) {
  // CPython shares one instance of each context / operator node; so do we
  // (per tree), which saves an allocation for every Name and operator.
  for (auto& [t, n] : singletons_)
    if (t.data() == type.data() || t == type) return n;
  Node* n = tree_.make(type);
  singletons_.emplace_back(type, n);
  return n;
}

std::string Parser::identifier(const PTok& t) {
  for (unsigned char c : t.text)
    if (c >= 0x80) return pyvalue::nfkc(t.text);
  return std::string(t.text);
}

Node* Parser::name_node(size_t i, Node* ctx) {
  Node* n = make("Name", i, i, 2);
  add(n, "id", Value::str(identifier(t_[i])));
  add(n, "ctx", ctx);
  return n;
}

std::string_view Parser::kind_name(const Node* e) const {
  std::string_view t = e->type;
  if (t == "Attribute") return "attribute";
  if (t == "Subscript") return "subscript";
  if (t == "Starred") return "starred";
  if (t == "Name") return "name";
  if (t == "List") return "list";
  if (t == "Tuple") return "tuple";
  if (t == "Lambda") return "lambda";
  if (t == "Call") return "function call";
  if (t == "BoolOp" || t == "BinOp" || t == "UnaryOp") return "expression";
  if (t == "GeneratorExp") return "generator expression";
  if (t == "Yield" || t == "YieldFrom") return "yield expression";
  if (t == "Await") return "await expression";
  if (t == "ListComp") return "list comprehension";
  if (t == "SetComp") return "set comprehension";
  if (t == "DictComp") return "dict comprehension";
  if (t == "Dict") return "dict literal";
  if (t == "Set") return "set display";
  if (t == "JoinedStr" || t == "FormattedValue") return "f-string expression";
  if (t == "Compare") return "comparison";
  if (t == "IfExp") return "conditional expression";
  if (t == "NamedExpr") return "named expression";
  if (t == "Constant") {
    const Value* v = e->get("value");
    if (v) {
      if (v->kind == Value::Kind::Null) return "None";
      if (v->kind == Value::Kind::True) return "True";
      if (v->kind == Value::Kind::False) return "False";
      if (v->kind == Value::Kind::Ellipsis) return "ellipsis";
    }
    return "literal";
  }
  return "expression";
}

// ---- file -----------------------------------------------------------------

Node* Parser::parse_file() {
  try {
    std::vector<Value> body;
    statements(body, true);
    if (!at(T::End)) syntax_error();
    Node* m = make_nopos("Module", 2);
    add_list(m, "body", std::move(body));
    add_list(m, "type_ignores", {});
    return m;
  } catch (const ParseFailure&) {
    // _Pypegen_set_syntax_error: after a parse failure CPython tokenizes the
    // rest of the file; a tokenizer SyntaxError found there replaces the
    // parser's error, and so does an unclosed bracket opened on a line before
    // the failure ("'(' was never closed"). "unexpected indent" is raised
    // without that check.
    if (!indent_error_ && !tdiags_.items.empty()) {
      const Diagnostic& td = tdiags_.items.front();
      if (tinfo_.error == TokErrorKind::Syntax) {
        error = td;
      } else if (tinfo_.error == TokErrorKind::Eof &&
                 td.message.find("was never closed") != std::string::npos &&
                 td.line < t_[furthest_].tok->line) {
        error = td;
      }
    }
    return nullptr;
  }
}

}  // namespace detail

ParseResult parse(std::string_view bytes, std::string_view filename) {
  ParseResult r;
  std::string text, err;
  int err_line = 0;
  if (!pyvalue::decode_source(bytes, text, err, err_line)) {
    r.source = std::make_unique<Source>(std::string());
    r.diags.error(err_line, 0, err);
    return r;
  }
  // CPython translates "\r\n" and "\r" to "\n" before tokenizing: positions
  // and string values depend on it.
  if (text.find('\r') != std::string::npos) text = pyvalue::translate_newlines(text);
  r.source = std::make_unique<Source>(std::move(text));
  Diagnostics tdiags;
  TokenizeInfo tinfo;
  r.tokens = tokenize(*r.source, tdiags, &tinfo);
  detail::Parser p(*r.source, r.tokens, r.tree, tinfo, tdiags);
  Node* m = p.parse_file();
  if (m) {
    r.tree.root = m;
  } else {
    r.diags.items.push_back(p.error);
  }
  return r;
}

}  // namespace c2t::syntax
