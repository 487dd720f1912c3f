// Assignment targets and expression contexts (Load / Store / Del).
//   star_targets, star_target, target_with_star_atom, star_atom,
//   single_target, single_subscript_attribute_target, del_targets, del_target,
//   t_primary; invalid_assignment / invalid_del_stmt / invalid_for_target
//   messages (RAISE_SYNTAX_ERROR_INVALID_TARGET, _PyPegen_get_invalid_target).
// Assignment statements parse their targets as expressions first and convert
// them here; `for`, comprehension, `with ... as` and `del` targets are parsed
// at the `primary` level (so that `for x in y` does not read `x in y` as a
// comparison) and validated the same way.
#include "syntax/parser_internal.h"

namespace c2t::syntax::detail {

void Parser::set_ctx(Node* e, Node* ctx) {
  if (e->is("Name") || e->is("Attribute") || e->is("Subscript")) {
    if (Value* v = e->get("ctx")) v->node = ctx;
  } else if (e->is("Starred")) {
    if (Value* v = e->get("ctx")) v->node = ctx;
    set_ctx(e->child("value"), ctx);
  } else if (e->is("Tuple") || e->is("List")) {
    if (Value* v = e->get("ctx")) v->node = ctx;
    for (auto& x : e->get("elts")->items) set_ctx(x.node, ctx);
  }
}

// _PyPegen_get_invalid_target: the first sub-expression that cannot be assigned to
// (or deleted), or nullptr when `e` is a valid target.
const Node* Parser::invalid_target(const Node* e, TargetKind k) const {
  if (e->is("Name") || e->is("Attribute") || e->is("Subscript")) return nullptr;
  if (e->is("Starred")) {
    if (k == TargetKind::Del) return e;
    return invalid_target(e->child("value"), k);
  }
  if (e->is("Tuple") || e->is("List")) {
    for (auto& x : e->list("elts"))
      if (const Node* bad = invalid_target(x.node, k)) return bad;
    return nullptr;
  }
  return e;
}

void Parser::set_target(Node* e, TargetKind k, bool first_group) {
  if (const Node* bad = invalid_target(e, k)) {
    if (k == TargetKind::Star && (bad->is("Yield") || bad->is("YieldFrom")) && bad == e)
      fail_node(bad, "assignment to yield expression not possible");
    std::string what(kind_name(bad));
    if (k == TargetKind::Del) fail_node(bad, "cannot delete " + what);
    // invalid_named_expression: `bad = value` with `bad` a plain operand and a
    // single '=' gets the "Maybe you meant '=='" hint.
    bool hint = false;
    if (k == TargetKind::Star && first_group && at(T::Equal) && p_ > 0) {
      const Token* prev = t_[p_ - 1].tok;
      bool adjacent = prev->end_line == bad->end_lineno && prev->end_col == bad->end_col_offset;
      bool excluded = bad->is("List") || bad->is("Tuple") || bad->is("GeneratorExp") ||
                      bad->is("Compare") || bad->is("BoolOp") || bad->is("IfExp") ||
                      bad->is("Lambda") || bad->is("NamedExpr") || bad->is("Yield") ||
                      bad->is("YieldFrom") ||
                      (bad->is("UnaryOp") && bad->child("op")->is("Not")) ||
                      (bad->is("Constant") && (what == "True" || what == "False" || what == "None"));
      if (adjacent && !excluded) {
        // `bad '=' bitwise_or !('=' | ':=')`: look past one operand.
        size_t q = p_ + 1;
        int depth = 0;
        bool operand = false;
        while (q < t_.size()) {
          T c = t_[q].code;
          if (c == T::LPar || c == T::LSqb || c == T::LBrace) ++depth;
          else if (c == T::RPar || c == T::RSqb || c == T::RBrace) { if (--depth < 0) break; }
          else if (depth == 0 && !(c == T::Name || c == T::Number || c == T::String || c == T::FStart ||
                                   c == T::FMiddle || c == T::FEnd || c == T::Dot || c == T::Plus ||
                                   c == T::Minus || c == T::Star || c == T::Slash || c == T::DoubleSlash ||
                                   c == T::Percent || c == T::At || c == T::DoubleStar || c == T::Tilde ||
                                   c == T::VBar || c == T::Amper || c == T::Circumflex ||
                                   c == T::LeftShift || c == T::RightShift || c == T::Await ||
                                   c == T::None || c == T::True || c == T::False || c == T::Ellipsis))
            break;
          operand = true;
          ++q;
        }
        hint = operand && q < t_.size() && t_[q].code != T::Equal && t_[q].code != T::ColonEqual;
      }
    }
    if (hint) fail_node(bad, "cannot assign to " + what + " here. Maybe you meant '==' instead of '='?");
    fail_node(bad, "cannot assign to " + what);
  }
  set_ctx(e, k == TargetKind::Del ? del() : store());
}

namespace {

// star_target: '*' (!'*' star_target) | target_with_star_atom
Node* star_target_item(Parser& p) {
  if (p.at(T::Star)) {
    size_t s = p.mark();
    p.advance();
    if (p.at(T::Star)) p.syntax_error();
    Parser::DepthGuard g(p);
    Node* v = star_target_item(p);
    Node* n = p.make("Starred", s, p.last(), 2);
    Parser::add(n, "value", v);
    Parser::add(n, "ctx", p.store());
    return n;
  }
  return p.primary();
}

}  // namespace

// star_targets: star_target !',' | star_target (',' star_target)* [',']
Node* Parser::star_targets() {
  size_t s = p_;
  Node* first = star_target_item(*this);
  Node* result = first;
  if (at(T::Comma)) {
    std::vector<Value> elts;
    elts.push_back(Value::of(first));
    while (accept(T::Comma)) {
      if (!at_expression_start() && !at(T::Star)) break;
      elts.push_back(Value::of(star_target_item(*this)));
    }
    result = make("Tuple", s, last(), 2);
    add_list(result, "elts", std::move(elts));
    add(result, "ctx", store());
  }
  set_target(result, TargetKind::For);
  return result;
}

// invalid_for_target: ASYNC? 'for' a=star_expressions -> "cannot assign to X".
// Called when `for <targets>` is not followed by 'in': re-reads the targets as
// expressions (where `a in b` is a comparison whose left side is checked).
void Parser::for_target_error(size_t target_start) {
  size_t fail = p_;
  size_t far = furthest_;
  const Node* bad = nullptr;
  reset(target_start);
  ++speculating_;
  no_invalid_ = true;
  try {
    Node* e = star_expressions();
    const Node* t = e;
    if (t->is("Compare") && t->list("ops").size() >= 1 && t->list("ops")[0].node->is("In"))
      t = t->child("left");
    bad = invalid_target(t, TargetKind::For);
  } catch (const ParseFailure&) {
  }
  no_invalid_ = false;
  --speculating_;
  reset(fail);
  furthest_ = far;
  if (bad) fail_node(bad, "cannot assign to " + std::string(kind_name(bad)));
  syntax_error();
}

Node* Parser::star_targets_single() {
  Node* e = star_target_item(*this);
  set_target(e, TargetKind::For);
  return e;
}

// del_targets: ','.del_target+ [',']
std::vector<Value> Parser::del_targets() {
  std::vector<Value> out;
  for (;;) {
    // Full expressions are read so that invalid targets get CPython's
    // invalid_del_stmt message ("cannot delete expression"); set_target
    // accepts only what del_target allows.
    Node* e = star_expression();
    set_target(e, TargetKind::Del);
    out.push_back(Value::of(e));
    if (!accept(T::Comma)) break;
    if (!at_expression_start() && !at(T::Star)) break;
  }
  return out;
}

}  // namespace c2t::syntax::detail
