// Unary math functions (cuTile §3.14).
//
// Triton's math functions accept fp32/fp64 only (H10): fp16/bf16 inputs are
// computed in fp32 and rounded back (cuTile keeps the input float dtype);
// integer inputs become float32 (cuTile converts them too).
//  * ct.sqrt defaults to IEEE rounding -> tl.sqrt_rn (tl.sqrt is approximate);
//    RoundingMode.APPROX -> tl.sqrt.
//  * ct.exp / exp2 / log / log2 / sin / cos -> tl.*; Triton's versions are the
//    fast hardware paths (about 2 ulp), within the fp32 test tolerance.
//    (cuTile's RoundingMode.FULL exp would need libdevice, which the CPU
//    interpreter cannot run.)
//  * ct.tanh -> _c2t_tanh (Triton 3.6 has no tl.tanh).
//  * ct.tan / sinh / cosh / atan2 -> prelude helpers built from tl.sin, cos,
//    exp (Triton 3.6 has them only in libdevice, H7). atan2 is binary: cuTile
//    promotes both operands to a common float dtype (_ir/ops.py atan2_impl;
//    integer atan2 has no Tile IR op, so it is diagnosed).
#include <cmath>

#include "lower/op_registry.h"
#include "lower/ops_common.h"

namespace c2t::lower {

namespace {

struct MathFn {
  const char* name;        // cuTile name
  const char* triton;      // "tl.exp" or a prelude helper ("_c2t_tanh")
  double (*fold)(double);  // constant folding
};

double d_exp(double x) { return std::exp(x); }
double d_exp2(double x) { return std::exp2(x); }
double d_log(double x) { return std::log(x); }
double d_log2(double x) { return std::log2(x); }
double d_sqrt(double x) { return std::sqrt(x); }
double d_rsqrt(double x) { return 1.0 / std::sqrt(x); }
double d_sin(double x) { return std::sin(x); }
double d_cos(double x) { return std::cos(x); }
double d_tanh(double x) { return std::tanh(x); }
double d_tan(double x) { return std::tan(x); }
double d_sinh(double x) { return std::sinh(x); }
double d_cosh(double x) { return std::cosh(x); }
double d_floor(double x) { return std::floor(x); }
double d_ceil(double x) { return std::ceil(x); }

TExprPtr apply(Lowerer& L, const std::string& fn, TExprPtr x) {
  if (fn.rfind("_c2t_", 0) == 0) return call(name(L.prelude(fn)), {x});
  return call(raw(fn), {x});
}

LVal math1(OpCall& c, const MathFn& f) {
  LVal& x = c.arg("x");
  if (!x.ok()) return {};
  if (!ops::is_number_like(x)) {
    c.L.error(c.at("x"), std::string("ct.") + f.name + " needs a number, scalar or tile");
    return {};
  }
  std::string fn = f.triton;
  std::string rounding;
  if (c.has("rounding_mode")) {
    auto rm = ops::rounding_arg(c.L, c.arg("rounding_mode"), c.at("rounding_mode"));
    if (!rm) return {};
    rounding = *rm;
  }
  std::string nm = f.name;
  if (nm == "sqrt") {
    if (rounding == "APPROX") fn = "tl.sqrt";
    else if (!rounding.empty() && rounding != "RN") {
      c.L.unsupported(c.node, "sqrt rounding_mode=" + rounding, "ct.sqrt with RoundingMode." + rounding + " is not supported");
      return {};
    }
  } else if (!rounding.empty() && rounding != "FULL" && rounding != "APPROX") {
    c.L.unsupported(c.node, nm + " rounding_mode=" + rounding, "ct." + nm + " with RoundingMode." + rounding + " is not supported");
    return {};
  }
  if (x.info.cval && x.info.cval->is_number())
    return c.L.constant(sema::ConstValue::real(f.fold(x.info.cval->as_double())), c.node);
  auto shape = ops::shape_of(x);
  const auto& dt = x.info.dtype;
  if (nm == "sqrt" && fn == "tl.sqrt_rn" && dt.is("float64")) fn = "tl.sqrt";
  if (dt.is("float32") || dt.is("float64") || dt.is("tfloat32"))
    return ops::make_value(apply(c.L, fn, x.expr), shape, dt.is("tfloat32") ? sema::DType::concrete("float32") : dt);
  if (dt.is("float16") || dt.is("bfloat16"))
    return ops::make_value(method(apply(c.L, fn, method(x.expr, "to", {tl_attr("float32")})), "to", {raw(dt.triton())}),
                           shape, dt);
  if (dt.known() || x.info.kind == sema::VKind::Constexpr || x.info.is_bool)  // ints, bool, symbolic constexprs
    return ops::make_value(apply(c.L, fn, ops::convert_expr(c.L, x, "tl.float32")), shape, sema::DType::concrete("float32"));
  // dtype known only to Triton: dispatch at Triton compile time.
  if (nm == "sqrt" && fn == "tl.sqrt_rn") {
    auto xn = c.L.as_name(x, "x");
    return ops::make_value(call(name(c.L.prelude("_c2t_math_out")), {call(name(c.L.prelude("_c2t_sqrt_rn")), {xn}), xn}),
                           shape, sema::DType::dynamic());
  }
  auto xn = c.L.as_name(x, "x");
  TExprPtr inner = apply(c.L, fn, call(name(c.L.prelude("_c2t_math_in")), {xn}));
  return ops::make_value(call(name(c.L.prelude("_c2t_math_out")), {inner, xn}), shape, sema::DType::dynamic());
}

// ct.atan2(x1, x2): elementwise atan2(x1, x2) after cuTile's binary
// promotion; computed in fp32 for fp16/bf16 (and rounded back), natively for
// fp32/fp64.
LVal atan2(OpCall& c) {
  LVal& y = c.arg("x1");
  LVal& x = c.arg("x2");
  if (!y.ok() || !x.ok()) return {};
  if (!ops::is_number_like(y) || !ops::is_number_like(x)) {
    c.L.error(c.node, "ct.atan2 needs numbers, scalars or tiles");
    return {};
  }
  if (y.info.cval && x.info.cval && y.info.cval->is_number() && x.info.cval->is_number())
    return c.L.constant(sema::ConstValue::real(std::atan2(y.info.cval->as_double(), x.info.cval->as_double())), c.node);
  auto shape = sema::broadcast_shapes(ops::shape_of(y), ops::shape_of(x));
  if (!shape) {
    c.L.error(c.node, "tile shapes cannot be broadcast together");
    return {};
  }
  sema::DType rt = ops::promote(y, x);
  if (y.info.is_bool || x.info.is_bool || (rt.is_float() && !*rt.is_float())) {
    c.L.error(c.node, "ct.atan2 needs floating-point operands (cuTile has no integer atan2)");
    return {};
  }
  std::string helper = c.L.prelude("_c2t_atan2");
  // Operands as tensors of the compute dtype (literals through tl.cast: a bare
  // Python float passed to a @triton.jit helper would be a constexpr).
  auto operand = [&](LVal& v, const std::string& tdt) -> TExprPtr {
    if (ops::is_loose(v)) return tl_call("cast", {v.expr, raw(tdt)});
    if (v.info.dtype.is(tdt.substr(3))) return v.expr;
    return ops::convert_expr(c.L, v, tdt);
  };
  if (rt.is("float32") || rt.is("float64") || rt.is("tfloat32")) {
    std::string tdt = rt.is("float64") ? "tl.float64" : "tl.float32";
    return ops::make_value(call(name(helper), {operand(y, tdt), operand(x, tdt)}), *shape,
                           sema::DType::concrete(rt.is("float64") ? "float64" : "float32"));
  }
  if (rt.is("float16") || rt.is("bfloat16"))
    return ops::make_value(method(call(name(helper), {operand(y, "tl.float32"), operand(x, "tl.float32")}), "to",
                                  {raw(rt.triton())}),
                           *shape, rt);
  if (rt.known()) {
    c.L.unsupported(c.node, "atan2 " + rt.name, "ct.atan2 of " + rt.name + " values is not supported");
    return {};
  }
  // dtype known only to Triton (array elements, helper parameters): promoted
  // and dispatched when Triton compiles.
  return ops::make_value(call(name(c.L.prelude("_c2t_atan2_any")), {y.expr, x.expr}), *shape, sema::DType::dynamic());
}

}  // namespace

void register_math_ops(Registry& r) {
  static const MathFn fns[] = {
      {"exp", "tl.exp", d_exp},       {"exp2", "tl.exp2", d_exp2},    {"log", "tl.log", d_log},
      {"log2", "tl.log2", d_log2},    {"sqrt", "tl.sqrt_rn", d_sqrt}, {"rsqrt", "tl.rsqrt", d_rsqrt},
      {"sin", "tl.sin", d_sin},       {"cos", "tl.cos", d_cos},       {"tanh", "_c2t_tanh", d_tanh},
      {"floor", "tl.floor", d_floor}, {"ceil", "tl.ceil", d_ceil},
      {"tan", "_c2t_tan", d_tan},     {"sinh", "_c2t_sinh", d_sinh},  {"cosh", "_c2t_cosh", d_cosh},
  };
  for (auto& f : fns) {
    std::string sig = "x, /";
    std::string n = f.name;
    if (n == "exp" || n == "tanh") sig += ", *, rounding_mode=";
    if (n == "sqrt") sig += ", *, rounding_mode=, flush_to_zero=";
    if (n == "exp2" || n == "rsqrt") sig += ", *, flush_to_zero=";
    const MathFn* fp = &f;
    r.add(n, "math", sig, [fp](OpCall& c) { return math1(c, *fp); },
          std::string(f.triton) + "(x), computed in fp32 for fp16/bf16 inputs");
  }
  r.add("atan2", "math", "x1, x2, /", atan2,
        "_c2t_atan2(x1, x2) (octant reduction + Cephes atan), computed in fp32 for fp16/bf16 inputs");
}

}  // namespace c2t::lower
