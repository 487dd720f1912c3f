// Atomics on arrays with element indices (cuTile §3.4): ct.atomic_add/max/
// min/and/or/xor/xchg/cas. Default memory order ACQ_REL and scope DEVICE are
// Triton's defaults (sem="acq_rel", scope="gpu"), so they are not spelled out.
#include "lower/op_registry.h"
#include "lower/ops_common.h"
#include "lower/ops_element.h"

namespace c2t::lower {

bool atomic_memory_kwargs(OpCall& c, std::vector<std::pair<std::string, TExprPtr>>& kw) {
  if (c.has("memory_order")) {
    LVal& v = c.arg("memory_order");
    if (!v.info.cval || v.info.cval->s.rfind("MemoryOrder.", 0) != 0) {
      if (v.ok()) c.L.error(c.at("memory_order"), "memory_order must be a ct.MemoryOrder member");
      return false;
    }
    std::string m = v.info.cval->s.substr(12);
    if (m == "RELAXED") kw.push_back({"sem", lit_str("relaxed")});
    else if (m == "ACQUIRE") kw.push_back({"sem", lit_str("acquire")});
    else if (m == "RELEASE") kw.push_back({"sem", lit_str("release")});
    else if (m != "ACQ_REL") {
      c.L.error(c.at("memory_order"), "atomics accept RELAXED, ACQUIRE, RELEASE or ACQ_REL");
      return false;
    }
  }
  if (c.has("memory_scope")) {
    LVal& v = c.arg("memory_scope");
    if (!v.info.cval || v.info.cval->s.rfind("MemoryScope.", 0) != 0) {
      if (v.ok()) c.L.error(c.at("memory_scope"), "memory_scope must be a ct.MemoryScope member");
      return false;
    }
    std::string s = v.info.cval->s.substr(12);
    if (s == "BLOCK") kw.push_back({"scope", lit_str("cta")});
    else if (s == "SYS") kw.push_back({"scope", lit_str("sys")});
    else if (s != "DEVICE") {
      c.L.error(c.at("memory_scope"), "atomics accept BLOCK, DEVICE or SYS scope");
      return false;
    }
  }
  return true;
}

TExprPtr atomic_update(Lowerer& L, const LVal& update, const sema::Shape& shape, const sema::DType& elem) {
  sema::Shape us = ops::shape_of(update);
  bool lower_rank = !us.empty() && !us.unknown_rank && us.size() < shape.size();
  return lower_rank ? ops::broadcast_value(L, update, shape, elem) : update.expr;
}

LVal atomic_cas_at(OpCall& c, TExprPtr ptrs, TExprPtr base, TExprPtr mask, LVal expected, LVal desired,
                   const std::vector<std::pair<std::string, TExprPtr>>& kw, const sema::Shape& shape,
                   const sema::DType& elem, const std::string& mask_name) {
  // tl.atomic_cas broadcasts neither operand (cuTile's _atomic_cas_core does).
  expected.expr = ops::broadcast_value(c.L, expected, shape, elem);
  desired.expr = ops::broadcast_value(c.L, desired, shape, elem);
  if (!mask) return ops::make_value(tl_call("atomic_cas", {ptrs, expected.expr, desired.expr}, kw), shape, elem);
  // tl.atomic_cas has no mask. Masked-off lanes operate on the array base
  // with desired == expected, which never changes memory, and report
  // `expected` as cuTile specifies.
  auto m = c.L.bind(mask_name, mask);
  auto cmpn = c.L.as_name(expected, "expected");
  auto at = tl_call("where", {m, ptrs, base});
  auto swapped = tl_call("where", {m, desired.expr, cmpn});
  auto old = tl_call("atomic_cas", {at, cmpn, swapped}, kw);
  return ops::make_value(tl_call("where", {m, old, cmpn}), shape, elem);
}

namespace {

LVal atomic_rmw(OpCall& c, const std::string& tl_fn) {
  auto bc = bounds_check_arg(c);
  if (!bc) return {};
  auto ea = element_access(c, "indices", bc->on, c.L.name_hint("atomic"));
  if (!ea) return {};
  record_element_site(c, *ea, bc->on);
  ea->mask = when_checked(*bc, ea->mask, nullptr);
  LVal& upd = c.arg("update");
  if (!upd.ok()) return {};
  if (!ops::is_number_like(upd)) {
    c.L.error(c.at("update"), "the update must be a number, scalar or tile");
    return {};
  }
  auto shape = sema::broadcast_shapes(ea->shape, ops::shape_of(upd));
  if (!shape) {
    c.L.error(c.at("update"), "the update does not broadcast to the index shape");
    return {};
  }
  std::vector<std::pair<std::string, TExprPtr>> kw;
  if (ea->mask) kw.push_back({"mask", ea->mask});
  if (!atomic_memory_kwargs(c, kw)) return {};
  // A lower-rank update tile gets the indices' rank (Triton's atomics broadcast
  // only between equal ranks); numbers and scalars broadcast as they are.
  TExprPtr ptrs = ea->ptrs;
  TExprPtr update = atomic_update(c.L, upd, *shape, ea->array->dtype);
  // Returns the previous values (for out-of-bounds lanes: unspecified, as in cuTile).
  return ops::make_value(tl_call(tl_fn, {ptrs, update}, kw), *shape, ea->array->dtype);
}

LVal atomic_cas(OpCall& c) {
  auto bc = bounds_check_arg(c);
  if (!bc) return {};
  if (bc->cond) {
    c.L.unsupported(c.at("check_bounds"), "atomic_cas check_bounds", "ct.atomic_cas needs a constant check_bounds");
    return {};
  }
  auto ea = element_access(c, "indices", bc->on, c.L.name_hint("cas"));
  if (!ea) return {};
  record_element_site(c, *ea, bc->on);
  LVal& cmp = c.arg("expected");
  LVal& val = c.arg("desired");
  if (!cmp.ok() || !val.ok()) return {};
  std::vector<std::pair<std::string, TExprPtr>> kw;
  if (!atomic_memory_kwargs(c, kw)) return {};
  auto s1 = sema::broadcast_shapes(ea->shape, ops::shape_of(cmp));
  auto shape = s1 ? sema::broadcast_shapes(*s1, ops::shape_of(val)) : std::nullopt;
  if (!shape) {
    c.L.error(c.node, "expected/desired do not broadcast to the index shape");
    return {};
  }
  return atomic_cas_at(c, ea->ptrs, ea->array->ptr, ea->mask, cmp, val, kw, *shape, ea->array->dtype,
                       c.L.name_hint("cas") + "_inb");
}

}  // namespace

void register_atomic_ops(Registry& r) {
  const char* sig = "array, indices, update, /, *, check_bounds=, memory_order=, memory_scope=";
  for (const char* n : {"add", "max", "min", "and", "or", "xor", "xchg"}) {
    std::string fn = std::string("atomic_") + n;
    r.add(fn, "atomic", sig, [fn](OpCall& c) { return atomic_rmw(c, fn); },
          "tl." + fn + "(ptr + offsets, update, mask=bounds, sem=, scope=)");
  }
  r.add("atomic_cas", "atomic",
        "array, indices, expected, desired, /, *, check_bounds=, memory_order=, memory_scope=", atomic_cas,
        "tl.atomic_cas on in-bounds lanes (out-of-bounds lanes compare-and-swap the base with itself)");
}

}  // namespace c2t::lower
