#include "lower/access_plan.h"

#include "lower/op_registry.h"

namespace c2t::lower {

AccessPlan plan_tile_access(const ArrayVal& array, const sema::Shape& tile_shape, std::vector<int> order,
                            const std::string& padding, bool check_bounds, std::optional<bool> allow_tma,
                            bool is_store) {
  AccessPlan p;
  p.order = std::move(order);
  p.tile_shape = tile_shape;
  p.padding = padding;
  if (tile_shape.empty()) p.strategy = AccessPlan::Strategy::PointerScalar;
  else if (!check_bounds) p.strategy = AccessPlan::Strategy::PointerUnmasked;
  else p.strategy = AccessPlan::Strategy::PointerMask;

  // Tensor-descriptor candidacy (recorded for the report and a later TMA pass).
  if (tile_shape.size() < 2) {
    p.tma_note = "1-D or scalar access: pointer path";
  } else if (allow_tma && !*allow_tma) {
    p.tma_note = "allow_tma=False";
  } else if (!is_store && padding != "ZERO" && padding != "NAN" && padding != "UNDETERMINED") {
    p.tma_note = "padding " + padding + " needs a masked pointer load (descriptors pad with zero or NaN only)";
  } else if (is_store && moves_last_axis(p.order)) {
    p.tma_note = "order= moves the innermost axis of a store; the permuted last stride is not 1";
  } else {
    // A load whose order= moves the innermost axis reads its block in memory order through the
    // descriptor and permutes it (tma.cpp): the box's innermost extent is the tile axis that
    // runs along the array's last axis.
    const sema::Dim* mem_inner = &tile_shape.back();
    for (size_t k = 0; k < p.order.size() && k < tile_shape.size(); ++k)
      if (p.order[k] == array.rank - 1) mem_inner = &tile_shape[k];
    bool small_inner = mem_inner->value && *mem_inner->value < 2;
    if (small_inner) p.tma_note = "innermost tile extent too small for a 16-byte descriptor box";
    else {
      p.tma_candidate = true;
      p.tma_note = "candidate: needs host checks (16-byte aligned base and strides, unit last stride)";
    }
  }
  return p;
}

TExprPtr zero_padding(const sema::DType& elem) {
  const sema::DTypeDesc* d = elem.desc();
  if (d && (sema::is_int(d) || d->category == sema::DTypeCategory::Bool)) return lit_int(0);
  return lit("0.0");
}

TExprPtr padding_value(Lowerer& L, const std::string& mode, const sema::DType& elem) {
  if (mode == "ZERO") return zero_padding(elem);
  // A literal -0.0 reaches the kernel as +0.0 (Triton materializes constants
  // equal to zero as the null value); the prelude helper computes it.
  if (mode == "NEG_ZERO") return call(name(L.prelude("_c2t_neg_zero")), {});
  if (mode == "NAN") return lit("float('nan')");
  if (mode == "POS_INF") return lit("float('inf')");
  if (mode == "NEG_INF") return lit("float('-inf')");
  return zero_padding(elem);  // UNDETERMINED
}

TExprPtr index_in_bounds(TExprPtr idx, TExprPtr extent, bool known_nonneg) {
  TExprPtr hi = compare("<", idx, std::move(extent));
  return known_nonneg ? hi : binop("&", compare(">=", std::move(idx), lit_int(0)), hi);
}

std::optional<std::string> padding_mode_arg(OpCall& c) {
  if (!c.has("padding_mode")) return std::string("UNDETERMINED");
  LVal& pm = c.arg("padding_mode");
  if (pm.info.kind == sema::VKind::None) return std::string("UNDETERMINED");
  if (!pm.info.cval || pm.info.cval->s.rfind("PaddingMode.", 0) != 0) {
    if (pm.ok()) c.L.error(c.at("padding_mode"), "padding_mode must be a ct.PaddingMode member known at compile time");
    return std::nullopt;
  }
  return pm.info.cval->s.substr(12);
}

TilePointers emit_tile_pointers(Lowerer& L, const ArrayVal& array, const std::vector<LVal>& index,
                                const AccessPlan& plan, const std::string& hint, bool squeeze, bool interior) {
  TilePointers out;
  size_t r = plan.tile_shape.size();
  if (plan.strategy == AccessPlan::Strategy::PointerScalar) {
    // One element: tile index == element index along every axis (times the
    // traversal step of a tiled view of single elements).
    TExprPtr off;
    for (size_t k = 0; k < index.size(); ++k) {
      int ax = plan.order.empty() ? (int)k : plan.order[k];
      TExprPtr idx = index[k].expr;
      if (array.int64_index) idx = tl_call("cast", {idx, tl_attr("int64")});
      if (!plan.steps.empty() && !plan.steps[k].is_one() && !is_const(idx, "0"))
        idx = binop("*", idx, Lowerer::dim_to_expr(plan.steps[k]));
      TExprPtr term = is_const(index[k].expr, "0") ? nullptr : binop("*", idx, array.strides[ax]);
      if (!term) continue;
      off = off ? binop("+", off, term) : term;
    }
    out.ptrs = off ? binop("+", array.ptr, off) : array.ptr;
    return out;
  }
  TExprPtr ptrs = array.ptr;
  TExprPtr mask;
  // Unit tile axes use the scalar index directly; if every axis is unit the
  // pointers still need the tile's rank, so those keep arange(0, 1).
  bool all_unit = true;
  size_t units = 0;
  for (auto& d : plan.tile_shape) {
    all_unit = all_unit && d.is_one();
    units += d.is_one() ? 1 : 0;
  }
  // Leading extent-1 axes (batch and head indices in front of a matrix: bmm's (1, TM, TK),
  // attention's (1, 1, TM, D)), others only when `interior`; and only down to rank 2: a (1, N)
  // row stays a row.
  size_t leading = 0;
  while (leading < r && plan.tile_shape[leading].is_one()) ++leading;
  squeeze = squeeze && !all_unit && units > 0 && (interior || units == leading) && r - units >= 2;
  // Pointer rank and each non-unit tile axis' position in it.
  size_t pr = squeeze ? r - units : r;
  std::vector<size_t> pos(r, 0);
  for (size_t k = 0, j = 0; k < r; ++k)
    if (!(squeeze && plan.tile_shape[k].is_one())) pos[k] = j++;
  if (squeeze)
    for (auto& d : plan.tile_shape)
      if (!d.is_one()) out.squeezed.push_back(Lowerer::dim_to_expr(d));
  for (size_t k = 0; k < r; ++k) {
    const sema::Dim& d = plan.tile_shape[k];
    const sema::Dim& step = plan.steps.empty() ? d : plan.steps[k];
    int ax = plan.order[k];
    TExprPtr idx = index[k].expr;
    bool unit = d.is_one() && !all_unit;
    // Element offsets along tile axis k: index * step + arange(tile_extent),
    // where the step is the tile extent except in tiled views with traversal_steps.
    TExprPtr start;
    if (is_const(idx, "0")) {
      start = nullptr;
    } else {
      // ct.IndexedWithInt64: the tile index is widened before it is scaled by
      // the tile extent, as cuTile does (_ir/ops.py _tile_load_impl_inner);
      // widening the product would keep its int32 overflow.
      if (array.int64_index) idx = tl_call("cast", {idx, tl_attr("int64")});
      bool plain = plan.steps.empty() ? unit : step.is_one();
      start = plain ? idx : binop("*", idx, Lowerer::dim_to_expr(step));
    }
    TExprPtr offs;
    if (unit) {
      offs = start ? start : lit_int(0);
    } else {
      TExprPtr ar = tl_call("arange", {lit_int(0), Lowerer::dim_to_expr(d)});
      offs = start ? binop("+", start, ar) : ar;
      std::string nm = r == 1 ? hint + "_offs" : hint + "_offs_" + std::to_string(k);
      offs = L.bind(nm, offs);
    }
    // Broadcast to the pointer rank: offs[None, :, None] etc. (scalars broadcast as they are).
    TExprPtr b = offs;
    if (!unit && pr > 1) {
      std::vector<TExprPtr> ix;
      for (size_t j = 0; j < pr; ++j) ix.push_back(j == pos[k] ? full_slice() : lit("None"));
      b = subscript(offs, ix);
    }
    if (!is_const(offs, "0")) ptrs = binop("+", ptrs, binop("*", b, array.strides[ax]));
    if (plan.strategy == AccessPlan::Strategy::PointerMask) {
      TExprPtr m = compare("<", b, array.shape[ax]);
      mask = mask ? binop("&", mask, m) : m;
    }
  }
  out.ptrs = ptrs;
  out.mask = mask;
  return out;
}

}  // namespace c2t::lower
