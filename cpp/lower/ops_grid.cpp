// Grid queries: ct.bid, ct.num_blocks, ct.num_tiles (cuTile §3.1).
#include "lower/op_registry.h"
#include "lower/ops_common.h"

namespace c2t::lower {

namespace {

std::optional<long long> axis_arg(OpCall& c) {
  LVal& a = c.arg("axis");
  auto v = c.L.const_int(a, c.at("axis"), "the axis");
  if (v && (*v < 0 || *v > 2)) {
    c.L.error(c.at("axis"), "grid axis must be 0, 1 or 2");
    return std::nullopt;
  }
  return v;
}

}  // namespace

/// Resolves an `order=` argument ("C", "F" or a permutation tuple) for rank n:
/// tile axis k reads array axis order[k] (cuTile §2.3).
std::optional<std::vector<int>> order_arg(OpCall& c, int n) {
  std::vector<int> ord(n);
  for (int k = 0; k < n; ++k) ord[k] = k;
  if (!c.has("order")) return ord;
  LVal& o = c.arg("order");
  if (o.info.cval && o.info.cval->kind == sema::ConstValue::Kind::Str) {
    if (o.info.cval->s == "C") return ord;
    if (o.info.cval->s == "F") {
      for (int k = 0; k < n; ++k) ord[k] = n - 1 - k;
      return ord;
    }
  }
  if (o.info.cval && o.info.cval->kind == sema::ConstValue::Kind::Tuple && (int)o.info.cval->items.size() == n) {
    std::vector<bool> seen(n, false);
    for (int k = 0; k < n; ++k) {
      auto& it = o.info.cval->items[k];
      if (it.kind != sema::ConstValue::Kind::Int || it.i < 0 || it.i >= n || seen[it.i]) break;
      seen[it.i] = true;
      ord[k] = (int)it.i;
      if (k == n - 1) return ord;
    }
  }
  if (o.ok()) c.L.error(c.at("order"), "order must be \"C\", \"F\" or a permutation of the array axes known at compile time");
  return std::nullopt;
}

void register_grid_ops(Registry& r) {
  r.add("bid", "grid", "axis", [](OpCall& c) {
    auto ax = axis_arg(c);
    if (!ax) return LVal{};
    return ops::make_value(tl_call("program_id", {lit_int(*ax)}), {}, sema::DType::concrete("int32"), sema::Sign::NonNeg);
  }, "tl.program_id(axis)");
  r.add("num_blocks", "grid", "axis", [](OpCall& c) {
    auto ax = axis_arg(c);
    if (!ax) return LVal{};
    return ops::make_value(tl_call("num_programs", {lit_int(*ax)}), {}, sema::DType::concrete("int32"), sema::Sign::Pos);
  }, "tl.num_programs(axis)");
  r.add("num_tiles", "grid", "array, /, axis, shape, order=", [](OpCall& c) {
    LVal& a = c.arg("array");
    if (!a.ok()) return LVal{};
    if (a.info.kind != sema::VKind::Array) {
      c.L.error(c.at("array"), "ct.num_tiles expects an array");
      return LVal{};
    }
    auto axis = c.L.const_int(c.arg("axis"), c.at("axis"), "the axis");
    auto shape = c.L.shape_arg(c.arg("shape"), c.at("shape"), "the tile shape");
    if (!axis || !shape) return LVal{};
    int n = a.array->rank;
    long long ax = *axis < 0 ? *axis + n : *axis;
    if ((int)shape->size() != n || ax < 0 || ax >= n) {
      c.L.error(c.node, "ct.num_tiles: the shape must have the array's rank and the axis must be in range");
      return LVal{};
    }
    auto ord = order_arg(c, n);
    if (!ord) return LVal{};
    // cdiv(array.shape[order[axis]], shape[axis]); both operands are >= 0 / > 0.
    return ops::make_value(tl_call("cdiv", {a.array->shape[(*ord)[ax]], Lowerer::dim_to_expr((*shape)[ax])}), {},
                           sema::DType::concrete("int32"), sema::Sign::NonNeg);
  }, "tl.cdiv(A_shape_<order[axis]>, shape[axis])");
}

}  // namespace c2t::lower
