// Views of an array in tile code (cuTile _stub.py, Array.get_raw_memory and
// Array.tiled_view; reference/cutile_api.md §3.2-3.3):
// - RawArrayMemory: the base pointer addressed by element offsets
//   (load_offset / store_offset; the atomics are in ops_atomic.cpp). Triton's
//   pointer arithmetic is the same operation: `tl.load(ptr + offset, mask)`.
// - TiledView: a tiling fixed at compile time (tile shape, traversal steps,
//   padding mode) whose load/store are ct.load/ct.store with tile origins
//   `index * step` (cuTile _ir/ops.py passes the view's steps to the same
//   _tile_load_impl_inner), and num_tiles = cdiv(extent, step).
#include "lower/ops_views.h"

#include "lower/access_plan.h"
#include "lower/ops_common.h"
#include "lower/ops_memory.h"

namespace c2t::lower {

using sema::VKind;

bool raw_offsets_ok(OpCall& c, LVal& off) {
  if (!off.ok()) return false;
  const sema::DTypeDesc* d = off.info.dtype.desc();
  bool is_float = (off.info.dtype.is_float() && *off.info.dtype.is_float()) ||
                  (off.info.kind == VKind::Constexpr && off.info.cval && off.info.cval->kind == sema::ConstValue::Kind::Float);
  if (!ops::is_number_like(off) || is_float || (d && d->category == sema::DTypeCategory::Bool)) {
    c.L.error(c.at("offset"), "the offset must be an integer scalar or tile (elements from the array's base)");
    return false;
  }
  return true;
}

std::optional<TExprPtr> raw_offset_mask(OpCall& c, const sema::Shape& shape) {
  if (!c.has("mask") || c.arg("mask").info.kind == VKind::None) return TExprPtr{};
  sema::Shape s = shape;
  TExprPtr m = combine_user_mask(c, nullptr, s);
  if (!m) return std::nullopt;
  if (s.size() != shape.size()) {
    c.L.error(c.at("mask"), "the mask must broadcast to the shape of the offsets");
    return std::nullopt;
  }
  return m;
}

std::optional<TileAccess> tiled_view_access(OpCall& c, const LVal& view) {
  const TiledSpec& spec = *view.tiled;
  TileAccess t;
  t.array = view.array.get();
  auto index = tile_index_arg(c, "index", t.array->rank);
  if (!index) return std::nullopt;
  auto bc = bounds_check_arg(c);
  auto tma = allow_tma_arg(c);
  if (!bc || !tma) return std::nullopt;
  t.index = std::move(*index);
  t.shape = spec.tile_shape;
  for (int k = 0; k < t.array->rank; ++k) t.order.push_back(k);
  if (!spec.partition()) t.steps = spec.steps;
  t.bounds = *bc;
  t.allow_tma = *tma;
  t.padding = spec.padding;
  return t;
}

std::optional<LVal> tiled_view_tile(OpCall& c, const std::string& p, const LVal& view) {
  const TiledSpec& spec = *view.tiled;
  LVal& tile = c.arg(p);
  if (!tile.ok()) return std::nullopt;
  if (!ops::is_number_like(tile)) {
    c.L.error(c.at(p), "expected a tile or a scalar");
    return std::nullopt;
  }
  sema::Shape ts = ops::shape_of(tile);
  const sema::Shape& want = spec.tile_shape;
  if (ts.unknown_rank || !sema::broadcasts_to(ts, want)) {
    c.L.error(c.at(p), "the tile's shape is not broadcastable to the tiled view's tile shape");
    return std::nullopt;
  }
  LVal out = tile;
  if (!want.empty()) {
    out.expr = ops::broadcast_value(c.L, tile, want, view.array->dtype);
    out.info.kind = VKind::Tile;
    out.info.shape = want;
  }
  return out;
}

namespace {

LVal get_raw_memory(OpCall& c) {
  LVal& a = c.arg("self");
  if (!a.ok()) return {};
  LVal out;
  out.node = c.node;
  out.info.kind = VKind::RawMemory;
  out.info.dtype = a.array->dtype;
  out.array = a.array;
  return out;
}

LVal load_offset(OpCall& c) {
  LVal& mem = c.arg("self");
  LVal& off = c.arg("offset");
  if (!mem.ok() || !raw_offsets_ok(c, off)) return {};
  const ArrayVal& arr = *mem.array;
  sema::Shape shape = ops::shape_of(off);
  auto mask = raw_offset_mask(c, shape);
  if (!mask) return {};
  std::vector<std::pair<std::string, TExprPtr>> kw;
  if (*mask) {
    auto other = padding_value_arg(c, arr.dtype);
    if (!other) return {};
    kw.push_back({"mask", *mask});
    kw.push_back({"other", *other});
  }
  return ops::make_value(tl_call("load", {binop("+", arr.ptr, off.expr)}, kw), shape, arr.dtype);
}

LVal store_offset(OpCall& c) {
  LVal& mem = c.arg("self");
  LVal& off = c.arg("offset");
  LVal& v = c.arg("value");
  if (!mem.ok() || !raw_offsets_ok(c, off) || !v.ok()) return {};
  if (!ops::is_number_like(v)) {
    c.L.error(c.at("value"), "store_offset stores a tile or a scalar");
    return {};
  }
  sema::Shape shape = ops::shape_of(off);
  // The value broadcasts to the offsets' shape; the offsets never broadcast to the value.
  if (!sema::broadcasts_to(ops::shape_of(v), shape)) {
    c.L.error(c.at("value"), "the value is not broadcastable to the shape of the offsets");
    return {};
  }
  auto mask = raw_offset_mask(c, shape);
  if (!mask) return {};
  std::vector<std::pair<std::string, TExprPtr>> kw;
  if (*mask) kw.push_back({"mask", *mask});
  return ops::make_none(tl_call("store", {binop("+", mem.array->ptr, off.expr), v.expr}, kw));
}

// traversal_steps=: compile-time positive integers, one per axis (any
// value, not only powers of two; cuTile require_constant_shape with
// allow_non_power_of_two).
std::optional<sema::Shape> steps_arg(OpCall& c, int rank) {
  LVal& v = c.arg("traversal_steps");
  std::vector<LVal*> items;
  if (v.info.kind == VKind::Tuple)
    for (auto& e : v.elems) items.push_back(&e);
  else
    items.push_back(&v);
  sema::Shape out;
  for (LVal* e : items) {
    if (e->info.kind != VKind::Constexpr || (e->info.cval && e->info.cval->kind != sema::ConstValue::Kind::Int) ||
        (!e->info.cval && !e->expr)) {
      if (v.ok()) c.L.error(c.at("traversal_steps"), "traversal_steps must be compile-time integers");
      return std::nullopt;
    }
    if (e->info.cval && e->info.cval->i <= 0) {
      c.L.error(c.at("traversal_steps"), "traversal_steps must be positive, got " + std::to_string(e->info.cval->i));
      return std::nullopt;
    }
    out.push_back(e->info.cval ? sema::Dim::known(e->info.cval->i) : sema::Dim::sym(source(e->expr)));
  }
  if ((int)out.size() != rank) {
    c.L.error(c.at("traversal_steps"), "traversal_steps has " + std::to_string(out.size()) +
                                           " entries but the array has rank " + std::to_string(rank));
    return std::nullopt;
  }
  return out;
}

LVal tiled_view(OpCall& c) {
  LVal& a = c.arg("self");
  if (!a.ok()) return {};
  const ArrayVal& arr = *a.array;
  auto spec = std::make_shared<TiledSpec>();
  auto shape = c.L.shape_arg(c.arg("tile_shape"), c.at("tile_shape"), "the tile shape");
  if (!shape) return {};
  if (!shape->empty() && (int)shape->size() != arr.rank) {
    c.L.error(c.at("tile_shape"), "the tile shape has rank " + std::to_string(shape->size()) +
                                      " but the array has rank " + std::to_string(arr.rank));
    return {};
  }
  spec->tile_shape = *shape;
  auto padding = padding_mode_arg(c);
  if (!padding) return {};
  spec->padding = *padding;
  if (c.has("traversal_steps") && c.arg("traversal_steps").info.kind != VKind::None) {
    auto steps = steps_arg(c, arr.rank);
    if (!steps) return {};
    spec->steps = *steps;
  } else if (shape->empty()) {
    spec->steps = sema::Shape(arr.rank, sema::Dim::known(1));
  } else {
    spec->steps = *shape;
  }
  LVal out;
  out.node = c.node;
  out.info.kind = VKind::TiledView;
  out.info.dtype = arr.dtype;
  out.array = a.array;
  out.tiled = spec;
  return out;
}

LVal view_load(OpCall& c) {
  LVal& v = c.arg("self");
  if (!v.ok()) return {};
  auto t = tiled_view_access(c, v);
  if (!t) return {};
  return lower_tile_load(c, *t);
}

LVal view_store(OpCall& c) {
  LVal& v = c.arg("self");
  if (!v.ok()) return {};
  auto t = tiled_view_access(c, v);
  if (!t) return {};
  auto tile = tiled_view_tile(c, "tile", v);
  if (!tile) return {};
  return lower_tile_store(c, *t, *tile);
}

LVal view_num_tiles(OpCall& c) {
  LVal& v = c.arg("self");
  if (!v.ok()) return {};
  auto axis = c.L.const_int(c.arg("axis"), c.at("axis"), "the axis");
  if (!axis) return {};
  int n = v.array->rank;
  long long ax = *axis < 0 ? *axis + n : *axis;
  if (ax < 0 || ax >= n) {
    c.L.error(c.at("axis"), "axis out of range for a tiled view of rank " + std::to_string(n));
    return {};
  }
  const sema::Dim& step = v.tiled->steps[ax];
  TExprPtr extent = v.array->shape[ax];
  TExprPtr e = step.is_one() ? extent : tl_call("cdiv", {extent, Lowerer::dim_to_expr(step)});
  return ops::make_value(e, {}, sema::DType::concrete(v.array->int64_index ? "int64" : "int32"), sema::Sign::NonNeg);
}

}  // namespace

void register_view_ops(Registry& r) {
  r.add("Array.get_raw_memory", "memory", "self", get_raw_memory, "the array's pointer, addressed by element offsets");
  r.add("RawArrayMemory.load_offset", "memory", "self, offset, /, *, mask=, padding_value=, latency=", load_offset,
        "tl.load(ptr + offset, mask=mask, other=padding_value)");
  r.add("RawArrayMemory.store_offset", "memory", "self, offset, value, /, *, mask=, latency=", store_offset,
        "tl.store(ptr + offset, value, mask=mask)");
  r.add("Array.tiled_view", "memory", "self, tile_shape, *, padding_mode=, traversal_steps=", tiled_view,
        "compile-time tiling: tile shape, traversal steps, padding");
  r.add("TiledView.load", "memory", "self, index, *, check_bounds=, latency=, allow_tma=", view_load,
        "as ct.load with tile origins index * step");
  r.add("TiledView.store", "memory", "self, index, tile, *, check_bounds=, latency=, allow_tma=", view_store,
        "as ct.store with tile origins index * step; the tile broadcast to the tile shape");
  r.add("TiledView.num_tiles", "memory", "self, axis", view_num_tiles, "tl.cdiv(shape[axis], step[axis])");
}

}  // namespace c2t::lower
