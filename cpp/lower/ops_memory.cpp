// Tile-space memory access: ct.load and ct.store (cuTile §3.2).
#include "lower/ops_memory.h"

#include "lower/access_plan.h"
#include "lower/ops_common.h"

namespace c2t::lower {

std::optional<std::vector<LVal>> tile_index_arg(OpCall& c, const std::string& p, int rank) {
  LVal& idx = c.arg(p);
  if (!idx.ok()) return std::nullopt;
  std::vector<LVal> out;
  if (idx.info.kind == sema::VKind::Tuple) out = idx.elems;
  else out.push_back(idx);
  if ((int)out.size() != rank) {
    c.L.error(c.at(p), "the index has " + std::to_string(out.size()) + " entries but the array has rank " +
                           std::to_string(rank));
    return std::nullopt;
  }
  for (auto& v : out) {
    bool ok = v.info.kind == sema::VKind::Scalar ||
              (v.info.kind == sema::VKind::Constexpr && (!v.info.cval || v.info.cval->kind == sema::ConstValue::Kind::Int));
    if (!ok) {
      c.L.error(c.at(p), "tile indices must be integer scalars");
      return std::nullopt;
    }
    if (v.info.dtype.is_float() && *v.info.dtype.is_float()) {
      c.L.error(c.at(p), "tile indices must be integers");
      return std::nullopt;
    }
  }
  return out;
}

std::optional<std::optional<bool>> allow_tma_arg(OpCall& c) {
  // No hint: an engaged outer optional built in place (copying an empty inner one trips GCC 12's
  // -Wmaybe-uninitialized on its unset payload).
  const std::optional<std::optional<bool>> no_hint(std::in_place);
  if (!c.has("allow_tma")) return no_hint;
  LVal& v = c.arg("allow_tma");
  if (v.info.kind == sema::VKind::None) return no_hint;
  if (v.info.cval && v.info.cval->kind == sema::ConstValue::Kind::Bool) return std::optional<bool>{v.info.cval->b};
  // A compile-time hint only Triton knows: it only affects the TMA choice.
  if (v.info.kind == sema::VKind::Constexpr) return std::optional<bool>{false};
  if (v.ok()) c.L.error(c.at("allow_tma"), "allow_tma must be a constant bool or None");
  return std::nullopt;
}

namespace {

// memory_order= / memory_scope= of ct.load / ct.store (cuTile
// _memory_model.py, _ir/ops_utils.py validate_memory_order_and_scope): WEAK
// takes no scope; RELAXED and ACQUIRE (loads) or RELEASE (stores) need an
// explicit BLOCK, DEVICE or SYS scope. Sets `t.sem`/`t.scope` to Triton's
// sem/scope strings for a non-weak access; false after a diagnostic.
bool memory_order_arg(OpCall& c, bool is_store, TileAccess& t) {
  std::string order = "WEAK", scope = "NONE";
  for (const char* p : {"memory_order", "memory_scope"}) {
    if (!c.has(p)) continue;
    LVal& v = c.arg(p);
    std::string prefix = p == std::string("memory_order") ? "MemoryOrder." : "MemoryScope.";
    if (!v.info.cval || v.info.cval->kind != sema::ConstValue::Kind::Enum || v.info.cval->s.rfind(prefix, 0) != 0) {
      if (v.ok()) c.L.error(c.at(p), std::string(p) + " must be a ct." + prefix.substr(0, prefix.size() - 1) + " member");
      return false;
    }
    (p == std::string("memory_order") ? order : scope) = v.info.cval->s.substr(prefix.size());
  }
  const char* other = is_store ? "RELEASE" : "ACQUIRE";
  if (order != "WEAK" && order != "RELAXED" && order != other) {
    c.L.error(c.at("memory_order"), "ct." + c.op + " takes memory_order WEAK, RELAXED or " + other + ", not " + order);
    return false;
  }
  if (order == "WEAK") {
    if (scope != "NONE") {
      c.L.error(c.at("memory_scope"), "a WEAK ct." + c.op + " takes no memory_scope (cuTile: WEAK uses MemoryScope.NONE)");
      return false;
    }
    return true;
  }
  if (scope == "NONE") {
    c.L.error(c.at("memory_order"), "memory_order " + order + " needs an explicit memory_scope (BLOCK, DEVICE or SYS)");
    return false;
  }
  if (scope == "CLUSTER") {
    c.L.unsupported(c.at("memory_scope"), "ct." + c.op + " MemoryScope.CLUSTER",
                    "MemoryScope.CLUSTER is not supported (cuTile allows it in cuda.lang code only)");
    return false;
  }
  t.sem = order == "RELAXED" ? "relaxed" : is_store ? "release" : "acquire";
  t.scope = scope == "BLOCK" ? "cta" : scope == "DEVICE" ? "gpu" : "sys";
  return true;
}

// The TMA descriptor of a candidate site (lower/tma.cpp), or nullptr; the
// plan's note says which path the site takes and why.
TExprPtr tma_for(OpCall& c, const ArrayVal& a, AccessPlan& plan, const std::string& padding) {
  if (!plan.tma_candidate) return nullptr;
  std::string why;
  TExprPtr desc = c.L.tma_descriptor(a, plan.order, plan.tile_shape, padding, &why);
  if (!desc) {
    plan.tma_candidate = false;
    plan.tma_note = why;
    return nullptr;
  }
  plan.tma_note = "descriptor " + desc->text + " behind " + c.L.tma_flag()->text +
                  " (set by the launcher after checking alignment and strides); pointer path otherwise";
  return desc;
}

// Element offsets of the tile's origin, one per tile axis: index * step
// (the tile extent unless a tiled view sets traversal steps).
TExprPtr tma_offsets(const std::vector<LVal>& index, const AccessPlan& plan) {
  std::vector<TExprPtr> offs;
  for (size_t k = 0; k < index.size(); ++k) {
    const sema::Dim& d = plan.steps.empty() ? plan.tile_shape[k] : plan.steps[k];
    TExprPtr idx = index[k].expr;
    if (is_const(idx, "0")) offs.push_back(lit_int(0));
    else if (d.is_one()) offs.push_back(idx);
    else offs.push_back(binop("*", idx, Lowerer::dim_to_expr(d)));
  }
  return list(offs);
}

// desc.load(...) of a tile access. A descriptor made in memory order for an order= that moves
// the last axis (tma.cpp) takes the offsets of the array's axes and returns the box in memory
// order: tl.permute(box, order) gives tile axis k = array axis order[k].
TExprPtr descriptor_load(const TExprPtr& desc, const std::vector<LVal>& index, const AccessPlan& plan) {
  TExprPtr offsets = tma_offsets(index, plan);
  if (!moves_last_axis(plan.order)) return method(desc, "load", {offsets});
  std::vector<TExprPtr> memory(plan.order.size());
  std::vector<TExprPtr> perm;
  for (size_t k = 0; k < plan.order.size(); ++k) {
    memory[plan.order[k]] = offsets->args[k];
    perm.push_back(lit_int(plan.order[k]));
  }
  return tl_call("permute", {method(desc, "load", {list(memory)}), list(perm)});
}

void record(OpCall& c, const ArrayVal& a, const AccessPlan& p, int tile_rank, bool is_store) {
  AccessSiteReport s;
  s.op = is_store ? "store" : "load";
  s.array = a.display;
  s.array_rank = a.rank;
  s.tile_rank = tile_rank;
  s.line = c.node->lineno;
  s.col = c.node->col_offset;
  s.strategy = p.strategy == AccessPlan::Strategy::PointerScalar ? "pointer_scalar"
               : p.strategy == AccessPlan::Strategy::PointerUnmasked ? "pointer_unmasked" : "pointer_mask";
  s.tma_candidate = p.tma_candidate;
  s.tma_note = p.tma_note;
  s.padding = is_store ? "" : p.padding;
  bool identity = true;
  for (size_t k = 0; k < p.order.size(); ++k) identity = identity && p.order[k] == (int)k;
  if (identity) s.order = "C";
  else {
    s.order = "(";
    for (size_t k = 0; k < p.order.size(); ++k) s.order += (k ? ", " : "") + std::to_string(p.order[k]);
    s.order += ")";
  }
  c.L.report().accesses.push_back(s);
}

}  // namespace

LVal lower_tile_load(OpCall& c, const TileAccess& t) {
  const ArrayVal& arr = *t.array;
  // Ordered accesses are per-element atomics: pointer path only.
  std::optional<bool> allow_tma = t.sem.empty() ? t.allow_tma : std::optional<bool>(false);
  AccessPlan plan = plan_tile_access(arr, t.shape, t.order, t.padding, t.bounds.on, allow_tma, false);
  plan.steps = t.steps;
  TExprPtr desc = tma_for(c, arr, plan, t.padding);
  record(c, arr, plan, (int)t.shape.size(), false);
  c.L.note_footprint(t.shape, false);
  auto tp = emit_tile_pointers(c.L, arr, t.index, plan, c.L.name_hint("tile"), true,
                               !c.L.updated_in_place(arr));
  // Loaded without its extent-1 axes (access_plan.h says why), then given the tile's shape.
  auto unsqueeze = [&](TExprPtr e) { return tp.squeezed.empty() ? e : tl_call("reshape", {e, ops::shape_list(t.shape)}); };
  if (!t.sem.empty()) {
    TExprPtr none = lit("None");
    TExprPtr mask = tp.mask ? when_checked(t.bounds, tp.mask, none) : none;
    TExprPtr other = tp.mask ? when_checked(t.bounds, padding_value(c.L, t.padding, arr.dtype), none) : none;
    TExprPtr e = call(name(c.L.prelude("_c2t_load_ordered")),
                      {tp.ptrs, mask, other, lit_str(t.sem), lit_str(t.scope)});
    return ops::make_value(unsqueeze(e), t.shape, arr.dtype);
  }
  std::vector<std::pair<std::string, TExprPtr>> kw;
  if (tp.mask) {
    kw.push_back({"mask", when_checked(t.bounds, tp.mask, nullptr)});
    kw.push_back({"other", when_checked(t.bounds, padding_value(c.L, t.padding, arr.dtype), nullptr)});
  }
  TExprPtr e = unsqueeze(tl_call("load", {tp.ptrs}, kw));
  // Both paths pad with zero (UNDETERMINED/ZERO) or NaN (NAN): see tma.cpp.
  if (desc) {
    e = ifexp(c.L.tma_flag(), descriptor_load(desc, t.index, plan), e);
    // Inside a larger expression the two-path load gets its own line.
    if (!c.L.is_assign_rhs(c.node)) e = c.L.bind(c.L.name_hint("tile"), e);
  }
  return ops::make_value(e, t.shape, arr.dtype);
}

namespace {

// A tile loaded from a kernel parameter (or an element of a list parameter) records which array
// axis each of its dimensions runs along: tile dimension k is the permuted view's axis k, i.e.
// array axis order[k] (lower/k_major.h).
LVal with_origin(LVal v, const ArrayVal& arr, const TileAccess& t, OpCall& c) {
  const std::string& param = !arr.kernel_param.empty() ? arr.kernel_param
                             : !arr.rank_view_of.empty() ? arr.rank_view_of : arr.list_param;
  if (!v.ok() || param.empty() || !t.sem.empty() || t.shape.size() != (size_t)arr.rank || t.order.size() != t.shape.size())
    return v;
  TileOrigin::Source s;
  s.param = param;
  s.axes.assign(t.order.begin(), t.order.end());
  s.known = c.L.constexpr_branch_conds(s.conds);
  auto o = std::make_shared<TileOrigin>();
  o->sources.push_back(std::move(s));
  v.origin = std::move(o);
  return v;
}

LVal load(OpCall& c) {
  LVal& a = c.arg("array");
  if (!a.ok()) return {};
  if (a.info.kind != sema::VKind::Array) {
    c.L.error(c.at("array"), "ct.load expects an array as its first argument");
    return {};
  }
  TileAccess t;
  t.array = a.array.get();
  const ArrayVal& arr = *a.array;
  auto shape = c.L.shape_arg(c.arg("shape"), c.at("shape"), "the tile shape");
  if (!shape) return {};
  auto index = tile_index_arg(c, "index", arr.rank);
  if (!index) return {};
  bool scalar = shape->empty();
  if (!scalar && (int)shape->size() != arr.rank) {
    c.L.error(c.at("shape"), "the tile shape has rank " + std::to_string(shape->size()) + " but the index has " +
                                 std::to_string(arr.rank) + " entr" + (arr.rank == 1 ? "y" : "ies") + " (array " + arr.display +
                                 ": rank " + std::to_string(arr.rank) +
                                 "); cuTile takes one index entry and one tile extent per array axis");
    return {};
  }
  auto ord = order_arg(c, arr.rank);
  auto bc = bounds_check_arg(c);
  auto tma = allow_tma_arg(c);
  if (!ord || !bc || !tma || !memory_order_arg(c, false, t)) return {};
  auto padding_mode = padding_mode_arg(c);
  if (!padding_mode) return {};
  t.index = std::move(*index);
  t.shape = std::move(*shape);
  t.order = std::move(*ord);
  t.bounds = *bc;
  t.allow_tma = *tma;
  t.padding = *padding_mode;
  if (!scalar && (int)t.shape.size() == arr.rank) {
    // `X = ct.permute(X, perm)` right after: tile axis k of the result is the
    // load's axis perm[k], so load in that order (Lowerer::take_load_permutation).
    if (auto perm = c.L.take_load_permutation(c.node, t.shape.size())) {
      TileAccess p = t;
      for (size_t k = 0; k < perm->size(); ++k) {
        p.index[k] = t.index[(*perm)[k]];
        p.shape[k] = t.shape[(*perm)[k]];
        p.order[k] = t.order[(*perm)[k]];
      }
      return with_origin(lower_tile_load(c, p), arr, p, c);
    }
  }
  return with_origin(lower_tile_load(c, t), arr, t, c);
}

LVal store(OpCall& c) {
  LVal& a = c.arg("array");
  if (!a.ok()) return {};
  if (a.info.kind != sema::VKind::Array) {
    c.L.error(c.at("array"), "ct.store expects an array as its first argument");
    return {};
  }
  const ArrayVal& arr = *a.array;
  auto index = tile_index_arg(c, "index", arr.rank);
  LVal& tile = c.arg("tile");
  if (!index || !tile.ok()) return {};
  if (std::string no = ops::not_a_stored_value(tile); !no.empty()) {
    c.L.error(c.at("tile"), "ct.store stores a tile or a scalar" + no);
    return {};
  }
  auto ord = order_arg(c, arr.rank);
  auto bc = bounds_check_arg(c);
  auto tma = allow_tma_arg(c);
  TileAccess t;
  if (!ord || !bc || !tma || !memory_order_arg(c, true, t)) return {};
  sema::Shape shape = ops::shape_of(tile);
  if (shape.unknown_rank) shape = sema::Shape(arr.rank, sema::Dim{});  // cuTile: tile rank == array rank
  if (!shape.empty() && (int)shape.size() != arr.rank) {
    c.L.error(c.at("tile"), "the tile has rank " + std::to_string(shape.size()) + " but the index has " +
                                std::to_string(arr.rank) + " entr" + (arr.rank == 1 ? "y" : "ies") + " (array " + arr.display +
                                ": rank " + std::to_string(arr.rank) +
                                "); cuTile takes one index entry and one tile extent per array axis");
    return {};
  }
  // Symbolic extents only Triton knows become `tile.shape[k]`.
  for (size_t k = 0; k < shape.size(); ++k)
    if (!shape[k].value && shape[k].expr.empty()) shape[k] = sema::Dim::sym(source(c.L.dim_expr(tile, k)));
  t.array = &arr;
  t.index = std::move(*index);
  t.shape = std::move(shape);
  t.order = std::move(*ord);
  t.bounds = *bc;
  t.allow_tma = *tma;
  return lower_tile_store(c, t, tile);
}

}  // namespace

LVal lower_tile_store(OpCall& c, const TileAccess& t, const LVal& tile) {
  const ArrayVal& arr = *t.array;
  std::optional<bool> allow_tma = t.sem.empty() ? t.allow_tma : std::optional<bool>(false);
  AccessPlan plan = plan_tile_access(arr, t.shape, t.order, "", t.bounds.on, allow_tma, true);
  plan.steps = t.steps;
  TExprPtr desc = tma_for(c, arr, plan, "ZERO");
  record(c, arr, plan, (int)t.shape.size(), true);
  c.L.note_footprint(t.shape, false);
  // With a descriptor: `if USE_TMA: desc.store(...) else: <pointer store>`
  // (the descriptor store also converts to the element type and drops
  // out-of-bounds elements, triton_target.md §1.1/§1.3).
  TStmt branch{TStmt::Kind::If};
  if (desc) {
    branch.value = c.L.tma_flag();
    branch.body.push_back(TStmt::expr(method(desc, "store", {tma_offsets(t.index, plan), tile.expr})));
    c.L.push_block(&branch.orelse);
  }
  // A tile value loses its extent-1 axes with the pointers' (access_plan.h); scalars broadcast.
  // (only a tile of exactly the access's shape: a broadcast one keeps the full-rank pointers).
  sema::Shape ts = ops::shape_of(tile);
  bool is_tile = tile.info.kind == sema::VKind::Tile && !ts.unknown_rank && ts.size() == t.shape.size();
  for (size_t k = 0; is_tile && k < ts.size(); ++k) is_tile = ts[k].same(t.shape[k]);
  auto tp = emit_tile_pointers(c.L, arr, t.index, plan, arr.display, is_tile, !c.L.updated_in_place(arr));
  TExprPtr value = tp.squeezed.empty() ? tile.expr : tl_call("reshape", {tile.expr, list(tp.squeezed)});
  if (!t.sem.empty()) {
    TExprPtr none = lit("None");
    TExprPtr mask = tp.mask ? when_checked(t.bounds, tp.mask, none) : none;
    return ops::make_none(call(name(c.L.prelude("_c2t_store_ordered")),
                               {tp.ptrs, value, mask, lit_str(t.sem), lit_str(t.scope)}));
  }
  std::vector<std::pair<std::string, TExprPtr>> kw;
  if (tp.mask) kw.push_back({"mask", when_checked(t.bounds, tp.mask, nullptr)});
  // tl.store converts to the array's element type (cuTile allows only widening; valid input never narrows).
  TExprPtr st = tl_call("store", {tp.ptrs, value}, kw);
  if (!desc) return ops::make_none(st);
  c.L.emit(TStmt::expr(st));
  c.L.pop_block();
  c.L.emit(std::move(branch));
  return ops::make_none(nullptr);
}

namespace {

// Array.slice(axis, start, stop): a view whose base moves by start elements
// along `axis` and whose extent there is stop - start (cuTile §3.2; start and
// stop are element offsets, runtime values allowed). The offset is computed in
// int64 so that large arrays do not overflow.
LVal array_slice(OpCall& c) {
  LVal& a = c.arg("self");
  if (!a.ok() || a.info.kind != sema::VKind::Array) return {};
  const ArrayVal& arr = *a.array;
  auto axis = c.L.const_int(c.arg("axis"), c.at("axis"), "the axis of Array.slice");
  LVal& start = c.arg("start");
  LVal& stop = c.arg("stop");
  if (!axis || !start.ok() || !stop.ok()) return {};
  long long ax = *axis < 0 ? *axis + arr.rank : *axis;
  if (ax < 0 || ax >= arr.rank) {
    c.L.error(c.at("axis"), "axis out of range for an array of rank " + std::to_string(arr.rank));
    return {};
  }
  for (LVal* v : {&start, &stop})
    if (!ops::is_number_like(*v) || v->info.kind == sema::VKind::Tile) {
      c.L.error(c.node, "Array.slice takes scalar start and stop");
      return {};
    }
  auto view = std::make_shared<ArrayVal>(arr);
  std::string hint = c.L.name_hint(arr.display + "_view");
  view->display = hint;
  view->kernel_param.clear();  // a moved base pointer: alignment unknown, pointer path only
  TExprPtr off = is_const(start.expr, "0") ? nullptr : binop("*", tl_call("cast", {start.expr, tl_attr("int64")}), arr.strides[ax]);
  if (off) view->ptr = c.L.bind(hint + "_ptr", binop("+", arr.ptr, off));
  view->shape[ax] = c.L.bind(hint + "_shape_" + std::to_string(ax), is_const(start.expr, "0") ? stop.expr : binop("-", stop.expr, start.expr));
  LVal out = a;
  out.array = view;
  out.expr = nullptr;
  return out;
}

}  // namespace

void register_memory_ops(Registry& r) {
  r.add("Array.slice", "memory", "self, axis, start, stop", array_slice,
        "view: ptr + start * stride[axis] (int64), shape[axis] = stop - start");
  r.add("load", "memory",
        "array, /, index, shape, *, order=, padding_mode=, check_bounds=, latency=, allow_tma=, memory_order=, "
        "memory_scope=",
        load, "tl.load(ptr + offsets, mask=per-axis bounds, other=padding); 2-D+: desc.load behind the host-checked USE_TMA flag");
  r.add("store", "memory",
        "array, /, index, tile, *, order=, check_bounds=, latency=, allow_tma=, memory_order=, memory_scope=", store,
        "tl.store(ptr + offsets, tile, mask=per-axis bounds); 2-D+: desc.store behind the host-checked USE_TMA flag");
}

}  // namespace c2t::lower
