// Function and class definitions and PEP 695 type parameters.
//   function_def_raw: [ASYNC] 'def' NAME [type_params] '(' [params] ')' ['->' expression] ':' [func_type_comment] block
//   class_def_raw: 'class' NAME [type_params] ['(' [arguments] ')'] ':' block
//   type_params: '[' type_param_seq ']'
//   type_param: NAME [type_param_bound] | '*' NAME | '**' NAME
#include "syntax/parser_internal.h"

namespace c2t::syntax::detail {

Node* Parser::function_def(std::vector<Value> decorators, size_t async_tok) {
  size_t s = async_tok != SIZE_MAX ? async_tok : p_;
  size_t kw = p_;
  advance();  // 'def'
  if (!at(T::Name)) syntax_error();
  Value name = Value::str(identifier(cur()));
  advance();
  std::vector<Value> tps;
  if (at(T::LSqb)) tps = type_params();
  expect(T::LPar, "expected '('");
  Node* args = parameters(false, T::RPar);
  expect(T::RPar);
  Node* returns = nullptr;
  if (accept(T::RArrow)) returns = expression();
  expect_forced_colon();
  std::vector<Value> body = block("function definition", kw);
  Node* n = make(async_tok != SIZE_MAX ? "AsyncFunctionDef" : "FunctionDef", s, s, 7);
  set_end(n, t_[last_significant()]);
  add(n, "name", std::move(name));
  add(n, "args", args);
  add_list(n, "body", std::move(body));
  add_list(n, "decorator_list", std::move(decorators));
  add(n, "returns", returns);
  add(n, "type_comment", Value::null());
  add_list(n, "type_params", std::move(tps));
  return n;
}

Node* Parser::class_def(std::vector<Value> decorators) {
  size_t s = p_;
  advance();  // 'class'
  if (!at(T::Name)) syntax_error();
  Value name = Value::str(identifier(cur()));
  advance();
  std::vector<Value> tps;
  if (at(T::LSqb)) tps = type_params();
  std::vector<Value> bases, keywords;
  if (at(T::LPar)) class_arguments(bases, keywords);
  expect(T::Colon, "expected ':'");
  std::vector<Value> body = block("class definition", s);
  Node* n = make("ClassDef", s, s, 6);
  set_end(n, t_[last_significant()]);
  add(n, "name", std::move(name));
  add_list(n, "bases", std::move(bases));
  add_list(n, "keywords", std::move(keywords));
  add_list(n, "body", std::move(body));
  add_list(n, "decorator_list", std::move(decorators));
  add_list(n, "type_params", std::move(tps));
  return n;
}

// type_params: '[' ','.type_param+ [','] ']'
std::vector<Value> Parser::type_params() {
  std::vector<Value> out;
  advance();  // '['
  for (;;) {
    size_t a = p_;
    if (accept(T::Star)) {
      if (!at(T::Name)) syntax_error();
      Value name = Value::str(identifier(cur()));
      advance();
      if (at(T::Colon)) fail_here("cannot use constraints with TypeVarTuple");
      Node* n = make("TypeVarTuple", a, last(), 1);
      add(n, "name", std::move(name));
      out.push_back(Value::of(n));
    } else if (accept(T::DoubleStar)) {
      if (!at(T::Name)) syntax_error();
      Value name = Value::str(identifier(cur()));
      advance();
      if (at(T::Colon)) fail_here("cannot use bound with ParamSpec");
      Node* n = make("ParamSpec", a, last(), 1);
      add(n, "name", std::move(name));
      out.push_back(Value::of(n));
    } else {
      if (!at(T::Name)) syntax_error();
      Value name = Value::str(identifier(cur()));
      advance();
      Node* bound = nullptr;
      if (accept(T::Colon)) bound = expression();
      Node* n = make("TypeVar", a, last(), 2);
      add(n, "name", std::move(name));
      add(n, "bound", bound);
      out.push_back(Value::of(n));
    }
    if (!accept(T::Comma)) break;
    if (at(T::RSqb)) break;
  }
  expect(T::RSqb);
  return out;
}

}  // namespace c2t::syntax::detail
