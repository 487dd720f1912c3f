// Reductions and scans (cuTile §3.9-3.10).
//
// cuTile keeps the input dtype (bool -> int32); Triton promotes (tl.sum of
// int8 -> int32, tl.max of fp16 -> fp32): the result is cast back. For
// integers the cast of the wider sum equals cuTile's wrapping sum. NaNs are
// ignored by tl.max/tl.min like cuTile's default propagate_nan=False.
// NaN rules Triton's built-ins do not have (cuTile _stub.py, test_reduction.py
// test_reduce_maxmin_nan / test_reduce_argmaxmin_nan):
//  * max/min(propagate_nan=True): any NaN wins -> tl.reduce with a
//    tl.maximum(..., propagate_nan=ALL) combine.
//  * argmax/argmin on floats: NaN is the worst value by default and the best
//    (first NaN wins) with propagate_nan=True; tl.argmax's combine is not
//    NaN-aware (its result depends on the combination order), so floats use
//    tl.reduce((x, index), axis, combine) with a NaN-aware combine.
#include <algorithm>

#include "lower/op_registry.h"
#include "lower/ops_common.h"

namespace c2t::lower {

namespace {

// Whether Triton's result dtype for reduction `fn` over dtype `dt` can differ
// from the input dtype (so a cast back is needed).
// The cast back to the input dtype. A tile whose dtype is an array's is
// known only when the kernel is specialized (`X_ptr.dtype.element_ty`) and
// may be bool, which cuTile sums and scans as int32: for sums, products and
// scans of such tiles the cast goes through _c2t_cast_back (bool -> int32).
TExprPtr cast_back(OpCall& c, const std::string& kind, const LVal& x, TExprPtr e, TExprPtr dtype) {
  bool counts = kind == "sum" || kind == "prod" || kind == "cumsum" || kind == "cumprod";
  if (counts && !x.info.is_bool && x.info.dtype.kind == sema::DType::Kind::Symbolic)
    return call(name(c.L.prelude("_c2t_cast_back")), {e, dtype});
  return method(e, "to", {dtype});
}

bool may_promote(const sema::DType& dt) {
  if (!dt.known()) return true;
  return !(dt.is("float32") || dt.is("float64") || dt.is("int32") || dt.is("int64") || dt.is("uint32") ||
           dt.is("uint64") || dt.is("tfloat32"));
}

// unknown_rank: the tile's rank is fixed only per constexpr specialization (`rank` is then an upper bound).
std::optional<std::vector<long long>> axes_arg(OpCall& c, const std::string& p, int rank, bool allow_tuple,
                                               bool unknown_rank) {
  std::vector<long long> axes;
  if (!c.has(p)) return axes;  // empty = all
  LVal& a = c.arg(p);
  if (a.info.kind == sema::VKind::None) return axes;
  std::vector<LVal> items = a.info.kind == sema::VKind::Tuple ? a.elems : std::vector<LVal>{a};
  if (a.info.kind == sema::VKind::Tuple && !allow_tuple) {
    c.L.error(c.at(p), "ct." + c.op + " reduces along one axis");
    return std::nullopt;
  }
  if (items.empty()) {  // an empty result here means "every axis"; cuTile's reduce of axis=() reduces none
    c.L.error(c.at(p), "axis=() reduces no axis (cuTile returns the tile as it is); use the tile itself, or "
                       "axis=None to reduce every axis");
    return std::nullopt;
  }
  for (auto& it : items) {
    if (unknown_rank && it.info.cval && it.info.cval->kind == sema::ConstValue::Kind::Int && it.info.cval->i < 0) {
      c.L.error(c.at(p), "negative axes need a tile whose rank is known at conversion time");
      return std::nullopt;
    }
    auto ax = ops::axis_value(c, it, c.at(p), rank);
    if (!ax) return std::nullopt;
    axes.push_back(*ax);
  }
  std::sort(axes.rbegin(), axes.rend());
  // cuTile rejects `axis=(0, 0)` or `(1, -1)` on a rank-2 tile (ops.py reduce: "Repeated reduction axis").
  auto repeated = std::adjacent_find(axes.begin(), axes.end());
  if (repeated != axes.end()) {
    c.L.error(c.at(p), "repeated reduction axis " + std::to_string(*repeated));
    return std::nullopt;
  }
  return axes;
}

std::optional<bool> bool_arg(OpCall& c, const std::string& p, bool dflt) {
  if (!c.has(p)) return dflt;
  LVal& v = c.arg(p);
  if (v.info.cval && v.info.cval->kind == sema::ConstValue::Kind::Bool) return v.info.cval->b;
  if (v.ok()) c.L.error(c.at(p), p + " must be a constant bool");
  return std::nullopt;
}

// The element count of tile `x` as Triton constexpr text ("4 * (T)"); extents known only through the value
// are read back (x.shape[k], naming x.expr).
std::string numel_text(OpCall& c, LVal& x) {
  std::string numel;
  for (size_t k = 0; k < x.info.shape.size(); ++k)
    numel += (numel.empty() ? "" : " * ") + std::string("(") + source(c.L.dim_expr(x, k)) + ")";
  return numel;
}

// argmax/argmin of a float (or not yet known dtype) tile with cuTile's NaN
// rule: tl.reduce((x, index), axis, _c2t_arg{max,min}[_nan]_combine)[1];
// axis=None indexes the row-major flattening (like tl.argmax after reshape).
LVal nan_aware_arg(OpCall& c, LVal& x, TExprPtr src, const std::string& kind, bool propagate_nan,
                   const std::vector<long long>& axes, bool keep) {
  int rank = (int)x.info.shape.size();
  if (x.info.shape.unknown_rank) {
    c.L.unsupported(c.node, "ct." + kind + " of unknown rank",
                    "ct." + kind + " of a float tile whose rank is chosen by a constexpr is not supported");
    return {};
  }
  std::string combine = "_c2t_" + kind + (propagate_nan ? "_nan" : "") + "_combine";
  LVal xv = x;
  xv.expr = src;
  TExprPtr e = src;
  long long ax = 0;
  std::vector<TExprPtr> dims;
  if (axes.empty() && rank > 1) {
    std::string numel = numel_text(c, xv);
    e = tl_call("reshape", {xv.expr, list({raw(numel)})});
    dims = {raw(numel)};
  } else {
    if (!axes.empty()) ax = axes[0];
    for (int k = 0; k < rank; ++k) dims.push_back(c.L.dim_expr(xv, k));
  }
  // The index of each element along the axis, broadcast to the tile's shape.
  TExprPtr idx = tl_call("arange", {lit_int(0), dims[ax]});
  if (dims.size() > 1) {
    std::vector<TExprPtr> ones;
    for (size_t k = 0; k < dims.size(); ++k) ones.push_back((long long)k == ax ? dims[ax] : lit_int(1));
    idx = tl_call("broadcast_to", {tl_call("reshape", {idx, list(ones)}), list(dims)});
  }
  std::vector<std::pair<std::string, TExprPtr>> kw;
  if (keep) kw.push_back({"keep_dims", lit("True")});  // (Triton cannot reshape a 0-d result)
  TExprPtr r = subscript(tl_call("reduce", {tuple({e, idx}), lit_int(ax), name(c.L.prelude(combine))}, kw), {lit_int(1)});
  sema::Shape shape = x.info.shape;
  if (axes.empty()) {
    if (keep && rank > 1) r = tl_call("reshape", {r, list(std::vector<TExprPtr>(rank, lit_int(1)))});
    shape = keep ? sema::Shape(rank, sema::Dim::known(1)) : sema::Shape{};
  } else if (keep) {
    shape[ax] = sema::Dim::known(1);
  } else {
    shape.erase(shape.begin() + ax);
  }
  return ops::make_value(r, shape, sema::DType::concrete("int32"), sema::Sign::NonNeg);
}

LVal reduce(OpCall& c, const std::string& kind) {
  LVal& x = c.arg("x");
  if (!x.ok()) return {};
  if (!ops::is_number_like(x)) {
    c.L.error(c.at("x"), "ct." + kind + " reduces a tile");
    return {};
  }
  if (x.info.kind != sema::VKind::Tile) return x;  // reducing a scalar is the identity
  if (x.info.shape.unknown_rank) {
    // Rank fixed only per constexpr specialization: emit the reduction as
    // written (non-negative axes), result rank unknown too.
    x.info.shape = sema::Shape(8, sema::Dim{});
    x.info.shape.unknown_rank = true;
  }
  int rank = (int)x.info.shape.size();
  bool is_arg = kind == "argmax" || kind == "argmin";
  bool axis_ok = true;
  TExprPtr sym_axis = x.info.shape.unknown_rank ? nullptr : ops::constexpr_axis(c, "axis", axis_ok, !is_arg);
  if (!axis_ok) return {};
  auto axes = sym_axis ? std::optional<std::vector<long long>>(std::vector<long long>{})
                       : axes_arg(c, "axis", rank, !is_arg, x.info.shape.unknown_rank);
  auto keep = bool_arg(c, "keepdims", false);
  if (!axes || !keep) return {};
  auto pn = bool_arg(c, "propagate_nan", false);
  if (!pn) return {};
  if (c.has("rounding_mode")) {
    auto rm = ops::rounding_arg(c.L, c.arg("rounding_mode"), c.at("rounding_mode"));
    if (!rm) return {};
    if (!rm->empty() && *rm != "RN") {
      c.L.unsupported(c.node, kind + " rounding_mode", "ct." + kind + " with a rounding mode is not supported");
      return {};
    }
  }
  sema::DType in_dt = x.info.is_bool ? sema::DType::concrete("int32") : x.info.dtype;
  TExprPtr src = x.info.is_bool ? method(x.expr, "to", {tl_attr("int32")}) : x.expr;
  // Name the input when its dtype is needed for the cast back.
  TExprPtr dtype_back;
  if (!is_arg && may_promote(in_dt)) {
    if (in_dt.known() || in_dt.kind != sema::DType::Kind::Dynamic) dtype_back = c.L.dtype_expr(in_dt);
    if (!dtype_back) {
      LVal tmp = x;
      tmp.expr = src;
      src = c.L.as_name(tmp, "x");
      dtype_back = attr(src, "dtype");
    }
  }
  sema::Shape shape = x.info.shape;
  TExprPtr e = src;
  bool int_input = in_dt.known() && in_dt.is_float() && !*in_dt.is_float();
  if (is_arg && !int_input && sym_axis) {
    c.L.unsupported(c.node, "ct." + kind + " along a ct.Constant axis",
                    "ct." + kind + " along an axis given by a ct.Constant needs a tile known to be of an integer "
                    "dtype (for floats, cuTile's NaN rule needs the axis when converting): write the axis as a "
                    "literal, or convert the tile with ct.astype");
    return {};
  }
  if (is_arg && !int_input) return nan_aware_arg(c, x, src, kind, *pn, *axes, *keep);
  // The combine function of a tl.reduce (empty: a Triton built-in reduction).
  std::string combine;
  if (kind == "prod") combine = "_c2t_mul_combine";
  if (*pn && !int_input && (kind == "max" || kind == "min")) combine = "_c2t_" + kind + "_nan_combine";
  std::string fn = combine.empty() ? kind : "reduce";
  auto call_reduce = [&](TExprPtr in, TExprPtr ax) {  // ax nullptr: all axes
    std::vector<TExprPtr> args{in};
    std::vector<std::pair<std::string, TExprPtr>> kw;
    if (!combine.empty()) {
      args.push_back(ax ? ax : lit("None"));
      args.push_back(name(c.L.prelude(combine)));
    } else if (ax) {
      kw.push_back({"axis", ax});
    }
    if (is_arg) kw.push_back({"tie_break_left", lit("True")});
    if (*keep) kw.push_back({"keep_dims", lit("True")});
    return tl_call(fn, args, kw);
  };
  if (sym_axis) {
    LVal xv = x;
    xv.expr = src;
    std::vector<TExprPtr> dims;  // before the reduction (may name the input)
    for (int k = 0; k < rank; ++k) dims.push_back(c.L.dim_expr(xv, k));
    shape = ops::shape_along_constexpr_axis(shape, dims, sym_axis, *keep);
    // tl.reduce (a combine function) needs a negative axis wrapped in Triton's interpreter (ops::wrapped_axis)
    e = call_reduce(xv.expr, combine.empty() ? sym_axis : ops::wrapped_axis(sym_axis, rank));
  } else if (axes->empty()) {
    if (is_arg && rank > 1) {
      // argmax over all elements = index into the row-major flattening.
      LVal xv = x;
      xv.expr = e;
      std::string numel = numel_text(c, xv);
      e = tl_call(fn, {tl_call("reshape", {xv.expr, list({raw(numel)})}), lit_int(0)}, {{"tie_break_left", lit("True")}});
      if (*keep) e = tl_call("reshape", {e, list(std::vector<TExprPtr>(rank, lit_int(1)))});
    } else if (is_arg) {
      e = call_reduce(e, lit_int(0));
    } else {
      e = call_reduce(e, nullptr);
    }
    shape = *keep ? sema::Shape(rank, sema::Dim::known(1)) : sema::Shape{};
  } else {
    for (long long ax : *axes) {
      e = call_reduce(e, lit_int(ax));
      if (*keep) shape[ax] = sema::Dim::known(1);
      else shape.erase(shape.begin() + ax);
    }
  }
  if (x.info.shape.unknown_rank) shape = axes->empty() && !*keep ? sema::Shape{} : sema::Shape::unknown();
  if (is_arg) return ops::make_value(e, shape, sema::DType::concrete("int32"), sema::Sign::NonNeg);
  if (dtype_back) e = cast_back(c, kind, x, e, dtype_back);
  // A sum of values >= 0 is >= 0 unless it wraps: int8/int16 sums wrap in their dtype (cutile_api.md §3.9).
  bool keeps = kind == "max" || (kind == "sum" && !ops::narrow_int(in_dt));
  return ops::make_value(e, shape, in_dt, keeps ? x.info.sign : sema::Sign::Unknown);
}

LVal scan(OpCall& c, const std::string& kind) {
  LVal& x = c.arg("x");
  if (!x.ok()) return {};
  if (x.info.kind != sema::VKind::Tile) {
    c.L.error(c.at("x"), "ct." + kind + " scans a tile");
    return {};
  }
  int rank = (int)x.info.shape.size();
  bool axis_ok = true;
  TExprPtr ax = ops::constexpr_axis(c, "axis", axis_ok);  // the shape does not depend on it
  if (!axis_ok) return {};
  if (!ax) {
    long long k = 0;
    if (c.has("axis")) {
      // A tile of unknown rank (Shape::unknown, size 0): the axis goes to Triton as written, which checks it
      // per specialization.
      auto v = x.info.shape.unknown_rank ? c.L.const_int(c.arg("axis"), c.at("axis"), "the axis")
                                         : ops::axis_arg(c, "axis", rank);
      if (!v) return {};
      k = *v;
    }
    ax = lit_int(k);
  }
  bool rev_ok = true;
  TExprPtr rev = ops::scan_reverse_flag(c, "reverse", rev_ok);
  if (!rev_ok) return {};
  sema::DType in_dt = x.info.is_bool ? sema::DType::concrete("int32") : x.info.dtype;
  TExprPtr src = x.info.is_bool ? method(x.expr, "to", {tl_attr("int32")}) : x.expr;
  TExprPtr back;
  if (may_promote(in_dt)) {
    back = in_dt.kind != sema::DType::Kind::Dynamic ? c.L.dtype_expr(in_dt) : nullptr;
    if (!back) {
      LVal tmp = x;
      tmp.expr = src;
      src = c.L.as_name(tmp, "x");
      back = attr(src, "dtype");
    }
  }
  std::vector<std::pair<std::string, TExprPtr>> kw{{"axis", ax}};
  if (rev) kw.push_back({"reverse", rev});
  TExprPtr e = tl_call(kind, {src}, kw);
  if (back) e = cast_back(c, kind, x, e, back);
  return ops::make_value(e, x.info.shape, in_dt);
}

}  // namespace

void register_reduce_ops(Registry& r) {
  for (const char* k : {"sum", "prod"}) {
    std::string kind = k;
    r.add(kind, "reduce", "x, /, axis=, *, keepdims=, rounding_mode=, flush_to_zero=",
          [kind](OpCall& c) { return reduce(c, kind); },
          kind == "sum" ? "tl.sum(x, axis, keep_dims=...) cast back to the input dtype"
                        : "tl.reduce(x, axis, _c2t_mul_combine) cast back to the input dtype");
  }
  for (const char* k : {"max", "min"}) {
    std::string kind = k;
    r.add(kind, "reduce", "x, /, axis=, *, keepdims=, flush_to_zero=, propagate_nan=",
          [kind](OpCall& c) { return reduce(c, kind); }, "tl." + kind + "(x, axis, keep_dims=...) cast back to the input dtype");
  }
  for (const char* k : {"argmax", "argmin"}) {
    std::string kind = k;
    r.add(kind, "reduce", "x, /, axis=, *, keepdims=, propagate_nan=", [kind](OpCall& c) { return reduce(c, kind); },
          "tl." + kind + "(x, axis, tie_break_left=True) (flattened for axis=None)");
  }
  for (const char* k : {"cumsum", "cumprod"}) {
    std::string kind = k;
    r.add(kind, "scan", "x, /, axis=, *, reverse=, rounding_mode=, flush_to_zero=",
          [kind](OpCall& c) { return scan(c, kind); }, "tl." + kind + "(x, axis, reverse) cast back to the input dtype");
  }
}

namespace ops {

std::optional<long long> axis_value(OpCall& c, LVal& v, const syntax::Node* at, int rank) {
  auto a = c.L.const_int(v, at, "the axis");
  if (!a) return std::nullopt;
  long long ax = *a < 0 ? *a + rank : *a;
  if (ax < 0 || ax >= rank) {
    c.L.error(at, "axis " + std::to_string(*a) + " is out of range for a tile of rank " + std::to_string(rank));
    return std::nullopt;
  }
  return ax;
}

std::optional<long long> axis_arg(OpCall& c, const std::string& p, int rank) {
  return axis_value(c, c.arg(p), c.at(p), rank);
}

TExprPtr constexpr_axis(OpCall& c, const std::string& p, bool& ok, bool allow_tuple) {
  ok = true;
  if (!c.has(p)) return nullptr;
  LVal* ap = &c.arg(p);
  if (allow_tuple && ap->info.kind == sema::VKind::Tuple && ap->elems.size() == 1) ap = &ap->elems[0];  // (AX,)
  LVal& a = *ap;
  if (a.info.kind != sema::VKind::Constexpr || a.info.cval || !a.expr) return nullptr;
  if (is_name(a.expr) && c.L.is_constexpr_param(a.expr->text) && !c.L.is_int_constexpr(a.expr->text)) {
    c.L.error(c.at(p), "an axis given by a ct.Constant parameter needs the annotation ct.Constant[int] ('" +
                           a.expr->text + "' could be None or a tuple at launch, which changes the result's rank)");
    ok = false;
    return nullptr;
  }
  return a.expr;
}

TExprPtr scan_reverse_flag(OpCall& c, const std::string& p, bool& ok) {
  ok = true;
  if (!c.has(p)) return nullptr;
  LVal& v = c.arg(p);
  if (v.info.cval && v.info.cval->kind == sema::ConstValue::Kind::Bool) return v.info.cval->b ? lit("True") : nullptr;
  if (v.info.kind == sema::VKind::Constexpr && !v.info.cval && v.expr && is_name(v.expr)) return v.expr;
  if (v.ok()) c.L.error(c.at(p), p + " must be a constant bool (a literal or a ct.Constant parameter)");
  ok = false;
  return nullptr;
}

TExprPtr wrapped_axis(const TExprPtr& axis, int rank) {
  return ifexp(compare("<", axis, lit_int(0)), binop("+", axis, lit_int(rank)), axis);
}

sema::Shape shape_along_constexpr_axis(const sema::Shape& in, const std::vector<TExprPtr>& dims, const TExprPtr& axis,
                                       bool keep) {
  int rank = (int)in.size();
  std::string ax = "(" + source(axis) + ") % " + std::to_string(rank);
  sema::Shape out;
  for (int k = 0; k < rank; ++k) {
    if (keep) {
      if (in[k].is_one()) {
        out.push_back(in[k]);
        continue;
      }
      out.push_back(sema::Dim::sym("(1 if " + ax + " == " + std::to_string(k) + " else " + source(dims[k]) + ")"));
      out.back().maybe_one = true;
    } else if (k + 1 < rank) {
      if (in[k].same(in[k + 1])) {
        out.push_back(in[k]);
      } else {
        out.push_back(sema::Dim::sym("(" + source(dims[k]) + " if " + std::to_string(k) + " < " + ax + " else " +
                                     source(dims[k + 1]) + ")"));
        out.back().maybe_one = in[k].maybe_one || in[k + 1].maybe_one;  // either may be the one kept
      }
    }
  }
  return out;
}

}  // namespace ops

}  // namespace c2t::lower
