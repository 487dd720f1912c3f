// Elementwise arithmetic, comparisons, bitwise and logical operators and
// their ct.* function forms (cuTile reference §3.11-§3.15).
//
// Where Python (cuTile) and Triton semantics differ, the difference is kept:
//  * integer `//` and `%` floor (Triton truncates): plain operators only when
//    both operands are provably >= 0, else the _c2t_floordiv/_c2t_mod helpers;
//  * `/` is IEEE round-to-nearest by default (tl.div_rn); Triton's `/` (an
//    approximation, div.full.f32) only under RoundingMode.APPROX/FULL;
//  * results keep cuTile's dtype where Triton promotes (fp16 / fp16 -> fp32,
//    tl.maximum(fp16, 2.0) -> fp32): cast back;
//  * a float constant compared with an fp16/bf16/fp64 tile takes the tile's dtype
//    (Triton compares with an fp32 constant): compared_constant;
//  * integers wrap, so ">= 0" facts hold only where nothing can wrap (may_wrap).
#include <cmath>

#include "lower/op_registry.h"
#include "lower/ops_common.h"

namespace c2t::lower::ops {

using sema::DType;
using sema::Sign;
using sema::VKind;

LVal make_value(TExprPtr expr, sema::Shape shape, DType dtype, Sign sign) {
  LVal v;
  v.expr = std::move(expr);
  v.info.kind = shape.is_tile() ? VKind::Tile : VKind::Scalar;
  v.info.shape = std::move(shape);
  v.info.dtype = std::move(dtype);
  v.info.sign = sign;
  return v;
}

LVal make_none(TExprPtr stmt_expr) {
  LVal v;
  v.info.kind = VKind::None;
  v.expr = std::move(stmt_expr);
  return v;
}

sema::Shape shape_of(const LVal& v) { return v.info.kind == VKind::Tile ? v.info.shape : sema::Shape{}; }

bool is_number_like(const LVal& v) {
  if (v.info.kind == VKind::Scalar || v.info.kind == VKind::Tile) return true;
  if (v.info.kind == VKind::Constexpr) return !v.info.cval || v.info.cval->is_number();
  return false;
}

std::string not_a_stored_value(const LVal& v) {
  if (is_number_like(v)) return "";
  return std::string(", not ") + sema::describe_kind(v.info.kind) +
         (v.info.kind == VKind::None ? " (ct.printf and ct.store return None)" : "");
}

bool is_loose(const LVal& v) { return v.info.kind == VKind::Constexpr; }

bool proven_nonneg(const LVal& v) {
  if (v.info.cval && v.info.cval->is_number()) return v.info.cval->as_double() >= 0;
  if (v.info.dtype.desc() && v.info.dtype.desc()->category == sema::DTypeCategory::UnsignedInt) return true;
  return sema::nonneg(v.info.sign);
}

static bool is_pos(const LVal& v) {
  if (v.info.cval && v.info.cval->is_number()) return v.info.cval->as_double() > 0;
  return v.info.sign == Sign::Pos;
}

bool narrow_int(const DType& dt) {
  return dt.known() && dt.desc() && dt.desc()->category == sema::DTypeCategory::SignedInt && dt.desc()->bits < 32;
}

// cuTile's integer arithmetic wraps (two's complement; cutile_api.md §2.4), so a sum or product of
// non-negative values stays non-negative only where it cannot wrap. Index arithmetic in int32/int64
// (program ids, tile sizes, extents, aranges, small constants) is taken not to wrap: that is the bound
// under which cuTile's own int32 offsets hold (arrays below 2^31 elements; ct.IndexedWithInt64 above).
// Signed integers narrower than 32 bits, and constants of 2^20 or more (hash multipliers, offsets near
// the int32 limit), may wrap: such sums and products lose the fact, and with it plain `//`/`%` and the
// `>= 0`-free bounds test of gather/scatter (hostile round s35: LCG hashes, int8 indices).
static bool may_wrap(const LVal& a, const LVal& b, const DType& rt) {
  auto big = [](const LVal& v) {
    return v.info.cval && v.info.cval->is_number() && std::fabs(v.info.cval->as_double()) >= double(1 << 20);
  };
  return narrow_int(rt) || big(a) || big(b);
}

DType promote(const LVal& a, const LVal& b) {
  bool la = is_loose(a), lb = is_loose(b);
  auto loose_is_float = [](const LVal& v) -> std::optional<bool> {
    if (v.info.cval) return v.info.cval->kind == sema::ConstValue::Kind::Float;
    return std::nullopt;
  };
  if (la && lb) return DType::dynamic();
  if (la || lb) {
    const LVal& loose = la ? a : b;
    const LVal& typed = la ? b : a;
    auto lf = loose_is_float(loose);
    auto tf = typed.info.dtype.is_float();
    if (lf && *lf && tf && !*tf) return DType::concrete("float32");  // int tile op float literal
    if (typed.info.is_bool && lf && !*lf) return DType::concrete("int32");
    return typed.info.dtype;
  }
  if (a.info.dtype.known() && b.info.dtype.known()) {
    auto* p = sema::promote(a.info.dtype.desc(), b.info.dtype.desc());
    if (p) return DType::concrete(std::string(p->name));
    return DType::dynamic();
  }
  if (a.info.dtype.same(b.info.dtype)) return a.info.dtype;
  return DType::dynamic();
}

static bool is_compare(const std::string& op) {
  return op == "less" || op == "less_equal" || op == "greater" || op == "greater_equal" || op == "equal" ||
         op == "not_equal";
}

static const char* op_symbol(const std::string& op) {
  if (op == "add") return "+";
  if (op == "sub") return "-";
  if (op == "mul") return "*";
  if (op == "truediv") return "/";
  if (op == "floordiv") return "//";
  if (op == "mod") return "%";
  if (op == "bitwise_and") return "&";
  if (op == "bitwise_or") return "|";
  if (op == "bitwise_xor") return "^";
  if (op == "bitwise_lshift") return "<<";
  if (op == "bitwise_rshift") return ">>";
  if (op == "less") return "<";
  if (op == "less_equal") return "<=";
  if (op == "greater") return ">";
  if (op == "greater_equal") return ">=";
  if (op == "equal") return "==";
  if (op == "not_equal") return "!=";
  return nullptr;
}

static const char* const_op_name(const std::string& op) {
  if (op == "add") return "Add";
  if (op == "sub") return "Sub";
  if (op == "mul") return "Mult";
  if (op == "truediv") return "Div";
  if (op == "floordiv") return "FloorDiv";
  if (op == "mod") return "Mod";
  if (op == "pow") return "Pow";
  if (op == "bitwise_and") return "BitAnd";
  if (op == "bitwise_or") return "BitOr";
  if (op == "bitwise_xor") return "BitXor";
  if (op == "bitwise_lshift") return "LShift";
  if (op == "bitwise_rshift") return "RShift";
  if (op == "less") return "Lt";
  if (op == "less_equal") return "LtE";
  if (op == "greater") return "Gt";
  if (op == "greater_equal") return "GtE";
  if (op == "equal") return "Eq";
  if (op == "not_equal") return "NotEq";
  return nullptr;
}

TExprPtr convert_expr(Lowerer& L, LVal& x, const std::string& tdt) {
  if (x.info.kind == VKind::Constexpr && x.info.cval) return x.expr;  // literals adapt
  // Scalars may be Python ints on the GPU: Triton specializes an int argument
  // equal to 1 as a constexpr, and so anything computed from it (n * 2,
  // len() of a one-element list); `.to` fails there, tl.cast does not (H9).
  if (x.info.kind == VKind::Constexpr || x.info.kind == VKind::Scalar || L.is_scalar_param(x.expr))
    return tl_call("cast", {x.expr, raw(tdt)});
  return method(x.expr, "to", {raw(tdt)});
}

std::optional<std::string> rounding_arg(Lowerer& L, LVal& v, const syntax::Node* at) {
  if (v.info.kind == VKind::None) return std::string();
  if (v.info.kind == VKind::Enum && v.info.cval && v.info.cval->s.rfind("RoundingMode.", 0) == 0)
    return v.info.cval->s.substr(13);
  if (v.ok()) L.error(at, "rounding_mode must be a ct.RoundingMode member known at compile time");
  return std::nullopt;
}

// IEEE-rounded true division (cuTile default) for a known result dtype.
static LVal truediv(Lowerer& L, LVal a, LVal b, sema::Shape shape, DType rt, const std::string& rounding,
                    const syntax::Node* at) {
  // int / int -> float32 in cuTile (and in Triton).
  if (rt.is_int() && *rt.is_int()) rt = DType::concrete("float32");
  if (rt.known() && rt.desc()->category == sema::DTypeCategory::Bool) rt = DType::concrete("float32");
  if (is_loose(a) && is_loose(b)) rt = DType::dynamic();
  bool approx = rounding == "APPROX" || rounding == "FULL";
  if (!rounding.empty() && !approx && rounding != "RN") {
    L.unsupported(at, "truediv rounding_mode=" + rounding,
                  "ct.truediv with rounding_mode=RoundingMode." + rounding + " is not supported (Triton exposes no "
                  "directed-rounding division outside libdevice)");
    return {};
  }
  if (rt.is("float64")) return make_value(binop("/", a.expr, b.expr), shape, rt);
  if (rt.is("float32")) {
    if (approx) return make_value(binop("/", a.expr, b.expr), shape, rt);
    auto x = a.info.dtype.is("float32") || is_loose(a) ? a.expr : convert_expr(L, a, "tl.float32");
    auto y = b.info.dtype.is("float32") || is_loose(b) ? b.expr : convert_expr(L, b, "tl.float32");
    return make_value(tl_call("div_rn", {x, y}), shape, rt);
  }
  if (rt.is("float16") || rt.is("bfloat16")) {
    auto tdt = rt.triton();
    if (approx) return make_value(method(binop("/", a.expr, b.expr), "to", {raw(tdt)}), shape, rt);
    // Rounding the correctly rounded fp32 quotient to fp16 is correctly rounded (24 >= 2*11+2 bits).
    auto x = is_loose(a) ? a.expr : convert_expr(L, a, "tl.float32");
    auto y = is_loose(b) ? b.expr : convert_expr(L, b, "tl.float32");
    return make_value(method(tl_call("div_rn", {x, y}), "to", {raw(tdt)}), shape, rt);
  }
  if (rt.known()) {
    L.unsupported(at, "truediv " + rt.name, "division of " + rt.name + " values is not supported");
    return {};
  }
  if (approx) return make_value(binop("/", a.expr, b.expr), shape, DType::dynamic());
  return make_value(call(name(L.prelude("_c2t_truediv")), {a.expr, b.expr}), shape, DType::dynamic());
}

// c rounded to nearest-even in a binary float format of `precision` significand bits (hidden bit
// included), smallest subnormal 2^min_exp and largest finite value `max` (beyond: infinity).
static double round_to_format(double c, int precision, int min_exp, double max) {
  if (!std::isfinite(c) || c == 0) return c;
  int e = 0;
  std::frexp(c, &e);  // |c| = m * 2^e, 0.5 <= m < 1
  int scale = std::min(precision - e, -min_exp);  // below the normal range: the subnormal step
  double r = std::ldexp(std::nearbyint(std::ldexp(c, scale)), -scale);  // default rounding: ties to even
  return std::fabs(r) > max ? std::copysign(INFINITY, c) : r;
}
static double to_fp16(double c) { return round_to_format(c, 11, -24, 65504.0); }
static double to_bf16(double c) { return round_to_format(c, 8, -133, 3.3895313892515355e38); }

static TExprPtr float_literal(double v) { return lit(sema::python_float(v)); }

// A loosely typed float constant compared with a float tile takes the tile's dtype in cuTile
// (_ir/ops_utils.py promotion: "Use the concrete dtype"), so `xh >= 0.1` compares with fp16(0.1);
// Triton's comparison makes the constant an fp32 tensor first (to_tensor), and an fp16 tile equal
// to fp16(0.1) compared below 0.1 (hostile round s35). The constant is rounded here, exactly (an fp16
// or bf16 value is exact in fp32, so Triton's fp32 comparison is then the fp16/bf16 one); an fp64
// tile gets it as an fp64 scalar; a tile whose dtype only Triton knows, all three to choose from.
// Constants exact in fp16 and bf16 (0.0, 0.5, 20.0) compare alike either way and stay as written.
static TExprPtr compared_constant(Lowerer& L, const LVal& c, const LVal& other) {
  if (is_loose(c) && !c.info.cval && !c.info.is_bool && c.expr && !is_loose(other) &&
      !(c.expr->kind == TExpr::Kind::Name && L.is_int_constexpr(c.expr->text))) {
    // A constexpr whose value only Triton knows (a Constant parameter, a constant read at launch) may be
    // a float: _c2t_loose_const gives it the tile's float dtype there (ints already take it in Triton).
    const DType& dt = other.info.dtype;
    if ((dt.known() && !dt.is("float16") && !dt.is("bfloat16") && !dt.is("float64")) || other.info.is_bool)
      return c.expr;
    return call(name(L.prelude("_c2t_loose_const")), {other.expr, c.expr});
  }
  if (!is_loose(c) || !c.info.cval || c.info.cval->kind != sema::ConstValue::Kind::Float || is_loose(other))
    return c.expr;
  double v = c.info.cval->f, h = to_fp16(v), b = to_bf16(v);
  if (!std::isfinite(v) || (h == v && b == v)) return c.expr;
  const DType& dt = other.info.dtype;
  if (dt.is("float16")) return float_literal(h);
  if (dt.is("bfloat16")) return float_literal(b);
  if (dt.is("float64")) return tl_call("full", {list({}), c.expr, raw("tl.float64")});
  if (dt.known() || other.info.is_bool) return c.expr;  // fp32, ints: Triton's fp32 constant is cuTile's
  return call(name(L.prelude("_c2t_loose_float")), {other.expr, c.expr, float_literal(h), float_literal(b)});
}

LVal binary(Lowerer& L, const std::string& op, LVal a, LVal b, const syntax::Node* at, const std::string& rounding) {
  if (!a.ok() || !b.ok()) return {};
  if (!is_number_like(a) || !is_number_like(b)) {
    L.error(at, "operator '" + std::string(op_symbol(op) ? op_symbol(op) : op.c_str()) +
                    "' needs numbers, scalars or tiles as operands");
    return {};
  }
  // Fold constants now (Python semantics; cuTile folds loosely typed constants).
  if (a.info.cval && b.info.cval) {
    if (auto* cop = const_op_name(op)) {
      if (is_compare(op)) {
        if (auto r = sema::const_compare(cop, *a.info.cval, *b.info.cval)) return L.constant(sema::ConstValue::boolean(*r), at);
      } else if (auto r = sema::const_binop(cop, *a.info.cval, *b.info.cval)) {
        return L.constant(*r, at);
      }
    }
  }
  auto sa = shape_of(a), sb = shape_of(b);
  auto shape = sema::broadcast_shapes(sa, sb);
  if (!shape) {
    L.error(at, "tile shapes cannot be broadcast together");
    return {};
  }
  bool both_const = a.info.kind == VKind::Constexpr && b.info.kind == VKind::Constexpr;
  DType rt = promote(a, b);
  // Sign facts.
  Sign sign = Sign::Unknown;
  bool an = proven_nonneg(a), bn = proven_nonneg(b);
  bool wraps = may_wrap(a, b, rt);
  if (op == "add" && an && bn && !wraps) sign = (is_pos(a) || is_pos(b)) ? Sign::Pos : Sign::NonNeg;
  if (op == "mul" && an && bn && !wraps) sign = (is_pos(a) && is_pos(b)) ? Sign::Pos : Sign::NonNeg;
  if (op == "floordiv" && an && is_pos(b)) sign = Sign::NonNeg;
  if (op == "mod" && is_pos(b)) sign = Sign::NonNeg;
  if (op == "bitwise_and" && (an || bn)) sign = Sign::NonNeg;
  if ((op == "bitwise_or" || op == "bitwise_xor") && an && bn) sign = Sign::NonNeg;
  if (op == "bitwise_rshift" && an) sign = Sign::NonNeg;

  if (both_const) {
    // Triton evaluates constexpr arithmetic with Python semantics, like cuTile.
    LVal r;
    r.info.kind = VKind::Constexpr;
    r.info.sign = sign;
    if (op == "pow") r.expr = binop("**", a.expr, b.expr);
    else r.expr = is_compare(op) ? compare(op_symbol(op), a.expr, b.expr) : binop(op_symbol(op), a.expr, b.expr);
    r.info.is_bool = is_compare(op);
    return r;
  }
  if (is_compare(op)) {
    LVal r = make_value(compare(op_symbol(op), compared_constant(L, a, b), compared_constant(L, b, a)), *shape,
                        DType::concrete("bool_"));
    r.info.is_bool = true;
    index_bounds::attach(r, index_bounds::compared(L, op, a, b));
    return r;
  }
  if (a.info.is_bool || b.info.is_bool) {
    if (op != "bitwise_and" && op != "bitwise_or" && op != "bitwise_xor") {
      L.error(at, "arithmetic on booleans is not allowed in cuTile; cast with .astype(ct.int32) first");
      return {};
    }
    LVal r = make_value(binop(op_symbol(op), a.expr, b.expr), *shape, DType::concrete("bool_"));
    r.info.is_bool = a.info.is_bool && b.info.is_bool;
    if (op == "bitwise_and" && r.info.is_bool) index_bounds::attach(r, index_bounds::conjunction(a, b));
    return r;
  }
  if (op == "truediv") return truediv(L, a, b, *shape, rt, rounding, at);
  if (!rounding.empty() && rounding != "RN") {
    L.unsupported(at, op + " rounding_mode=" + rounding,
                  "ct." + op + " with rounding_mode=RoundingMode." + rounding + " is not supported");
    return {};
  }
  if (op == "add" || op == "sub" || op == "mul" || op.rfind("bitwise_", 0) == 0) {
    LVal r = make_value(binop(op_symbol(op), a.expr, b.expr), *shape, rt, sign);
    index_bounds::attach(r, index_bounds::shifted(L, op, a, b));
    return r;
  }
  if (op == "floordiv") {
    auto fl = rt.is_float();
    if (fl && *fl) {
      // float // float = floor(a / b) (Triton rejects float //).
      LVal q = truediv(L, a, b, *shape, rt, "", at);
      if (!q.ok()) return {};
      if (!(rt.is("float32") || rt.is("float64"))) {
        L.unsupported(at, "floordiv " + rt.name, "floor division of " + rt.name + " values is not supported");
        return {};
      }
      return make_value(tl_call("floor", {q.expr}), *shape, rt);
    }
    // Plain `//` only for integers known to be >= 0 (where truncation == floor).
    bool known_int = rt.is_int() && *rt.is_int();
    if (an && bn && known_int) return make_value(binop("//", a.expr, b.expr), *shape, rt, sign);
    return make_value(call(name(L.prelude("_c2t_floordiv")), {a.expr, b.expr}), *shape, rt, sign);
  }
  if (op == "mod") {
    if (an && bn && rt.is_int() && *rt.is_int()) return make_value(binop("%", a.expr, b.expr), *shape, rt, sign);
    return make_value(call(name(L.prelude("_c2t_mod")), {a.expr, b.expr}), *shape, rt, sign);
  }
  if (op == "pow") {
    // Triton has no tensor `**`; small constant integer exponents become products.
    if (b.info.cval && b.info.cval->kind == sema::ConstValue::Kind::Int && b.info.cval->i >= 0 && b.info.cval->i <= 4) {
      long long n = b.info.cval->i;
      if (n == 0) {
        // x ** 0 is 1 for every x, NaN and infinities included (IEEE pow): x * 0 + 1 is NaN there.
        auto fl = rt.is_float();
        if (rt.known() && fl && !*fl) return make_value(binop("+", binop("*", a.expr, lit_int(0)), lit_int(1)), *shape, rt);
        return make_value(binop("+", tl_call("zeros_like", {a.expr}), lit_int(1)), *shape, rt);
      }
      auto base = L.as_name(a, "base");
      TExprPtr e = base;
      for (long long k = 1; k < n; ++k) e = binop("*", e, base);
      return make_value(e, *shape, rt);
    }
    if (b.info.cval && b.info.cval->kind == sema::ConstValue::Kind::Float && b.info.cval->f == 0.5 && rt.is("float32"))
      return make_value(tl_call("sqrt_rn", {a.expr}), *shape, rt);
    L.unsupported(at, "pow", "x ** y is only supported for constant integer exponents 0..4 (Triton has no pow "
                             "outside libdevice)");
    return {};
  }
  L.unsupported(at, op, "operator " + op + " is not supported");
  return {};
}

LVal unary_arith(Lowerer& L, const std::string& op, LVal a, const syntax::Node* at) {
  if (!a.ok()) return {};
  if (!is_number_like(a)) {
    L.error(at, op + " needs a number, scalar or tile");
    return {};
  }
  if (a.info.cval) {
    auto& c = *a.info.cval;
    if (op == "negative") {
      if (c.kind == sema::ConstValue::Kind::Float) return L.constant(sema::ConstValue::real(-c.f), at);
      if (c.kind == sema::ConstValue::Kind::Int) return L.constant(sema::ConstValue::integer(-c.i), at);
    }
    if (op == "abs") {
      if (c.kind == sema::ConstValue::Kind::Float) return L.constant(sema::ConstValue::real(std::fabs(c.f)), at);
      if (c.kind == sema::ConstValue::Kind::Int) return L.constant(sema::ConstValue::integer(c.i < 0 ? -c.i : c.i), at);
    }
    if (op == "bitwise_not" && c.kind == sema::ConstValue::Kind::Int) return L.constant(sema::ConstValue::integer(~c.i), at);
  }
  LVal r = a;
  r.info.cval.reset();
  if (op == "negative") {
    // cuTile negates floats by flipping the sign bit (NegFOp), so -(+0.0) is
    // -0.0; Triton's `-x` is `0 - x` (+0.0). A multiply by -1.0 is an exact
    // sign flip and keeps the float dtype; ints keep `-x`.
    const DType& dt = a.info.dtype;
    if (a.info.kind == VKind::Constexpr || a.info.is_bool || (dt.known() && dt.is_float() && !*dt.is_float()))
      r.expr = unary("-", a.expr);
    else if (dt.known() && dt.is_float())
      r.expr = binop("*", a.expr, lit("-1.0"));
    else
      r.expr = call(name(L.prelude("_c2t_neg")), {a.expr});
    r.info.sign = Sign::Unknown;
    if (a.info.is_bool) { r.expr = unary("-", convert_expr(L, a, "tl.int32")); r.info.dtype = DType::concrete("int32"); r.info.is_bool = false; }
  } else if (op == "abs") {
    r.expr = a.info.kind == VKind::Constexpr ? call(name("abs"), {a.expr}) : tl_call("abs", {a.expr});
    // |x| of a float is >= 0; of an integer only if x was (|INT_MIN| wraps to INT_MIN in both systems).
    auto fl = a.info.dtype.is_float();
    r.info.sign = proven_nonneg(a) || (a.info.dtype.known() && fl && *fl) ? Sign::NonNeg : Sign::Unknown;
  } else if (op == "bitwise_not") {
    // Triton's `~` on unsigned tiles builds full(-1, uintN), which the interpreter rejects
    // (OverflowError); xor with all ones is the same bits.
    const auto* d = a.info.dtype.known() ? a.info.dtype.desc() : nullptr;
    if (d && d->category == sema::DTypeCategory::UnsignedInt && d->bits <= 64)
      r.expr = binop("^", a.expr, lit(std::to_string(d->bits == 64 ? ~0ULL : (1ULL << d->bits) - 1)));
    else
      r.expr = unary("~", a.expr);
    r.info.sign = Sign::Unknown;
  }
  return r;
}

LVal minmax(Lowerer& L, const std::string& op, LVal a, LVal b, bool propagate_nan, const syntax::Node* at) {
  if (!a.ok() || !b.ok()) return {};
  if (!is_number_like(a) || !is_number_like(b)) {
    L.error(at, op + " needs numbers, scalars or tiles");
    return {};
  }
  if (a.info.cval && b.info.cval) {
    auto lt = sema::const_compare("Lt", *a.info.cval, *b.info.cval);
    if (lt) return op == "minimum" ? (*lt ? a : b) : (*lt ? b : a);
  }
  auto shape = sema::broadcast_shapes(shape_of(a), shape_of(b));
  if (!shape) {
    L.error(at, "tile shapes cannot be broadcast together");
    return {};
  }
  Sign sign = Sign::Unknown;
  if (op == "minimum" && proven_nonneg(a) && proven_nonneg(b)) sign = Sign::NonNeg;
  if (op == "maximum" && (proven_nonneg(a) || proven_nonneg(b))) sign = Sign::NonNeg;
  if (a.info.kind == VKind::Constexpr && b.info.kind == VKind::Constexpr) {
    LVal r;
    r.info.kind = VKind::Constexpr;
    r.info.sign = sign;
    r.expr = call(name(op == "minimum" ? "min" : "max"), {a.expr, b.expr});
    return r;
  }
  DType rt = promote(a, b);
  std::vector<std::pair<std::string, TExprPtr>> kw;
  if (propagate_nan) kw.push_back({"propagate_nan", tl_attr("PropagateNan.ALL")});
  // tl.maximum/minimum promote bf16 and fp16-with-literal to fp32 (and narrow
  // ints to int32); cuTile keeps the operands' dtype: cast back.
  TExprPtr back;
  if (rt.is("float16") || rt.is("bfloat16") || rt.is("int8") || rt.is("int16") || rt.is("uint8") || rt.is("uint16"))
    back = raw(rt.triton());
  else if (!rt.known()) {
    if (rt.kind != DType::Kind::Dynamic) back = L.dtype_expr(rt);
    if (!back) {
      if (is_loose(a) || is_loose(b)) back = attr(L.as_name(is_loose(a) ? b : a, "x"), "dtype");
      else back = attr(binop("+", L.as_name(a, "x"), L.as_name(b, "y")), "dtype");
    }
  }
  TExprPtr e = tl_call(op, {a.expr, b.expr}, kw);
  if (back) e = method(e, "to", {back});
  return make_value(e, *shape, rt, sign);
}

LVal logical_not(Lowerer& L, LVal a, const syntax::Node* at) {
  if (!a.ok()) return {};
  if (a.info.cval) {
    if (auto t = a.info.cval->truthy()) return L.constant(sema::ConstValue::boolean(!*t), at);
  }
  if (a.info.kind == VKind::DTypeV || a.info.kind == VKind::Enum || a.info.kind == VKind::CtFunc)
    return L.constant(sema::ConstValue::boolean(false), at);
  if (a.info.kind == VKind::None) return L.constant(sema::ConstValue::boolean(true), at);
  if (a.info.kind == VKind::Constexpr) {
    LVal r = a;
    r.expr = unary("not ", a.expr);
    r.info.is_bool = true;
    return r;
  }
  if (!is_number_like(a)) {
    L.error(at, "'not' needs a boolean value");
    return {};
  }
  // Element-wise logical not (cuTile casts to bool first). For Triton int1 values `~` is logical not.
  LVal r = make_value(a.info.is_bool ? unary("~", a.expr) : compare("==", a.expr, lit_int(0)), shape_of(a),
                      DType::concrete("bool_"));
  r.info.is_bool = true;
  return r;
}

LVal logical_andor(Lowerer& L, const std::string& op, LVal a, LVal b, const syntax::Node* at) {
  if (!a.ok() || !b.ok()) return {};
  if (a.info.cval) {
    auto t = a.info.cval->truthy();
    if (t) return (op == "and") == *t ? b : a;
  }
  bool ca = a.info.kind == VKind::Constexpr, cb = b.info.kind == VKind::Constexpr;
  if (ca && cb) {
    LVal r;
    r.info.kind = VKind::Constexpr;
    r.info.is_bool = true;
    r.expr = boolop(op, {a.expr, b.expr});
    return r;
  }
  if (!is_number_like(a) || !is_number_like(b)) {
    L.error(at, "'" + op + "' needs boolean scalars in tile code");
    return {};
  }
  if (a.info.kind == VKind::Tile || b.info.kind == VKind::Tile) {
    L.error(at, "'" + op + "' is only allowed on scalar conditions in cuTile; use & / | on tiles");
    return {};
  }
  // Triton has no short-circuit on runtime scalars; `&` / `|` on int1 values
  // is the same logical result (cuTile conditions have no side effects).
  auto as_bool = [&](LVal& v) { return v.info.is_bool ? v.expr : compare("!=", v.expr, lit_int(0)); };
  LVal r = make_value(binop(op == "and" ? "&" : "|", as_bool(a), as_bool(b)), {}, DType::concrete("bool_"));
  r.info.is_bool = true;
  return r;
}

LVal compare_dtypes(Lowerer& L, const std::string& op, LVal a, LVal b, const syntax::Node* at) {
  if (a.info.kind != VKind::DTypeV || b.info.kind != VKind::DTypeV) {
    L.error(at, "a dtype can only be compared with another dtype");
    return {};
  }
  if (a.info.dtype.known() && b.info.dtype.known()) {
    bool eq = a.info.dtype.name == b.info.dtype.name;
    return L.constant(sema::ConstValue::boolean(op == "equal" ? eq : !eq), at);
  }
  auto x = L.dtype_expr(a.info.dtype), y = L.dtype_expr(b.info.dtype);
  if (!x || !y) {
    L.error(at, "cannot compare these dtypes in Triton");
    return {};
  }
  LVal r;
  r.info.kind = VKind::Constexpr;
  r.info.is_bool = true;
  r.expr = compare(op == "equal" ? "==" : "!=", x, y);
  return r;
}

LVal where(Lowerer& L, LVal c, LVal a, LVal b, const syntax::Node* at) {
  if (!c.ok() || !a.ok() || !b.ok()) return {};
  if (!is_number_like(c) || !is_number_like(a) || !is_number_like(b)) {  // a function, module or array
    L.error(at, "ct.where takes numbers, scalars or tiles");
    return {};
  }
  auto s1 = sema::broadcast_shapes(shape_of(c), shape_of(a));
  auto s2 = s1 ? sema::broadcast_shapes(*s1, shape_of(b)) : std::nullopt;
  if (!s2) {
    L.error(at, "ct.where operands cannot be broadcast together");
    return {};
  }
  DType rt = promote(a, b);
  // A -0.0 constant operand keeps its sign only as a computed value (see
  // _c2t_neg_zero), in the promoted dtype like cuTile's weakly typed constant.
  for (LVal* v : {&a, &b}) {
    auto& cv = v->info.cval;
    if (v->info.kind == VKind::Constexpr && cv && cv->kind == sema::ConstValue::Kind::Float && cv->f == 0.0 &&
        std::signbit(cv->f))
      if (TExprPtr dt = L.dtype_expr(rt)) v->expr = call(name(L.prelude("_c2t_neg_zero")), {dt});
  }
  TExprPtr cond = c.info.is_bool ? c.expr : compare("!=", c.expr, lit_int(0));
  TExprPtr selected = tl_call("where", {cond, a.expr, b.expr});
  // In a loop, a mask known all true on some iterations (index_bounds.h) skips the select there:
  // `x if <every element true> else tl.where(mask, x, y)`, both arms x's exact shape and dtype.
  // (A dtype only Triton knows may be bool or int, which a literal y would promote: then y must
  // have x's dtype. A rank only Triton knows may differ from y's.)
  bool same_type = a.info.kind == VKind::Tile && !a.info.shape.unknown_rank && !s2->unknown_rank &&
                   a.info.shape.size() == s2->size() && a.info.dtype.same(rt) && rt.kind != DType::Kind::Dynamic &&
                   (a.info.dtype.known() || (!is_loose(b) && b.info.dtype.same(a.info.dtype))) &&
                   !(is_loose(b) && (a.info.is_bool || a.info.dtype.is("bool_")));  // bool x, literal y: int32
  for (size_t d = 0; same_type && d < s2->size(); ++d) same_type = a.info.shape[d].same((*s2)[d]);
  // Not under a runtime `if` of the loop: there the kernel already confines the mask to some
  // iterations (`if j >= mask_start:`), and a second test cost TileGym's MLA 11-13% (H200, s27).
  bool guard = same_type && L.in_loop() && !L.in_runtime_if_of_loop() && !L.in_conditional_expression() &&
               index_bounds::pure_expr(a.expr) && index_bounds::pure_expr(b.expr) && index_bounds::pure_expr(cond);
  if (TExprPtr all = guard ? index_bounds::all_true_test(c) : nullptr) {
    std::string mask = is_name(c.expr) ? c.expr->text : "mask";
    L.emit(TStmt::comment("every element of " + mask + " is true when its index tiles' extremes say so "
                          "(then tl.where would return " + source(a.expr) + ")"));
    TExprPtr test = L.bind(mask + "_all_true", all);  // (scalars bound once: read here or later, the same)
    selected = ifexp(test, a.expr, tl_call("where", {cond, a.expr, b.expr}));
  }
  LVal r = make_value(selected, *s2, rt, proven_nonneg(a) && proven_nonneg(b) ? Sign::NonNeg : Sign::Unknown);
  r.info.is_bool = a.info.is_bool && b.info.is_bool;
  return r;
}

// True when Triton cannot convert `from` -> `to` in one step and an exact
// route through fp32 exists. Triton (3.6, sm_90) has no int/bool -> fp8 cast
// (semantic.cast: "cannot cast int32[...] to fp8e4nv"), no fp8 -> int, and its
// NVIDIA backend asserts on fp8e4nv <-> fp8e5 (FpToFpOp needs a rounding mode).
// Via fp32 the result is cuTile's single RN conversion: fp8 -> fp32 is exact,
// fp16/bf16 -> fp32 is exact, and int -> fp32 is exact below 2^24, far beyond
// fp8's largest finite value (57344), so larger ints overflow either way. A
// dtype only Triton knows (a kernel parameter's) goes through fp32 too; a known
// fp64 source does not (fp64 -> fp32 -> fp8 could round twice).
static bool fp8_cast_needs_fp32(const DType& from, const DType& to) {
  auto is_fp8 = [](const sema::DTypeDesc* d) {
    return d && d->category == sema::DTypeCategory::RestrictedFloat && d->bits == 8 && !d->triton.empty();
  };
  auto fp32_exact = [](const sema::DTypeDesc* d) {  // converts to and from fp32 in one Triton step
    return d && (d->category == sema::DTypeCategory::Float || d->name == "tfloat32") && d->bits <= 32;
  };
  const sema::DTypeDesc* f = from.desc();
  const sema::DTypeDesc* t = to.desc();
  if (is_fp8(t)) return !fp32_exact(f) && !(f && f->name == "float64") && !(f && f->name == t->name);
  if (is_fp8(f)) return t && !fp32_exact(t) && !is_fp8(t) && t->category != sema::DTypeCategory::Bool;
  return false;
}

// fp32 value `x` rounded to tf32 (10 explicit mantissa bits), kept in fp32.
// cuTile's astype(x, tfloat32) is an RN (nearest-even) conversion by default
// (_ir/ops_utils.py _FTOF_ROUNDING_ROWS: (*, TF32) -> RN; RZ also allowed).
// Triton has no tf32 dtype, and tl.dot(input_precision="tf32") feeds the fp32
// registers to the tensor cores, which ignore the low 13 mantissa bits, i.e.
// truncate: a bias of up to 2^-10 relative per operand that over K = 1000
// sums reached 3.5e-2 absolute in TileGym's mhc bf16 x fp32 test. So round
// here, on the bits: RN adds 0xFFF plus the kept lsb, then clears 13 bits
// (a carry into the exponent is the correct RN overflow); NaN passes unchanged.
static TExprPtr round_to_tf32(Lowerer& L, LVal& x, bool toward_zero) {
  TExprPtr xn = L.as_name(x, "x");
  auto bits = [&] { return method(xn, "to", {raw("tl.uint32")}, {{"bitcast", lit("True")}}); };
  TExprPtr b = toward_zero ? bits()
                           : binop("+", bits(), binop("+", lit("0xFFF"), binop("&", binop(">>", bits(), lit_int(13)), lit_int(1))));
  TExprPtr rounded = method(binop("&", b, lit("0xFFFFE000")), "to", {raw("tl.float32")}, {{"bitcast", lit("True")}});
  return tl_call("where", {compare("!=", xn, xn), xn, rounded});
}

LVal cast_to(Lowerer& L, LVal x, const DType& to, const syntax::Node* at, const std::string& rounding) {
  if (!x.ok()) return {};
  if (!is_number_like(x)) {
    L.error(at, "only numbers, scalars and tiles can be converted to another dtype");
    return {};
  }
  if (x.info.dtype.is("float4_e2m1fn") || to.is("float4_e2m1fn")) {
    // fp4 has no Triton dtype: fp4 tiles are uint8 tiles of e2m1 codes
    // (ops_convert.cpp, pack_to_bytes); only conversions *to* fp4 are lowered.
    if (x.info.dtype.is("float4_e2m1fn") && to.is("float4_e2m1fn")) return x;
    if (x.info.dtype.is("float4_e2m1fn")) {
      L.unsupported(at, "astype from float4_e2m1fn",
                    "conversion from float4_e2m1fn is not supported (Triton has no fp4 dtype)");
      return {};
    }
    if (x.info.kind != VKind::Tile) {
      L.unsupported(at, "astype float4_e2m1fn scalar", "only tiles can be converted to float4_e2m1fn here");
      return {};
    }
    if (x.info.is_bool || (x.info.dtype.known() && !(x.info.dtype.is("float32") || x.info.dtype.is("float16") ||
                                                     x.info.dtype.is("bfloat16") || x.info.dtype.is("float64")))) {
      L.unsupported(at, "astype float4_e2m1fn", "conversion to float4_e2m1fn is supported from float16, bfloat16, "
                                                "float32 and float64 tiles only");
      return {};
    }
    if (!rounding.empty() && rounding != "RN") {
      L.unsupported(at, "astype rounding_mode=" + rounding,
                    "astype to float4_e2m1fn with rounding_mode=RoundingMode." + rounding + " is not supported");
      return {};
    }
    LVal r = make_value(call(name(L.prelude("_c2t_to_e2m1")), {x.expr}), shape_of(x), to);
    return r;
  }
  if (to.is("tfloat32")) {
    // tf32 has no Triton dtype: keep fp32 data, remember the tf32 request for tl.dot.
    LVal r = x;
    if (x.info.dtype.is("tfloat32")) return r;
    if (!x.info.dtype.is("float32")) {
      r.expr = convert_expr(L, x, "tl.float32");
      if (x.info.kind == VKind::Constexpr) r.info.kind = VKind::Scalar;
    }
    if (!rounding.empty() && rounding != "RN" && rounding != "RZ") {
      L.unsupported(at, "astype rounding_mode=" + rounding,
                    "astype to tfloat32 with rounding_mode=RoundingMode." + rounding + " is not supported");
      return {};
    }
    r.expr = round_to_tf32(L, r, rounding == "RZ");
    // Inside a larger expression (ct.mma(ct.astype(a, ct.tfloat32), ...)) the rounding gets its own line.
    if (!L.is_assign_rhs(at)) r.expr = L.bind("x_tf32", r.expr);
    r.info.dtype = to;
    r.info.cval.reset();
    return r;
  }
  if (to.kind == DType::Kind::Select && to.may_be_tf32()) {
    // A compile-time dtype choice with a tfloat32 branch (`mma_dtype = ct.tfloat32
    // if X.dtype == ct.float32 else X.dtype`): each branch converts its own way
    // (Triton evaluates only the taken side of a constexpr conditional).
    LVal a = cast_to(L, x, *to.then_, at, rounding);
    if (!a.ok()) return {};
    LVal b = cast_to(L, x, *to.else_, at, rounding);
    if (!b.ok()) return {};
    TExprPtr e = ifexp(raw(to.texpr), a.expr, b.expr);
    if (!L.is_assign_rhs(at)) e = L.bind("x_" + (to.alias.empty() ? std::string("cast") : to.alias), e);
    LVal r = make_value(e, shape_of(x), to);
    if (x.info.kind == VKind::Constexpr) r.info.kind = VKind::Scalar;
    return r;
  }
  auto tdt = to.triton();
  if (tdt.empty()) {
    L.unsupported(at, "dtype " + to.name, "conversion to " + (to.known() ? to.name : std::string("this dtype")) +
                                              " is not supported (Triton has no such dtype)");
    return {};
  }
  if (x.info.dtype.known() && to.known() && x.info.dtype.name == to.name && !x.info.is_bool) return x;
  if (x.info.dtype.kind != DType::Kind::Dynamic && x.info.dtype.same(to)) return x;
  std::vector<std::pair<std::string, TExprPtr>> kw;
  if (!rounding.empty() && rounding != "RN") {
    if (rounding == "RZ") kw.push_back({"fp_downcast_rounding", lit_str("rtz")});
    else {
      L.unsupported(at, "astype rounding_mode=" + rounding,
                    "astype with rounding_mode=RoundingMode." + rounding + " is not supported");
      return {};
    }
  }
  LVal r;
  if (to.is("bool_") && !x.info.is_bool && !(x.info.dtype.is_int() && *x.info.dtype.is_int())) {
    // cuTile converts float -> bool by truncation toward zero (0.5 -> False),
    // Triton's cast to int1 tests x != 0. |x| >= 1 is the truncation test and
    // also right for integers (for a dtype only Triton knows).
    auto xn = L.as_name(x, "x");
    r = make_value(binop("|", compare(">=", xn, lit("1")), compare("<=", xn, lit("-1"))), shape_of(x), to);
    r.info.is_bool = true;
    return r;
  }
  if (!(x.info.kind == VKind::Constexpr && x.info.cval) && fp8_cast_needs_fp32(x.info.dtype, to)) {
    // Two exact steps through fp32 (see fp8_cast_needs_fp32).
    x.expr = convert_expr(L, x, "tl.float32");
    if (x.info.kind == VKind::Constexpr) x.info.kind = VKind::Scalar;
    x.info.dtype = DType::concrete("float32");
  }
  TExprPtr e;
  if (x.info.kind == VKind::Constexpr && x.info.cval) {
    TExprPtr v = x.expr;
    // float constant -> integer dtype truncates toward zero (like a float
    // tile's astype); tl.full would hand the float to the integer constant
    // builder, which the GPU compiler rejects (the interpreter truncates).
    if (x.info.cval->kind == sema::ConstValue::Kind::Float && to.is_int() && *to.is_int() && std::isfinite(x.info.cval->f))
      v = lit_int((long long)std::trunc(x.info.cval->f));
    e = tl_call("full", {list({}), v, raw(tdt)});  // a strictly typed scalar constant
  } else if (kw.empty()) {
    e = convert_expr(L, x, tdt);
  } else {
    e = method(x.expr, "to", {raw(tdt)}, kw);
  }
  r = make_value(e, shape_of(x), to, x.info.sign);
  r.info.is_bool = to.is("bool_");
  if (to.known() && !sema::is_int(to.desc())) r.info.sign = Sign::Unknown;
  // A conversion to a narrower integer truncates (cuTile: TruncIOp), so x >= 0 holds after it only
  // where x fits: widening, floats into 32+ bits (saturating), a constant in range.
  if (to.known() && sema::is_int(to.desc()) && r.info.sign != Sign::Unknown) {
    const auto* from = x.info.dtype.known() ? x.info.dtype.desc() : nullptr;
    bool fits = x.info.cval && x.info.cval->is_number()
                    ? x.info.cval->as_double() < std::ldexp(1.0, to.desc()->bits - 1)
                    : to.desc()->bits >= 32 && (!from || sema::is_float(from) || from->bits <= to.desc()->bits ||
                                                x.info.is_bool);
    if (!fits) r.info.sign = Sign::Unknown;
  }
  return r;
}

}  // namespace c2t::lower::ops

namespace c2t::lower {

using ops::binary;

void register_arith_ops(Registry& r) {
  auto bin = [&](const char* n, const char* sig, const char* doc) {
    std::string op = n;
    r.add(op, "arith", sig, [op](OpCall& c) {
      std::string rounding;
      if (c.has("rounding_mode")) {
        auto rm = ops::rounding_arg(c.L, c.arg("rounding_mode"), c.at("rounding_mode"));
        if (!rm) return LVal{};
        rounding = *rm;
      }
      return binary(c.L, op, c.arg("x"), c.arg("y"), c.node, rounding);
    }, doc);
  };
  bin("add", "x, y, /, *, rounding_mode=, flush_to_zero=", "x + y");
  bin("sub", "x, y, /, *, rounding_mode=, flush_to_zero=", "x - y");
  bin("mul", "x, y, /, *, rounding_mode=, flush_to_zero=", "x * y");
  bin("truediv", "x, y, /, *, rounding_mode=, flush_to_zero=",
      "tl.div_rn(x, y) (IEEE); x / y under RoundingMode.APPROX/FULL");
  bin("floordiv", "x, y", "x // y if both are >= 0 (and cannot have wrapped), else _c2t_floordiv (Python floor)");
  bin("mod", "x, y", "x % y if both are >= 0 (and cannot have wrapped), else _c2t_mod (Python sign rule)");
  bin("pow", "x, y", "product chain for constant integer exponents 1..4; x ** 0 is zeros_like(x) + 1");
  bin("bitwise_and", "x, y", "x & y");
  bin("bitwise_or", "x, y", "x | y");
  bin("bitwise_xor", "x, y", "x ^ y");
  bin("bitwise_lshift", "x, y", "x << y");
  bin("bitwise_rshift", "x, y", "x >> y");
  bin("less", "x, y", "x < y");
  bin("less_equal", "x, y", "x <= y");
  bin("greater", "x, y", "x > y");
  bin("greater_equal", "x, y", "x >= y");
  bin("equal", "x, y", "x == y");
  bin("not_equal", "x, y", "x != y");
  for (const char* n : {"minimum", "maximum"}) {
    std::string op = n;
    r.add(op, "arith", "x, y, /, *, flush_to_zero=, propagate_nan=", [op](OpCall& c) {
      bool prop = false;
      if (c.has("propagate_nan")) {
        auto& p = c.arg("propagate_nan");
        if (!p.info.cval || p.info.cval->kind != sema::ConstValue::Kind::Bool) {
          c.L.error(c.at("propagate_nan"), "propagate_nan must be a constant bool");
          return LVal{};
        }
        prop = p.info.cval->b;
      }
      return ops::minmax(c.L, op, c.arg("x"), c.arg("y"), prop, c.node);
    }, std::string("tl.") + n + "(x, y) (NaN-ignoring by default, like cuTile), cast back to the input dtype");
  }
  // cuTile _stub.py divmod: (x // y, x % y) for integers; "For
  // floating-point inputs, not yet implemented" (a compile error there too).
  r.add("divmod", "arith", "x, y, /", [](OpCall& c) {
    LVal& x = c.arg("x");
    LVal& y = c.arg("y");
    if (!x.ok() || !y.ok()) return LVal{};
    for (LVal* v : {&x, &y}) {
      bool is_float = (v->info.dtype.is_float() && *v->info.dtype.is_float()) ||
                      (v->info.cval && v->info.cval->kind == sema::ConstValue::Kind::Float);
      if (is_float) {
        c.L.error(c.node, "ct.divmod takes integer operands (cuTile does not implement it for floating point)");
        return LVal{};
      }
    }
    LVal q = binary(c.L, "floordiv", x, y, c.node);
    LVal rem = binary(c.L, "mod", x, y, c.node);
    if (!q.ok() || !rem.ok()) return LVal{};
    return make_tuple({q, rem});
  }, "(x // y, x % y) with Python floor semantics (integers)");
  r.add("negative", "arith", "x", [](OpCall& c) { return ops::unary_arith(c.L, "negative", c.arg("x"), c.node); }, "-x");
  r.add("abs", "arith", "x", [](OpCall& c) { return ops::unary_arith(c.L, "abs", c.arg("x"), c.node); }, "tl.abs(x)");
  r.add("bitwise_not", "arith", "x", [](OpCall& c) { return ops::unary_arith(c.L, "bitwise_not", c.arg("x"), c.node); }, "~x; xor with all ones for tiles known to be unsigned");
  r.add("where", "arith", "cond, x, y", [](OpCall& c) {
    return ops::where(c.L, c.arg("cond"), c.arg("x"), c.arg("y"), c.node);
  }, "tl.where(cond, x, y)");
  r.add("cdiv", "arith", "x, y", [](OpCall& c) {
    LVal& x = c.arg("x");
    LVal& y = c.arg("y");
    if (!x.ok() || !y.ok()) return LVal{};
    if (!ops::is_number_like(x) || !ops::is_number_like(y)) {  // a function, module or array: no expression
      c.L.error(c.node, "ct.cdiv takes numbers, scalars or tiles");
      return LVal{};
    }
    if (x.info.cval && y.info.cval && x.info.cval->kind == sema::ConstValue::Kind::Int &&
        y.info.cval->kind == sema::ConstValue::Kind::Int && y.info.cval->i != 0) {
      long long a = x.info.cval->i, b = y.info.cval->i;
      long long q = a / b;
      if ((a % b != 0) && ((a < 0) == (b < 0))) ++q;
      return c.L.constant(sema::ConstValue::integer(q), c.node);
    }
    auto shape = sema::broadcast_shapes(ops::shape_of(x), ops::shape_of(y));
    if (!shape) { c.L.error(c.node, "tile shapes cannot be broadcast together"); return LVal{}; }
    sema::DType rt = ops::promote(x, y);
    bool both_const = x.info.kind == sema::VKind::Constexpr && y.info.kind == sema::VKind::Constexpr;
    bool y_pos = y.info.sign == sema::Sign::Pos || (y.info.cval && y.info.cval->as_double() > 0);
    if (both_const) {
      // tl.cdiv is a @jit function: its result is a tensor even for constexpr
      // operands (Triton 3.6), so `n: tl.constexpr = tl.cdiv(N, TILE)` fails
      // to compile (85 TileGym test failures on the H200). Constexpr `//`
      // is Python's floor division, so this is the exact ceiling, and stays
      // a constexpr.
      TExprPtr e = y_pos ? binop("//", binop("-", binop("+", x.expr, y.expr), lit_int(1)), y.expr)
                         : unary("-", binop("//", unary("-", x.expr), y.expr));
      LVal r = ops::make_value(e, *shape, rt, y_pos && ops::proven_nonneg(x) ? sema::Sign::NonNeg : sema::Sign::Unknown);
      r.info.kind = sema::VKind::Constexpr;
      return r;
    }
    // tl.cdiv is (x + y - 1) // y: a true ceiling only for x >= 0, y > 0.
    if (ops::proven_nonneg(x) && y_pos)
      return ops::make_value(tl_call("cdiv", {x.expr, y.expr}), *shape, rt, sema::Sign::NonNeg);
    return ops::make_value(call(name(c.L.prelude("_c2t_cdiv")), {x.expr, y.expr}), *shape, rt);
  }, "tl.cdiv(x, y) for x >= 0, y > 0 that cannot wrap; else _c2t_cdiv (true ceiling, unsigned too)");
  r.add("isnan", "arith", "x", [](OpCall& c) {
    LVal& x = c.arg("x");
    if (!x.ok()) return LVal{};
    LVal r = ops::make_value(compare("!=", c.L.as_name(x, "x"), x.expr), ops::shape_of(x), sema::DType::concrete("bool_"));
    r.info.is_bool = true;
    return r;
  }, "x != x");
}

}  // namespace c2t::lower
