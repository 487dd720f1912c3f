#include "emit/printer.h"

#include "pyvalue/repr.h"

#include <concepts>
#include <sstream>
#include <string_view>

namespace c2t::emit {

using lower::TExpr;
using lower::TExprPtr;
using lower::TStmt;

namespace {

constexpr int kAtom = 16;

// What the printers write to: a string with `<<` for text and single chars
// only. Replacing std::ostringstream by it, and the per-line concatenations
// by appends, cut emission by ~23% (callgrind, TileGym corpus).
struct Out {
  std::string buf;
  Out& operator<<(std::string_view x) {
    buf.append(x);
    return *this;
  }
  template <class C>
    requires std::same_as<C, char>
  Out& operator<<(C c) {
    buf.push_back(c);
    return *this;
  }
  std::string str() { return std::move(buf); }
};
std::string print(const TExprPtr& e) { return lower::source(e); }
// Shared with the expression printer (lower/triton_ast.h), not copied.
std::string wrap(const TExprPtr& e, int min_prec) { return lower::source_wrapped(e, min_prec); }
std::string join_args(const TExprPtr& e, size_t first) { return lower::call_arguments(e, first); }

// Lays out `prefix + value + suffix` starting at column `indent`: flat when
// it fits in max_line, otherwise the call is broken one argument per line
// (recursively for arguments that are still too long); for a method call on
// a long call (`tl.load(...).to(tl.float32)`) the inner call is broken.
void layout_into(std::string& out, const std::string& prefix, const TExprPtr& value, const std::string& suffix,
                 int indent, const PrintOptions& opts) {
  std::string pad(indent, ' ');
  std::string flat = pad;
  flat += prefix;
  lower::source_to(flat, value);
  flat += suffix;
  if ((int)flat.size() > opts.max_line && value->kind == TExpr::Kind::IfExp) {
    // black's layout for a long conditional expression
    out += pad + prefix + "(\n";
    layout_into(out, "", value->args[1], "", indent + 4, opts);
    out += pad + "    if " + print(value->args[0]) + "\n";
    layout_into(out, "else ", value->args[2], "", indent + 4, opts);
    out += pad + ")" + suffix + "\n";
    return;
  }
  if ((int)flat.size() > opts.max_line && value->kind == TExpr::Kind::BinOp &&
      value->args[0]->kind == TExpr::Kind::BinOp && value->args[0]->text == value->text && value->text != "**") {
    // (not `**`: it groups from the right, so (a ** b) ** c is no chain)
    // black's layout for a long chain of one operator (`a & b & c`): one operand per line
    std::vector<TExprPtr> chain;
    TExprPtr e = value;
    for (; e->kind == TExpr::Kind::BinOp && e->text == value->text; e = e->args[0]) chain.push_back(e->args[1]);
    chain.push_back(e);
    int prec = lower::precedence(value);
    out += pad + prefix + "(\n";
    for (size_t k = chain.size(); k-- > 0;)
      out += pad + "    " + (k + 1 == chain.size() ? "" : value->text + " ") +
             wrap(chain[k], k + 1 == chain.size() ? prec : prec + 1) + "\n";
    out += pad + ")" + suffix + "\n";
    return;
  }
  if ((int)flat.size() > opts.max_line && value->kind == TExpr::Kind::Subscript &&
      value->args[0]->kind == TExpr::Kind::Call) {
    // a long call indexed (`tl.load(...)[:, None]`): break the call, the index follows its parenthesis
    std::string whole = print(value), base = print(value->args[0]);
    if (whole.compare(0, base.size(), base) == 0) {
      layout_into(out, prefix, value->args[0], whole.substr(base.size()) + suffix, indent, opts);
      return;
    }
  }
  if ((int)flat.size() <= opts.max_line || value->kind != TExpr::Kind::Call) {
    out += flat;
    out += '\n';
    return;
  }
  const TExprPtr& fn = value->args[0];
  // x.method(short args) where x is a long call: break x instead.
  if (fn->kind == TExpr::Kind::Attr && fn->args[0]->kind == TExpr::Kind::Call) {
    std::string tail = "." + fn->text + "(" + join_args(value, 1) + ")" + suffix;
    if ((int)tail.size() < opts.max_line / 2) {
      layout_into(out, prefix, fn->args[0], tail, indent, opts);
      return;
    }
  }
  if (value->args.size() + value->kwargs.size() <= 1 && value->args.size() == 2 &&
      value->args[1]->kind != TExpr::Kind::Call) {
    out += flat + "\n";
    return;
  }
  out += pad + prefix + wrap(fn, kAtom) + "(\n";
  for (size_t k = 1; k < value->args.size(); ++k) layout_into(out, "", value->args[k], ",", indent + 4, opts);
  for (auto& [k, v] : value->kwargs) layout_into(out, k + "=", v, ",", indent + 4, opts);
  out += pad + ")" + suffix + "\n";
}

std::string layout(const std::string& prefix, const TExprPtr& value, int indent, const PrintOptions& opts) {
  std::string out;
  layout_into(out, prefix, value, "", indent, opts);
  return out;
}

void print_body(Out& os, const std::vector<TStmt>& body, int indent, const PrintOptions& opts);

void print_stmt(Out& os, const TStmt& s, int indent, const PrintOptions& opts) {
  std::string pad(indent, ' ');
  switch (s.kind) {
    case TStmt::Kind::Assign: os << layout(print(s.target) + " = ", s.value, indent, opts); break;
    case TStmt::Kind::AnnAssign: os << layout(print(s.target) + ": " + s.text + " = ", s.value, indent, opts); break;
    case TStmt::Kind::AugAssign: os << layout(print(s.target) + " " + s.text + "= ", s.value, indent, opts); break;
    case TStmt::Kind::Expr: os << layout("", s.value, indent, opts); break;
    case TStmt::Kind::Return: os << (s.value ? layout("return ", s.value, indent, opts) : pad + "return\n"); break;
    case TStmt::Kind::Pass: os << pad << "pass\n"; break;
    case TStmt::Kind::Break: os << pad << "break\n"; break;
    case TStmt::Kind::Continue: os << pad << "continue\n"; break;
    case TStmt::Kind::Comment: {
      std::istringstream lines(s.text);
      std::string line;
      while (std::getline(lines, line)) os << pad << "#" << (line.empty() ? "" : " ") << line << "\n";
      break;
    }
    case TStmt::Kind::If: {
      os << pad << "if " << print(s.value) << ":\n";
      print_body(os, s.body, indent + 4, opts);
      const TStmt* cur = &s;
      // `else: if ...` chains print as elif.
      while (cur->orelse.size() == 1 && cur->orelse[0].kind == TStmt::Kind::If) {
        cur = &cur->orelse[0];
        os << pad << "elif " << print(cur->value) << ":\n";
        print_body(os, cur->body, indent + 4, opts);
      }
      if (!cur->orelse.empty()) {
        os << pad << "else:\n";
        print_body(os, cur->orelse, indent + 4, opts);
      }
      break;
    }
    case TStmt::Kind::For:
      os << pad << "for " << print(s.target) << " in " << print(s.value) << ":\n";
      print_body(os, s.body, indent + 4, opts);
      break;
    case TStmt::Kind::While:
      os << pad << "while " << print(s.value) << ":\n";
      print_body(os, s.body, indent + 4, opts);
      break;
  }
}

void print_body(Out& os, const std::vector<TStmt>& body, int indent, const PrintOptions& opts) {
  bool any_code = false;
  for (auto& s : body) any_code = any_code || s.kind != TStmt::Kind::Comment;
  for (auto& s : body) print_stmt(os, s, indent, opts);
  if (!any_code) os << std::string(indent, ' ') << "pass\n";
}

std::string docstring(const std::string& text, int indent) {
  // The docstring's value written back as source (a raw NUL or lone surrogate makes the module
  // uncompilable; a raw carriage return would read back as a newline): escaped as repr() escapes
  // a str, newlines and tabs kept.
  return std::string(indent, ' ') + "\"\"\"" + pyvalue::escape_str(text, '"', /*raw_newlines=*/true) + "\"\"\"\n";
}

}  // namespace

std::string print_expr(const TExprPtr& e) { return print(e); }

std::string print_stmts(const std::vector<TStmt>& body, int indent, const PrintOptions& opts) {
  Out os;
  for (auto& s : body) print_stmt(os, s, indent, opts);
  return os.str();
}

std::string print_function(const lower::TFunction& fn, int indent, const PrintOptions& opts) {
  Out os;
  std::string pad(indent, ' ');
  for (auto& c : fn.header_comments) os << pad << "#" << (c.empty() ? "" : " ") << c << "\n";
  for (auto& d : fn.decorators) os << pad << "@" << d << "\n";
  std::vector<std::string> params;
  size_t total = 0;
  for (auto& p : fn.params) {
    std::string s = p.name;
    if (!p.annotation.empty()) s += ": " + p.annotation;
    if (p.default_value) s += (p.annotation.empty() ? "=" : " = ") + print(p.default_value);
    total += s.size() + 2;
    params.push_back(std::move(s));
  }
  std::string head = pad + "def " + fn.name + "(";
  if (head.size() + total + 2 <= (size_t)opts.max_line) {
    for (size_t k = 0; k < params.size(); ++k) head += (k ? ", " : "") + params[k];
    os << head << "):\n";
  } else {
    os << head << "\n";
    for (auto& p : params) os << pad << "    " << p << ",\n";
    os << pad << "):\n";
  }
  if (!fn.docstring.empty()) os << docstring(fn.docstring, indent + 4);
  if (fn.body.empty() && fn.docstring.empty()) os << pad << "    pass\n";
  else print_body(os, fn.body, indent + 4, opts);
  std::string out = os.str();
  return out;
}

}  // namespace c2t::emit
