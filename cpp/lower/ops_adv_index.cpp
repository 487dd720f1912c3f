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

LVal load_advanced_indexing(OpCall& c) {
  LVal& a = c.arg("array");
  if (!a.ok()) return {};
  if (a.info.kind != sema::VKind::Array) {
    c.L.error(c.at("array"), "ct.load_advanced_indexing expects an array as its first argument");
    return {};
  }
  const ArrayVal& arr = *a.array;
  LVal& idx = c.arg("indices");
  if (!idx.ok()) return {};
  std::vector<LVal> ix = idx.info.kind == sema::VKind::Tuple ? idx.elems : std::vector<LVal>{idx};
  if ((int)ix.size() != arr.rank || arr.rank < 2) {
    c.L.error(c.at("indices"), "ct.load_advanced_indexing needs one index entry per array axis (rank " +
                                   std::to_string(arr.rank) + ", at least 2), got " + std::to_string(ix.size()));
    return {};
  }
  auto padding_mode = padding_mode_arg(c);
  if (!padding_mode) return {};
  const std::string& padding = *padding_mode;
  std::string hint = c.L.name_hint("gathered");
  size_t r = ix.size();
  int sparse = -1;
  sema::Shape shape;
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
      shape.push_back(len);
      continue;
    }
    sema::Shape s = ops::shape_of(v);
    bool int_tile = v.info.kind == sema::VKind::Tile && s.size() == 1 &&
                    !(v.info.dtype.is_float() && *v.info.dtype.is_float());
    if (!int_tile || sparse >= 0) {
      c.L.error(c.at("indices"), "ct.load_advanced_indexing takes exactly one 1-D integer tile (the sparse axis) "
                                 "and ct.Slice(start, length) on every other axis");
      return {};
    }
    sparse = (int)d;
    TExprPtr e = v.expr;
    if (arr.int64_index) e = tl_call("cast", {e, tl_attr("int64")});
    axis_idx.push_back(is_name(e) ? e : c.L.bind(hint + "_idx_" + std::to_string(d), e));
    shape.push_back(s[0]);
  }
  if (sparse < 0) {
    c.L.error(c.at("indices"), "ct.load_advanced_indexing needs one 1-D integer tile index (the sparse axis)");
    return {};
  }
  TExprPtr ptrs = arr.ptr, mask;
  for (size_t d = 0; d < r; ++d) {
    std::vector<TExprPtr> sub;
    for (size_t j = 0; j < r; ++j) sub.push_back(j == d ? full_slice() : lit("None"));
    TExprPtr b = subscript(axis_idx[d], sub);
    ptrs = binop("+", ptrs, binop("*", b, arr.strides[d]));
    TExprPtr m = index_in_bounds(b, arr.shape[d]);
    mask = mask ? binop("&", mask, m) : m;
  }
  mask = c.L.bind(hint + "_mask", mask);
  TExprPtr other = padding_value(c.L, padding, arr.dtype);
  auto e = tl_call("load", {ptrs}, {{"mask", mask}, {"other", other}});
  return ops::make_value(e, shape, arr.dtype);
}

}  // namespace

void register_adv_index_ops(Registry& r) {
  r.add("Slice", "gather", "start, length, /", slice_entry, "index entry: start + tl.arange(0, length) on its axis");
  r.add("load_advanced_indexing", "gather", "array, indices, /, *, padding_mode=, latency=, allow_tma=",
        load_advanced_indexing,
        "tl.load(ptr + sum(idx_d[axis d] * stride_d), mask=per-axis 0 <= idx_d < shape_d, other=padding)");
}

}  // namespace c2t::lower
