// Atomics through array views (cuTile _stub.py):
// - RawArrayMemory.atomic_{add,max,min,and,or,xor,xchg,cas}_offset: per
//   element at base + offset, returning the old values; defaults ACQ_REL /
//   DEVICE, which are Triton's sem/scope defaults.
// - TiledView.atomic_store_{add,max,min,and,or,xor}: one tile of the view,
//   no result; cuTile fixes memory order RELAXED and scope DEVICE
//   (_ir/ops.py tiled_view_atomic_store_rmw_impl), so sem="relaxed".
#include "lower/access_plan.h"
#include "lower/ops_common.h"
#include "lower/ops_element.h"
#include "lower/ops_views.h"

namespace c2t::lower {

namespace {

using sema::VKind;

// Shape of the offsets; the update-like arguments `params` must broadcast to it.
std::optional<sema::Shape> raw_shape(OpCall& c, std::initializer_list<const char*> params) {
  LVal& off = c.arg("offset");
  if (!off.ok()) return std::nullopt;
  if (!raw_offsets_ok(c, off)) return std::nullopt;
  sema::Shape shape = ops::shape_of(off);
  for (const char* p : params) {
    LVal& v = c.arg(p);
    if (!v.ok()) return std::nullopt;
    if (!ops::is_number_like(v)) {
      c.L.error(c.at(p), std::string(p) + " must be a number, scalar or tile");
      return std::nullopt;
    }
    if (!sema::broadcasts_to(ops::shape_of(v), shape)) {
      c.L.error(c.at(p), std::string(p) + " is not broadcastable to the shape of the offsets");
      return std::nullopt;
    }
  }
  return shape;
}

LVal raw_rmw(OpCall& c, const std::string& tl_fn) {
  LVal& mem = c.arg("self");
  if (!mem.ok()) return {};
  auto shape = raw_shape(c, {"update"});
  if (!shape) return {};
  auto mask = raw_offset_mask(c, *shape);
  if (!mask) return {};
  std::vector<std::pair<std::string, TExprPtr>> kw;
  if (*mask) kw.push_back({"mask", *mask});
  if (!atomic_memory_kwargs(c, kw)) return {};
  TExprPtr ptrs = binop("+", mem.array->ptr, c.arg("offset").expr);
  TExprPtr upd = atomic_update(c.L, c.arg("update"), *shape, mem.array->dtype);
  // Masked-off lanes return an unspecified value in cuTile as in Triton.
  return ops::make_value(tl_call(tl_fn, {ptrs, upd}, kw), *shape, mem.array->dtype);
}

LVal raw_cas(OpCall& c) {
  LVal& mem = c.arg("self");
  if (!mem.ok()) return {};
  auto shape = raw_shape(c, {"expected", "desired"});
  if (!shape) return {};
  auto mask = raw_offset_mask(c, *shape);
  if (!mask) return {};
  std::vector<std::pair<std::string, TExprPtr>> kw;
  if (!atomic_memory_kwargs(c, kw)) return {};
  const ArrayVal& arr = *mem.array;
  TExprPtr ptrs = binop("+", arr.ptr, c.arg("offset").expr);
  return atomic_cas_at(c, ptrs, arr.ptr, *mask, c.arg("expected"), c.arg("desired"), kw, *shape, arr.dtype,
                       c.L.name_hint("cas") + "_on");
}

LVal view_atomic_store(OpCall& c, const std::string& tl_fn) {
  LVal& v = c.arg("self");
  if (!v.ok()) return {};
  auto t = tiled_view_access(c, v);
  if (!t) return {};
  auto update = tiled_view_tile(c, "update", v);
  if (!update) return {};
  AccessPlan plan = plan_tile_access(*t->array, t->shape, t->order, "", true, false, true);
  plan.steps = t->steps;
  auto tp = emit_tile_pointers(c.L, *t->array, t->index, plan, t->array->display);
  std::vector<std::pair<std::string, TExprPtr>> kw;
  if (tp.mask) kw.push_back({"mask", tp.mask});
  kw.push_back({"sem", lit_str("relaxed")});
  return ops::make_none(tl_call(tl_fn, {tp.ptrs, update->expr}, kw));
}

}  // namespace

void register_view_atomic_ops(Registry& r) {
  const char* sig = "self, offset, update, /, *, mask=, memory_order=, memory_scope=";
  for (const char* n : {"add", "max", "min", "and", "or", "xor", "xchg"}) {
    std::string fn = std::string("atomic_") + n;
    r.add("RawArrayMemory." + fn + "_offset", "atomic", sig, [fn](OpCall& c) { return raw_rmw(c, fn); },
          "tl." + fn + "(ptr + offset, update, mask=mask, sem=, scope=)");
  }
  r.add("RawArrayMemory.atomic_cas_offset", "atomic",
        "self, offset, expected, desired, /, *, mask=, memory_order=, memory_scope=", raw_cas,
        "tl.atomic_cas(ptr + offset, ...) with masked-off lanes redirected to a no-op swap");
  for (const char* n : {"add", "max", "min", "and", "or", "xor"}) {
    std::string fn = std::string("atomic_") + n;
    r.add(std::string("TiledView.atomic_store_") + n, "atomic", "self, index, update, /",
          [fn](OpCall& c) { return view_atomic_store(c, fn); },
          "tl." + fn + "(tile pointers, update, mask=bounds, sem=\"relaxed\")");
  }
}

}  // namespace c2t::lower
