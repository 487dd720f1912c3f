// Compile-time values: what cuTile folds at kernel-compile time (Python
// literals, module constants such as `INV_LOG_2 = 1.0 / math.log(2)`, enum
// members, dtypes, tuples of those) and the evaluator that folds them.
//
// Arithmetic follows Python: ints are exact (we stop folding when a value
// leaves int64), `//` and `%` floor, `/` gives a float. cuTile treats these as
// "loosely typed constants" until they meet a typed operand
// (reference/cutile_api.md §2.4).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "syntax/ast.h"

namespace c2t::sema {

struct ConstValue {
  enum class Kind {
    None, Bool, Int, Float, Str, Tuple,
    DType,     // s = cuTile dtype name ("float32")
    Enum,      // s = "PaddingMode.ZERO", "RoundingMode.APPROX", "MemoryOrder.ACQUIRE", ...
    CtRef,     // s = a cuTile module-level name that is not a value by itself ("Constant", "kernel")
    ConstantAnnotation,  // the value of `ct.Constant[T]` (usable as a parameter annotation); s: T's name if one
  };
  Kind kind = Kind::None;
  bool b = false;
  long long i = 0;
  double f = 0;
  std::string s;
  std::vector<ConstValue> items;

  static ConstValue none() { return {}; }
  static ConstValue boolean(bool v) { ConstValue c; c.kind = Kind::Bool; c.b = v; return c; }
  static ConstValue integer(long long v) { ConstValue c; c.kind = Kind::Int; c.i = v; return c; }
  static ConstValue real(double v) { ConstValue c; c.kind = Kind::Float; c.f = v; return c; }
  static ConstValue str(std::string v) { ConstValue c; c.kind = Kind::Str; c.s = std::move(v); return c; }
  static ConstValue tuple(std::vector<ConstValue> v) { ConstValue c; c.kind = Kind::Tuple; c.items = std::move(v); return c; }
  static ConstValue dtype(std::string n) { ConstValue c; c.kind = Kind::DType; c.s = std::move(n); return c; }
  static ConstValue enum_member(std::string n) { ConstValue c; c.kind = Kind::Enum; c.s = std::move(n); return c; }
  static ConstValue ct_ref(std::string n) { ConstValue c; c.kind = Kind::CtRef; c.s = std::move(n); return c; }

  bool is_number() const { return kind == Kind::Bool || kind == Kind::Int || kind == Kind::Float; }
  double as_double() const { return kind == Kind::Float ? f : kind == Kind::Int ? double(i) : double(b); }
  /// Python truthiness; nullopt for values whose truth is not a plain Python rule here.
  std::optional<bool> truthy() const;
  bool operator==(const ConstValue& o) const;
  /// Python source spelling, suitable for Triton code ("1.0", "float('-inf')", "(1, 2)", "'C'").
  std::string python() const;
};

/// Shortest round-trip spelling of a double as Python's repr() prints it.
std::string python_float(double v);

/// Resolves a Name (or a dotted attribute chain) during folding; returns
/// nullopt if the name is not a compile-time constant.
using ConstResolver = std::function<std::optional<ConstValue>(const syntax::Node* expr)>;

/// Folds `e` if it is a compile-time constant expression. `resolve` is asked
/// for every Name and Attribute (it may itself call const_eval). Supports
/// literals, tuples, unary/binary arithmetic, comparisons, `and`/`or`/`not`,
/// conditional expressions, subscripts of constant tuples, and the pure calls
/// math.log/log2/exp/sqrt/ceil/floor, float(), int(), bool(), abs(), min(), max(), len().
std::optional<ConstValue> const_eval(const syntax::Node* e, const ConstResolver& resolve);

/// Applies a Python binary operator ("Add", "FloorDiv", ...) to constants.
std::optional<ConstValue> const_binop(std::string_view op, const ConstValue& a, const ConstValue& b);
/// Applies a Python comparison operator ("Lt", "Eq", "Is", ...) to constants.
std::optional<bool> const_compare(std::string_view op, const ConstValue& a, const ConstValue& b);

}  // namespace c2t::sema
