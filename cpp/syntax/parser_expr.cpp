// Expressions: Grammar/python.gram from `star_expressions` down to `atom`,
// plus displays, comprehensions (`for_if_clauses`), `slices`, `lambdef` and
// `yield_expr`. Positions follow CPython's EXTRA: a node spans from the first
// token its rule consumed to the last one, so `(a) + b` starts at the '('
// while the group `(a)` itself is just the inner node.
#include <cstdlib>

#include "pyvalue/repr.h"
#include "syntax/parser_internal.h"

namespace c2t::syntax::detail {

namespace {

// Adds one level of depth per iteration of a left-associative loop, so that
// long chains (a.b.c..., a+b+c...) are bounded like nesting: the tree they
// build is as deep as the chain is long.
struct ChainGuard {
  Parser& p;
  int n = 0;
  explicit ChainGuard(Parser& p_) : p(p_) {}
  void step() {
    ++n;
    if (++p.depth_ > Parser::kMaxDepth) p.too_deep();
  }
  ~ChainGuard() { p.depth_ -= n; }
};

}  // namespace

bool Parser::at_expression_start() const {
  switch (cur().code) {
    case T::Name: case T::Number: case T::String: case T::FStart: case T::LPar: case T::LSqb:
    case T::LBrace: case T::Minus: case T::Plus: case T::Tilde: case T::Not: case T::Lambda:
    case T::Await: case T::None: case T::True: case T::False: case T::Ellipsis:
      return true;
    default:
      return false;
  }
}

// star_expressions: star_expression (',' star_expression)* [',']
Node* Parser::star_expressions() {
  size_t s = p_;
  Node* first = star_expression();
  if (!at(T::Comma)) return first;
  std::vector<Value> elts;
  elts.push_back(Value::of(first));
  while (accept(T::Comma)) {
    if (!at_expression_start() && !at(T::Star)) break;
    elts.push_back(Value::of(star_expression()));
  }
  Node* n = make("Tuple", s, last(), 2);
  add_list(n, "elts", std::move(elts));
  add(n, "ctx", load());
  bare_tuple_ = n;
  return n;
}

// star_expression: '*' bitwise_or | expression
Node* Parser::star_expression() {
  if (at(T::Star)) {
    size_t s = p_;
    advance();
    Node* v = bitwise_or();
    Node* n = make("Starred", s, last(), 2);
    add(n, "value", v);
    add(n, "ctx", load());
    return n;
  }
  return expression();
}

// star_named_expression: '*' bitwise_or | named_expression
Node* Parser::star_named_expression() {
  if (at(T::Star)) return star_expression();
  return named_expression();
}

// named_expression: assignment_expression | expression !':='
// assignment_expression: NAME ':=' ~ expression
Node* Parser::named_expression(bool eq_hint) {
  if (at(T::Name) && peek().code == T::ColonEqual) {
    size_t s = p_;
    Node* target = name_node(p_, store());
    advance();
    advance();
    Node* value = expression();
    Node* n = make("NamedExpr", s, last(), 2);
    add(n, "target", target);
    add(n, "value", value);
    return n;
  }
  size_t s = p_;
  Node* e = expression();
  if (at(T::ColonEqual))
    fail_node(e, "cannot use assignment expressions with " + std::string(kind_name(e)));
  if (eq_hint && at(T::Equal) && !no_invalid_) check_named_eq(s, e);
  return e;
}

// Scans one bitwise_or operand from token q (roughly: atoms, trailers and
// binary operators at bracket depth 0) and tells whether what follows it is
// not '=' or ':=' — the `b=bitwise_or !('='|':=')` tail of CPython's
// invalid_named_expression alternatives.
bool Parser::operand_then_no_assign(size_t q) const {
  int depth = 0;
  bool operand = false;
  while (q < t_.size()) {
    T c = t_[q].code;
    if (c == T::LPar || c == T::LSqb || c == T::LBrace) {
      ++depth;
    } else if (c == T::RPar || c == T::RSqb || c == T::RBrace) {
      if (--depth < 0) break;
    } else if (depth == 0 &&
               !(c == T::Name || c == T::Number || c == T::String || c == T::FStart || c == T::FMiddle ||
                 c == T::FEnd || c == T::Dot || c == T::Plus || c == T::Minus || c == T::Star ||
                 c == T::Slash || c == T::DoubleSlash || c == T::Percent || c == T::At ||
                 c == T::DoubleStar || c == T::Tilde || c == T::VBar || c == T::Amper ||
                 c == T::Circumflex || c == T::LeftShift || c == T::RightShift || c == T::Await ||
                 c == T::None || c == T::True || c == T::False || c == T::Ellipsis)) {
      break;
    }
    if (depth == 0 && (c == T::Equal || c == T::ColonEqual)) break;
    operand = true;
    ++q;
  }
  return operand && q < t_.size() && t_[q].code != T::Equal && t_[q].code != T::ColonEqual;
}

// invalid_named_expression:
//   NAME '=' bitwise_or !('='|':=')  -> "invalid syntax. Maybe you meant '==' or ':=' instead of '='?"
//   !(list|tuple|genexp|True|None|False) bitwise_or '=' bitwise_or !('='|':=')
//                                      -> "cannot assign to X here. Maybe you meant '==' instead of '='?"
void Parser::check_named_eq(size_t start, const Node* e) {
  if (!operand_then_no_assign(p_ + 1)) return;
  if (e->is("Name") && start + 1 == p_)
    fail_node(e, "invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
  std::string_view what = kind_name(e);
  if (e->is("List") || e->is("Tuple") || e->is("GeneratorExp") || t_[start].code == T::LSqb ||
      what == "True" || what == "False" || what == "None" || e->is("Compare") || e->is("BoolOp") ||
      e->is("IfExp") || e->is("Lambda") || (e->is("UnaryOp") && e->child("op")->is("Not")))
    return;
  fail_node(e, "cannot assign to " + std::string(what) + " here. Maybe you meant '==' instead of '='?");
}

// invalid_expression: !(NAME STRING | SOFT_KEYWORD) a=disjunction b=expression_without_invalid
// inside brackets -> "invalid syntax. Perhaps you forgot a comma?" (at a).
void Parser::check_missing_comma(size_t start, const Node* a) {
  if (no_invalid_ || p_ == 0 || t_[p_ - 1].level == 0 || !at_expression_start()) return;
  const PTok& first = t_[start];
  if (first.code == T::Name) {
    T next = t_[start + 1].code;
    if (next == T::String || next == T::FStart) return;
    if (first.text == "match" || first.text == "case" || first.text == "_" || first.text == "type") return;
  }
  if (a->is("Name") && (a->str("id") == "print" || a->str("id") == "exec")) return;
  // b must parse as an expression (without hints).
  size_t m = p_;
  size_t far = furthest_;
  bool ok = false;
  ++speculating_;
  no_invalid_ = true;
  try {
    expression();
    ok = true;
  } catch (const ParseFailure&) {
  }
  no_invalid_ = false;
  --speculating_;
  reset(m);
  furthest_ = far;  // a hint's look-ahead is CPython's second pass: not counted
  if (ok) fail_node(a, "invalid syntax. Perhaps you forgot a comma?");
}

// expression: disjunction 'if' disjunction 'else' expression | disjunction | lambdef
Node* Parser::expression() {
  DepthGuard g(*this);
  if (at(T::Lambda)) return lambdef();
  size_t s = p_;
  Node* body = disjunction();
  if (!at(T::If)) {
    if (at_expression_start()) check_missing_comma(s, body);
    return body;
  }
  advance();
  Node* test = disjunction();
  if (!at(T::Else)) {
    // invalid_expression: disjunction 'if' disjunction !('else'|':')
    if (at(T::Error) || at(T::Colon)) syntax_error();
    fail_node(body, "expected 'else' after 'if' expression");
  }
  advance();
  Node* orelse = expression();
  Node* n = make("IfExp", s, last(), 3);
  add(n, "test", test);
  add(n, "body", body);
  add(n, "orelse", orelse);
  return n;
}

// yield_expr: 'yield' 'from' expression | 'yield' [star_expressions]
Node* Parser::yield_expr() {
  size_t s = p_;
  advance();
  if (accept(T::From)) {
    Node* v = expression();
    Node* n = make("YieldFrom", s, last(), 1);
    add(n, "value", v);
    return n;
  }
  Node* v = nullptr;
  if (at_expression_start() || at(T::Star)) v = star_expressions();
  Node* n = make("Yield", s, last(), 1);
  add(n, "value", v);
  return n;
}

// lambdef: 'lambda' [lambda_params] ':' expression
Node* Parser::lambdef() {
  size_t s = p_;
  advance();
  Node* args = parameters(true, T::Colon);
  expect(T::Colon, "expected ':'");
  Node* body = expression();
  Node* n = make("Lambda", s, last(), 2);
  add(n, "args", args);
  add(n, "body", body);
  return n;
}

// disjunction: conjunction ('or' conjunction)+ | conjunction
Node* Parser::disjunction() {
  size_t s = p_;
  Node* first = conjunction();
  if (!at(T::Or)) return first;
  std::vector<Value> values;
  values.push_back(Value::of(first));
  while (accept(T::Or)) values.push_back(Value::of(conjunction()));
  Node* n = make("BoolOp", s, last(), 2);
  add(n, "op", singleton("Or"));
  add_list(n, "values", std::move(values));
  return n;
}

// conjunction: inversion ('and' inversion)+ | inversion
Node* Parser::conjunction() {
  size_t s = p_;
  Node* first = inversion();
  if (!at(T::And)) return first;
  std::vector<Value> values;
  values.push_back(Value::of(first));
  while (accept(T::And)) values.push_back(Value::of(inversion()));
  Node* n = make("BoolOp", s, last(), 2);
  add(n, "op", singleton("And"));
  add_list(n, "values", std::move(values));
  return n;
}

// inversion: 'not' inversion | comparison
Node* Parser::inversion() {
  if (!at(T::Not)) return comparison();
  size_t s = p_;
  advance();
  DepthGuard g(*this);
  Node* operand = inversion();
  Node* n = make("UnaryOp", s, last(), 2);
  add(n, "op", singleton("Not"));
  add(n, "operand", operand);
  return n;
}

// comparison: bitwise_or compare_op_bitwise_or_pair+ | bitwise_or
Node* Parser::comparison() {
  size_t s = p_;
  Node* left = bitwise_or();
  std::vector<Value> ops, comparators;
  for (;;) {
    const char* op = nullptr;
    switch (cur().code) {
      case T::EqEqual: op = "Eq"; break;
      case T::NotEqual: op = "NotEq"; break;
      case T::LessGreater:
        // `<>` is only valid under the barry_as_FLUFL compile flag, which
        // ast.parse never sets (a `from __future__ import` in the file does not).
        fail_here("invalid syntax");
      case T::LessEqual: op = "LtE"; break;
      case T::Less: op = "Lt"; break;
      case T::GreaterEqual: op = "GtE"; break;
      case T::Greater: op = "Gt"; break;
      case T::In: op = "In"; break;
      case T::Not:
        if (peek().code == T::In) { advance(); op = "NotIn"; }
        break;
      case T::Is:
        if (peek().code == T::Not) { advance(); op = "IsNot"; } else op = "Is";
        break;
      default: break;
    }
    if (!op) break;
    advance();
    ops.push_back(Value::of(singleton(op)));
    comparators.push_back(Value::of(bitwise_or()));
  }
  if (ops.empty()) return left;
  Node* n = make("Compare", s, last(), 3);
  add(n, "left", left);
  add_list(n, "ops", std::move(ops));
  add_list(n, "comparators", std::move(comparators));
  return n;
}

namespace {
Node* binop(Parser& p, size_t s, Node* l, const char* op, Node* r) {
  Node* n = p.make("BinOp", s, p.last(), 3);
  Parser::add(n, "left", l);
  Parser::add(n, "op", p.singleton(op));
  Parser::add(n, "right", r);
  return n;
}
}  // namespace

// bitwise_or: bitwise_or '|' bitwise_xor | bitwise_xor
Node* Parser::bitwise_or() {
  size_t s = p_;
  Node* l = bitwise_xor();
  ChainGuard cg(*this);
  while (accept(T::VBar)) {
    cg.step();
    l = binop(*this, s, l, "BitOr", bitwise_xor());
  }
  return l;
}

Node* Parser::bitwise_xor() {
  size_t s = p_;
  Node* l = bitwise_and();
  ChainGuard cg(*this);
  while (accept(T::Circumflex)) {
    cg.step();
    l = binop(*this, s, l, "BitXor", bitwise_and());
  }
  return l;
}

Node* Parser::bitwise_and() {
  size_t s = p_;
  Node* l = shift_expr();
  ChainGuard cg(*this);
  while (accept(T::Amper)) {
    cg.step();
    l = binop(*this, s, l, "BitAnd", shift_expr());
  }
  return l;
}

Node* Parser::shift_expr() {
  size_t s = p_;
  Node* l = sum();
  ChainGuard cg(*this);
  for (;;) {
    const char* op = at(T::LeftShift) ? "LShift" : at(T::RightShift) ? "RShift" : nullptr;
    if (!op) return l;
    advance();
    cg.step();
    l = binop(*this, s, l, op, sum());
  }
}

Node* Parser::sum() {
  size_t s = p_;
  Node* l = term();
  ChainGuard cg(*this);
  for (;;) {
    const char* op = at(T::Plus) ? "Add" : at(T::Minus) ? "Sub" : nullptr;
    if (!op) return l;
    advance();
    cg.step();
    l = binop(*this, s, l, op, term());
  }
}

Node* Parser::term() {
  size_t s = p_;
  Node* l = factor();
  ChainGuard cg(*this);
  for (;;) {
    const char* op = nullptr;
    switch (cur().code) {
      case T::Star: op = "Mult"; break;
      case T::Slash: op = "Div"; break;
      case T::DoubleSlash: op = "FloorDiv"; break;
      case T::Percent: op = "Mod"; break;
      case T::At: op = "MatMult"; break;
      default: return l;
    }
    advance();
    cg.step();
    l = binop(*this, s, l, op, factor());
  }
}

// factor: '+' factor | '-' factor | '~' factor | power
Node* Parser::factor() {
  const char* op = at(T::Plus) ? "UAdd" : at(T::Minus) ? "USub" : at(T::Tilde) ? "Invert" : nullptr;
  if (!op) return power();
  size_t s = p_;
  advance();
  DepthGuard g(*this);
  Node* operand = factor();
  Node* n = make("UnaryOp", s, last(), 2);
  add(n, "op", singleton(op));
  add(n, "operand", operand);
  return n;
}

// power: await_primary '**' factor | await_primary
Node* Parser::power() {
  size_t s = p_;
  Node* b = await_primary();
  if (!accept(T::DoubleStar)) return b;
  DepthGuard g(*this);
  Node* r = factor();
  return binop(*this, s, b, "Pow", r);
}

// await_primary: AWAIT primary | primary
Node* Parser::await_primary() {
  if (!at(T::Await)) return primary();
  size_t s = p_;
  advance();
  Node* v = primary();
  Node* n = make("Await", s, last(), 1);
  add(n, "value", v);
  return n;
}

// primary: primary '.' NAME | primary genexp | primary '(' [arguments] ')'
//        | primary '[' slices ']' | atom
Node* Parser::primary() {
  size_t s = p_;
  Node* e = atom();
  return primary_tail(s, e);
}

Node* Parser::primary_tail(size_t s, Node* e) {
  ChainGuard cg(*this);
  for (;;) {
    switch (cur().code) {
      case T::Dot: {
        advance();
        if (!at(T::Name)) syntax_error();
        cg.step();
        Node* n = make("Attribute", s, p_, 3);
        add(n, "value", e);
        add(n, "attr", Value::str(identifier(cur())));
        add(n, "ctx", load());
        advance();
        e = n;
        break;
      }
      case T::LPar:
        cg.step();
        e = call(s, e);
        break;
      case T::LSqb: {
        advance();
        cg.step();
        Node* sl = slices();
        expect(T::RSqb);
        Node* n = make("Subscript", s, last(), 3);
        add(n, "value", e);
        add(n, "slice", sl);
        add(n, "ctx", load());
        e = n;
        break;
      }
      default:
        return e;
    }
  }
}

// slices: slice !',' | ','.(slice | starred_expression)+ [',']
Node* Parser::slices() {
  DepthGuard g(*this);
  size_t s = p_;
  auto item = [&]() -> Node* {
    if (at(T::Star)) {
      // starred_expression: '*' expression
      size_t a = p_;
      advance();
      Node* v = expression();
      Node* n = make("Starred", a, last(), 2);
      add(n, "value", v);
      add(n, "ctx", load());
      return n;
    }
    return slice();
  };
  bool star = at(T::Star);
  Node* first = item();
  if (!at(T::Comma) && !star) return first;
  std::vector<Value> elts;
  elts.push_back(Value::of(first));
  while (accept(T::Comma)) {
    if (at(T::RSqb)) break;
    elts.push_back(Value::of(item()));
  }
  Node* n = make("Tuple", s, last(), 2);
  add_list(n, "elts", std::move(elts));
  add(n, "ctx", load());
  return n;
}

// slice: [expression] ':' [expression] [':' [expression]] | named_expression
Node* Parser::slice() {
  size_t s = p_;
  Node* lower = nullptr;
  if (!at(T::Colon)) {
    Node* e = named_expression();
    if (!at(T::Colon)) return e;
    lower = e;
  }
  advance();  // ':'
  Node* upper = nullptr;
  Node* step = nullptr;
  if (at_expression_start()) upper = expression();
  if (accept(T::Colon)) {
    if (at_expression_start()) step = expression();
  }
  Node* n = make("Slice", s, last(), 3);
  add(n, "lower", lower);
  add(n, "upper", upper);
  add(n, "step", step);
  return n;
}

// atom: NAME | 'True' | 'False' | 'None' | strings | NUMBER
//     | (tuple | group | genexp) | (list | listcomp) | (dict | set | dictcomp | setcomp) | '...'
Node* Parser::atom() {
  size_t s = p_;
  auto constant = [&](Value v) {
    Node* n = make("Constant", s, s, 2);
    add(n, "value", std::move(v));
    add(n, "kind", Value::null());
    advance();
    return n;
  };
  switch (cur().code) {
    case T::Name: {
      Node* n = name_node(p_, load());
      advance();
      return n;
    }
    case T::True: { Value v; v.kind = Value::Kind::True; return constant(std::move(v)); }
    case T::False: { Value v; v.kind = Value::Kind::False; return constant(std::move(v)); }
    case T::None: { Value v; v.is_null_constant = true; return constant(std::move(v)); }
    case T::Ellipsis: { Value v; v.kind = Value::Kind::Ellipsis; return constant(std::move(v)); }
    case T::Number: {
      std::string_view text = cur().text;
      Value v;
      char lastc = text.empty() ? '0' : text.back();
      bool prefixed = text.size() > 1 && text[0] == '0' &&
                      (text[1] == 'x' || text[1] == 'X' || text[1] == 'o' || text[1] == 'O' ||
                       text[1] == 'b' || text[1] == 'B');
      if (lastc == 'j' || lastc == 'J') {
        v.kind = Value::Kind::Complex;
        if (!pyvalue::parse_float_literal(text.substr(0, text.size() - 1), v.number))
          fail_here("invalid imaginary literal");
      } else if (!prefixed && text.find_first_of(".eE") != std::string_view::npos) {
        v.kind = Value::Kind::Float;
        if (!pyvalue::parse_float_literal(text, v.number)) fail_here("invalid decimal literal");
      } else {
        v.kind = Value::Kind::Int;
        if (!pyvalue::int_literal_to_decimal(text, v.text)) fail_here("invalid decimal literal");
        // CPython 3.11 refuses decimal literals over 4300 digits at parse time.
        std::string too_long = pyvalue::int_literal_limit_error(text, v.text);
        if (!too_long.empty()) fail_here(too_long);
      }
      return constant(std::move(v));
    }
    case T::String:
    case T::FStart:
      return strings();
    case T::LPar: return paren_atom();
    case T::LSqb: return list_atom();
    case T::LBrace: return brace_atom();
    default:
      syntax_error();
  }
}

// tuple: '(' [star_named_expression ',' [star_named_expressions]] ')'
// group: '(' (yield_expr | named_expression) ')'
// genexp: '(' (assignment_expression | expression !':=') for_if_clauses ')'
Node* Parser::paren_atom() {
  DepthGuard g(*this);
  size_t s = p_;
  advance();
  if (accept(T::RPar)) {
    Node* n = make("Tuple", s, last(), 2);
    add_list(n, "elts", {});
    add(n, "ctx", load());
    return n;
  }
  if (at(T::Yield)) {
    Node* y = yield_expr();
    expect(T::RPar);
    return y;
  }
  Node* first = star_named_expression();
  if (at(T::For) || at(T::Async)) {
    if (first->is("Starred")) fail_node(first, "iterable unpacking cannot be used in comprehension");
    return genexp_after(s, first);
  }
  if (at(T::Comma)) {
    std::vector<Value> elts;
    elts.push_back(Value::of(first));
    while (accept(T::Comma)) {
      if (at(T::RPar)) break;
      elts.push_back(Value::of(star_named_expression()));
    }
    expect(T::RPar);
    Node* n = make("Tuple", s, last(), 2);
    add_list(n, "elts", std::move(elts));
    add(n, "ctx", load());
    return n;
  }
  expect(T::RPar);
  if (first->is("Starred")) fail_node(first, "cannot use starred expression here");
  return first;
}

Node* Parser::genexp_after(size_t s, Node* elt) {
  std::vector<Value> gens = for_if_clauses();
  expect(T::RPar);
  Node* n = make("GeneratorExp", s, last(), 2);
  add(n, "elt", elt);
  add_list(n, "generators", std::move(gens));
  return n;
}

// list: '[' [star_named_expressions] ']'
// listcomp: '[' named_expression for_if_clauses ']'
Node* Parser::list_atom() {
  DepthGuard g(*this);
  size_t s = p_;
  advance();
  std::vector<Value> elts;
  if (!at(T::RSqb)) {
    Node* first = star_named_expression();
    if (at(T::For) || at(T::Async)) {
      if (first->is("Starred")) fail_node(first, "iterable unpacking cannot be used in comprehension");
      std::vector<Value> gens = for_if_clauses();
      expect(T::RSqb);
      Node* n = make("ListComp", s, last(), 2);
      add(n, "elt", first);
      add_list(n, "generators", std::move(gens));
      return n;
    }
    elts.push_back(Value::of(first));
    while (accept(T::Comma)) {
      if (at(T::RSqb)) break;
      if (at(T::For) || at(T::Async)) fail_node(first, "did you forget parentheses around the comprehension target?");
      elts.push_back(Value::of(star_named_expression()));
    }
    if (elts.size() > 1 && (at(T::For) || at(T::Async)))
      fail_node(first, "did you forget parentheses around the comprehension target?");
  }
  expect(T::RSqb);
  Node* n = make("List", s, last(), 2);
  add_list(n, "elts", std::move(elts));
  add(n, "ctx", load());
  return n;
}

// dict: '{' [double_starred_kvpairs] '}'
// set: '{' star_named_expressions '}'
// dictcomp: '{' kvpair for_if_clauses '}'
// setcomp: '{' named_expression for_if_clauses '}'
Node* Parser::brace_atom() {
  DepthGuard g(*this);
  size_t s = p_;
  advance();
  if (accept(T::RBrace)) {
    Node* n = make("Dict", s, last(), 2);
    add_list(n, "keys", {});
    add_list(n, "values", {});
    return n;
  }
  std::vector<Value> keys, values;
  // double_starred_kvpair: '**' bitwise_or | kvpair ; kvpair: expression ':' expression
  auto dict_rest = [&]() {
    while (accept(T::Comma)) {
      if (at(T::RBrace)) break;
      if (accept(T::DoubleStar)) {
        keys.push_back(Value::null());
        values.push_back(Value::of(bitwise_or()));
      } else {
        keys.push_back(Value::of(expression()));
        expect(T::Colon, "':' expected after dictionary key");
        if (at(T::Star)) fail_here("cannot use a starred expression in a dictionary value");
        values.push_back(Value::of(expression()));
      }
    }
    expect(T::RBrace);
    Node* n = make("Dict", s, last(), 2);
    add_list(n, "keys", std::move(keys));
    add_list(n, "values", std::move(values));
    return n;
  };
  if (at(T::DoubleStar)) {
    size_t ds = p_;
    advance();
    keys.push_back(Value::null());
    values.push_back(Value::of(bitwise_or()));
    if (at(T::For) || at(T::Async)) fail_at(ds, "dict unpacking cannot be used in dict comprehension");
    return dict_rest();
  }
  size_t first_tok = p_;
  Node* first = star_named_expression();
  if (at(T::Colon)) {
    if (first->is("Starred")) fail_here("invalid syntax");
    if (first->is("NamedExpr") && t_[first_tok].code != T::LPar) fail_at(first_tok + 1, "invalid syntax");
    advance();
    if (at(T::Star)) fail_here("cannot use a starred expression in a dictionary value");
    Node* v = expression();
    if (at(T::For) || at(T::Async)) {
      std::vector<Value> gens = for_if_clauses();
      expect(T::RBrace);
      Node* n = make("DictComp", s, last(), 3);
      add(n, "key", first);
      add(n, "value", v);
      add_list(n, "generators", std::move(gens));
      return n;
    }
    keys.push_back(Value::of(first));
    values.push_back(Value::of(v));
    return dict_rest();
  }
  if (at(T::For) || at(T::Async)) {
    if (first->is("Starred")) fail_node(first, "iterable unpacking cannot be used in comprehension");
    std::vector<Value> gens = for_if_clauses();
    expect(T::RBrace);
    Node* n = make("SetComp", s, last(), 2);
    add(n, "elt", first);
    add_list(n, "generators", std::move(gens));
    return n;
  }
  std::vector<Value> elts;
  elts.push_back(Value::of(first));
  while (accept(T::Comma)) {
    if (at(T::RBrace)) break;
    if (at(T::For) || at(T::Async)) fail_node(first, "did you forget parentheses around the comprehension target?");
    elts.push_back(Value::of(star_named_expression()));
  }
  if (elts.size() > 1 && (at(T::For) || at(T::Async)))
    fail_node(first, "did you forget parentheses around the comprehension target?");
  expect(T::RBrace);
  Node* n = make("Set", s, last(), 1);
  add_list(n, "elts", std::move(elts));
  return n;
}

// for_if_clauses: for_if_clause+
// for_if_clause: [ASYNC] 'for' star_targets 'in' ~ disjunction ('if' disjunction)*
std::vector<Value> Parser::for_if_clauses() {
  std::vector<Value> out;
  while (at(T::For) || (at(T::Async) && peek().code == T::For)) {
    bool is_async = accept(T::Async);
    advance();  // 'for'
    size_t ts = p_;
    Node* target = star_targets();
    if (!accept(T::In)) for_target_error(ts);
    Node* iter = disjunction();
    std::vector<Value> ifs;
    while (accept(T::If)) ifs.push_back(Value::of(disjunction()));
    Node* c = make_nopos("comprehension", 4);
    add(c, "target", target);
    add(c, "iter", iter);
    add_list(c, "ifs", std::move(ifs));
    add(c, "is_async", vint(is_async ? 1 : 0));
    out.push_back(Value::of(c));
  }
  if (at(T::Async)) syntax_error();
  return out;
}

}  // namespace c2t::syntax::detail
