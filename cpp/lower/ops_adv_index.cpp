// ct.load_advanced_indexing and its index entry ct.Slice (cuTile §3.3;
// reference/cutile_api.md table row "load_advanced_indexing", hard construct
// #9: paged-KV gathers in TileGym suites/flashinfer/cutile/fmha_decode_bsr.py).
//
//   ct.load_advanced_indexing(array, (page_ids, ct.Slice(tok, L), ct.Slice(h, 1), ct.Slice(0, D)),
//                             padding_mode=ct.PaddingMode.ZERO)
//
// `indices` has one entry per array axis: exactly one 1-D integer tile (the
// sparse axis: ELEMENT indices) and ct.Slice(start, length) on every other
// axis (runtime element start, constant power-of-two length). Result shape:
// (len(sparse), length, ...) in axis order; out-of-bounds elements on any
// axis read the padding value. Lowered as a pointer gather: per axis an
// index vector (the sparse tile, or start + tl.arange(0, length)) broadcast
// to its own result axis, offset = sum idx_d * stride_d, mask = per-axis
// 0 <= idx_d < shape_d, other = padding (zero for UNDETERMINED).
// cuTile's TMA gather (Blackwell) has no sm_90 Triton equivalent
// (triton_target.md H14), so there is no descriptor path here.
#include "lower/access_plan.h"
#include "lower/op_registry.h"
#include "lower/ops_common.h"

namespace c2t::lower {

namespace {

// ct.Slice(start, length): a compile-time index entry, only meaningful inside
// the indices of the advanced-indexing ops.
LVal slice_entry(OpCall& c) {
  LVal& start = c.arg("start");
  LVal& length = c.arg("length");
  if (!start.ok() || !length.ok()) return {};
  if (!ops::is_number_like(start) || start.info.kind == sema::VKind::Tile ||
      (start.info.dtype.is_float() && *start.info.dtype.is_float())) {
    c.L.error(c.at("start"), "ct.Slice start must be an integer scalar");
    return {};
  }
  // A literal or a ct.Constant parameter (fmha_decode_bsr.py: ct.Slice(0, BLOCK_D)).
  auto len = c.L.shape_arg(length, c.at("length"), "the length of ct.Slice");
  if (!len || len->size() != 1) return {};
  if (auto v = (*len)[0].value; v && (*v <= 0 || (*v & (*v - 1)) != 0)) {
    c.L.error(c.at("length"), "ct.Slice length must be a positive power of two (got " + std::to_string(*v) + ")");
    return {};
  }
  length.info.shape = *len;  // carried to load_advanced_indexing as the entry's extent
  LVal out;
  out.info.kind = sema::VKind::Slice;
  out.node = c.node;
  out.slice_parts = {std::make_shared<LVal>(start), std::make_shared<LVal>(length)};
  return out;
}

// Pointers, bounds mask and tile shape of advanced indexing (shared by the
// load and the store): one 1-D integer tile on the sparse axis, a
// ct.Slice(start, length) on every other axis.
struct AdvancedAccess {
  TExprPtr ptrs, mask;
  sema::Shape shape;
};

std::optional<AdvancedAccess> advanced_access(OpCall& c, const std::string& what) {
  LVal& a = c.arg("array");
  if (!a.ok()) return std::nullopt;
  if (a.info.kind != sema::VKind::Array) {
    c.L.error(c.at("array"), what + " expects an array as its first argument");
    return std::nullopt;
  }
  const ArrayVal& arr = *a.array;
  LVal& idx = c.arg("indices");
  if (!idx.ok()) return std::nullopt;
  std::vector<LVal> ix = idx.info.kind == sema::VKind::Tuple ? idx.elems : std::vector<LVal>{idx};
  if ((int)ix.size() != arr.rank || arr.rank < 2) {
    c.L.error(c.at("indices"), what + " needs one index entry per array axis (rank " +
                                   std::to_string(arr.rank) + ", at least 2), got " + std::to_string(ix.size()));
    return std::nullopt;
  }
  std::string hint = c.L.name_hint(what == "ct.load_advanced_indexing" ? "gathered" : "scattered");
  size_t r = ix.size();
  int sparse = -1;
  AdvancedAccess out;
  std::vector<TExprPtr> axis_idx;
  for (size_t d = 0; d < r; ++d) {
    LVal& v = ix[d];
    if (v.info.kind == sema::VKind::Slice) {
      LVal& start = *v.slice_parts[0];
      sema::Dim len = v.slice_parts[1]->info.shape.at(0);
      TExprPtr ar = tl_call("arange", {lit_int(0), Lowerer::dim_to_expr(len)});
      TExprPtr e = is_const(start.expr, "0") ? ar : binop("+", start.expr, ar);
      if (arr.int64_index) e = tl_call("cast", {e, tl_attr("int64")});
      axis_idx.push_back(c.L.bind(hint + "_idx_" + std::to_string(d), e));
      out.shape.push_back(len);
      continue;
    }
    sema::Shape s = ops::shape_of(v);
    bool int_tile = v.info.kind == sema::VKind::Tile && s.size() == 1 &&
                    !(v.info.dtype.is_float() && *v.info.dtype.is_float());
    if (!int_tile || sparse >= 0) {
      c.L.error(c.at("indices"), what + " takes exactly one 1-D integer tile (the sparse axis) "
                                 "and ct.Slice(start, length) on every other axis");
      return std::nullopt;
    }
    sparse = (int)d;
    TExprPtr e = v.expr;
    if (arr.int64_index) e = tl_call("cast", {e, tl_attr("int64")});
    axis_idx.push_back(is_name(e) ? e : c.L.bind(hint + "_idx_" + std::to_string(d), e));
    out.shape.push_back(s[0]);
  }
  if (sparse < 0) {
    c.L.error(c.at("indices"), what + " needs one 1-D integer tile index (the sparse axis)");
    return std::nullopt;
  }
  out.ptrs = arr.ptr;
  for (size_t d = 0; d < r; ++d) {
    std::vector<TExprPtr> sub;
    for (size_t j = 0; j < r; ++j) sub.push_back(j == d ? full_slice() : lit("None"));
    TExprPtr b = subscript(axis_idx[d], sub);
    out.ptrs = binop("+", out.ptrs, binop("*", b, arr.strides[d]));
    TExprPtr m = index_in_bounds(b, arr.shape[d]);
    out.mask = out.mask ? binop("&", out.mask, m) : m;
  }
  out.mask = c.L.bind(hint + "_mask", out.mask);
  return out;
}

LVal load_advanced_indexing(OpCall& c) {
  auto acc = advanced_access(c, "ct.load_advanced_indexing");
  if (!acc) return {};
  auto padding_mode = padding_mode_arg(c);
  if (!padding_mode) return {};
  const ArrayVal& arr = *c.arg("array").array;
  TExprPtr other = padding_value(c.L, *padding_mode, arr.dtype);
  auto e = tl_call("load", {acc->ptrs}, {{"mask", acc->mask}, {"other", other}});
  return ops::make_value(e, acc->shape, arr.dtype);
}

// cuTile: "The tile's shape must exactly match the shape implied by the
// indices" (a scalar is stored into every element); tl.store converts to the
// element type (cuTile allows only widening casts).
LVal store_advanced_indexing(OpCall& c) {
  auto acc = advanced_access(c, "ct.store_advanced_indexing");
  if (!acc) return {};
  LVal& tile = c.arg("tile");
  if (!tile.ok()) return {};
  if (std::string no = ops::not_a_stored_value(tile); !no.empty()) {
    c.L.error(c.at("tile"), "ct.store_advanced_indexing stores a tile or a scalar" + no);
    return {};
  }
  sema::Shape ts = ops::shape_of(tile);
  bool exact = ts.empty() || (!ts.unknown_rank && ts.size() == acc->shape.size());
  for (size_t k = 0; exact && !ts.empty() && k < ts.size(); ++k)
    exact = !(ts[k].value && acc->shape[k].value && *ts[k].value != *acc->shape[k].value);
  if (!exact) {
    c.L.error(c.at("tile"), "the tile's shape must match the shape the indices imply exactly");
    return {};
  }
  return ops::make_none(tl_call("store", {acc->ptrs, tile.expr}, {{"mask", acc->mask}}));
}

}  // namespace

void register_adv_index_ops(Registry& r) {
  r.add("Slice", "gather", "start, length, /", slice_entry, "index entry: start + tl.arange(0, length) on its axis");
  r.add("load_advanced_indexing", "gather", "array, indices, /, *, padding_mode=, latency=, allow_tma=",
        load_advanced_indexing,
        "tl.load(ptr + sum(idx_d[axis d] * stride_d), mask=per-axis 0 <= idx_d < shape_d, other=padding)");
  r.add("store_advanced_indexing", "gather", "array, indices, tile, /, *, latency=, allow_tma=",
        store_advanced_indexing, "tl.store(ptr + sum(idx_d[axis d] * stride_d), tile, mask=per-axis bounds)");
}

}  // namespace c2t::lower
