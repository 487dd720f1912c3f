// Tile factories: ct.arange, ct.full, ct.zeros, ct.ones (cuTile §3.5).
#include "lower/op_registry.h"
#include "lower/ops_common.h"

namespace c2t::lower {

namespace {

std::optional<sema::DType> dtype_param(OpCall& c, const std::string& p) {
  LVal& d = c.arg(p);
  if (!d.ok()) return std::nullopt;
  if (d.info.kind != sema::VKind::DTypeV) {
    c.L.error(c.at(p), "expected a dtype (e.g. ct.float32)");
    return std::nullopt;
  }
  if (d.info.dtype.triton().empty()) {
    if (d.info.dtype.kind == sema::DType::Kind::Dynamic && d.expr) d.info.dtype = sema::DType::symbolic(source(d.expr));
    else {
      c.L.unsupported(c.at(p), "dtype", "this dtype has no Triton equivalent");
      return std::nullopt;
    }
  }
  return d.info.dtype;
}

LVal full_like_op(OpCall& c, const char* what, std::optional<TExprPtr> fill) {
  auto shape = c.L.shape_arg(c.arg("shape"), c.at("shape"), "the tile shape");
  auto dt = dtype_param(c, "dtype");
  if (!shape || !dt) return {};
  std::string tdt = dt->triton();
  if (dt->is("tfloat32")) tdt = "tl.float32";
  TExprPtr value;
  sema::Sign sign = sema::Sign::Unknown;
  if (fill) value = *fill;
  else {
    LVal& v = c.arg("fill_value");
    if (!v.ok()) return {};
    if (!ops::is_number_like(v) || v.info.kind == sema::VKind::Tile) {
      c.L.error(c.at("fill_value"), "ct.full fills with a scalar");
      return {};
    }
    value = v.expr;
    if (ops::proven_nonneg(v) && !ops::narrow_int(*dt)) sign = sema::Sign::NonNeg;
    const auto* d = dt->known() ? dt->desc() : nullptr;
    if (v.info.cval && v.info.cval->kind == sema::ConstValue::Kind::Int && sema::is_int(d) && d->bits < 64) {
      // cuTile wraps an integer constant into the dtype (core_ops.canonicalize_const_value_for_type:
      // full(-1, uint8) is 255); tl.full rejects one out of range (OverflowError).
      const unsigned long long m = 1ULL << d->bits;
      long long w = (long long)((unsigned long long)v.info.cval->i & (m - 1));
      if (d->category == sema::DTypeCategory::SignedInt && w >= (long long)(m / 2)) w -= (long long)m;
      value = lit_int(w);
    }
  }
  if (is_const(value, "0") && !shape->empty()) {
    return ops::make_value(tl_call("zeros", {ops::shape_list(*shape), raw(tdt)}), *shape, *dt, sema::Sign::NonNeg);
  }
  if (is_const(value)) sign = value->text[0] == '-' ? sema::Sign::Unknown : sema::Sign::NonNeg;
  LVal r = ops::make_value(tl_call("full", {ops::shape_list(*shape), value, raw(tdt)}), *shape, *dt, sign);
  if (dt->is("bool_") && is_const(value, "True")) index_bounds::attach(r, index_bounds::all_true());  // a mask to narrow with &
  return r;
}

}  // namespace

void register_factory_ops(Registry& r) {
  r.add("arange", "factory", "size, /, *, dtype, start=, step=", [](OpCall& c) {
    LVal& size = c.arg("size");
    auto shape = c.L.shape_arg(size, c.at("size"), "the arange size");
    auto dt = dtype_param(c, "dtype");
    if (!shape || !dt) return LVal{};
    if (shape->size() != 1) {
      c.L.error(c.at("size"), "ct.arange takes one size");
      return LVal{};
    }
    // tl.arange yields int32 0..size-1; cuTile computes the iota in int32 and casts.
    TExprPtr e = tl_call("arange", {lit_int(0), Lowerer::dim_to_expr((*shape)[0])});
    sema::Sign sign = sema::Sign::NonNeg;
    bool plain = dt->is("int32") && !c.has("step") && !c.has("start");
    if (!dt->is("int32")) e = method(e, "to", {raw(dt->triton())});
    // int8/int16 aranges wrap past their dtype's maximum (cuTile casts the int32 iota).
    if (ops::narrow_int(*dt) && (c.has("step") || c.has("start") || !(*shape)[0].value ||
                                 *(*shape)[0].value > (1LL << (dt->desc()->bits - 1))))
      sign = sema::Sign::Unknown;
    if (c.has("step")) {
      LVal& st = c.arg("step");
      if (!ops::is_number_like(st)) return LVal{};
      if (!(st.info.cval && st.info.cval->is_number() && st.info.cval->as_double() == 1)) {
        e = binop("*", e, st.expr);
        if (!ops::proven_nonneg(st)) sign = sema::Sign::Unknown;
      }
    }
    if (c.has("start")) {
      LVal& s0 = c.arg("start");
      if (!ops::is_number_like(s0)) return LVal{};
      if (!is_const(s0.expr, "0")) {
        e = binop("+", s0.expr, e);
        if (!ops::proven_nonneg(s0)) sign = sema::Sign::Unknown;
      }
    }
    LVal r = ops::make_value(e, *shape, *dt, sign);
    if (plain) {  // index bounds (index_bounds.h): first 0, last size - 1
      const sema::Dim& n = (*shape)[0];
      index_bounds::attach(r, index_bounds::arange(c.L, n.value ? lit_int(*n.value - 1) : binop("-", Lowerer::dim_to_expr(n), lit_int(1))));
    }
    return r;
  }, "tl.arange(0, size) (.to(dtype) * step + start)");
  r.add("full", "factory", "shape, fill_value, dtype", [](OpCall& c) { return full_like_op(c, "full", std::nullopt); },
        "tl.full(shape, fill_value, dtype); an integer constant wrapped into the dtype, as cuTile does");
  r.add("zeros", "factory", "shape, dtype", [](OpCall& c) { return full_like_op(c, "zeros", lit_int(0)); },
        "tl.zeros(shape, dtype)");
  r.add("ones", "factory", "shape, dtype", [](OpCall& c) { return full_like_op(c, "ones", lit_int(1)); },
        "tl.full(shape, 1, dtype)");
}

}  // namespace c2t::lower
