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
  sema::Shape us = ops::shape_of(upd);
  TExprPtr update = !us.empty() && !us.unknown_rank && us.size() < shape->size()
                        ? ops::broadcast_value(c.L, upd, *shape, ea->array->dtype) : upd.expr;
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
  // tl.atomic_cas broadcasts neither operand (cuTile's _atomic_cas_core does).
  LVal cmpb = cmp, valb = val;
  cmpb.expr = ops::broadcast_value(c.L, cmp, *shape, ea->array->dtype);
  valb.expr = ops::broadcast_value(c.L, val, *shape, ea->array->dtype);
  if (!ea->mask) return ops::make_value(tl_call("atomic_cas", {ea->ptrs, cmpb.expr, valb.expr}, kw), *shape, ea->array->dtype);
  // tl.atomic_cas has no mask. Out-of-bounds lanes operate on the array base
  // with desired == expected, which never changes memory, and report
  // `expected` as cuTile specifies.
  auto mask = c.L.bind(c.L.name_hint("cas") + "_inb", ea->mask);
  auto cmpn = c.L.as_name(cmpb, "expected");
  auto ptrs = tl_call("where", {mask, ea->ptrs, ea->array->ptr});
  auto desired = tl_call("where", {mask, valb.expr, cmpn});
  auto old = tl_call("atomic_cas", {ptrs, cmpn, desired}, kw);
  return ops::make_value(tl_call("where", {mask, old, cmpn}), *shape, ea->array->dtype);
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
