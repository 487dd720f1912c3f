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

}  // namespace

void register_math_ops(Registry& r) {
  static const MathFn fns[] = {
      {"exp", "tl.exp", d_exp},       {"exp2", "tl.exp2", d_exp2},    {"log", "tl.log", d_log},
      {"log2", "tl.log2", d_log2},    {"sqrt", "tl.sqrt_rn", d_sqrt}, {"rsqrt", "tl.rsqrt", d_rsqrt},
      {"sin", "tl.sin", d_sin},       {"cos", "tl.cos", d_cos},       {"tanh", "_c2t_tanh", d_tanh},
      {"floor", "tl.floor", d_floor}, {"ceil", "tl.ceil", d_ceil},
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
}

}  // namespace c2t::lower
