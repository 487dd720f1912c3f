// Element-space gather / scatter (cuTile §3.3) and the shared element
// addressing used by the atomics.
//
// cuTile checks bounds per dimension (0 <= idx_d < shape_d, negatives are
// out of bounds because indices are converted to uint64) and combines that
// with the user mask; a flattened `offset < numel` check would be wrong
// (TileGym moe.py:122-133). Out-of-bounds gathers read `padding_value`.
#include "lower/op_registry.h"
#include "lower/ops_common.h"
#include "lower/access_plan.h"
#include "lower/ops_element.h"

namespace c2t::lower {

std::optional<ElementAccess> element_access(OpCall& c, const std::string& indices_param, bool check_bounds,
                                            const std::string& hint) {
  LVal& a = c.arg("array");
  if (!a.ok()) return std::nullopt;
  if (a.info.kind != sema::VKind::Array) {
    c.L.error(c.at("array"), "ct." + c.op + " expects an array as its first argument");
    return std::nullopt;
  }
  const ArrayVal& arr = *a.array;
  LVal& idx = c.arg(indices_param);
  if (!idx.ok()) return std::nullopt;
  std::vector<LVal> ix = idx.info.kind == sema::VKind::Tuple ? idx.elems : std::vector<LVal>{idx};
  if ((int)ix.size() != arr.rank) {
    c.L.error(c.at(indices_param), "ct." + c.op + " needs one index per array axis (" + std::to_string(arr.rank) +
                                       "), got " + std::to_string(ix.size()));
    return std::nullopt;
  }
  ElementAccess out;
  out.array = a.array;
  sema::Shape shape;
  TExprPtr off, mask;
  for (int d = 0; d < arr.rank; ++d) {
    LVal& v = ix[d];
    if (!ops::is_number_like(v) || (v.info.dtype.is_float() && *v.info.dtype.is_float()) ||
        (v.info.cval && v.info.cval->kind != sema::ConstValue::Kind::Int)) {
      c.L.error(c.at(indices_param), "gather/scatter indices must be integer scalars or tiles");
      return std::nullopt;
    }
    auto s = sema::broadcast_shapes(shape, ops::shape_of(v));
    if (!s) {
      c.L.error(c.at(indices_param), "the index tiles cannot be broadcast together");
      return std::nullopt;
    }
    shape = *s;
    TExprPtr iv = v.expr;
    if (arr.int64_index) iv = ops::convert_expr(c.L, v, "tl.int64");
    if (!is_const(v.expr, "0")) {
      TExprPtr term = binop("*", iv, arr.strides[d]);
      off = off ? binop("+", off, term) : term;
    }
    if (check_bounds) {
      // Bind tile indices used twice (offset and mask) only when they are not names already.
      TExprPtr m = index_in_bounds(v.expr, arr.shape[d], ops::proven_nonneg(v));
      mask = mask ? binop("&", mask, m) : m;
    }
  }
  out.shape = shape;
  // With only compile-time indices the mask would be a Python bool whenever
  // Triton specializes the shape argument (an int argument equal to 1 is a
  // constexpr, H9); tl.cast makes it a tensor as tl.atomic_* require.
  bool any_runtime = false;
  for (auto& v : ix) any_runtime = any_runtime || v.info.is_runtime();
  if (mask && !any_runtime) mask = tl_call("cast", {mask, tl_attr("int1")});
  out.ptrs = off ? binop("+", arr.ptr, off) : arr.ptr;
  if (source(out.ptrs).size() > 60) out.ptrs = c.L.bind(hint + "_ptrs", out.ptrs);
  if (mask && source(mask).size() > 60) mask = c.L.bind(hint + "_mask", mask);
  out.mask = mask;
  return out;
}

void record_element_site(OpCall& c, const ElementAccess& ea, bool check_bounds) {
  AccessSiteReport s;
  s.op = c.op;
  s.array = ea.array->display;
  s.array_rank = ea.array->rank;
  s.tile_rank = (int)ea.shape.size();
  s.line = c.node->lineno;
  s.col = c.node->col_offset;
  s.strategy = check_bounds ? "pointer_mask" : "pointer_unmasked";
  s.tma_note = "element-space access: pointer path";
  c.L.report().accesses.push_back(s);
}

std::optional<BoundsCheck> bounds_check_arg(OpCall& c) {
  BoundsCheck bc;
  if (!c.has("check_bounds")) return bc;
  LVal& v = c.arg("check_bounds");
  if (v.info.cval && v.info.cval->kind == sema::ConstValue::Kind::Bool) {
    bc.on = v.info.cval->b;
    return bc;
  }
  if (v.info.kind == sema::VKind::Constexpr && v.expr) {
    bc.cond = v.expr;
    return bc;
  }
  if (v.ok()) c.L.error(c.at("check_bounds"), "check_bounds must be a compile-time bool");
  return std::nullopt;
}

TExprPtr when_checked(const BoundsCheck& bc, TExprPtr value, TExprPtr alt) {
  if (!bc.cond || !value) return value;
  return ifexp(bc.cond, value, alt ? alt : lit("None"));
}

std::optional<bool> check_bounds_arg(OpCall& c) {
  if (!c.has("check_bounds")) return true;
  LVal& v = c.arg("check_bounds");
  if (v.info.cval && v.info.cval->kind == sema::ConstValue::Kind::Bool) return v.info.cval->b;
  if (v.ok()) c.L.error(c.at("check_bounds"), "check_bounds must be a constant bool");
  return std::nullopt;
}

std::optional<TExprPtr> padding_value_arg(OpCall& c, const sema::DType& elem) {
  if (!c.has("padding_value")) return zero_padding(elem);
  LVal& p = c.arg("padding_value");
  if (!ops::is_number_like(p)) {
    if (p.ok()) c.L.error(c.at("padding_value"), "padding_value must be a number, scalar or tile");
    return std::nullopt;
  }
  // An integer constant padding a float array (fp8 included): tl.load casts
  // `other` to the element type and Triton cannot cast int -> fp8; the same
  // value as a float literal is exact up to 2^24 (fp32).
  const sema::DTypeDesc* d = elem.desc();
  bool int_array = d && (sema::is_int(d) || d->category == sema::DTypeCategory::Bool);
  if (!int_array && p.info.kind == sema::VKind::Constexpr && p.info.cval &&
      p.info.cval->kind == sema::ConstValue::Kind::Int && p.info.cval->i >= -(1LL << 24) &&
      p.info.cval->i <= (1LL << 24))
    return lit(std::to_string(p.info.cval->i) + ".0");
  return p.expr;
}

TExprPtr combine_user_mask(OpCall& c, TExprPtr mask, sema::Shape& shape) {
  if (!c.has("mask")) return mask;
  LVal& m = c.arg("mask");
  if (m.info.kind == sema::VKind::None) return mask;
  if (!ops::is_number_like(m)) {
    c.L.error(c.at("mask"), "mask must be a boolean tile or scalar");
    return nullptr;
  }
  auto s = sema::broadcast_shapes(shape, ops::shape_of(m));
  if (s) shape = *s;
  TExprPtr um = m.info.is_bool ? m.expr : compare("!=", m.expr, lit_int(0));
  return mask ? binop("&", mask, um) : um;
}

namespace {

LVal gather(OpCall& c) {
  auto bc = bounds_check_arg(c);
  if (!bc) return {};
  auto ea = element_access(c, "indices", bc->on, c.L.name_hint("gather"));
  if (!ea) return {};
  record_element_site(c, *ea, bc->on);
  c.L.note_footprint(ea->shape, false);
  TExprPtr user = combine_user_mask(c, nullptr, ea->shape);
  if (c.has("mask") && !user && c.L.failed()) return {};
  TExprPtr mask = when_checked(*bc, ea->mask && user ? binop("&", ea->mask, user) : ea->mask ? ea->mask : user, user);
  std::vector<std::pair<std::string, TExprPtr>> kw;
  if (mask) {
    kw.push_back({"mask", mask});
    auto other = padding_value_arg(c, ea->array->dtype);
    if (!other) return {};
    kw.push_back({"other", user ? *other : when_checked(*bc, *other, nullptr)});
  }
  // A tile padding_value or user mask can be larger than the index shape; tl.load broadcasts to the pointers.
  TExprPtr ptrs = ea->ptrs;
  return ops::make_value(tl_call("load", {ptrs}, kw), ea->shape, ea->array->dtype);
}

LVal scatter(OpCall& c) {
  auto bc = bounds_check_arg(c);
  if (!bc) return {};
  auto ea = element_access(c, "indices", bc->on, c.L.name_hint(c.arg("array").ok() && c.arg("array").array ? c.arg("array").array->display : "scatter"));
  if (!ea) return {};
  record_element_site(c, *ea, bc->on);
  c.L.note_footprint(ea->shape, false);
  LVal& v = c.arg("value");
  if (!v.ok()) return {};
  if (std::string no = ops::not_a_stored_value(v); !no.empty()) {
    c.L.error(c.at("value"), "ct.scatter stores a tile or a scalar" + no);
    return {};
  }
  TExprPtr user = combine_user_mask(c, nullptr, ea->shape);
  TExprPtr mask = when_checked(*bc, ea->mask && user ? binop("&", ea->mask, user) : ea->mask ? ea->mask : user, user);
  std::vector<std::pair<std::string, TExprPtr>> kw;
  if (mask) kw.push_back({"mask", mask});
  TExprPtr ptrs = ea->ptrs;
  // The value broadcasts to the index shape (cuTile); the pointers must have
  // the full shape when only the value is a tile.
  auto vs = ops::shape_of(v);
  bool ranks_known = !vs.unknown_rank && !ea->shape.unknown_rank;
  if (ranks_known && vs.size() > ea->shape.size()) {
    c.L.error(c.at("value"), "the scattered value must broadcast to the shape of the indices");
    return {};
  }
  return ops::make_none(tl_call("store", {ptrs, v.expr}, kw));
}

}  // namespace

void register_gather_ops(Registry& r) {
  r.add("gather", "gather", "array, indices, /, *, mask=, padding_value=, check_bounds=, latency=", gather,
        "tl.load(ptr + sum(idx_d * stride_d), mask=per-dimension bounds & mask, other=padding_value)");
  r.add("scatter", "gather", "array, indices, value, /, *, mask=, check_bounds=, latency=", scatter,
        "tl.store(ptr + sum(idx_d * stride_d), value, mask=per-dimension bounds & mask)");
}

}  // namespace c2t::lower
