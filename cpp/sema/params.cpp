#include "sema/params.h"

#include <algorithm>
#include <functional>

#include "sema/ast_util.h"

namespace c2t::sema {
namespace {

// What the uses of one array (a parameter, or the elements of a list
// parameter) say about its rank.
struct ArrayFacts {
  bool use = false;
  std::set<int> ranks;          // exact ranks implied by uses
  int min_rank = 0;             // from .shape[k] / .strides[k]
  const Node* first_use = nullptr;
  // The Name node of each use that shows its rank (-2: a rank-agnostic use,
  // `.dtype`); lets an array used with several ranks be viewed per use.
  std::map<const Node*, int> use_rank;
  // Ranks of uses outside every `if` on a compile-time parameter: those hold
  // in every specialization, so two of them conflict; the first such use of
  // each rank, so that the diagnostic points at the conflicting use.
  std::set<int> unconditional_ranks;
  std::map<int, const Node*> unconditional_at;
  bool via_helper = false;      // also used inside a helper it is passed to
  // get_raw_memory() addresses elements from the base pointer, whatever the
  // rank; other rank-agnostic uses (.ndim, .slice, a tiled view of unknown
  // rank) still need the actual rank.
  bool raw_use = false;
  bool rank_needed = false;

  void merge(const ArrayFacts& g) {
    use = use || g.use;
    via_helper = via_helper || g.use;
    ranks.insert(g.ranks.begin(), g.ranks.end());
    // (a helper's unconditional uses may sit under a constexpr `if` at the
    // call: not merged; the lowering's static_assert still checks them)
    min_rank = std::max(min_rank, g.min_rank);
    raw_use = raw_use || g.raw_use;
    rank_needed = rank_needed || g.rank_needed;
    if (!first_use) first_use = g.first_use;
  }
};

struct Facts {
  ArrayFacts arr;               // the parameter used as an array
  ArrayFacts elem;              // the parameter used as a list: its elements (`As[g]`)
  bool list_use = false;
  // Subscripts by compile-time integers (a tuple parameter, cuTile
  // TupleConstraint: `addends[0]`), per index the array uses of that element,
  // and whether any subscript is a runtime value or len() is taken (a list).
  std::set<long long> const_indices;
  std::map<long long, ArrayFacts> tuple_elem;
  std::map<long long, std::vector<std::pair<const Node*, size_t>>> tuple_passed_to;
  bool runtime_index = false;
  bool len_use = false;
  // (helper def, parameter index) this parameter / one of its elements is passed to.
  std::vector<std::pair<const Node*, size_t>> passed_to;
  std::vector<std::pair<const Node*, size_t>> elem_passed_to;
};

int tuple_len(const Node* e) {
  if (!e) return -1;
  if (e->is("Tuple") || e->is("List")) return (int)nodes_of(e, "elts").size();
  return -1;
}

// Positional-or-keyword argument of a cuTile call.
const Node* arg_or_kw(const Node* call, size_t pos, std::string_view kw) {
  if (auto* a = call_arg(call, pos)) return a;
  return call_kwarg(call, kw);
}

std::vector<std::string> param_names(const Node* def) {
  std::vector<std::string> out;
  auto* args = def->child("args");
  for (auto* a : nodes_of(args, "posonlyargs")) out.emplace_back(a->str("arg"));
  for (auto* a : nodes_of(args, "args")) out.emplace_back(a->str("arg"));
  for (auto* a : nodes_of(args, "kwonlyargs")) out.emplace_back(a->str("arg"));
  return out;
}

// Collects facts for every parameter of `def` (indexed like param_names).
std::vector<Facts> collect(const ModuleInfo& mi, const Node* def) {
  auto names = param_names(def);
  std::vector<Facts> facts(names.size());
  // Local names that alias a parameter (`q = Q`, `q = Q.slice(...)`) or an
  // element of a list parameter (`Ai = As[g]`): (parameter index, element?).
  std::map<std::string, std::pair<size_t, bool>> alias;
  for (size_t k = 0; k < names.size(); ++k) alias[names[k]] = {k, false};
  auto param_of = [&](const Node* e) -> Facts* {
    if (!e || !e->is("Name")) return nullptr;
    auto it = alias.find(std::string(e->str("id")));
    return it == alias.end() || it->second.second ? nullptr : &facts[it->second.first];
  };
  // Element aliases by compile-time indices (`a = pair[0]`; a name may be
  // bound to several elements on different paths): local -> indices.
  std::map<std::string, std::set<long long>> alias_index;
  auto const_index = [&](const Node* sub) -> std::optional<long long> {
    auto c = mi.fold(sub->child("slice"));
    if (c && c->kind == ConstValue::Kind::Int && c->i >= 0) return c->i;
    return std::nullopt;
  };
  // The per-index facts of the tuple elements `e` may refer to (`P[0]`, or an alias).
  auto tuple_elems_of = [&](const Node* e) {
    std::vector<ArrayFacts*> out;
    if (!e) return out;
    if (e->is("Subscript")) {
      Facts* f = param_of(e->child("value"));
      auto i = const_index(e);
      if (f && i) out.push_back(&f->tuple_elem[*i]);
    } else if (e->is("Name")) {
      std::string id(e->str("id"));
      auto ai = alias_index.find(id);
      auto it = alias.find(id);
      if (ai != alias_index.end() && it != alias.end() && it->second.second)
        for (long long i : ai->second) out.push_back(&facts[it->second.first].tuple_elem[i]);
    }
    return out;
  };
  // The array facts `e` feeds: a parameter used as an array, or an element of
  // a list parameter (an alias of one, or `As[g]` itself).
  auto array_of = [&](const Node* e, bool mark_use = true) -> ArrayFacts* {
    if (!e) return nullptr;
    if (mark_use)
      for (auto* tf : tuple_elems_of(e)) tf->use = true;
    if (e->is("Name")) {
      auto it = alias.find(std::string(e->str("id")));
      if (it == alias.end()) return nullptr;
      Facts& f = facts[it->second.first];
      return it->second.second ? &f.elem : &f.arr;
    }
    if (e->is("Subscript"))
      if (auto* f = param_of(e->child("value"))) return &f->elem;
    return nullptr;
  };
  // Local assignments, to see through `idx = (i, j)` / `offs = ct.arange(...)`.
  std::map<std::string, const Node*> local_value;
  for (auto* st : nodes_of(def, "body"))
    walk(st, [&](const Node* n) {
      if (n->is("Assign")) {
        auto t = nodes_of(n, "targets");
        if (t.size() == 1 && t[0]->is("Name")) local_value[std::string(t[0]->str("id"))] = n->child("value");
      }
      return !n->is("FunctionDef");
    });
  // Rank implied by an index expression: a tuple's length; a bare non-tuple
  // value (a scalar or a tile of element indices) is the 1-D form.
  auto index_rank = [&](const Node* idx) -> int {
    if (!idx) return -1;
    int r = tuple_len(idx);
    if (r >= 0) return r;
    if (idx->is("Name")) {
      std::string id(idx->str("id"));
      if (alias.count(id)) return -1;  // a parameter: unknown
      auto it = local_value.find(id);
      if (it == local_value.end()) {
        auto c = mi.constants.find(id);
        if (c != mi.constants.end() && c->second.kind == ConstValue::Kind::Tuple) return (int)c->second.items.size();
        // a loop variable or another scalar: the bare-index (1-D) form
        return c == mi.constants.end() ? 1 : -1;
      }
      if (tuple_len(it->second) >= 0) return tuple_len(it->second);
      if (it->second->is("Call")) {
        auto q = mi.cutile_name(it->second->child("func"));
        if (!q) return -1;  // a helper's result may be a tuple
      }
      return 1;
    }
    return 1;
  };
  // Nodes inside a branch of an `if` whose test reads a compile-time
  // parameter (a Constant of a kernel; any parameter of a helper, which is
  // specialized per call): a use there may hold in some specializations only.
  std::set<std::string> const_params;
  {
    auto* args = def->child("args");
    bool kernel = mi.kernel_by_def(def) != nullptr;
    for (auto* field : {"posonlyargs", "args", "kwonlyargs"})
      for (auto* a : nodes_of(args, field)) {
        auto c = a->child("annotation") ? mi.fold(a->child("annotation")) : std::nullopt;
        if (!kernel || (c && c->kind == ConstValue::Kind::ConstantAnnotation)) const_params.insert(std::string(a->str("arg")));
      }
    if (auto* k = mi.kernel_by_def(def))  // names read at launch are constexprs too
      for (auto* n : k->launch_constants) const_params.insert(std::string(n->str("id")));
  }
  // Locals bound once to an expression of compile-time parameters only
  // (`have = MODE > 1`) are compile-time as well.
  {
    std::map<std::string, int> bound;
    std::vector<std::pair<std::string, const Node*>> single;
    for (auto* st : nodes_of(def, "body"))
      walk(st, [&](const Node* n) {
        if (n->is("FunctionDef") || n->is("Lambda")) return false;
        if (n->is("Name") && n->child("ctx") && !n->child("ctx")->is("Load")) ++bound[std::string(n->str("id"))];
        if (n->is("Assign") && nodes_of(n, "targets").size() == 1 && nodes_of(n, "targets")[0]->is("Name"))
          single.push_back({std::string(nodes_of(n, "targets")[0]->str("id")), n->child("value")});
        return true;
      });
    for (auto& [name, value] : single) {
      if (bound[name] != 1 || const_params.count(name)) continue;
      bool all_const = true;
      walk(value, [&](const Node* x) {
        if (x->is("Call")) all_const = false;  // (a call may read runtime values)
        if (x->is("Name") && !const_params.count(std::string(x->str("id")))) all_const = false;
        return all_const;
      });
      if (all_const) const_params.insert(name);
    }
  }
  // `len(P.shape)` / `len(P.strides)` / `P.ndim` of an array parameter P:
  // returns P's Name node.
  auto rank_query = [&](const Node* x) -> const Node* {
    const Node* base = nullptr;
    if (x->is("Attribute") && x->str("attr") == "ndim") {
      base = x->child("value");
    } else if (x->is("Call") && x->child("func")->is("Name") && x->child("func")->str("id") == "len" &&
               nodes_of(x, "args").size() == 1 && nodes_of(x, "keywords").empty()) {
      auto* a = nodes_of(x, "args")[0];
      if (a->is("Attribute") && (a->str("attr") == "shape" || a->str("attr") == "strides")) base = a->child("value");
    }
    if (!base || !base->is("Name")) return nullptr;
    auto it = alias.find(std::string(base->str("id")));
    return it != alias.end() && !it->second.second ? base : nullptr;
  };
  std::set<const Node*> conditional;
  for (auto* st : nodes_of(def, "body"))
    walk(st, [&](const Node* n) {
      if (n->is("FunctionDef") || n->is("Lambda")) return false;
      if (!n->is("If")) return true;
      // The whole test must be compile-time: Constants, locals bound to them,
      // dtypes, cuda.tile and module constants (a runtime `if` is compiled
      // for every specialization, as in cuTile).
      std::function<bool(const Node*)> compile_time = [&](const Node* x) -> bool {
        if (x->is("Attribute") && x->str("attr") == "dtype") return true;
        // An array's rank is part of its type in cuTile (one specialization
        // per rank): `len(A.shape)` and `A.ndim` are compile-time
        // (BlockScaledMatMul.py: `if len(A_scale.shape) == 2:`).
        if (rank_query(x)) return true;
        if (x->is("Name")) {
          std::string id(x->str("id"));
          return const_params.count(id) || mi.ct_modules.count(id) || mi.constants.count(id);
        }
        if (x->is("Call") || x->is("NamedExpr")) return false;
        bool all = true;
        for (auto& f : x->fields) {
          if (f.second.kind == syntax::Value::Kind::Node) all = all && compile_time(f.second.node);
          else if (f.second.kind == syntax::Value::Kind::List)
            for (auto& item : f.second.items)
              if (item.kind == syntax::Value::Kind::Node) all = all && compile_time(item.node);
        }
        return all;
      };
      bool on_const = n->child("test") && compile_time(n->child("test"));
      if (on_const)
        for (auto* field : {"body", "orelse"})
          for (auto* b : nodes_of(n, field))
            walk(b, [&](const Node* x) { conditional.insert(x); return true; });
      return true;
    });
  auto note = [&](const Node* arr, const Node* at, int rank) {
    ArrayFacts* f = array_of(arr);
    if (!f) return;
    if (rank >= 0)
      for (auto* tf : tuple_elems_of(arr)) tf->ranks.insert(rank);
    f->use = true;
    if (!f->first_use) f->first_use = at;
    if (rank >= 0) {
      f->ranks.insert(rank);
      if (arr->is("Name")) f->use_rank[arr] = rank;
      if (!conditional.count(at)) {
        f->unconditional_ranks.insert(rank);
        f->unconditional_at.emplace(rank, at);
      }
    }
  };
  for (auto* st : nodes_of(def, "body")) {
    walk(st, [&](const Node* n) {
      if (n->is("FunctionDef") || n->is("Lambda")) return false;
      if (n->is("Assign")) {
        auto targets = nodes_of(n, "targets");
        auto* v = n->child("value");
        if (targets.size() == 1 && targets[0]->is("Name") && v) {
          const Node* src = v;
          // (a tiled view's uses show the array's rank too: tv.load(index) has one index per axis)
          if (v->is("Call") && v->child("func")->is("Attribute") &&
              (v->child("func")->str("attr") == "slice" || v->child("func")->str("attr") == "tiled_view"))
            src = v->child("func")->child("value");
          if (src->is("Name")) {
            auto it = alias.find(std::string(src->str("id")));
            if (it != alias.end()) alias[std::string(targets[0]->str("id"))] = it->second;
          } else if (src->is("Subscript") && src->child("value")->is("Name")) {
            auto it = alias.find(std::string(src->child("value")->str("id")));
            if (it != alias.end() && !it->second.second) {
              std::string t(targets[0]->str("id"));
              alias[t] = {it->second.first, true};
              if (auto i = const_index(src)) alias_index[t].insert(*i);
              else alias_index[t].insert(-1);  // a runtime element: the parameter is a list
            }
          }
        }
        return true;
      }
      if (n->is("Subscript")) {
        // A.shape[k] / A.strides[k]: rank > k; As[g]: a list of arrays.
        auto* v = n->child("value");
        if (v && v->is("Attribute") && (v->str("attr") == "shape" || v->str("attr") == "strides")) {
          if (auto* f = array_of(v->child("value"))) {
            auto* s = n->child("slice");
            auto c = mi.fold(s);
            f->use = true;
            if (!f->first_use) f->first_use = n;
            if (c && c->kind == ConstValue::Kind::Int && c->i >= 0) f->min_rank = std::max<int>(f->min_rank, (int)c->i + 1);
          }
        } else if (auto* f = param_of(v)) {
          f->list_use = true;
          if (auto i = const_index(n)) f->const_indices.insert(*i);
          else f->runtime_index = true;
        }
        return true;
      }
      if (auto* base = rank_query(n)) {
        // Rank-agnostic (the lowering answers it with the rank constexpr).
        if (auto* f = array_of(base)) {
          f->use = true;
          if (!f->first_use) f->first_use = n;
          f->use_rank[base] = -2;
        }
        return false;
      }
      if (n->is("Attribute")) {
        auto attr = n->str("attr");
        auto* base = n->child("value");
        if (attr == "dtype") {
          // Rank-agnostic, but still an array use.
          if (auto* f = array_of(base)) {
            if (base->is("Name")) f->use_rank[base] = -2;
          }
        } else if (attr == "ndim" || attr == "slice" || attr == "tiled_view" || attr == "get_raw_memory") {
          if (auto* f = array_of(base)) {
            f->use = true;
            if (!f->first_use) f->first_use = n;
            if (attr == "get_raw_memory") f->raw_use = true;
            else if (attr != "tiled_view") f->rank_needed = true;  // (tiled_view: noted at its call)
          }
        }
        return true;
      }
      if (!n->is("Call")) return true;
      auto* fn = n->child("func");
      if (fn->is("Attribute") && fn->str("attr") == "tiled_view" && array_of(fn->child("value"))) {
        // A.tiled_view(tile_shape, traversal_steps=...): the tile shape has the
        // array's rank unless it is () (single elements) or a name we cannot see into.
        auto len_of = [&](const Node* e) {
          if (!e) return -1;
          if (int r = tuple_len(e); r >= 0) return r;
          auto c = mi.fold(e);
          if (c && c->kind == ConstValue::Kind::Int) return 1;
          if (c && c->kind == ConstValue::Kind::Tuple) return (int)c->items.size();
          // A Constant parameter is an int tile extent (the 1-D form); were it
          // a tuple, lowering the view reports the rank mismatch.
          if (e->is("Name") && const_params.count(std::string(e->str("id")))) return 1;
          return index_rank(e);
        };
        int r = len_of(arg_or_kw(n, 0, "tile_shape"));
        if (r <= 0) r = len_of(call_kwarg(n, "traversal_steps"));
        note(fn->child("value"), n, r > 0 ? r : -1);
        if (r <= 0) array_of(fn->child("value"))->rank_needed = true;
        return true;
      }
      if (fn->is("Attribute")) {
        // TiledView.load / store / atomic_store_*(index, ...): one index per axis of the array.
        auto attr = fn->str("attr");
        const Node* view = fn->child("value");
        if (view->is("Call") && view->child("func")->is("Attribute") && view->child("func")->str("attr") == "tiled_view")
          view = view->child("func")->child("value");
        if ((attr == "load" || attr == "store" || attr.rfind("atomic_store_", 0) == 0) && array_of(view)) {
          note(view, n, index_rank(arg_or_kw(n, 0, "index")));
          return true;
        }
      }
      auto q = mi.cutile_name(fn);
      if (q) {
        const std::string& op = *q;
        auto* arr = call_arg(n, 0);
        if (!arr) arr = call_kwarg(n, "array");
        if (!array_of(arr, false)) return true;  // (note() marks the array uses)
        if (op == "load") {
          auto* idx = arg_or_kw(n, 1, "index");
          auto* shp = arg_or_kw(n, 2, "shape");
          int r = index_rank(idx);
          if (r < 0 && tuple_len(shp) > 0) r = tuple_len(shp);
          if (r < 0 && shp && !shp->is("Name")) r = 1;  // a bare (non-tuple) shape is the 1-D form
          // Both given through names we cannot see into (helper parameters):
          // the bare-index form is 1-D; a wrong guess is caught when the load
          // is lowered (index length vs. rank), never miscompiled.
          if (r < 0 && idx && idx->is("Name") && shp && shp->is("Name")) r = 1;
          note(arr, n, r);
        } else if (op == "store") {
          note(arr, n, index_rank(arg_or_kw(n, 1, "index")));
        } else if (op == "gather" || op == "scatter" || op.rfind("atomic_", 0) == 0 ||
                   op == "load_advanced_indexing" || op == "store_advanced_indexing") {
          note(arr, n, index_rank(arg_or_kw(n, 1, "indices")));
        } else if (op == "num_tiles") {
          auto* shp = arg_or_kw(n, 2, "shape");
          note(arr, n, tuple_len(shp));
        }
        return true;
      }
      if (fn->is("Name") && fn->str("id") == "len")
        if (auto* f = param_of(call_arg(n, 0))) f->len_use = true;
      // A plain helper call: remember where each parameter (or list element) flows.
      if (fn->is("Name")) {
        auto it = mi.functions.find(std::string(fn->str("id")));
        if (it != mi.functions.end() && !mi.kernel_by_def(it->second)) {
          auto callee_names = param_names(it->second);
          auto flow = [&](const Node* a, size_t k) {
            if (auto* f = param_of(a)) {
              f->passed_to.push_back({it->second, k});
            } else if (auto* ef = array_of(a, false)) {
              for (auto& pf : facts)
                if (&pf.elem == ef) pf.elem_passed_to.push_back({it->second, k});
              for (auto* tf : tuple_elems_of(a))
                for (auto& pf : facts)
                  for (auto& [idx, te] : pf.tuple_elem)
                    if (&te == tf) pf.tuple_passed_to[idx].push_back({it->second, k});
            }
          };
          auto args = nodes_of(n, "args");
          for (size_t k = 0; k < args.size(); ++k) flow(args[k], k);
          for (auto* kw : nodes_of(n, "keywords"))
            for (size_t k = 0; k < callee_names.size(); ++k)
              if (callee_names[k] == kw->str("arg")) flow(kw->child("value"), k);
        }
      }
      return true;
    });
  }
  return facts;
}

// A list annotated with int64-indexed elements:
// `Annotated[list, ct.ListAnnotation(element=ct.IndexedWithInt64)]` (or an
// ArrayAnnotation with index_dtype=ct.int64), written in place or through a
// module-level alias (cuTile test_list.py).
bool int64_list_annotation(const ModuleInfo& mi, const Node* ann) {
  if (!ann) return false;
  if (ann->is("Name") && !mi.cutile_name(ann)) {
    for (auto* st : nodes_of(mi.module, "body")) {
      if (!st->is("Assign")) continue;
      auto t = nodes_of(st, "targets");
      if (t.size() == 1 && t[0]->is("Name") && t[0]->str("id") == ann->str("id")) ann = st->child("value");
    }
    if (ann->is("Name")) return false;
  }
  bool list = false, int64 = false;
  walk(ann, [&](const Node* n) {
    auto q = mi.cutile_name(n);
    if (q && *q == "ListAnnotation") list = true;
    if (q && *q == "IndexedWithInt64") int64 = true;
    if (n->is("keyword") && n->str("arg") == "index_dtype") {
      auto d = mi.cutile_name(n->child("value"));
      int64 = int64 || (d && *d == "int64");
    }
    return true;
  });
  return list && int64;
}

}  // namespace

std::vector<ParamKind> classify_kernel_params(const ModuleInfo& mi, const KernelInfo& k,
                                              const std::map<std::string, int>& rank_overrides,
                                              Diagnostics& diags) {
  const Node* def = k.def;
  auto* args = def->child("args");
  std::vector<ParamKind> out;
  if (args->child("vararg") || args->child("kwarg")) {
    auto* at = args->child("vararg") ? args->child("vararg") : args->child("kwarg");
    diags.error(at->lineno, at->col_offset, "a cuTile kernel cannot take *args or **kwargs");
  }
  std::vector<const Node*> arg_nodes;
  for (auto* a : nodes_of(args, "posonlyargs")) arg_nodes.push_back(a);
  for (auto* a : nodes_of(args, "args")) arg_nodes.push_back(a);
  for (auto* a : nodes_of(args, "kwonlyargs")) arg_nodes.push_back(a);
  auto defaults = nodes_of(args, "defaults");

  // Facts with propagation through helpers (memoised per def; depth-bounded).
  std::map<const Node*, std::vector<Facts>> memo;
  std::function<Facts(const Node*, size_t, int)> resolved = [&](const Node* fdef, size_t idx, int depth) -> Facts {
    auto it = memo.find(fdef);
    if (it == memo.end()) it = memo.emplace(fdef, collect(mi, fdef)).first;
    if (idx >= it->second.size()) return {};
    Facts f = it->second[idx];
    if (depth > 8) return f;
    for (auto& [callee, pos] : std::vector<std::pair<const Node*, size_t>>(f.passed_to)) {
      Facts g = resolved(callee, pos, depth + 1);
      f.arr.merge(g.arr);
      f.elem.merge(g.elem);
      f.list_use = f.list_use || g.list_use;
      f.const_indices.insert(g.const_indices.begin(), g.const_indices.end());
      for (auto& [idx, te] : g.tuple_elem) f.tuple_elem[idx].merge(te);
      f.runtime_index = f.runtime_index || g.runtime_index;
      f.len_use = f.len_use || g.len_use;
    }
    // A tuple element passed to a helper is that helper's parameter there.
    for (auto& [idx, flows] : std::map<long long, std::vector<std::pair<const Node*, size_t>>>(f.tuple_passed_to))
      for (auto& [callee, pos] : flows) {
        Facts g = resolved(callee, pos, depth + 1);
        f.tuple_elem[idx].merge(g.arr);
      }
    // An element passed to a helper is an array parameter there.
    for (auto& [callee, pos] : std::vector<std::pair<const Node*, size_t>>(f.elem_passed_to))
      f.elem.merge(resolved(callee, pos, depth + 1).arr);
    return f;
  };

  size_t first_default = arg_nodes.size() - std::min(arg_nodes.size(), defaults.size());
  for (size_t i = 0; i < arg_nodes.size(); ++i) {
    const Node* a = arg_nodes[i];
    ParamKind p;
    p.name = std::string(a->str("arg"));
    p.arg_node = a;
    p.annotation = a->child("annotation");
    if (i >= first_default && i - first_default < defaults.size()) p.default_value = defaults[i - first_default];
    if (p.annotation) {
      auto c = mi.fold(p.annotation);
      if (c && c->kind == ConstValue::Kind::ConstantAnnotation) {
        p.kind = ParamKind::Kind::Constexpr;
        out.push_back(p);
        continue;
      }
      auto q = mi.cutile_name(p.annotation);
      if (q && *q == "IndexedWithInt64") p.int64_index = true;
      // An alias imported from another module (`from mytypes import ConstInt`) may be ct.Constant[int], which
      // only the running module knows; read as a plain annotation it would make a runtime scalar silently.
      if (auto imp = p.annotation->is("Name") ? mi.imported_values.find(std::string(p.annotation->str("id")))
                                              : mi.imported_values.end();
          imp != mi.imported_values.end() && imp->second.rfind("typing.", 0) != 0 &&
          imp->second.rfind("typing_extensions.", 0) != 0)
        diags.error(p.annotation->lineno, p.annotation->col_offset,
                    "the annotation of parameter '" + p.name + "' is imported from another module (" + imp->second +
                        "), so whether it is ct.Constant is not known at conversion; annotate with ct.Constant[...] "
                        "here or define the alias in this file");
      if (p.annotation->is("Name")) {
        auto id = p.annotation->str("id");
        if (id == "int" || id == "float" || id == "bool") p.scalar_annotation = std::string(id);
      }
    }
    Facts f = resolved(def, i, 0);
    auto ov = rank_overrides.find(k.name + "." + p.name);
    if (ov == rank_overrides.end()) ov = rank_overrides.find(p.name);
    // One rank for an array (or for the elements of a list) from its uses.
    auto rank_of = [&](const ArrayFacts& af, const std::string& what) -> int {
      if (ov != rank_overrides.end()) return ov->second;
      if (af.ranks.size() == 1) {
        int r = *af.ranks.begin();
        if (r < af.min_rank)
          diags.error(a->lineno, a->col_offset,
                      what + " is loaded with rank " + std::to_string(r) + " but its shape is indexed at position " +
                          std::to_string(af.min_rank - 1));
        return r;
      }
      // Only raw-memory uses: the kernel takes just the pointer (rank 0 here).
      if (af.ranks.empty() && af.raw_use && !af.rank_needed && af.min_rank == 0) return 0;
      if (af.ranks.empty())
        diags.error(a->lineno, a->col_offset,
                    "cannot determine the rank of " + what + " of kernel '" + k.name +
                        "' (it is never used by ct.load/ct.store/ct.gather/ct.scatter/ct.num_tiles); pass it "
                        "explicitly with the converter option array_ranks={\"" + k.name + "." + p.name +
                        "\": N} (command line: --array-rank " + k.name + "." + p.name + "=N)" +
                        (f.list_use && !f.arr.use ? "; a parameter indexed only by constant integers is a tuple of "
                                                    "scalars and arrays, but len() of a tuple and nested tuples are "
                                                    "not supported" : ""));
      return -1;
    };
    auto rank_list = [](const std::set<int>& rs) {
      std::string s;
      for (int r : rs) s += (s.empty() ? "" : ", ") + std::to_string(r);
      return s;
    };
    if (f.list_use && !f.arr.use && !f.runtime_index && !f.len_use && ov == rank_overrides.end()) {
      // A tuple parameter (cuTile TupleConstraint, compilation.rst): only
      // compile-time subscripts. Its elements are passed as consecutive
      // arguments; the kernel takes those it reads (arrays expanded as usual),
      // so elements may differ in kind, dtype and rank. A list the host
      // passes instead works the same way (only constant indices are read).
      p.kind = ParamKind::Kind::Tuple;
      for (long long i : f.const_indices) {
        ParamKind e;
        e.name = p.name + "_" + std::to_string(i);
        e.arg_node = a;
        e.tuple_index = i;
        const ArrayFacts& te = f.tuple_elem[i];
        if (te.use) {
          e.kind = ParamKind::Kind::Array;
          if (te.ranks.size() == 1) {
            e.rank = *te.ranks.begin();
          } else {
            diags.error(a->lineno, a->col_offset,
                        te.ranks.empty() ? "cannot determine the rank of element " + std::to_string(i) +
                                               " of tuple parameter '" + p.name + "' of kernel '" + k.name + "'"
                                         : "element " + std::to_string(i) + " of tuple parameter '" + p.name +
                                               "' is used with different ranks (" + rank_list(te.ranks) + ")");
          }
        } else {
          e.kind = ParamKind::Kind::Scalar;
        }
        p.tuple_elems.push_back(e);
      }
    } else if (f.list_use && !f.arr.use) {
      // cuTile passes a list of arrays as a table of (pointer, shapes,
      // strides) words plus a length; every element has the one rank and
      // dtype of the list's type (compilation.rst, ListConstraint).
      p.kind = ParamKind::Kind::ArrayList;
      p.int64_index = p.int64_index || int64_list_annotation(mi, p.annotation);
      if (f.elem.ranks.size() > 1 && ov == rank_overrides.end())
        diags.error(a->lineno, a->col_offset,
                    "the arrays of list parameter '" + p.name + "' are used with different ranks (" +
                        rank_list(f.elem.ranks) + "); cuTile requires one rank for all elements of a list");
      else
        p.rank = rank_of(f.elem, "the arrays of list parameter '" + p.name + "'");
    } else if (f.arr.use || ov != rank_overrides.end() || p.int64_index) {
      p.kind = ParamKind::Kind::Array;
      if (f.arr.unconditional_ranks.size() > 1 && ov == rank_overrides.end()) {
        // At the use that shows another rank than an earlier one (the newcomer trial looked
        // for it from a caret on the parameter), naming the earlier one's line.
        std::vector<std::pair<int, const Node*>> firsts(f.arr.unconditional_at.begin(),
                                                        f.arr.unconditional_at.end());
        std::sort(firsts.begin(), firsts.end(), [](const auto& x, const auto& y) {
          return std::pair(x.second->lineno, x.second->col_offset) < std::pair(y.second->lineno, y.second->col_offset);
        });
        const Node* here = firsts.size() > 1 ? firsts.back().second : a;
        std::string detail = firsts.size() > 1 ? ": rank " + std::to_string(firsts.back().first) + " here, rank " +
                                                     std::to_string(firsts.front().first) + " at line " +
                                                     std::to_string(firsts.front().second->lineno)
                                               : "";
        diags.error(here->lineno, here->col_offset,
                    "array parameter '" + p.name + "' is used with different ranks (" +
                        rank_list(f.arr.unconditional_ranks) + ")" + detail +
                        " (a load or store takes one index entry per array axis); cuTile requires one rank per "
                        "array");
      } else if (f.arr.ranks.size() > 1 && ov == rank_overrides.end()) {
        // Several ranks: cuTile compiles one specialization per call, and
        // each specialization must use one rank, so the uses of the other
        // ranks sit in branches a Constant removes (tvd.py: LOSS is (BT, V)
        // when reduction == NONE, else (BT,)). The kernel takes the highest
        // rank's shape/strides plus the actual rank as a constexpr; each use
        // asserts that rank statically (lowerer: array_use_view).
        p.ranks.assign(f.arr.ranks.begin(), f.arr.ranks.end());
        p.rank = p.ranks.back();
        p.use_ranks = f.arr.use_rank;
        if (p.rank < f.arr.min_rank)
          diags.error(a->lineno, a->col_offset,
                      "array parameter '" + p.name + "' is used with ranks (" + rank_list(f.arr.ranks) +
                          ") but its shape is indexed at position " + std::to_string(f.arr.min_rank - 1));
      } else if (f.arr.ranks.size() == 1 && f.arr.unconditional_ranks.empty() && f.arr.min_rank == 0 &&
                 !f.arr.via_helper && ov == rank_overrides.end()) {
        // Every use that shows the rank sits in a branch a Constant removes
        // (TileGym dyt.py: db_partial is (NUM_SMS, N) when HAVE_BETA, else a
        // 1-element dummy). cuTile never type-checks a removed branch, so such
        // a call may pass any rank; the uses get the static rank assertions
        // of the several-ranks case, and the launcher pads lower ranks.
        p.ranks.assign(f.arr.ranks.begin(), f.arr.ranks.end());
        p.rank = p.ranks.back();
        p.use_ranks = f.arr.use_rank;
        p.lower_ranks_allowed = true;
      } else {
        p.rank = rank_of(f.arr, "array parameter '" + p.name + "'");
      }
    } else {
      p.kind = ParamKind::Kind::Scalar;
    }
    out.push_back(p);
  }
  for (const Node* n : k.launch_constants) {
    ParamKind p;
    p.kind = ParamKind::Kind::Constexpr;
    p.name = std::string(n->str("id"));
    p.arg_node = n;
    p.launch_constant = true;
    out.push_back(p);
  }
  return out;
}

}  // namespace c2t::sema
