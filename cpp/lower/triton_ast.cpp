#include "lower/triton_ast.h"

#include <cctype>

#include "sema/const_value.h"

namespace c2t::lower {

namespace {
TExprPtr make(TExpr::Kind k, std::string text, std::vector<TExprPtr> args = {}) {
  auto e = std::make_shared<TExpr>();
  e->kind = k;
  e->text = std::move(text);
  e->args = std::move(args);
  return e;
}
}  // namespace

TExprPtr name(std::string id) { return make(TExpr::Kind::Name, std::move(id)); }
TExprPtr lit(std::string s) { return make(TExpr::Kind::Const, std::move(s)); }
TExprPtr lit_int(long long v) { return lit(std::to_string(v)); }
TExprPtr lit_str(const std::string& s) { return lit(sema::ConstValue::str(s).python()); }
TExprPtr attr(TExprPtr obj, std::string field) { return make(TExpr::Kind::Attr, std::move(field), {std::move(obj)}); }
TExprPtr call(TExprPtr fn, std::vector<TExprPtr> args, std::vector<std::pair<std::string, TExprPtr>> kwargs) {
  args.insert(args.begin(), std::move(fn));
  auto e = std::make_shared<TExpr>();
  e->kind = TExpr::Kind::Call;
  e->args = std::move(args);
  e->kwargs = std::move(kwargs);
  return e;
}
TExprPtr tl_attr(const std::string& field) { return attr(name("tl"), field); }
TExprPtr tl_call(const std::string& fn, std::vector<TExprPtr> args, std::vector<std::pair<std::string, TExprPtr>> kwargs) {
  return call(tl_attr(fn), std::move(args), std::move(kwargs));
}
TExprPtr method(TExprPtr obj, const std::string& m, std::vector<TExprPtr> args,
                std::vector<std::pair<std::string, TExprPtr>> kwargs) {
  return call(attr(std::move(obj), m), std::move(args), std::move(kwargs));
}
TExprPtr binop(std::string op, TExprPtr a, TExprPtr b) { return make(TExpr::Kind::BinOp, std::move(op), {std::move(a), std::move(b)}); }
TExprPtr unary(std::string op, TExprPtr a) { return make(TExpr::Kind::UnaryOp, std::move(op), {std::move(a)}); }
TExprPtr compare(std::string op, TExprPtr a, TExprPtr b) { return make(TExpr::Kind::Compare, std::move(op), {std::move(a), std::move(b)}); }
TExprPtr boolop(std::string op, std::vector<TExprPtr> values) { return make(TExpr::Kind::BoolOp, std::move(op), std::move(values)); }
TExprPtr ifexp(TExprPtr test, TExprPtr body, TExprPtr orelse) {
  return make(TExpr::Kind::IfExp, "", {std::move(test), std::move(body), std::move(orelse)});
}
TExprPtr subscript(TExprPtr value, std::vector<TExprPtr> index) {
  index.insert(index.begin(), std::move(value));
  return make(TExpr::Kind::Subscript, "", std::move(index));
}
TExprPtr tuple(std::vector<TExprPtr> elts) { return make(TExpr::Kind::Tuple, "", std::move(elts)); }
TExprPtr list(std::vector<TExprPtr> elts) { return make(TExpr::Kind::List, "", std::move(elts)); }
TExprPtr full_slice() { return make(TExpr::Kind::Slice, ":"); }

bool is_name(const TExprPtr& e, std::string_view id) {
  return e && e->kind == TExpr::Kind::Name && (id.empty() || e->text == id);
}
bool is_const(const TExprPtr& e, std::string_view text) {
  return e && e->kind == TExpr::Kind::Const && (text.empty() || e->text == text);
}

namespace {
constexpr int kAtom = 16;

int binop_prec(const std::string& op) {
  if (op == "|") return 6;
  if (op == "^") return 7;
  if (op == "&") return 8;
  if (op == "<<" || op == ">>") return 9;
  if (op == "+" || op == "-") return 10;
  if (op == "**") return 13;
  return 11;  // * / // % @
}

int prec(const TExprPtr& e) {
  switch (e->kind) {
    case TExpr::Kind::IfExp: return 1;
    case TExpr::Kind::BoolOp: return e->text == "or" ? 2 : 3;
    case TExpr::Kind::UnaryOp: return e->text == "not " ? 4 : 12;
    case TExpr::Kind::Compare: return 5;
    case TExpr::Kind::BinOp: return binop_prec(e->text);
    case TExpr::Kind::Const: return !e->text.empty() && e->text[0] == '-' ? 12 : kAtom;
    default: return kAtom;
  }
}

// The printers append to one string (one allocation per printed statement,
// not one per sub-expression: printing was ~5% of a whole conversion).
void print_to(std::string& out, const TExprPtr& e);

void wrap_to(std::string& out, const TExprPtr& e, int min_prec) {
  bool paren = prec(e) < min_prec;
  if (paren) out += '(';
  print_to(out, e);
  if (paren) out += ')';
}

// Separators go between items whose text so far is non-empty, as before.
void join_args_to(std::string& out, const TExprPtr& e, size_t first) {
  const size_t start = out.size();
  for (size_t k = first; k < e->args.size(); ++k) {
    if (out.size() > start) out += ", ";
    print_to(out, e->args[k]);
  }
  for (auto& [k, v] : e->kwargs) {
    if (out.size() > start) out += ", ";
    out += k;
    out += '=';
    print_to(out, v);
  }
}

void print_to(std::string& out, const TExprPtr& e) {
  switch (e->kind) {
    case TExpr::Kind::Name:
    case TExpr::Kind::Const:
    case TExpr::Kind::Slice: out += e->text; return;
    case TExpr::Kind::Attr: {
      const size_t base = out.size();
      wrap_to(out, e->args[0], kAtom);
      // `1.to(...)` would not parse; integer literals need parentheses.
      if (e->args[0]->kind == TExpr::Kind::Const && out.find_first_not_of("0123456789", base) == std::string::npos) {
        out.insert(base, 1, '(');
        out += ')';
      }
      out += '.';
      out += e->text;
      return;
    }
    case TExpr::Kind::Call:
      wrap_to(out, e->args[0], kAtom);
      out += '(';
      join_args_to(out, e, 1);
      out += ')';
      return;
    case TExpr::Kind::BinOp: {
      int p = binop_prec(e->text);
      bool right_assoc = e->text == "**";
      wrap_to(out, e->args[0], right_assoc ? p + 1 : p);
      out += ' ';
      out += e->text;
      out += ' ';
      wrap_to(out, e->args[1], right_assoc ? p : p + 1);
      return;
    }
    case TExpr::Kind::UnaryOp:
      out += e->text;
      wrap_to(out, e->args[0], e->text == "not " ? 4 : 12);
      return;
    case TExpr::Kind::Compare:
      wrap_to(out, e->args[0], 6);
      out += ' ';
      out += e->text;
      out += ' ';
      wrap_to(out, e->args[1], 6);
      return;
    case TExpr::Kind::BoolOp: {
      int p = prec(e);
      const size_t start = out.size();
      for (auto& v : e->args) {
        if (out.size() > start) {
          out += ' ';
          out += e->text;
          out += ' ';
        }
        wrap_to(out, v, p + 1);
      }
      return;
    }
    case TExpr::Kind::IfExp:
      wrap_to(out, e->args[1], 2);
      out += " if ";
      wrap_to(out, e->args[0], 2);
      out += " else ";
      wrap_to(out, e->args[2], 1);
      return;
    case TExpr::Kind::Subscript: {
      wrap_to(out, e->args[0], kAtom);
      out += '[';
      for (size_t k = 1; k < e->args.size(); ++k) {
        if (k > 1) out += ", ";
        print_to(out, e->args[k]);
      }
      out += ']';
      return;
    }
    case TExpr::Kind::Tuple:
      out += '(';
      join_args_to(out, e, 0);
      if (e->args.size() == 1) out += ',';
      out += ')';
      return;
    case TExpr::Kind::List:
      out += '[';
      join_args_to(out, e, 0);
      out += ']';
      return;
  }
  out += '?';
}

std::string print(const TExprPtr& e) {
  std::string out;
  print_to(out, e);
  return out;
}

std::string wrap(const TExprPtr& e, int min_prec) {
  std::string out;
  wrap_to(out, e, min_prec);
  return out;
}

std::string join_args(const TExprPtr& e, size_t first) {
  std::string out;
  join_args_to(out, e, first);
  return out;
}

}  // namespace

std::string source(const TExprPtr& e) { return print(e); }
void source_to(std::string& out, const TExprPtr& e) { print_to(out, e); }
int precedence(const TExprPtr& e) { return prec(e); }
std::string source_wrapped(const TExprPtr& e, int min_prec) { return wrap(e, min_prec); }
std::string call_arguments(const TExprPtr& e, size_t first) { return join_args(e, first); }

TExprPtr raw(const std::string& text) {
  bool ident = !text.empty() && (std::isalpha((unsigned char)text[0]) || text[0] == '_');
  bool number = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
  for (char c : text) ident = ident && (std::isalnum((unsigned char)c) || c == '_' || c == '.' || c == '[' || c == ']');
  if (ident) return name(text);
  if (number) return lit(text);
  return lit("(" + text + ")");
}

}  // namespace c2t::lower
