// The match statement (PEP 634): Grammar/python.gram `match_stmt`,
// `subject_expr`, `case_block`, `guard`, `patterns`, `pattern`, `as_pattern`,
// `or_pattern`, `closed_pattern` and the literal / capture / wildcard / value /
// group / sequence / mapping / class patterns.
//
// `match` is a soft keyword: a statement starting with the name `match` is
// parsed as a match statement only if `match subject ':' NEWLINE` parses;
// otherwise the cursor is rewound and the line is an ordinary statement.
#include "syntax/parser_internal.h"

namespace c2t::syntax::detail {

namespace {

bool is_wildcard(const PTok& t) { return t.code == T::Name && t.text == "_"; }

}  // namespace

Node* Parser::match_stmt() {
  size_t s = p_;
  Node* subject = nullptr;
  size_t missing_colon = 0;
  T after = peek().code;
  bool missing_colon_ok = after == T::LPar || after == T::LSqb || after == T::Minus || after == T::Plus ||
                          after == T::Star || after == T::Tilde || after == T::LBrace;
  ++speculating_;
  try {
    advance();  // "match"
    // subject_expr: star_named_expression ',' star_named_expressions? | named_expression
    size_t ss = p_;
    Node* first = star_named_expression();
    if (at(T::Comma)) {
      std::vector<Value> elts;
      elts.push_back(Value::of(first));
      while (accept(T::Comma)) {
        if (!at_expression_start() && !at(T::Star)) break;
        elts.push_back(Value::of(star_named_expression()));
      }
      subject = make("Tuple", ss, last(), 2);
      add_list(subject, "elts", std::move(elts));
      add(subject, "ctx", load());
    } else {
      if (first->is("Starred")) throw ParseFailure{};
      subject = first;
    }
    if (at(T::Newline) && !missing_colon_ok) {
      // invalid_match_stmt: "match" subject_expr NEWLINE. Only when the line
      // cannot be an expression statement (`match(x)` is a call).
      missing_colon = p_;
      throw ParseFailure{};
    }
    if (!at(T::Colon) || peek().code != T::Newline) throw ParseFailure{};
  } catch (const ParseFailure&) {
    --speculating_;
    if (missing_colon) fail_at(missing_colon, "expected ':'");
    reset(s);
    return nullptr;
  }
  --speculating_;
  advance();  // ':'
  advance();  // NEWLINE
  if (!at(T::Indent)) {
    if (at(T::Error)) syntax_error();
    fail_here("expected an indented block after 'match' statement on line " + std::to_string(t_[s].tok->line));
  }
  advance();
  DepthGuard g(*this);
  std::vector<Value> cases;
  while (!at(T::Dedent) && !at(T::End)) {
    // case_block: "case" patterns guard? ':' block
    if (!at_soft("case")) syntax_error();
    size_t c = p_;
    advance();
    Node* pat = patterns();
    Node* guard = nullptr;
    if (accept(T::If)) guard = named_expression();
    expect(T::Colon, "expected ':'");
    std::vector<Value> body = block("'case' statement", c);
    Node* mc = make_nopos("match_case", 3);
    add(mc, "pattern", pat);
    add(mc, "guard", guard);
    add_list(mc, "body", std::move(body));
    cases.push_back(Value::of(mc));
  }
  if (cases.empty()) syntax_error();
  expect(T::Dedent);
  Node* n = make("Match", s, s, 2);
  set_end(n, t_[last_significant()]);
  add(n, "subject", subject);
  add_list(n, "cases", std::move(cases));
  return n;
}

namespace {

// star_pattern: '*' pattern_capture_target | '*' wildcard_pattern
Node* star_pattern(Parser& p) {
  size_t s = p.mark();
  p.advance();
  if (!p.at(T::Name)) p.syntax_error();
  Value name = is_wildcard(p.cur()) ? Value::null() : Value::str(p.identifier(p.cur()));
  p.advance();
  Node* n = p.make("MatchStar", s, p.last(), 1);
  Parser::add(n, "name", std::move(name));
  return n;
}

// maybe_star_pattern: star_pattern | pattern
Node* maybe_star_pattern(Parser& p) {
  if (p.at(T::Star)) return star_pattern(p);
  return p.pattern();
}

Node* make_sequence(Parser& p, size_t s, size_t e, std::vector<Value> pats) {
  Node* n = p.make("MatchSequence", s, e, 1);
  Parser::add_list(n, "patterns", std::move(pats));
  return n;
}

// signed_number / complex_number / strings / None / True / False as an
// expression (literal_expr) — also the value of a literal_pattern.
Node* literal_expr(Parser& p) {
  size_t s = p.mark();
  if (p.at(T::String) || p.at(T::FStart)) {
    // f-strings parse here too; CPython's compiler, not its parser, rejects them.
    return p.strings();
  }
  // signed_number: NUMBER | '-' NUMBER
  bool neg = p.at(T::Minus);
  if (neg) p.advance();
  if (!p.at(T::Number)) p.syntax_error();
  Node* num = p.atom();
  Node* left = num;
  if (neg) {
    left = p.make("UnaryOp", s, p.last(), 2);
    Parser::add(left, "op", p.singleton("USub"));
    Parser::add(left, "operand", num);
  }
  if (p.at(T::Plus) || p.at(T::Minus)) {
    // complex_number: signed_real_number ('+' | '-') imaginary_number
    if (num->get("value")->kind == Value::Kind::Complex)
      p.fail_node(num, "real number required in complex literal");
    const char* op = p.at(T::Plus) ? "Add" : "Sub";
    p.advance();
    if (!p.at(T::Number)) p.syntax_error();
    Node* imag = p.atom();
    if (imag->get("value")->kind != Value::Kind::Complex)
      p.fail_node(imag, "imaginary number required in complex literal");
    Node* b = p.make("BinOp", s, p.last(), 3);
    Parser::add(b, "left", left);
    Parser::add(b, "op", p.singleton(op));
    Parser::add(b, "right", imag);
    return b;
  }
  return left;
}

// name_or_attr: attr | NAME ; attr: name_or_attr '.' NAME
Node* name_or_attr(Parser& p) {
  size_t s = p.mark();
  Node* e = p.name_node(s, p.load());
  p.advance();
  while (p.at(T::Dot)) {
    p.advance();
    if (!p.at(T::Name)) p.syntax_error();
    Node* a = p.make("Attribute", s, p.mark(), 3);
    Parser::add(a, "value", e);
    Parser::add(a, "attr", Value::str(p.identifier(p.cur())));
    Parser::add(a, "ctx", p.load());
    p.advance();
    e = a;
  }
  return e;
}

// pattern_capture_target: !"_" NAME !('.' | '(' | '=')
Value capture_target(Parser& p) {
  if (!p.at(T::Name)) p.syntax_error();
  if (is_wildcard(p.cur())) p.fail_here("cannot use '_' as a target");
  Value v = Value::str(p.identifier(p.cur()));
  p.advance();
  return v;
}

}  // namespace

// patterns: open_sequence_pattern | pattern
Node* Parser::patterns() {
  size_t s = p_;
  Node* first = maybe_star_pattern(*this);
  if (!at(T::Comma)) {
    if (first->is("MatchStar")) syntax_error();
    return first;
  }
  std::vector<Value> pats;
  pats.push_back(Value::of(first));
  while (accept(T::Comma)) {
    if (at(T::Colon) || at(T::If)) break;
    pats.push_back(Value::of(maybe_star_pattern(*this)));
  }
  return make_sequence(*this, s, last(), std::move(pats));
}

// pattern: as_pattern | or_pattern ; as_pattern: or_pattern 'as' pattern_capture_target
Node* Parser::pattern() {
  DepthGuard g(*this);
  size_t s = p_;
  Node* p = or_pattern();
  if (!at(T::As)) return p;
  return as_pattern_tail(s, p);
}

Node* Parser::as_pattern_tail(size_t s, Node* pat) {
  advance();  // 'as'
  Value name = capture_target(*this);
  Node* n = make("MatchAs", s, last(), 2);
  add(n, "pattern", pat);
  add(n, "name", std::move(name));
  return n;
}

// or_pattern: '|'.closed_pattern+
Node* Parser::or_pattern() {
  size_t s = p_;
  Node* first = closed_pattern();
  if (!at(T::VBar)) return first;
  std::vector<Value> pats;
  pats.push_back(Value::of(first));
  while (accept(T::VBar)) pats.push_back(Value::of(closed_pattern()));
  Node* n = make("MatchOr", s, last(), 1);
  add_list(n, "patterns", std::move(pats));
  return n;
}

Node* Parser::closed_pattern() {
  size_t s = p_;
  switch (cur().code) {
    case T::None:
    case T::True:
    case T::False: {
      Value v;
      if (at(T::True)) v.kind = Value::Kind::True;
      else if (at(T::False)) v.kind = Value::Kind::False;
      else v.is_null_constant = true;
      advance();
      Node* n = make("MatchSingleton", s, s, 1);
      add(n, "value", std::move(v));
      return n;
    }
    case T::Number:
    case T::Minus:
    case T::String:
    case T::FStart: {
      Node* v = literal_expr(*this);
      Node* n = make("MatchValue", s, last(), 1);
      add(n, "value", v);
      return n;
    }
    case T::Name: {
      if (peek().code != T::Dot && peek().code != T::LPar) {
        // capture_pattern / wildcard_pattern
        Value name = is_wildcard(cur()) ? Value::null() : Value::str(identifier(cur()));
        advance();
        if (at(T::Equal)) syntax_error();
        Node* n = make("MatchAs", s, s, 2);
        add(n, "pattern", nullptr);
        add(n, "name", std::move(name));
        return n;
      }
      Node* cls = name_or_attr(*this);
      if (!at(T::LPar)) {
        // value_pattern: attr !('.' | '(' | '=')
        if (at(T::Equal)) syntax_error();
        Node* n = make("MatchValue", s, last(), 1);
        add(n, "value", cls);
        return n;
      }
      // class_pattern: name_or_attr '(' [positional_patterns] [keyword_patterns] ','? ')'
      advance();
      DepthGuard g(*this);
      std::vector<Value> pats, kwd_attrs, kwd_pats;
      while (!at(T::RPar)) {
        if (at(T::Name) && peek().code == T::Equal) {
          kwd_attrs.push_back(Value::str(identifier(cur())));
          advance();
          advance();
          kwd_pats.push_back(Value::of(pattern()));
        } else {
          Node* pt = pattern();
          if (!kwd_attrs.empty()) fail_node(pt, "positional patterns follow keyword patterns");
          pats.push_back(Value::of(pt));
        }
        if (!accept(T::Comma)) break;
      }
      expect(T::RPar);
      Node* n = make("MatchClass", s, last(), 4);
      add(n, "cls", cls);
      add_list(n, "patterns", std::move(pats));
      add_list(n, "kwd_attrs", std::move(kwd_attrs));
      add_list(n, "kwd_patterns", std::move(kwd_pats));
      return n;
    }
    case T::LPar: {
      // group_pattern: '(' pattern ')' ; sequence_pattern: '(' open_sequence_pattern? ')'
      advance();
      DepthGuard g(*this);
      if (accept(T::RPar)) return make_sequence(*this, s, last(), {});
      Node* first = maybe_star_pattern(*this);
      if (accept(T::RPar)) {
        if (first->is("MatchStar")) return make_sequence(*this, s, last(), {Value::of(first)});
        return first;
      }
      std::vector<Value> pats;
      pats.push_back(Value::of(first));
      expect(T::Comma);
      while (!at(T::RPar)) {
        pats.push_back(Value::of(maybe_star_pattern(*this)));
        if (!accept(T::Comma)) break;
      }
      expect(T::RPar);
      return make_sequence(*this, s, last(), std::move(pats));
    }
    case T::LSqb: {
      advance();
      DepthGuard g(*this);
      std::vector<Value> pats;
      while (!at(T::RSqb)) {
        pats.push_back(Value::of(maybe_star_pattern(*this)));
        if (!accept(T::Comma)) break;
      }
      expect(T::RSqb);
      return make_sequence(*this, s, last(), std::move(pats));
    }
    case T::LBrace: {
      // mapping_pattern
      advance();
      DepthGuard g(*this);
      std::vector<Value> keys, pats;
      Value rest;
      while (!at(T::RBrace)) {
        if (at(T::DoubleStar)) {
          advance();
          if (at(T::Name) && is_wildcard(cur())) syntax_error();
          rest = capture_target(*this);
          accept(T::Comma);
          if (!at(T::RBrace)) syntax_error();
          break;
        }
        Node* key;
        if (at(T::Name)) {
          key = name_or_attr(*this);
          if (!key->is("Attribute")) syntax_error();
        } else if (at(T::None) || at(T::True) || at(T::False)) {
          key = atom();
        } else {
          key = literal_expr(*this);
        }
        expect(T::Colon);
        keys.push_back(Value::of(key));
        pats.push_back(Value::of(pattern()));
        if (!accept(T::Comma)) break;
      }
      expect(T::RBrace);
      Node* n = make("MatchMapping", s, last(), 3);
      add_list(n, "keys", std::move(keys));
      add_list(n, "patterns", std::move(pats));
      add(n, "rest", std::move(rest));
      return n;
    }
    default:
      syntax_error();
  }
}

}  // namespace c2t::syntax::detail
