// The Triton-side syntax tree that lowering produces and emit prints.
//
// It is a small Python expression/statement tree (only what generated Triton
// code needs), immutable once built (shared_ptr<const>), so sub-expressions
// can be shared between statements without copying.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace c2t::lower {

struct TExpr;
using TExprPtr = std::shared_ptr<const TExpr>;

struct TExpr {
  enum class Kind {
    Name,       // text = identifier
    Const,      // text = literal source ("1", "1.0", "'ieee'", "None", "float('-inf')")
    Attr,       // args[0].text
    Call,       // args[0](args[1:], kwargs)
    BinOp,      // args[0] text args[1]; text = "+", "//", "&", ...
    UnaryOp,    // text args[0]; text = "-", "~", "not "
    Compare,    // args[0] text args[1]; text = "<", "==", "is", ...
    BoolOp,     // args joined by text ("and"/"or")
    IfExp,      // args[1] if args[0] else args[2]
    Subscript,  // args[0][args[1], args[2], ...]
    Tuple,      // (args...)
    List,       // [args...]
    Slice,      // ":" (only the full slice is needed)
  };
  Kind kind;
  std::string text;
  std::vector<TExprPtr> args;
  std::vector<std::pair<std::string, TExprPtr>> kwargs;
};

// ---- builders ---------------------------------------------------------------
TExprPtr name(std::string id);
TExprPtr lit(std::string source_text);
TExprPtr lit_int(long long v);
TExprPtr lit_str(const std::string& s);
TExprPtr attr(TExprPtr obj, std::string field);
TExprPtr call(TExprPtr fn, std::vector<TExprPtr> args, std::vector<std::pair<std::string, TExprPtr>> kwargs = {});
/// `tl.<fn>(args, kwargs)`.
TExprPtr tl_call(const std::string& fn, std::vector<TExprPtr> args,
                 std::vector<std::pair<std::string, TExprPtr>> kwargs = {});
TExprPtr tl_attr(const std::string& field);  // tl.<field>
/// `obj.<method>(args, kwargs)`.
TExprPtr method(TExprPtr obj, const std::string& m, std::vector<TExprPtr> args,
                std::vector<std::pair<std::string, TExprPtr>> kwargs = {});
TExprPtr binop(std::string op, TExprPtr a, TExprPtr b);
TExprPtr unary(std::string op, TExprPtr a);
TExprPtr compare(std::string op, TExprPtr a, TExprPtr b);
TExprPtr boolop(std::string op, std::vector<TExprPtr> values);
TExprPtr ifexp(TExprPtr test, TExprPtr body, TExprPtr orelse);
TExprPtr subscript(TExprPtr value, std::vector<TExprPtr> index);
TExprPtr tuple(std::vector<TExprPtr> elts);
TExprPtr list(std::vector<TExprPtr> elts);
TExprPtr full_slice();

bool is_name(const TExprPtr& e, std::string_view id = {});
/// Python source of one expression, with the minimal parentheses Python's
/// precedence rules need. (Statement layout lives in emit/printer.h.)
std::string source(const TExprPtr& e);
/// The same, appended to `out`.
void source_to(std::string& out, const TExprPtr& e);
/// Python precedence level of `e` (16 = atom), for callers that splice text.
int precedence(const TExprPtr& e);
/// source(e), parenthesized when its precedence is below `min_prec`.
std::string source_wrapped(const TExprPtr& e, int min_prec);
/// The printed arguments of call `e` from positional index `first` on, then
/// its keyword arguments: "a, b, k=v".
std::string call_arguments(const TExprPtr& e, size_t first = 0);
/// An expression from already-printed source text (a symbolic tile
/// dimension, a dtype expression); parenthesized unless it is an atom.
TExprPtr raw(const std::string& text);
bool is_const(const TExprPtr& e, std::string_view text = {});

struct TStmt {
  enum class Kind { Assign, AnnAssign, AugAssign, Expr, If, For, While, Return, Pass, Comment, Break, Continue };
  explicit TStmt(Kind k = Kind::Pass) : kind(k) {}
  Kind kind;
  TExprPtr target;       // Assign/AnnAssign/AugAssign/For target
  TExprPtr value;        // Assign value, Expr value, Return value (may be null), If/While test, For iter
  std::string text;      // AugAssign op ("+"), AnnAssign annotation, Comment text (without '#')
  std::vector<TStmt> body, orelse;

  static TStmt assign(TExprPtr t, TExprPtr v) { TStmt s{Kind::Assign}; s.target = std::move(t); s.value = std::move(v); return s; }
  static TStmt ann_assign(TExprPtr t, std::string ann, TExprPtr v) { TStmt s{Kind::AnnAssign}; s.target = std::move(t); s.text = std::move(ann); s.value = std::move(v); return s; }
  static TStmt expr(TExprPtr v) { TStmt s{Kind::Expr}; s.value = std::move(v); return s; }
  static TStmt ret(TExprPtr v) { TStmt s{Kind::Return}; s.value = std::move(v); return s; }
  static TStmt comment(std::string c) { TStmt s{Kind::Comment}; s.text = std::move(c); return s; }
  static TStmt pass() { return TStmt{Kind::Pass}; }
};

struct TParam {
  std::string name;
  std::string annotation;   // "tl.constexpr" or ""
  TExprPtr default_value;   // may be null
};

struct TFunction {
  std::vector<std::string> decorators;  // without '@'
  std::string name;
  std::vector<TParam> params;
  std::string docstring;                // raw text (without quotes), "" for none
  std::vector<std::string> header_comments;  // printed above the decorators
  std::vector<TStmt> body;
};

}  // namespace c2t::lower
