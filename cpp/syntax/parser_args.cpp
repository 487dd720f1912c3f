// Call arguments and function / lambda parameters.
//   args, kwargs, kwarg_or_starred, kwarg_or_double_starred, starred_expression
//   params / parameters, slash_no_default, slash_with_default, star_etc, kwds,
//   param, annotation, star_annotation, default, and their lambda_* twins.
// Parameters are parsed left to right with a small state machine instead of
// the PEG alternatives; the order errors are CPython's invalid_parameters /
// invalid_star_etc / invalid_kwds messages.
#include "syntax/parser_internal.h"

namespace c2t::syntax::detail {

// primary '(' [arguments] ')'  (and `primary genexp`, a call with one bare generator)
Node* Parser::call(size_t start, Node* func) {
  size_t open = p_;
  advance();  // '('
  std::vector<Value> args, keywords;
  Node* gen = nullptr;
  arguments_until_rpar(args, keywords, true, open, &gen);
  Node* n = make("Call", start, last(), 3);
  add(n, "func", func);
  add_list(n, "args", std::move(args));
  add_list(n, "keywords", std::move(keywords));
  return n;
}

void Parser::class_arguments(std::vector<Value>& bases, std::vector<Value>& keywords) {
  size_t open = p_;
  advance();  // '('
  arguments_until_rpar(bases, keywords, false, open, nullptr);
}

// Parses the arguments after '(' up to and including ')'.
void Parser::arguments_until_rpar(std::vector<Value>& args, std::vector<Value>& keywords,
                                  bool allow_genexp, size_t open_tok, Node** genexp_out) {
  DepthGuard g(*this);
  bool seen_keyword = false;       // NAME '=' expression
  bool seen_double_star = false;   // '**' expression
  const char* order_error = nullptr;
  while (!at(T::RPar)) {
    size_t a = p_;
    if (at(T::Star)) {
      // starred_expression: '*' expression
      advance();
      Node* v = expression();
      if (at(T::For) || at(T::Async)) fail_at(a, "iterable unpacking cannot be used in comprehension");
      if (seen_double_star)
        fail_at(a, "iterable argument unpacking follows keyword argument unpacking");
      Node* st = make("Starred", a, last(), 2);
      add(st, "value", v);
      add(st, "ctx", load());
      args.push_back(Value::of(st));
    } else if (at(T::DoubleStar)) {
      advance();
      Node* v = expression();
      Node* kw = make("keyword", a, last(), 2);
      add(kw, "arg", Value::null());
      add(kw, "value", v);
      keywords.push_back(Value::of(kw));
      seen_double_star = true;
    } else if (at(T::Name) && peek().code == T::Equal) {
      // kwarg: NAME '=' expression
      Value name = Value::str(identifier(cur()));
      advance();
      advance();
      Node* v = expression();
      if (at(T::For) || at(T::Async))
        fail_at(a, "invalid syntax. Maybe you meant '==' or ':=' instead of '='?");
      Node* kw = make("keyword", a, last(), 2);
      add(kw, "arg", std::move(name));
      add(kw, "value", v);
      keywords.push_back(Value::of(kw));
      seen_keyword = true;
    } else {
      // (assignment_expression | expression !':=') !'='
      Node* e = named_expression(false);
      if (at(T::Equal)) {
        if (e->is("Constant") && (e->get("value")->kind == Value::Kind::True ||
                                  e->get("value")->kind == Value::Kind::False ||
                                  e->get("value")->kind == Value::Kind::Null))
          fail_node(e, "cannot assign to " + std::string(kind_name(e)));
        fail_node(e, "expression cannot contain assignment, perhaps you meant \"==\"?");
      }
      if (at(T::For) || at(T::Async)) {
        // A generator expression as an argument: only alone, in a call.
        bool alone = args.empty() && keywords.empty();
        if (!allow_genexp || !alone) {
          if (!allow_genexp) syntax_error();
          fail_node(e, "Generator expression must be parenthesized");
        }
        std::vector<Value> gens = for_if_clauses();
        if (!at(T::RPar)) {
          if (at(T::Comma)) fail_node(e, "Generator expression must be parenthesized");
          syntax_error();
        }
        Node* ge = make("GeneratorExp", open_tok, p_, 2);
        add(ge, "elt", e);
        add_list(ge, "generators", std::move(gens));
        args.push_back(Value::of(ge));
        if (genexp_out) *genexp_out = ge;
        break;
      }
      // CPython finds these in invalid_arguments, after reading the whole list.
      if (!order_error && seen_double_star) order_error = "positional argument follows keyword argument unpacking";
      if (!order_error && seen_keyword) order_error = "positional argument follows keyword argument";
      args.push_back(Value::of(e));
    }
    if (!accept(T::Comma)) break;
  }
  if (order_error && at(T::RPar)) fail_here(order_error);
  expect(T::RPar);
}

// parameters / lambda_parameters, up to (not including) `closer` (')' or ':').
Node* Parser::parameters(bool lambda, T closer) {
  std::vector<Value> posonly, args, defaults, kwonly, kw_defaults;
  Node* vararg = nullptr;
  Node* kwarg = nullptr;
  bool seen_default = false, seen_slash = false, seen_star = false, bare_star = false;
  size_t bare_star_tok = 0;

  // param: NAME annotation?   (lambda_param: NAME)
  auto param = [&](bool star_annotation) -> Node* {
    size_t a = p_;
    if (!at(T::Name)) syntax_error();
    Value name = Value::str(identifier(cur()));
    advance();
    Node* ann = nullptr;
    if (!lambda && accept(T::Colon)) ann = star_annotation ? star_expression() : expression();
    Node* n = make("arg", a, last(), 3);
    add(n, "arg", std::move(name));
    add(n, "annotation", ann);
    add(n, "type_comment", Value::null());
    return n;
  };

  while (!at(closer)) {
    size_t before = p_;
    if (at(T::Slash)) {
      if (seen_star) fail_here("/ must be ahead of *");
      if (seen_slash) fail_here("/ may appear only once");
      if (args.empty()) {
        if (peek().code == T::Comma) fail_here("at least one argument must precede /");
        syntax_error();
      }
      posonly = std::move(args);
      args.clear();
      seen_slash = true;
      advance();
      if (at(T::Star)) fail_here("expected comma between / and *");
    } else if (at(T::Star)) {
      if (seen_star) fail_here("* argument may appear only once");
      seen_star = true;
      advance();
      if (at(T::Comma) || at(closer)) {
        bare_star = true;
        // invalid_star_etc points at the '*'; invalid_lambda_star_etc at the
        // token after it.
        bare_star_tok = lambda ? p_ : last();
      } else {
        vararg = param(true);
        if (at(T::Equal)) fail_here("var-positional argument cannot have default value");
      }
    } else if (at(T::DoubleStar)) {
      advance();
      kwarg = param(false);
      if (at(T::Equal)) fail_here("var-keyword argument cannot have default value");
      accept(T::Comma);
      if (!at(closer)) fail_here("arguments cannot follow var-keyword argument");
      break;
    } else if (at(T::Name)) {
      Node* a = param(false);
      Node* d = nullptr;
      if (accept(T::Equal)) {
        if (at(T::Comma) || at(closer)) fail_at(last(), "expected default value expression");
        d = expression();
      }
      if (seen_star) {
        kwonly.push_back(Value::of(a));
        kw_defaults.push_back(Value::of(d));
        bare_star = false;
      } else {
        if (d) {
          defaults.push_back(Value::of(d));
          seen_default = true;
        } else if (seen_default && (at(T::Comma) || at(closer))) {
          fail_node(a, "non-default argument follows default argument");
        }
        args.push_back(Value::of(a));
      }
    } else {
      if (at(T::LPar)) {
        // invalid_parameters: '(' param_no_default+ ','? ')' — plain names only.
        size_t q = p_ + 1;
        bool names = t_[q].code == T::Name;
        while (names && t_[q].code == T::Name) {
          ++q;
          if (!lambda && t_[q].code == T::Colon) names = false;
          if (t_[q].code == T::Comma) ++q;
          else break;
        }
        if (names && t_[q].code == T::RPar)
          fail_here(lambda ? "Lambda expression parameters cannot be parenthesized"
                           : "Function parameters cannot be parenthesized");
      }
      syntax_error();
    }
    if (!accept(T::Comma)) break;
    if (p_ == before) syntax_error();
  }
  if (!at(closer)) syntax_error();
  if (bare_star) fail_at(bare_star_tok, "named arguments must follow bare *");
  Node* n = make_nopos("arguments", 7);
  add_list(n, "posonlyargs", std::move(posonly));
  add_list(n, "args", std::move(args));
  add(n, "vararg", vararg);
  add_list(n, "kwonlyargs", std::move(kwonly));
  add_list(n, "kw_defaults", std::move(kw_defaults));
  add(n, "kwarg", kwarg);
  add_list(n, "defaults", std::move(defaults));
  return n;
}

}  // namespace c2t::syntax::detail
