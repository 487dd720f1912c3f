// ct.insert / Tile.insert and ct.astile (cuTile §3.7; _stub.py insert,
// astile; _ir/ops.py insert_impl, astile_impl). Triton has no register
// sub-tile writes and no tile literals; both are exact selections:
//
//  * insert(x, index, value): every axis d of x splits into (n_d, s_d) with
//    s_d = value.shape[d], n_d = x.shape[d] / s_d; the sub-tile `index` is
//    selected with a mask on the n_d axes:
//      tl.reshape(tl.where(mask, value[None-split], tl.reshape(x, split)), x.shape)
//    cuTile requires value's dtype to be x's (a 0-d value is a unit sub-tile).
//  * astile(value, dtype): a scalar -> the scalar cast to dtype (0-d tiles are
//    scalars in Triton); a (nested) tuple of scalars -> a 1-D tile built by a
//    tl.where chain over tl.arange, reshaped to the nesting's shape. Every
//    element is cast to dtype first (cuTile: astype per element).
#include "lower/op_registry.h"
#include "lower/ops_common.h"

namespace c2t::lower {

namespace {

LVal insert(OpCall& c) {
  LVal& x = c.arg("x");
  LVal& v = c.arg("value");
  LVal& idx = c.arg("index");
  if (!x.ok() || !v.ok() || !idx.ok()) return {};
  if (x.info.kind != sema::VKind::Tile) {
    c.L.error(c.at("x"), "ct.insert inserts into a tile");
    return {};
  }
  if (x.info.shape.unknown_rank) {
    c.L.unsupported(c.node, "insert unknown rank", "ct.insert into a tile whose rank is chosen by a constexpr is not supported");
    return {};
  }
  if (v.info.kind != sema::VKind::Tile && v.info.kind != sema::VKind::Scalar) {
    c.L.error(c.at("value"), "ct.insert: value must be a tile (or a 0-d tile) of the destination's dtype");
    return {};
  }
  const auto& xd = x.info.dtype;
  const auto& vd = v.info.dtype;
  if (x.info.is_bool != v.info.is_bool || (xd.known() && vd.known() && xd.name != vd.name)) {
    c.L.error(c.at("value"), "ct.insert: cannot insert a tile of dtype " + (v.info.is_bool ? std::string("bool_") : vd.name) +
                                 " into a tile of dtype " + (x.info.is_bool ? std::string("bool_") : xd.name));
    return {};
  }
  int rank = (int)x.info.shape.size();
  bool scalar = v.info.kind == sema::VKind::Scalar;
  ops::fill_extents(c.L, x);  // the split below prints them
  ops::fill_extents(c.L, v);
  sema::Shape sub = scalar ? sema::Shape(rank, sema::Dim::known(1)) : v.info.shape;
  if ((int)sub.size() != rank) {
    c.L.error(c.at("value"), "ct.insert: value rank " + std::to_string(sub.size()) + " does not match the tile rank " +
                                 std::to_string(rank));
    return {};
  }
  std::vector<LVal> ix = idx.info.kind == sema::VKind::Tuple ? idx.elems : std::vector<LVal>{idx};
  if ((int)ix.size() != rank) {
    c.L.error(c.at("index"), "ct.insert: the index needs one entry per tile axis");
    return {};
  }
  sema::Shape split;
  for (int d = 0; d < rank; ++d) {
    auto& X = x.info.shape[d];
    auto& S = sub[d];
    if (X.value && S.value && (*S.value <= 0 || *X.value % *S.value != 0)) {
      c.L.error(c.at("value"), "ct.insert: the value's shape must evenly divide the tile's shape");
      return {};
    }
    sema::Dim n = X.value && S.value ? sema::Dim::known(*X.value / *S.value)
                  : S.is_one()         ? X
                                       : sema::Dim::sym(std::string("(").append(source(Lowerer::dim_to_expr(X))) +
                                                      ") // (" + source(Lowerer::dim_to_expr(S)) + ")");
    auto& iv = ix[d];
    if (!ops::is_number_like(iv) || iv.info.kind == sema::VKind::Tile) {
      c.L.error(c.at("index"), "ct.insert: index entries must be integer scalars");
      return {};
    }
    if (iv.info.cval && iv.info.cval->kind == sema::ConstValue::Kind::Float) {
      c.L.error(c.at("index"), "ct.insert: index entries must be integers (got " + iv.info.cval->python() + ")");
      return {};
    }
    if (iv.info.cval && iv.info.cval->is_number()) {
      double k = iv.info.cval->as_double();
      if (k < 0 || (n.value && k >= *n.value)) {
        c.L.error(c.at("index"), "ct.insert: sub-tile index " + iv.info.cval->python() + " is out of range on axis " +
                                     std::to_string(d));
        return {};
      }
      // An extent known only per specialization (a Constant tile size):
      // cuTile rejects an out-of-range constant index when compiling it.
      if (!n.value && k > 0)  // (index 0 always exists)
        c.L.emit(TStmt::expr(tl_call("static_assert",
                                     {compare("<", iv.expr, Lowerer::dim_to_expr(n)),
                                      lit_str("ct.insert: sub-tile index out of range on axis " + std::to_string(d))})));
    }
    split.push_back(n);
    split.push_back(S);
  }
  // Mask over the sub-tile grid axes (positions 2d of the split shape).
  TExprPtr sel;
  for (int d = 0; d < rank; ++d) {
    if (split[2 * d].is_one()) continue;
    std::vector<TExprPtr> ixs;
    for (int k = 0; k < 2 * rank; ++k) ixs.push_back(k == 2 * d ? full_slice() : lit("None"));
    TExprPtr m = compare("==", subscript(tl_call("arange", {lit_int(0), Lowerer::dim_to_expr(split[2 * d])}), ixs),
                         ix[d].expr);
    sel = sel ? binop("&", sel, m) : m;
  }
  TExprPtr val = v.expr;
  if (!xd.same(vd) && !(xd.known() && vd.known())) {
    // dtypes known only to Triton: cuTile requires them equal; keep x's dtype
    // (tl.where would promote) so the result is x's dtype either way.
    TExprPtr t = c.L.dtype_expr(xd, &x);
    if (!t) t = attr(c.L.as_name(x, "x"), "dtype");
    val = method(val, "to", {t});
  }
  if (!scalar) {
    sema::Shape vs;
    for (int d = 0; d < rank; ++d) {
      vs.push_back(sema::Dim::known(1));
      vs.push_back(sub[d]);
    }
    val = tl_call("reshape", {val, ops::shape_list(vs)});
  }
  TExprPtr e;
  if (sel) e = tl_call("where", {sel, val, tl_call("reshape", {x.expr, ops::shape_list(split)})});
  else e = tl_call("broadcast_to", {val, ops::shape_list(split)});  // the sub-tile is the whole tile
  e = tl_call("reshape", {e, ops::shape_list(x.info.shape)});
  return ops::make_value(e, x.info.shape, x.info.dtype, sema::sign_join(x.info.sign, v.info.sign));
}

// Shape of a (nested) tuple for astile (from its first elements), then the
// leaves in row-major order; false + diagnostic unless every tuple at depth d
// has length shape[d], a power of two (cuTile's rule), and leaves are scalars.
bool tuple_shape(OpCall& c, const LVal& v, sema::Shape& shape) {
  for (const LVal* t = &v; t->info.kind == sema::VKind::Tuple; t = &t->elems[0]) {
    long long n = (long long)t->elems.size();
    if (n == 0 || (n & (n - 1)) != 0) {
      c.L.error(c.at("value"), "ct.astile: every tuple length must be a power of two (got " + std::to_string(n) + ")");
      return false;
    }
    shape.push_back(sema::Dim::known(n));
  }
  return true;
}

bool tuple_leaves(OpCall& c, const LVal& v, const sema::Shape& shape, size_t depth, std::vector<const LVal*>& leaves) {
  if (v.info.kind == sema::VKind::Tuple) {
    if (depth >= shape.size() || (long long)v.elems.size() != *shape[depth].value) {
      c.L.error(c.at("value"), "ct.astile: sibling tuples must have the same length and nesting");
      return false;
    }
    for (auto& e : v.elems)
      if (!tuple_leaves(c, e, shape, depth + 1, leaves)) return false;
    return true;
  }
  if (depth != shape.size()) {
    c.L.error(c.at("value"), "ct.astile: sibling tuples must have the same length and nesting");
    return false;
  }
  if (!ops::is_number_like(v) || v.info.kind == sema::VKind::Tile) {
    c.L.error(c.at("value"), "ct.astile takes a scalar or a (nested) tuple of scalars");
    return false;
  }
  leaves.push_back(&v);
  return true;
}

LVal astile(OpCall& c) {
  LVal& v = c.arg("value");
  LVal& dt = c.arg("dtype");
  if (!v.ok() || !dt.ok()) return {};
  if (dt.info.kind != sema::VKind::DTypeV) {
    c.L.error(c.at("dtype"), "ct.astile: dtype must be a cuTile dtype");
    return {};
  }
  if (v.info.kind != sema::VKind::Tuple) {
    if (!ops::is_number_like(v) || v.info.kind == sema::VKind::Tile) {
      c.L.error(c.at("value"), "ct.astile takes a scalar or a (nested) tuple of scalars");
      return {};
    }
    return ops::cast_to(c.L, v, dt.info.dtype, c.node);
  }
  sema::Shape shape;
  std::vector<const LVal*> leaves;
  if (!tuple_shape(c, v, shape) || !tuple_leaves(c, v, shape, 0, leaves)) return {};
  auto tdt = c.L.dtype_expr(dt.info.dtype);
  if (!tdt) {
    c.L.unsupported(c.at("dtype"), "astile dtype", "ct.astile to " + dt.info.dtype.name + " is not supported");
    return {};
  }
  long long n = (long long)leaves.size();
  TExprPtr pos = c.L.bind("pos", tl_call("arange", {lit_int(0), lit_int(n)}));
  // Element 0 fills the tile, then element k is selected where pos == k.
  TExprPtr acc;
  for (long long k = 0; k < n; ++k) {
    LVal el = *leaves[k];
    LVal cv = ops::cast_to(c.L, el, dt.info.dtype, c.node);
    if (!cv.ok()) return {};
    TExprPtr ex = cv.info.kind == sema::VKind::Constexpr ? tl_call("cast", {cv.expr, tdt}) : cv.expr;
    acc = k == 0 ? tl_call("broadcast_to", {ex, list({lit_int(n)})})
                 : tl_call("where", {compare("==", pos, lit_int(k)), ex, acc});
  }
  if (shape.size() > 1) acc = tl_call("reshape", {acc, ops::shape_list(shape)});
  LVal r = ops::make_value(acc, shape, dt.info.dtype);
  r.info.is_bool = dt.info.dtype.is("bool_");
  return r;
}

}  // namespace

void register_insert_ops(Registry& r) {
  r.add("insert", "shape", "x, /, index, value", insert,
        "reshape to (n_d, s_d) axes + tl.where(sub-tile mask, value, x) + reshape back (exact)");
  r.add("Tile.insert", "shape", "x, index, value", insert,
        "reshape to (n_d, s_d) axes + tl.where(sub-tile mask, value, x) + reshape back (exact)");
  r.add("astile", "factory", "value, /, *, dtype", astile,
        "scalar: cast; tuple: tl.where(tl.arange(0, n) == k, v_k, ...) chain over the elements, reshaped");
}

}  // namespace c2t::lower
