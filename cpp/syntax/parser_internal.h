// Internals of the recursive-descent parser (stage 1: syntax), shared by the
// parser_*.cpp translation units. Not part of the public interface.
//
// The grammar is CPython's Grammar/python.gram (3.12); each parse function
// names the rule it implements. Differences from the PEG original, all made
// so that parsing is linear (no exponential backtracking):
//   * assignment / augmented-assignment / annotation targets are parsed as
//     expressions and then validated and switched to Store ctx
//     (parser_targets.cpp); `for` and comprehension targets, which must not
//     swallow the `in`, are parsed with a restricted expression parser;
//   * `(`...`)` is one rule that decides between group, tuple, generator and
//     yield after its first element;
//   * the only speculative parses of valid code are the soft keyword `match`
//     and the parenthesized form of `with`; both rewind the token cursor on
//     failure and read at most one statement header, so parsing stays linear.
//
// Errors: the first error throws ParseFailure after recording one diagnostic
// (CPython reports exactly one SyntaxError). Speculative parses catch it and
// rewind. CPython's second, "invalid_*" pass is emulated where a rule fails:
// the hint checks (check_missing_comma, check_named_eq, for_target_error,
// invalid annotation targets) may look ahead on the error path only, and the
// generic "invalid syntax" is reported at the furthest token read, as
// CPython reports the furthest token of its first pass.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "support/diagnostics.h"
#include "syntax/ast.h"
#include "syntax/source.h"
#include "syntax/token.h"
#include "syntax/tokenizer.h"

namespace c2t::syntax::detail {

/// Parser token codes: keywords and operators are classified once, so the
/// parser compares small integers instead of strings.
enum class T : uint8_t {
  Name, Number, String, FStart, FMiddle, FEnd, Newline, Indent, Dedent, End, Error,
  // hard keywords
  False, None, True, And, As, Assert, Async, Await, Break, Class, Continue, Def, Del,
  Elif, Else, Except, Finally, For, From, Global, If, Import, In, Is, Lambda, Nonlocal,
  Not, Or, Pass, Raise, Return, Try, While, With, Yield,
  // operators and delimiters
  LPar, RPar, LSqb, RSqb, LBrace, RBrace, Colon, Comma, Semi, Plus, Minus, Star, Slash,
  VBar, Amper, Less, Greater, Equal, Dot, Percent, EqEqual, NotEqual, LessGreater,
  LessEqual, GreaterEqual, Tilde, Circumflex, LeftShift, RightShift, DoubleStar,
  PlusEqual, MinEqual, StarEqual, SlashEqual, PercentEqual, AmperEqual, VBarEqual,
  CircumflexEqual, LeftShiftEqual, RightShiftEqual, DoubleStarEqual, DoubleSlash,
  DoubleSlashEqual, At, AtEqual, RArrow, Ellipsis, ColonEqual, Exclamation, OtherOp,
};

/// A significant token (NL and Comment tokens are dropped).
struct PTok {
  T code;
  int16_t level;  // bracket nesting before this token (CPython's tok->level), saturated
  const Token* tok;
  std::string_view text;
};

/// Thrown after the (single) diagnostic has been recorded.
struct ParseFailure {};

/// Kinds of target lists, for validation and messages (CPython's TARGETS_TYPE).
enum class TargetKind : uint8_t { Star, Del, For };

class Parser {
 public:
  Parser(const Source& src, const std::vector<Token>& tokens, Tree& tree,
         const TokenizeInfo& tinfo, const Diagnostics& tdiags);

  /// file: [statements] ENDMARKER. Returns the Module or nullptr (then
  /// `error` holds the diagnostic).
  Node* parse_file();
  Diagnostic error;

  // ---- token cursor -------------------------------------------------------
  const PTok& cur() const { return t_[p_]; }
  const PTok& peek(size_t k = 1) const { return t_[p_ + k < t_.size() ? p_ + k : t_.size() - 1]; }
  bool at(T c) const { return t_[p_].code == c; }
  bool at_soft(std::string_view kw) const { return t_[p_].code == T::Name && t_[p_].text == kw; }
  void advance() {
    if (p_ + 1 < t_.size()) ++p_;
    if (p_ > furthest_) furthest_ = p_;
  }
  bool accept(T c) { if (at(c)) { advance(); return true; } return false; }
  /// Consumes a token of kind `c` or fails with "expected 'x'"-style or
  /// "invalid syntax" (msg empty).
  void expect(T c, const char* msg = nullptr);
  /// A forced token (&&':' in the grammar: def, try, else, finally): any
  /// other token gives "expected ':'".
  void expect_forced_colon() {
    if (accept(T::Colon)) return;
    if (at(T::Error)) syntax_error();
    fail_here("expected ':'");
  }
  size_t mark() const { return p_; }
  void reset(size_t m) { p_ = m; }
  size_t last() const { return p_ > 0 ? p_ - 1 : 0; }  // index of the last consumed token
  /// The last consumed token that is not NEWLINE / INDENT / DEDENT: where a
  /// compound statement ends (_PyPegen_get_last_nonnwhitespace_token), so a
  /// body ending in `x = 1;` ends at the ';'.
  size_t last_significant() const {
    size_t i = last();
    while (i > 0 && (t_[i].code == T::Newline || t_[i].code == T::Indent || t_[i].code == T::Dedent ||
                     t_[i].code == T::End))
      --i;
    return i;
  }

  // ---- errors -------------------------------------------------------------
  [[noreturn]] void fail_at(size_t tok_index, std::string msg);
  [[noreturn]] void fail_node(const Node* n, std::string msg);
  [[noreturn]] void fail_pos(int line, int col, std::string msg);
  [[noreturn]] void fail_here(std::string msg = "invalid syntax") { fail_at(p_, std::move(msg)); }
  /// Generic failure at the current token: the tokenizer's error when the
  /// cursor is at the Error token, else `msg`.
  [[noreturn]] void syntax_error();

  // ---- nodes --------------------------------------------------------------
  Node* make(std::string_view type, size_t first, size_t last_tok, size_t nfields);
  Node* make_nopos(std::string_view type, size_t nfields);
  Node* make_at(std::string_view type, const Node* from, const Node* to, size_t nfields);
  static void set_start(Node* n, const PTok& t) { n->lineno = t.tok->line; n->col_offset = t.tok->col; }
  static void set_end(Node* n, const PTok& t) { n->end_lineno = t.tok->end_line; n->end_col_offset = t.tok->end_col; }
  static void add(Node* n, std::string_view f, Value v) { n->fields.emplace_back(f, std::move(v)); }
  static void add(Node* n, std::string_view f, Node* c) { n->fields.emplace_back(f, Value::of(c)); }
  static void add_list(Node* n, std::string_view f, std::vector<Value> xs) { n->fields.emplace_back(f, Value::list(std::move(xs))); }
  static Value vstr(std::string_view s) { return Value::str(std::string(s)); }
  static Value vint(long long i) { return Value::integer(i); }
  Node* singleton(std::string_view type);  // Load, Store, Del, operators: shared per tree
  Node* load() { return load_; }
  Node* store() { return store_; }
  Node* del() { return del_; }
  Node* name_node(size_t tok_index, Node* ctx);
  /// An identifier's value: NFKC-normalized when non-ASCII (PEP 3131).
  std::string identifier(const PTok& t);
  std::string_view kind_name(const Node* e) const;  // _PyPegen_get_expr_name

  // ---- recursion guard ----------------------------------------------------
  struct DepthGuard {
    Parser& p;
    explicit DepthGuard(Parser& p_) : p(p_) { if (++p.depth_ > kMaxDepth) p.too_deep(); }
    ~DepthGuard() { --p.depth_; }
  };
  static constexpr int kMaxDepth = 1000;
  [[noreturn]] void too_deep();
  int depth_ = 0;

  // ---- statements (parser_stmt.cpp) ---------------------------------------
  void statements(std::vector<Value>& out, bool top);
  void statement(std::vector<Value>& out);
  void simple_stmts(std::vector<Value>& out);
  Node* simple_stmt();
  Node* compound_stmt();
  std::vector<Value> block(const char* what, size_t kw_tok);
  // `<kw>: block` where the current token is `kw` (T::Else, T::Finally): the block, or {} (and no
  // token consumed) where another token comes. `what` names the clause in errors ("'else' statement").
  std::vector<Value> clause_block(T kw, const char* what);
  Node* assignment_or_expr_stmt();
  Node* import_stmt();
  Node* from_import_stmt();
  Node* if_stmt(bool elif);
  Node* while_stmt();
  Node* for_stmt(size_t async_tok);
  Node* with_stmt(size_t async_tok);
  Node* try_stmt();
  Node* function_def(std::vector<Value> decorators, size_t async_tok);
  Node* class_def(std::vector<Value> decorators);
  Node* decorated();
  Node* type_alias();
  Node* match_stmt();  // nullptr if this `match` is not a match statement
  std::vector<Value> type_params();

  // ---- expressions (parser_expr.cpp) --------------------------------------
  Node* star_expressions();
  Node* star_expression();
  Node* star_named_expressions_tuple(size_t start, Node* first);
  Node* star_named_expression();
  Node* named_expression(bool eq_hint = true);
  Node* expression();
  Node* expressions();
  Node* yield_expr();
  Node* lambdef();
  Node* disjunction();
  Node* conjunction();
  Node* inversion();
  Node* comparison();
  Node* bitwise_or();
  Node* bitwise_xor();
  Node* bitwise_and();
  Node* shift_expr();
  Node* sum();
  Node* term();
  Node* factor();
  Node* power();
  Node* await_primary();
  Node* primary();
  Node* primary_tail(size_t start, Node* e);
  Node* atom();
  Node* paren_atom();
  Node* list_atom();
  Node* brace_atom();
  Node* slices();
  Node* slice();
  std::vector<Value> for_if_clauses();
  Node* genexp_after(size_t start, Node* elt);
  bool at_expression_start() const;
  // CPython's invalid_expression / invalid_named_expression hints, checked
  // where the plain grammar has just failed to continue.
  void check_missing_comma(size_t start, const Node* a);
  void check_named_eq(size_t start, const Node* e);
  bool operand_then_no_assign(size_t q) const;

  // ---- call arguments & parameters (parser_args.cpp) ----------------------
  Node* call(size_t start, Node* func);
  /// '(' [arguments] ')' of a class definition: fills bases/keywords.
  void class_arguments(std::vector<Value>& bases, std::vector<Value>& keywords);
  void arguments_until_rpar(std::vector<Value>& args, std::vector<Value>& keywords, bool allow_genexp,
                            size_t open_tok, Node** genexp_out);
  Node* parameters(bool lambda, T closer);

  // ---- targets (parser_targets.cpp) ---------------------------------------
  /// Validates `e` as an assignment target of kind `k` and switches its ctx;
  /// fails with CPython's message otherwise.
  void set_target(Node* e, TargetKind k, bool first_group = false);
  const Node* invalid_target(const Node* e, TargetKind k) const;
  void set_ctx(Node* e, Node* ctx);
  Node* star_targets();         // for-loop and comprehension targets (may be a Tuple)
  Node* star_targets_single();  // star_target: one target (a `with ... as` target)
  [[noreturn]] void for_target_error(size_t target_start);
  std::vector<Value> del_targets();

  // ---- strings (parser_strings.cpp) ---------------------------------------
  Node* strings();
  // ---- patterns (parser_pattern.cpp) --------------------------------------
  Node* patterns();
  Node* pattern();
  Node* or_pattern();
  Node* closed_pattern();
  Node* as_pattern_tail(size_t start, Node* p);

  // ---- state --------------------------------------------------------------
  const Source& src_;
  Tree& tree_;
  const TokenizeInfo& tinfo_;
  const Diagnostics& tdiags_;
  std::vector<PTok> t_;
  const Token* tokens_front_ = nullptr;  // the full token stream (comments included)
  size_t p_ = 0;
  size_t furthest_ = 0;       // the furthest token read (CPython's p->fill - 1)
  bool indent_error_ = false; // the failure is "unexpected indent": no tokenizer error overrides it
  std::vector<std::pair<std::string_view, Node*>> singletons_;
  Node* load_ = nullptr;
  Node* store_ = nullptr;
  Node* del_ = nullptr;
  Node* bare_tuple_ = nullptr;  // the last unparenthesized tuple built by star_expressions
  int speculating_ = 0;       // >0 inside a speculative parse
  bool no_invalid_ = false;   // inside a hint's look-ahead parse: no hints (expression_without_invalid)
  bool failed_ = false;
};

/// Classification of a token (keywords from Name tokens, operators by text).
T classify(const Token& t, std::string_view text);

}  // namespace c2t::syntax::detail
