// Shape manipulation (cuTile §3.7): new-axis subscripts, expand_dims,
// broadcast_to, reshape, permute, transpose, cat, extract, item.
#include <algorithm>
#include "lower/op_registry.h"
#include "lower/ops_common.h"
#include "sema/dtype.h"

namespace c2t::lower {

namespace ops {

LVal newaxis_subscript(Lowerer& L, LVal base, const syntax::Node* slice, const syntax::Node* at) {
  std::vector<const syntax::Node*> items;
  if (slice->is("Tuple")) {
    for (auto& v : slice->list("elts"))
      if (v.node) items.push_back(v.node);
  } else {
    items.push_back(slice);
  }
  // Tile subscripts may only insert axes (None), keep axes (':') or stand for
  // the remaining axes ('...').
  size_t kept = 0;
  bool ellipsis = false;
  for (auto* it : items) {
    bool is_none = it->is("Constant") && it->get("value") && it->get("value")->kind == syntax::Value::Kind::Null;
    bool is_ell = it->is("Constant") && it->get("value") && it->get("value")->kind == syntax::Value::Kind::Ellipsis;
    bool is_full = it->is("Slice") && !it->child("lower") && !it->child("upper") && !it->child("step");
    if (is_ell) {
      if (ellipsis) { L.error(it, "only one '...' is allowed"); return {}; }
      ellipsis = true;
    } else if (is_full) {
      ++kept;
    } else if (!is_none) {
      L.error(it, "tiles can only be subscripted with None, ':' and '...' (use ct.extract or .item() for elements)");
      return {};
    }
  }
  if (base.info.shape.unknown_rank) {
    std::vector<TExprPtr> index;
    for (auto* it : items) {
      bool is_none = it->is("Constant") && it->get("value") && it->get("value")->kind == syntax::Value::Kind::Null;
      bool is_ell = it->is("Constant") && it->get("value") && it->get("value")->kind == syntax::Value::Kind::Ellipsis;
      index.push_back(is_none ? lit("None") : is_ell ? lit("...") : full_slice());
    }
    LVal r = make_value(subscript(base.expr, index), sema::Shape::unknown(), base.info.dtype, base.info.sign);
    r.info.is_bool = base.info.is_bool;
    return r;
  }
  size_t rank = base.info.shape.size();
  if (kept > rank) { L.error(at, "too many ':' for a tile of rank " + std::to_string(rank)); return {}; }
  size_t fill = ellipsis ? rank - kept : 0;
  if (!ellipsis && kept < rank) fill = rank - kept;  // implicit trailing axes
  sema::Shape shape;
  std::vector<TExprPtr> index;
  size_t src = 0;
  bool trailing_implicit = !ellipsis;
  for (auto* it : items) {
    bool is_none = it->is("Constant") && it->get("value") && it->get("value")->kind == syntax::Value::Kind::Null;
    bool is_ell = it->is("Constant") && it->get("value") && it->get("value")->kind == syntax::Value::Kind::Ellipsis;
    if (is_none) {
      shape.push_back(sema::Dim::known(1));
      index.push_back(lit("None"));
    } else if (is_ell) {
      for (size_t k = 0; k < fill; ++k) { shape.push_back(base.info.shape[src++]); index.push_back(full_slice()); }
    } else {
      shape.push_back(base.info.shape[src++]);
      index.push_back(full_slice());
    }
  }
  if (trailing_implicit)
    while (src < rank) { shape.push_back(base.info.shape[src++]); index.push_back(full_slice()); }
  if (base.info.kind == sema::VKind::Scalar && !shape.empty()) {
    // Triton cannot subscript a scalar; broadcast it instead.
    std::vector<TExprPtr> dims(shape.size(), lit_int(1));
    return make_value(tl_call("full", {list(dims), base.expr, L.dtype_expr(base.info.dtype, &base)}), shape,
                      base.info.dtype, base.info.sign);
  }
  LVal r = make_value(subscript(base.expr, index), shape, base.info.dtype, base.info.sign);
  r.info.is_bool = base.info.is_bool;
  index_bounds::carry(r, base);  // new unit axes: the same elements
  return r;
}

void fill_extents(Lowerer& L, LVal& v) {
  for (size_t k = 0; k < v.info.shape.size(); ++k)
    if (!v.info.shape[k].value && v.info.shape[k].expr.empty()) v.info.shape[k].expr = source(L.dim_expr(v, k));
}

}  // namespace ops

namespace {

LVal tile_arg(OpCall& c, const std::string& p) {
  LVal& x = c.arg(p);
  if (!x.ok()) return {};
  if (x.info.kind != sema::VKind::Tile && x.info.kind != sema::VKind::Scalar) {
    c.L.error(c.at(p), "ct." + c.op + " expects a tile");
    return {};
  }
  ops::fill_extents(c.L, x);
  return x;
}

std::optional<std::vector<long long>> perm_arg(OpCall& c, const std::string& p, int rank) {
  LVal& v = c.arg(p);
  if (!v.info.cval || v.info.cval->kind != sema::ConstValue::Kind::Tuple || (int)v.info.cval->items.size() != rank) {
    if (v.ok()) c.L.error(c.at(p), "axes must be a constant permutation of the tile's axes");
    return std::nullopt;
  }
  std::vector<long long> out;
  std::vector<bool> seen(rank, false);
  for (auto& it : v.info.cval->items) {
    long long a = it.kind == sema::ConstValue::Kind::Int ? (it.i < 0 ? it.i + rank : it.i) : -1;
    if (a < 0 || a >= rank || seen[a]) {
      c.L.error(c.at(p), "axes must be a permutation of the tile's axes");
      return std::nullopt;
    }
    seen[a] = true;
    out.push_back(a);
  }
  return out;
}

// The same elements in another shape or order: what is known of them holds still.
LVal keep_bool(LVal r, const LVal& x) {
  r.info.is_bool = x.info.is_bool;
  index_bounds::carry(r, x);
  return r;
}

LVal permute_to(LVal& x, const std::vector<long long>& perm) {
  sema::Shape s;
  std::vector<TExprPtr> ax;
  for (long long a : perm) {
    s.push_back(x.info.shape[a]);
    ax.push_back(lit_int(a));
  }
  LVal r = perm.size() == 2 && perm[0] == 1
               ? keep_bool(ops::make_value(tl_call("trans", {x.expr}), s, x.info.dtype, x.info.sign), x)
               : keep_bool(ops::make_value(tl_call("permute", {x.expr, tuple(ax)}), s, x.info.dtype, x.info.sign), x);
  r.origin = TileOrigin::permuted(x.origin, perm);  // a loaded tile's axes, permuted (lower/k_major.h)
  return r;
}

std::string product(const sema::Shape& s) {
  long long known = 1;
  std::string sym;
  for (auto& d : s) {
    if (d.value) known *= *d.value;
    else sym += (sym.empty() ? "" : " * ") + (d.expr.find(' ') == std::string::npos ? d.expr : "(" + d.expr + ")");
  }
  if (sym.empty()) return std::to_string(known);
  return known == 1 ? sym : std::to_string(known) + " * " + sym;
}

// Whether two shapes certainly hold different numbers of elements: their known extents' products
// differ while their symbolic extents are the same texts (a symbolic extent is a positive tile
// dimension, so 2 * T never equals T). Symbolic extents that differ (T against N) may be equal.
bool certainly_different_counts(const sema::Shape& a, const sema::Shape& b) {
  auto split = [](const sema::Shape& s, long long& known, std::vector<std::string>& sym) {
    for (auto& d : s)
      if (d.value) known *= *d.value;
      else if (d.expr.empty()) return false;
      else sym.push_back(d.expr);
    std::sort(sym.begin(), sym.end());
    return !s.unknown_rank;
  };
  long long ka = 1, kb = 1;
  std::vector<std::string> sa, sb;
  return split(a, ka, sa) && split(b, kb, sb) && sa == sb && ka != kb;
}

LVal reshape(OpCall& c) {
  LVal x = tile_arg(c, "x");
  if (!x.ok()) return {};
  LVal& sh = c.arg("shape");
  if (!sh.ok()) return {};
  std::vector<LVal> items = sh.info.kind == sema::VKind::Tuple ? sh.elems : std::vector<LVal>{sh};
  sema::Shape out;
  int infer = -1;
  for (size_t k = 0; k < items.size(); ++k) {
    auto& it = items[k];
    if (it.info.cval && it.info.cval->kind == sema::ConstValue::Kind::Int && it.info.cval->i == -1) {
      if (infer >= 0) { c.L.error(c.at("shape"), "only one -1 is allowed in a reshape"); return {}; }
      infer = (int)k;
      out.push_back(sema::Dim{});
      continue;
    }
    LVal tmp = it;
    auto d = c.L.shape_arg(tmp, c.at("shape"), "the new shape");
    if (!d || d->size() != 1) return {};
    out.push_back((*d)[0]);
  }
  if (infer >= 0) {
    sema::Shape others = out;
    others.erase(others.begin() + infer);
    std::string total = product(x.info.shape), rest = product(others);
    bool all_known = true;
    long long tk = 1, rk = 1;
    for (auto& d : x.info.shape) { all_known = all_known && d.value.has_value(); if (d.value) tk *= *d.value; }
    for (auto& d : others) { all_known = all_known && d.value.has_value(); if (d.value) rk *= *d.value; }
    out[infer] = all_known && rk ? sema::Dim::known(tk / rk) : sema::Dim::sym("(" + total + ") // (" + rest + ")");
  }
  // cuTile's reshape keeps the element count (Triton's would fail later, naming no shapes).
  sema::Shape from = x.info.kind == sema::VKind::Scalar ? sema::Shape{} : x.info.shape;
  if (infer < 0 && certainly_different_counts(from, out)) {
    c.L.error(c.at("shape"), "the new shape has " + product(out) + " elements but the tile has " + product(from) +
                                 " (a reshape keeps the number of elements)");
    return {};
  }
  if (out.empty()) {
    // reshape to () = the single element as a scalar.
    return ops::make_value(call(name(c.L.prelude("_c2t_item")), {x.expr}), {}, x.info.dtype, x.info.sign);
  }
  if (x.info.kind == sema::VKind::Scalar)
    return ops::make_value(tl_call("full", {ops::shape_list(out), x.expr, c.L.dtype_expr(x.info.dtype, &x)}), out,
                           x.info.dtype, x.info.sign);
  bool same = out.size() == x.info.shape.size();
  for (size_t k = 0; same && k < out.size(); ++k) same = out[k].same(x.info.shape[k]);
  if (same) return x;
  // Row-major reshape, as cuTile's (can_reorder stays False).
  return keep_bool(ops::make_value(ops::reshaped(x.expr, x.info.shape, out), out, x.info.dtype, x.info.sign), x);
}

LVal transpose(OpCall& c) {
  LVal x = tile_arg(c, "x");
  if (!x.ok()) return {};
  if (x.info.shape.unknown_rank) {
    c.L.error(c.node, "ct.transpose needs a tile whose rank is known at conversion time (this one's depends on a "
                      "constexpr branch)");
    return {};
  }
  int rank = (int)x.info.shape.size();
  bool has0 = c.has("axis0") && c.arg("axis0").info.kind != sema::VKind::None;
  bool has1 = c.has("axis1") && c.arg("axis1").info.kind != sema::VKind::None;
  std::vector<long long> perm(rank);
  for (int k = 0; k < rank; ++k) perm[k] = k;
  if (!has0 && !has1) {
    if (rank != 2) {
      c.L.error(c.node, "transpose without axes needs a 2-D tile");
      return {};
    }
    perm = {1, 0};
  } else {
    auto a0 = ops::axis_arg(c, "axis0", rank), a1 = ops::axis_arg(c, "axis1", rank);
    if (!a0 || !a1) return {};
    std::swap(perm[*a0], perm[*a1]);
  }
  return permute_to(x, perm);
}

// ct.cat((a, b), axis): cuTile's tiles are powers of two, so a and b have one shape (cuTile's
// _stub.py); a one-tile tuple is that tile (cutile-python's test_cat). `axis` may be a
// ct.Constant[int]: the permutation and the result's extents are then constexpr conditionals
// on it, which Triton's code generator folds.
LVal cat(OpCall& c) {
  LVal& t = c.arg("tiles");
  if (!t.ok()) return {};
  if (t.info.kind != sema::VKind::Tuple || t.elems.empty() || t.elems.size() > 2) {
    c.L.error(c.at("tiles"), "ct.cat concatenates one or two tiles given as a tuple");
    return {};
  }
  LVal a = t.elems[0], b = t.elems.size() == 2 ? t.elems[1] : t.elems[0];
  if (a.info.kind != sema::VKind::Tile || b.info.kind != sema::VKind::Tile || a.info.shape.size() != b.info.shape.size()) {
    c.L.error(c.at("tiles"), "ct.cat needs two tiles of the same rank");
    return {};
  }
  if (a.info.shape.unknown_rank || b.info.shape.unknown_rank) {
    c.L.error(c.at("tiles"), "ct.cat needs tiles whose rank is known at conversion time (this one's depends on a "
                             "constexpr branch)");
    return {};
  }
  int rank = (int)a.info.shape.size();
  bool sym_ok = true;
  TExprPtr sym_axis = ops::constexpr_axis(c, "axis", sym_ok);
  if (!sym_ok) return {};
  if (sym_axis && !c.L.in_conditional_expression())  // the axis is only known to Triton: checked there, as cuTile does
    c.L.emit(TStmt::expr(tl_call("static_assert",
                                 {boolop("and", {compare("<=", lit_int(-rank), sym_axis), compare("<", sym_axis, lit_int(rank))}),
                                  lit_str("line " + std::to_string(c.node->lineno) + ": ct.cat's axis is out of range "
                                          "for tiles of rank " + std::to_string(rank))})));
  std::optional<long long> ax;
  if (!sym_axis) {
    ax = ops::axis_arg(c, "axis", rank);
    if (!ax) return {};
  }
  if (t.elems.size() == 1) return a;
  for (int k = 0; k < rank; ++k)
    if (a.info.shape[k].value && b.info.shape[k].value && *a.info.shape[k].value != *b.info.shape[k].value) {
      c.L.error(c.at("tiles"), "ct.cat needs two tiles of the same shape (cuTile's tile extents are powers of two, "
                               "so only equal halves make one); axis " + std::to_string(k) + " has " +
                                   std::to_string(*a.info.shape[k].value) + " and " +
                                   std::to_string(*b.info.shape[k].value));
      return {};
    }
  if (a.info.dtype.kind == sema::DType::Kind::Concrete && b.info.dtype.kind == sema::DType::Kind::Concrete &&
      !a.info.dtype.same(b.info.dtype)) {
    c.L.error(c.at("tiles"), "ct.cat needs two tiles of the same dtype (got " + a.info.dtype.name + " and " +
                                 b.info.dtype.name + ")");
    return {};
  }
  // Exact concatenation without tl.cat (which may reorder): join adds a
  // trailing axis of 2; move it in front of `axis`; row-major reshape merges
  // (2, n) into 2n with a's elements first.
  TExprPtr e = tl_call("join", {a.expr, b.expr});
  auto perm_for = [&](int axis) {
    std::vector<TExprPtr> perm;
    for (int k = 0; k < rank + 1; ++k) {
      if (k == axis) perm.push_back(lit_int(rank));
      if (k < rank) perm.push_back(lit_int(k));
    }
    return tuple(perm);
  };
  ops::fill_extents(c.L, a);
  sema::Shape out = a.info.shape;
  auto doubled = [](const sema::Dim& d) {
    return d.value ? sema::Dim::known(2 * *d.value)
                   : sema::Dim::sym("2 * " + (d.expr.find(' ') == std::string::npos ? d.expr : "(" + d.expr + ")"));
  };
  if (ax) {
    e = tl_call("permute", {e, perm_for((int)*ax)});
    out[*ax] = doubled(out[*ax]);
  } else {
    // `(P0) if AX % rank == 0 else (P1) if ...`: one static permutation per specialization.
    std::string wrapped = "(" + source(sym_axis) + ") % " + std::to_string(rank);
    TExprPtr perm = perm_for(rank - 1);
    for (int k = rank - 2; k >= 0; --k)
      perm = ifexp(compare("==", binop("%", sym_axis, lit_int(rank)), lit_int(k)), perm_for(k), perm);
    e = tl_call("permute", {e, perm});
    for (int k = 0; k < rank; ++k) {
      std::string d = source(Lowerer::dim_to_expr(out[k]));
      out[k] = sema::Dim::sym("(" + source(Lowerer::dim_to_expr(doubled(a.info.shape[k]))) + " if " + wrapped +
                              " == " + std::to_string(k) + " else " + d + ")");
    }
  }
  return ops::make_value(tl_call("reshape", {e, ops::shape_list(out)}), out, a.info.dtype);
}

// ct.extract's result: tile `e` of `shape`, or with `scalar` (shape=()) its one element; a comparison's
// tile stays a bool tile.
LVal extracted(OpCall& c, const LVal& x, TExprPtr e, const sema::Shape& shape, bool scalar,
               sema::Sign sign = sema::Sign::Unknown) {
  LVal r = scalar ? ops::make_value(call(name(c.L.prelude("_c2t_item")), {std::move(e)}), {}, x.info.dtype)
                  : ops::make_value(std::move(e), shape, x.info.dtype, sign);
  return keep_bool(std::move(r), x);
}

// ct.extract that splits one axis into a power-of-two count n of sub-tiles and takes
// sub-tile i, i known at conversion time: tl.split halves, no arithmetic. The axis's n as
// log2(n) axes of 2 (most significant first), moved last, then split from the last (bit 0 of i)
// on; the other axes are whole. E.g. cutile-python's FFT kernel (interleaved real and
// imaginary parts, (BS, N, 2) -> (BS, N, 1)) and TileGym's flashinfer rope_quantize_fp8. nullopt
// where this does not apply (the general select-and-sum lowering then does). counts: the sub-tiles
// along each axis.
std::optional<LVal> extract_by_split(OpCall& c, LVal& x, const sema::Shape& sub, const std::vector<sema::Dim>& counts,
                                     const std::vector<LVal>& ix, bool scalar) {
  int rank = (int)x.info.shape.size(), axis = -1;
  for (int d = 0; d < rank; ++d) {
    bool constant = ix[d].info.cval && ix[d].info.cval->kind == sema::ConstValue::Kind::Int;
    if (!constant) return std::nullopt;  // a runtime index: the general lowering
    if (counts[d].is_one()) continue;
    if (axis >= 0 || !counts[d].value) return std::nullopt;
    axis = d;
  }
  // Comparison results (Triton int1) keep the select-and-sum lowering: tl.split of int1 is unmeasured.
  long long n = axis < 0 ? 0 : *counts[axis].value, i = axis < 0 ? 0 : ix[axis].info.cval->i;
  if (axis < 0 || (n & (n - 1)) || x.info.is_bool) return std::nullopt;
  int bits = 0;
  while ((1LL << bits) < n) ++bits;
  // The axes with the bits last: reshaped there directly when everything after them is 1 wide.
  sema::Shape rest;  // the result's axes, in order
  for (int d = 0; d < rank; ++d) rest.push_back(d == axis ? sub[d] : x.info.shape[d]);
  bool ones_after = std::all_of(rest.begin() + axis, rest.end(), [](const sema::Dim& d) { return d.is_one(); });
  sema::Shape shaped;
  std::vector<TExprPtr> perm;
  for (int d = 0; d < rank; ++d) {
    if (d == axis && !ones_after)
      for (int b = 0; b < bits; ++b) shaped.push_back(sema::Dim::known(2));
    shaped.push_back(rest[d]);
  }
  if (ones_after)
    for (int b = 0; b < bits; ++b) shaped.push_back(sema::Dim::known(2));
  TExprPtr e = tl_call("reshape", {x.expr, ops::shape_list(shaped)});
  if (!ones_after) {
    for (int d = 0; d < (int)shaped.size(); ++d)
      if (d < axis || d >= axis + bits) perm.push_back(lit_int(d));
    for (int b = 0; b < bits; ++b) perm.push_back(lit_int(axis + b));
    e = tl_call("permute", {e, tuple(perm)});
  }
  for (int b = 0; b < bits; ++b) e = subscript(tl_call("split", {e}), {lit_int((i >> b) & 1)});
  return extracted(c, x, e, rest, scalar, x.info.sign);
}

LVal extract(OpCall& c) {
  LVal x = tile_arg(c, "x");
  if (!x.ok()) return {};
  int rank = (int)x.info.shape.size();
  auto sub = c.L.shape_arg(c.arg("shape"), c.at("shape"), "the sub-tile shape");
  LVal& idx = c.arg("index");
  if (!sub || !idx.ok()) return {};
  std::vector<LVal> ix = idx.info.kind == sema::VKind::Tuple ? idx.elems : std::vector<LVal>{idx};
  bool scalar = sub->empty();
  if (scalar) sub = sema::Shape(rank, sema::Dim::known(1));
  if ((int)sub->size() != rank || (int)ix.size() != rank) {
    c.L.error(c.node, "ct.extract: index and shape need one entry per tile axis");
    return {};
  }
  for (auto& d : *sub)
    if (d.value && *d.value <= 0) {  // also keeps X_d / s_d below well-defined
      c.L.error(c.at("shape"), "ct.extract: sub-tile extents must be positive (got " + std::to_string(*d.value) + ")");
      return {};
    }
  // The sub-tiles along each axis: X_d / s_d; a whole axis (the same extent, e.g. both TILE_D) is one, as
  // with known extents. The sub-tile shape divides the tile's, and a constant index is in range (cuTile:
  // both are compile errors, cutile_api.md 3.7); a whole axis has index 0 only.
  std::vector<sema::Dim> counts;
  for (int d = 0; d < rank; ++d) {
    auto& X = x.info.shape[d];
    auto& S = (*sub)[d];
    if (!X.same(S) && X.value && S.value && *X.value % *S.value) {
      c.L.error(c.at("shape"), "ct.extract: the sub-tile extent " + std::to_string(*S.value) + " does not divide the "
                                   "tile's extent " + std::to_string(*X.value) + " along axis " + std::to_string(d));
      return {};
    }
    counts.push_back(X.same(S) ? sema::Dim::known(1)
                     : X.value && S.value
                         ? sema::Dim::known(*X.value / *S.value)
                         : sema::Dim::sym("(" + source(Lowerer::dim_to_expr(X)) + ") // (" +
                                          source(Lowerer::dim_to_expr(S)) + ")"));
    auto& v = ix[d].info.cval;
    auto& count = counts.back().value;
    if (v && v->kind == sema::ConstValue::Kind::Int && (v->i < 0 || (count && v->i >= *count))) {
      c.L.error(ix[d].node ? ix[d].node : c.at("index"),
                "ct.extract: index " + std::to_string(v->i) + " along axis " + std::to_string(d) + " is out of range" +
                    (count ? " (the tile holds " + std::to_string(*count) + (*count == 1 ? " sub-tile" : " sub-tiles") + " there)"
                           : ""));
      return {};
    }
  }
  if (auto split = extract_by_split(c, x, *sub, counts, ix, scalar)) return *split;
  // Split every axis d into (n_d, s_d), select sub-tile index_d along the n_d axes with a mask and sum
  // them away (exact: one term is selected, the others are zero).
  sema::Shape split;
  bool any = false;
  for (int d = 0; d < rank; ++d) {
    any = any || !counts[d].is_one();
    split.push_back(counts[d]);
    split.push_back((*sub)[d]);
  }
  if (!any) return scalar ? extracted(c, x, x.expr, {}, true) : x;
  auto xn = c.L.as_name(x, "x");
  TExprPtr e = tl_call("reshape", {xn, ops::shape_list(split)});
  TExprPtr sel;
  for (int d = 0; d < rank; ++d) {
    if (split[2 * d].is_one()) continue;
    std::vector<TExprPtr> ixs;
    for (int k = 0; k < 2 * rank; ++k) ixs.push_back(k == 2 * d ? full_slice() : lit("None"));
    TExprPtr m = compare("==", subscript(tl_call("arange", {lit_int(0), Lowerer::dim_to_expr(split[2 * d])}), ixs), ix[d].expr);
    sel = sel ? binop("&", sel, m) : m;
  }
  // The unselected terms are -0.0 for a float dtype known here: x + -0.0 is x for every x, -0.0 included
  // (+0.0 turns a selected -0.0 into +0.0); else 0. (Triton's interpreter sums with NumPy, which returns
  // +0.0 for any sum of zeros.)
  const sema::DTypeDesc* desc = x.info.dtype.kind == sema::DType::Kind::Concrete ? sema::find_dtype(x.info.dtype.name)
                                                                                  : nullptr;
  e = tl_call("where", {sel, e, desc && sema::is_float(desc) && !x.info.is_bool ? lit("-0.0") : lit_int(0)});
  for (int d = rank - 1; d >= 0; --d) e = tl_call("sum", {e}, {{"axis", lit_int(2 * d)}});
  return extracted(c, x, method(e, "to", {attr(xn, "dtype")}), *sub, scalar);
}

}  // namespace

void register_shape_ops(Registry& r) {
  r.add("expand_dims", "shape", "x, /, axis", [](OpCall& c) {
    LVal x = tile_arg(c, "x");
    if (!x.ok()) return LVal{};
    int rank = (int)x.info.shape.size();
    auto v = c.L.const_int(c.arg("axis"), c.at("axis"), "the axis");
    if (!v) return LVal{};
    long long a = *v < 0 ? *v + rank + 1 : *v;
    if (a < 0 || a > rank) { c.L.error(c.at("axis"), "axis out of range"); return LVal{}; }
    sema::Shape s = x.info.shape;
    s.insert(s.begin() + a, sema::Dim::known(1));
    if (x.info.kind == sema::VKind::Scalar)
      return ops::make_value(tl_call("full", {ops::shape_list(s), x.expr, c.L.dtype_expr(x.info.dtype, &x)}), s, x.info.dtype, x.info.sign);
    return keep_bool(ops::make_value(tl_call("expand_dims", {x.expr, lit_int(a)}), s, x.info.dtype, x.info.sign), x);
  }, "tl.expand_dims(x, axis)");
  r.add("broadcast_to", "shape", "x, /, shape", [](OpCall& c) {
    LVal x = tile_arg(c, "x");
    auto s = c.L.shape_arg(c.arg("shape"), c.at("shape"), "the shape");
    if (!x.ok() || !s) return LVal{};
    if (x.info.kind == sema::VKind::Scalar)
      return ops::make_value(tl_call("full", {ops::shape_list(*s), x.expr, c.L.dtype_expr(x.info.dtype, &x)}), *s, x.info.dtype, x.info.sign);
    // NumPy rank extension, as cuTile's broadcast_to allows (cutile-python
    // _ir/arithmetic_ops.py: is_shape_broadcastable_to, then a reshape with
    // leading 1s); tl.broadcast_to needs equal ranks.
    TExprPtr src = x.expr;
    if (x.info.shape.size() > s->size()) {
      c.L.error(c.at("shape"), "ct.broadcast_to: the target shape has fewer dimensions than the tile");
      return LVal{};
    }
    if (x.info.shape.size() < s->size()) {
      sema::Shape padded(s->size() - x.info.shape.size(), sema::Dim::known(1));
      padded.insert(padded.end(), x.info.shape.begin(), x.info.shape.end());
      src = ops::reshaped(src, x.info.shape, padded);
    }
    return keep_bool(ops::make_value(tl_call("broadcast_to", {src, ops::shape_list(*s)}), *s, x.info.dtype, x.info.sign), x);
  }, "tl.broadcast_to(x, shape) (leading size-1 axes added first for a lower-rank tile)");
  r.add("reshape", "shape", "x, /, shape", reshape, "tl.reshape(x, shape) (row-major)");
  r.add("Tile.reshape", "shape", "x, shape", reshape, "tl.reshape(x, shape)");
  auto permute = [](OpCall& c) {
    LVal x = tile_arg(c, "x");
    if (!x.ok()) return LVal{};
    auto p = perm_arg(c, "axes", (int)x.info.shape.size());
    if (!p) return LVal{};
    return permute_to(x, *p);
  };
  r.add("permute", "shape", "x, /, axes", permute, "tl.permute(x, axes)");
  r.add("Tile.permute", "shape", "x, axes", permute, "tl.permute(x, axes)");
  r.add("transpose", "shape", "x, /, axis0=, axis1=", transpose, "tl.trans(x) / tl.permute");
  r.add("Tile.transpose", "shape", "x, axis0=, axis1=", transpose, "tl.trans(x) / tl.permute");
  r.add("cat", "shape", "tiles, /, axis", cat, "tl.reshape(tl.permute(tl.join(a, b), ...), ...) (exact order)");
  r.add("extract", "shape", "x, /, index, shape", extract,
        "tl.split halves (one axis, power-of-two count, constant index), else reshape + select + sum (exact)");
  r.add("Tile.extract", "shape", "x, index, shape", extract,
        "tl.split halves (one axis, power-of-two count, constant index), else reshape + select + sum (exact)");
  r.add("Tile.item", "shape", "x", [](OpCall& c) {
    LVal x = tile_arg(c, "x");
    if (!x.ok()) return LVal{};
    if (x.info.kind == sema::VKind::Scalar) return x;  // already a scalar (e.g. an all-scalar gather)
    for (auto& d : x.info.shape)
      if (d.value && *d.value != 1) {
        c.L.error(c.node, ".item() needs a tile with exactly one element");
        return LVal{};
      }
    return ops::make_value(call(name(c.L.prelude("_c2t_item")), {x.expr}), {}, x.info.dtype, x.info.sign);
  }, "the element as a scalar (_c2t_item)");
}

}  // namespace c2t::lower

namespace c2t::lower::ops {

TExprPtr shape_list(const sema::Shape& s) {
  std::vector<TExprPtr> dims;
  for (auto& d : s) dims.push_back(Lowerer::dim_to_expr(d));
  return list(dims);
}

TExprPtr reshaped(TExprPtr e, const sema::Shape& from, const sema::Shape& to) {
  std::vector<TExprPtr> ix;
  size_t j = 0;
  // Only a vector made a row or column (the broadcast idiom): higher-rank expansions mostly feed stores,
  // whose squeeze (tl.reshape) Triton folds into a tl.reshape but not into an expand_dims.
  bool inserts = !from.unknown_rank && !to.unknown_rank && from.size() == 1 && to.size() == 2;
  for (size_t k = 0; inserts && k < to.size(); ++k) {
    if (j < from.size() && to[k].same(from[j])) {
      ix.push_back(full_slice());
      ++j;
    } else if (to[k].value == 1) {
      ix.push_back(lit("None"));
    } else {
      inserts = false;
    }
  }
  if (inserts && j == from.size()) return subscript(std::move(e), std::move(ix));
  return tl_call("reshape", {std::move(e), shape_list(to)});
}

TExprPtr broadcast_value(Lowerer& L, const LVal& v, const sema::Shape& want, const sema::DType& elem) {
  if (want.empty()) return v.expr;
  if (v.info.kind == sema::VKind::Constexpr) return tl_call("full", {shape_list(want), v.expr, L.dtype_expr(elem)});
  sema::Shape s = shape_of(v);
  if (s.unknown_rank) return tl_call("broadcast_to", {v.expr, shape_list(want)});
  TExprPtr e = v.expr;
  if (!s.empty() && s.size() < want.size()) {
    // leading unit axes first: tl.broadcast_to needs equal ranks
    std::vector<TExprPtr> ix(want.size() - s.size(), lit("None"));
    for (size_t k = 0; k < s.size(); ++k) ix.push_back(full_slice());
    e = subscript(e, ix);
  }
  bool same = s.size() == want.size();
  for (size_t k = 0; same && k < s.size(); ++k) same = s[k].same(want[k]);
  return same ? e : tl_call("broadcast_to", {e, shape_list(want)});
}

}  // namespace c2t::lower::ops
