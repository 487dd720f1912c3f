// Statements: Grammar/python.gram rules `statements`, `statement`,
// `simple_stmts`, `simple_stmt`, `compound_stmt`, `block` and every
// *_stmt rule except match (parser_pattern.cpp) and the def/class parts
// (parser_def.cpp).
#include "syntax/parser_internal.h"

namespace c2t::syntax::detail {

namespace {

// An augmented-assignment operator token -> CPython operator class.
const char* augassign_op(T c) {
  switch (c) {
    case T::PlusEqual: return "Add";
    case T::MinEqual: return "Sub";
    case T::StarEqual: return "Mult";
    case T::AtEqual: return "MatMult";
    case T::SlashEqual: return "Div";
    case T::PercentEqual: return "Mod";
    case T::AmperEqual: return "BitAnd";
    case T::VBarEqual: return "BitOr";
    case T::CircumflexEqual: return "BitXor";
    case T::LeftShiftEqual: return "LShift";
    case T::RightShiftEqual: return "RShift";
    case T::DoubleStarEqual: return "Pow";
    case T::DoubleSlashEqual: return "FloorDiv";
    default: return nullptr;
  }
}


}  // namespace

// statements: statement+  (inside a block: up to the DEDENT; at top level: up to ENDMARKER)
void Parser::statements(std::vector<Value>& out, bool top) {
  for (;;) {
    size_t before = p_;
    if (at(T::End)) return;
    if (!top && at(T::Dedent)) return;
    if (at(T::Indent)) {
      indent_error_ = true;
      fail_pos(cur().tok->end_line, cur().tok->end_col - 1, "unexpected indent");
    }
    if (at(T::Error)) syntax_error();
    statement(out);
    if (p_ == before) syntax_error();  // progress guarantee
  }
}

// statement: compound_stmt | simple_stmts
void Parser::statement(std::vector<Value>& out) {
  if (Node* s = compound_stmt()) {
    out.push_back(Value::of(s));
    return;
  }
  simple_stmts(out);
}

// simple_stmts: simple_stmt !';' NEWLINE | ';'.simple_stmt+ [';'] NEWLINE
void Parser::simple_stmts(std::vector<Value>& out) {
  for (;;) {
    out.push_back(Value::of(simple_stmt()));
    if (accept(T::Semi)) {
      if (accept(T::Newline)) return;
      continue;
    }
    if (accept(T::Newline)) return;
    syntax_error();
  }
}

// block: NEWLINE INDENT statements DEDENT | simple_stmts
// `what` names the statement for CPython's IndentationError message.
std::vector<Value> Parser::block(const char* what, size_t kw_tok) {
  std::vector<Value> body;
  if (accept(T::Newline)) {
    if (!at(T::Indent)) {
      if (at(T::Error)) syntax_error();
      std::string msg = std::string("expected an indented block after ") + what + " on line " +
                        std::to_string(t_[kw_tok].tok->line);
      // At the end of the file CPython points at the end of the last line.
      size_t q = p_;
      while (t_[q].code == T::Dedent) ++q;
      if (t_[q].code == T::End) {
        int n = src_.line_count();
        if (n > 1 && !src_.text().empty() && src_.text().back() == '\n') --n;
        fail_pos(n, static_cast<int>(src_.line(n).size()), msg);
      }
      fail_here(msg);
    }
    advance();
    DepthGuard g(*this);
    statements(body, false);
    expect(T::Dedent);
    return body;
  }
  if (at(T::Error)) syntax_error();
  simple_stmts(body);
  return body;
}

std::vector<Value> Parser::clause_block(T kw, const char* what) {
  if (!at(kw)) return {};
  size_t k = p_;
  advance();
  expect_forced_colon();
  return block(what, k);
}

Node* Parser::compound_stmt() {
  switch (cur().code) {
    case T::Def: return function_def({}, SIZE_MAX);
    case T::If: return if_stmt(false);
    case T::Class: return class_def({});
    case T::With: return with_stmt(SIZE_MAX);
    case T::For: return for_stmt(SIZE_MAX);
    case T::Try: return try_stmt();
    case T::While: return while_stmt();
    case T::At: return decorated();
    case T::Async: {
      size_t a = p_;
      T next = peek().code;
      if (next == T::Def) { advance(); return function_def({}, a); }
      if (next == T::With) { advance(); return with_stmt(a); }
      if (next == T::For) { advance(); return for_stmt(a); }
      advance();
      syntax_error();
    }
    case T::Name:
      if (cur().text == "match") {
        T n = peek().code;
        // `match` followed by an operator that cannot start an expression is
        // certainly a plain name (match = 1, match.x, ...): skip the attempt.
        if (n != T::Equal && n != T::Dot && n != T::Newline && n != T::Colon && n != T::Comma &&
            n != T::RPar && n != T::Semi && !augassign_op(n))
          return match_stmt();
      }
      return nullptr;
    default: return nullptr;
  }
}

Node* Parser::simple_stmt() {
  size_t s = p_;
  switch (cur().code) {
    case T::Pass: advance(); return make("Pass", s, s, 0);
    case T::Break: advance(); return make("Break", s, s, 0);
    case T::Continue: advance(); return make("Continue", s, s, 0);
    case T::Return: {
      // return_stmt: 'return' [star_expressions]
      advance();
      Node* v = nullptr;
      if (!at(T::Newline) && !at(T::Semi)) v = star_expressions();
      Node* n = make("Return", s, last(), 1);
      add(n, "value", v);
      return n;
    }
    case T::Raise: {
      // raise_stmt: 'raise' expression ['from' expression] | 'raise'
      advance();
      Node* exc = nullptr;
      Node* cause = nullptr;
      if (!at(T::Newline) && !at(T::Semi)) {
        exc = expression();
        if (accept(T::From)) cause = expression();
      }
      Node* n = make("Raise", s, last(), 2);
      add(n, "exc", exc);
      add(n, "cause", cause);
      return n;
    }
    case T::Global:
    case T::Nonlocal: {
      // global_stmt: 'global' ','.NAME+ ; nonlocal_stmt likewise
      bool global = at(T::Global);
      advance();
      std::vector<Value> names;
      for (;;) {
        if (!at(T::Name)) syntax_error();
        names.push_back(Value::str(identifier(cur())));
        advance();
        if (!accept(T::Comma)) break;
      }
      Node* n = make(global ? "Global" : "Nonlocal", s, last(), 1);
      add_list(n, "names", std::move(names));
      return n;
    }
    case T::Del: {
      // del_stmt: 'del' del_targets &(';' | NEWLINE)
      advance();
      std::vector<Value> targets = del_targets();
      if (!at(T::Semi) && !at(T::Newline)) syntax_error();
      Node* n = make("Delete", s, last(), 1);
      add_list(n, "targets", std::move(targets));
      return n;
    }
    case T::Assert: {
      // assert_stmt: 'assert' expression [',' expression]
      advance();
      Node* test = expression();
      Node* msg = nullptr;
      if (accept(T::Comma)) msg = expression();
      Node* n = make("Assert", s, last(), 2);
      add(n, "test", test);
      add(n, "msg", msg);
      return n;
    }
    case T::Import: return import_stmt();
    case T::From: return from_import_stmt();
    case T::Name:
      // type_alias: "type" NAME [type_params] '=' expression. A name right
      // after `type` can only be the alias statement.
      if (cur().text == "type" && peek().code == T::Name) return type_alias();
      return assignment_or_expr_stmt();
    default:
      return assignment_or_expr_stmt();
  }
}

// assignment / star_expressions statement:
//   assignment: NAME ':' expression ['=' annotated_rhs]
//             | ('(' single_target ')' | single_subscript_attribute_target) ':' expression ['=' annotated_rhs]
//             | (star_targets '=')+ (yield_expr | star_expressions) !'='
//             | single_target augassign ~ (yield_expr | star_expressions)
Node* Parser::assignment_or_expr_stmt() {
  size_t s = p_;
  Node* e = at(T::Yield) ? yield_expr() : star_expressions();
  if (at(T::Colon)) {
    // annotated assignment; CPython's invalid_ann_assign_target messages
    // need the annotation to parse (in its second pass: the tokens read for
    // it do not move the generic error's position).
    size_t colon = p_;
    const char* bad = nullptr;
    if (e->is("Tuple")) bad = "only single target (not tuple) can be annotated";
    else if (e->is("List")) bad = "only single target (not list) can be annotated";
    else if (!e->is("Name") && !e->is("Attribute") && !e->is("Subscript")) bad = "illegal target for annotation";
    if (bad) {
      size_t far = furthest_;
      bool ok = false;
      advance();
      ++speculating_;
      try {
        expression();
        ok = true;
      } catch (const ParseFailure&) {
      }
      --speculating_;
      if (ok) fail_node(e, bad);
      reset(colon);
      furthest_ = far;
      syntax_error();
    }
    advance();
    Node* ann = expression();
    set_ctx(e, store());
    bool simple = e->is("Name") && t_[s].code == T::Name;
    Node* value = nullptr;
    if (accept(T::Equal)) value = at(T::Yield) ? yield_expr() : star_expressions();
    Node* n = make("AnnAssign", s, last(), 4);
    add(n, "target", e);
    add(n, "annotation", ann);
    add(n, "value", value);
    add(n, "simple", vint(simple ? 1 : 0));
    return n;
  }
  if (at(T::Equal)) {
    std::vector<Value> targets;
    Node* value = e;
    while (at(T::Equal)) {
      set_target(value, TargetKind::Star, targets.empty());
      targets.push_back(Value::of(value));
      advance();
      value = at(T::Yield) ? yield_expr() : star_expressions();
    }
    Node* n = make("Assign", s, last(), 3);
    add_list(n, "targets", std::move(targets));
    add(n, "value", value);
    add(n, "type_comment", Value::null());
    return n;
  }
  if (const char* op = augassign_op(cur().code)) {
    if (!e->is("Name") && !e->is("Attribute") && !e->is("Subscript"))
      fail_node(e, std::string("'").append(kind_name(e)) + "' is an illegal expression for augmented assignment");
    set_ctx(e, store());
    advance();
    Node* value = at(T::Yield) ? yield_expr() : star_expressions();
    Node* n = make("AugAssign", s, last(), 3);
    add(n, "target", e);
    add(n, "op", singleton(op));
    add(n, "value", value);
    return n;
  }
  if (at(T::Name) || at(T::Number) || at(T::String) || at(T::FStart)) {
    // Two expressions side by side: CPython's invalid_expression hints.
    if (e->is("Name") && (e->str("id") == "print" || e->str("id") == "exec") && t_[s].code == T::Name &&
        s + 1 == p_)
      fail_at(s, "Missing parentheses in call to '" + std::string(e->str("id")) + "'. Did you mean " +
                     std::string(e->str("id")) + "(...)?");
    syntax_error();
  }
  Node* n = make("Expr", s, last(), 1);
  add(n, "value", e);
  return n;
}

// import_name: 'import' dotted_as_names
Node* Parser::import_stmt() {
  size_t s = p_;
  advance();
  std::vector<Value> names;
  for (;;) {
    // dotted_as_name: dotted_name ['as' NAME]
    size_t a = p_;
    if (!at(T::Name)) syntax_error();
    std::string name = identifier(cur());
    advance();
    while (accept(T::Dot)) {
      if (!at(T::Name)) syntax_error();
      name += '.';
      name += identifier(cur());
      advance();
    }
    Value asname;
    if (accept(T::As)) {
      if (!at(T::Name)) syntax_error();
      asname = Value::str(identifier(cur()));
      advance();
    }
    Node* al = make("alias", a, last(), 2);
    add(al, "name", Value::str(std::move(name)));
    add(al, "asname", std::move(asname));
    names.push_back(Value::of(al));
    if (!accept(T::Comma)) break;
  }
  Node* n = make("Import", s, last(), 1);
  add_list(n, "names", std::move(names));
  return n;
}

// import_from: 'from' ('.' | '...')* dotted_name 'import' import_from_targets
//            | 'from' ('.' | '...')+ 'import' import_from_targets
Node* Parser::from_import_stmt() {
  size_t s = p_;
  advance();
  long long level = 0;
  for (;;) {
    if (accept(T::Dot)) level += 1;
    else if (accept(T::Ellipsis)) level += 3;
    else break;
  }
  Value module;
  if (at(T::Name)) {
    std::string name = identifier(cur());
    advance();
    while (accept(T::Dot)) {
      if (!at(T::Name)) syntax_error();
      name += '.';
      name += identifier(cur());
      advance();
    }
    module = Value::str(std::move(name));
  } else if (level == 0) {
    syntax_error();
  }
  expect(T::Import);
  std::vector<Value> names;
  if (at(T::Star)) {
    size_t a = p_;
    advance();
    Node* al = make("alias", a, a, 2);
    add(al, "name", vstr("*"));
    add(al, "asname", Value::null());
    names.push_back(Value::of(al));
  } else {
    bool paren = accept(T::LPar);
    for (;;) {
      size_t a = p_;
      if (!at(T::Name)) syntax_error();
      Value name = Value::str(identifier(cur()));
      advance();
      Value asname;
      if (accept(T::As)) {
        if (!at(T::Name)) syntax_error();
        asname = Value::str(identifier(cur()));
        advance();
      }
      Node* al = make("alias", a, last(), 2);
      add(al, "name", std::move(name));
      add(al, "asname", std::move(asname));
      names.push_back(Value::of(al));
      if (!accept(T::Comma)) break;
      if (paren && at(T::RPar)) break;
      if (!paren && (at(T::Newline) || at(T::Semi)))
        fail_here("trailing comma not allowed without surrounding parentheses");
    }
    if (paren) expect(T::RPar);
  }
  Node* n = make("ImportFrom", s, last(), 3);
  add(n, "module", std::move(module));
  add_list(n, "names", std::move(names));
  add(n, "level", vint(level));
  return n;
}

// if_stmt: 'if' named_expression ':' block elif_stmt
//        | 'if' named_expression ':' block [else_block]
// elif_stmt: 'elif' ... (same shape)
Node* Parser::if_stmt(bool elif) {
  size_t s = p_;
  advance();
  Node* test = named_expression();
  expect(T::Colon, "expected ':'");
  std::vector<Value> body = block(elif ? "'elif' statement" : "'if' statement", s);
  std::vector<Value> orelse;
  if (at(T::Elif)) {
    DepthGuard g(*this);  // each elif nests one If deeper
    orelse.push_back(Value::of(if_stmt(true)));
  } else {
    orelse = clause_block(T::Else, "'else' statement");
  }
  Node* n = make("If", s, s, 3);
  set_end(n, t_[last_significant()]);
  add(n, "test", test);
  add_list(n, "body", std::move(body));
  add_list(n, "orelse", std::move(orelse));
  return n;
}

// while_stmt: 'while' named_expression ':' block [else_block]
Node* Parser::while_stmt() {
  size_t s = p_;
  advance();
  Node* test = named_expression();
  expect(T::Colon, "expected ':'");
  std::vector<Value> body = block("'while' statement", s);
  std::vector<Value> orelse = clause_block(T::Else, "'else' statement");
  Node* n = make("While", s, s, 3);
  set_end(n, t_[last_significant()]);
  add(n, "test", test);
  add_list(n, "body", std::move(body));
  add_list(n, "orelse", std::move(orelse));
  return n;
}

// for_stmt: [ASYNC] 'for' star_targets 'in' ~ star_expressions ':' [TYPE_COMMENT] block [else_block]
Node* Parser::for_stmt(size_t async_tok) {
  size_t s = async_tok != SIZE_MAX ? async_tok : p_;
  size_t kw = p_;
  advance();
  size_t ts = p_;
  Node* target = star_targets();
  if (!accept(T::In)) for_target_error(ts);
  Node* iter = star_expressions();
  expect(T::Colon, "expected ':'");
  std::vector<Value> body = block("'for' statement", kw);
  std::vector<Value> orelse = clause_block(T::Else, "'else' statement");
  Node* n = make(async_tok != SIZE_MAX ? "AsyncFor" : "For", s, s, 5);
  set_end(n, t_[last_significant()]);
  add(n, "target", target);
  add(n, "iter", iter);
  add_list(n, "body", std::move(body));
  add_list(n, "orelse", std::move(orelse));
  add(n, "type_comment", Value::null());
  return n;
}

// with_stmt: [ASYNC] 'with' '(' ','.with_item+ ','? ')' ':' block
//          | [ASYNC] 'with' ','.with_item+ ':' [TYPE_COMMENT] block
// with_item: expression 'as' star_target &(',' | ')' | ':') | expression
Node* Parser::with_stmt(size_t async_tok) {
  size_t s = async_tok != SIZE_MAX ? async_tok : p_;
  size_t kw = p_;
  advance();
  std::vector<Value> items;
  auto with_item = [&]() {
    Node* ctx = expression();
    Node* vars = nullptr;
    if (accept(T::As)) {
      // star_target, followed by ',', ')' or ':'
      vars = star_targets_single();
      if (!at(T::Comma) && !at(T::RPar) && !at(T::Colon) && !at(T::Newline)) syntax_error();
    }
    Node* item = make_nopos("withitem", 2);
    add(item, "context_expr", ctx);
    add(item, "optional_vars", vars);
    items.push_back(Value::of(item));
  };
  bool done = false;
  size_t newline_at = 0;
  if (at(T::LPar)) {
    // The parenthesized form is tried first, as in the PEG grammar; when it
    // does not end in "):", the parenthesis belongs to an expression.
    size_t m = p_;
    ++speculating_;
    try {
      advance();
      for (;;) {
        with_item();
        if (!accept(T::Comma)) break;
        if (at(T::RPar)) break;
      }
      expect(T::RPar);
      if (at(T::Newline)) newline_at = p_;  // invalid_with_stmt: "expected ':'"
      if (!at(T::Colon)) throw ParseFailure{};
      done = true;
    } catch (const ParseFailure&) {
      reset(m);
      items.clear();
    }
    --speculating_;
    if (newline_at) fail_at(newline_at, "expected ':'");
  }
  if (!done) {
    for (;;) {
      with_item();
      if (!accept(T::Comma)) break;
    }
  }
  expect(T::Colon, "expected ':'");
  std::vector<Value> body = block("'with' statement", kw);
  Node* n = make(async_tok != SIZE_MAX ? "AsyncWith" : "With", s, s, 3);
  set_end(n, t_[last_significant()]);
  add_list(n, "items", std::move(items));
  add_list(n, "body", std::move(body));
  add(n, "type_comment", Value::null());
  return n;
}

// try_stmt: 'try' ':' block finally_block
//         | 'try' ':' block except_block+ [else_block] [finally_block]
//         | 'try' ':' block except_star_block+ [else_block] [finally_block]
Node* Parser::try_stmt() {
  size_t s = p_;
  advance();
  expect_forced_colon();
  std::vector<Value> body = block("'try' statement", s);
  std::vector<Value> handlers, orelse, finalbody;
  int star_kind = -1;  // -1 none yet, 0 except, 1 except*
  while (at(T::Except)) {
    size_t e = p_;
    advance();
    bool star = accept(T::Star);
    if (star_kind == -1) star_kind = star ? 1 : 0;
    else if (star_kind != (star ? 1 : 0))
      fail_at(e, "cannot have both 'except' and 'except*' on the same 'try'");
    Node* type = nullptr;
    Value name;
    if (at(T::Newline) && !star) fail_here("expected ':'");
    if (!at(T::Colon) || star) {
      if (star && at(T::Colon)) fail_here("expected one or more exception types");
      type = expression();
      if (at(T::Comma)) {
        // except_block: 'except' expression ['as' NAME] — a bare tuple needs parentheses.
        fail_node(type, "multiple exception types must be parenthesized");
      }
      if (accept(T::As)) {
        if (!at(T::Name)) syntax_error();
        name = Value::str(identifier(cur()));
        advance();
      }
    }
    expect(T::Colon, "expected ':'");
    std::vector<Value> hbody = block(star ? "'except*' statement" : "'except' statement", e);
    Node* h = make("ExceptHandler", e, e, 3);
    set_end(h, t_[last_significant()]);
    add(h, "type", type);
    add(h, "name", std::move(name));
    add_list(h, "body", std::move(hbody));
    handlers.push_back(Value::of(h));
  }
  if (!handlers.empty()) orelse = clause_block(T::Else, "'else' statement");
  finalbody = clause_block(T::Finally, "'finally' statement");
  if (handlers.empty() && finalbody.empty()) {
    // At the end of the file CPython points at the last NEWLINE.
    size_t nl = p_;
    if (at(T::End))
      while (nl > 0 && t_[nl].code != T::Newline) --nl;
    fail_at(nl, "expected 'except' or 'finally' block");
  }
  Node* n = make(star_kind == 1 ? "TryStar" : "Try", s, s, 4);
  set_end(n, t_[last_significant()]);
  add_list(n, "body", std::move(body));
  add_list(n, "handlers", std::move(handlers));
  add_list(n, "orelse", std::move(orelse));
  add_list(n, "finalbody", std::move(finalbody));
  return n;
}

// decorators: ('@' named_expression NEWLINE)+ followed by a class or function definition.
Node* Parser::decorated() {
  std::vector<Value> decorators;
  while (accept(T::At)) {
    decorators.push_back(Value::of(named_expression()));
    expect(T::Newline);
  }
  if (at(T::Def)) return function_def(std::move(decorators), SIZE_MAX);
  if (at(T::Class)) return class_def(std::move(decorators));
  if (at(T::Async) && peek().code == T::Def) {
    size_t a = p_;
    advance();
    return function_def(std::move(decorators), a);
  }
  syntax_error();
}

// type_alias: "type" NAME [type_params] '=' expression
Node* Parser::type_alias() {
  size_t s = p_;
  advance();
  Node* name = name_node(p_, store());
  advance();
  std::vector<Value> tps;
  if (at(T::LSqb)) tps = type_params();
  expect(T::Equal);
  Node* value = expression();
  Node* n = make("TypeAlias", s, last(), 3);
  add(n, "name", name);
  add_list(n, "type_params", std::move(tps));
  add(n, "value", value);
  return n;
}

}  // namespace c2t::syntax::detail
