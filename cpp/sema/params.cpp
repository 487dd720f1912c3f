#include "sema/params.h"

#include <functional>

#include "sema/ast_util.h"

namespace c2t::sema {
namespace {

struct Facts {
  bool array_use = false;
  bool list_use = false;
  std::set<int> ranks;          // exact ranks implied by uses
  int min_rank = 0;             // from .shape[k] / .strides[k]
  const Node* first_use = nullptr;
  // (helper def, parameter index) this parameter is passed to.
  std::vector<std::pair<const Node*, size_t>> passed_to;
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
  // Local names that alias a parameter (`q = Q`, `q = Q.slice(...)`).
  std::map<std::string, size_t> alias;
  for (size_t k = 0; k < names.size(); ++k) alias[names[k]] = k;
  auto param_of = [&](const Node* e) -> Facts* {
    if (!e || !e->is("Name")) return nullptr;
    auto it = alias.find(std::string(e->str("id")));
    return it == alias.end() ? nullptr : &facts[it->second];
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
  auto note = [&](Facts* f, const Node* at, int rank) {
    if (!f) return;
    f->array_use = true;
    if (!f->first_use) f->first_use = at;
    if (rank >= 0) f->ranks.insert(rank);
  };
  for (auto* st : nodes_of(def, "body")) {
    walk(st, [&](const Node* n) {
      if (n->is("FunctionDef") || n->is("Lambda")) return false;
      if (n->is("Assign")) {
        auto targets = nodes_of(n, "targets");
        auto* v = n->child("value");
        if (targets.size() == 1 && targets[0]->is("Name") && v) {
          const Node* src = v;
          if (v->is("Call") && v->child("func")->is("Attribute") && v->child("func")->str("attr") == "slice")
            src = v->child("func")->child("value");
          if (src->is("Name")) {
            auto it = alias.find(std::string(src->str("id")));
            if (it != alias.end()) alias[std::string(targets[0]->str("id"))] = it->second;
          }
        }
        return true;
      }
      if (n->is("Subscript")) {
        // A.shape[k] / A.strides[k]: rank > k; As[g]: a list of arrays.
        auto* v = n->child("value");
        if (v && v->is("Attribute") && (v->str("attr") == "shape" || v->str("attr") == "strides")) {
          if (auto* f = param_of(v->child("value"))) {
            auto* s = n->child("slice");
            auto c = mi.fold(s);
            f->array_use = true;
            if (!f->first_use) f->first_use = n;
            if (c && c->kind == ConstValue::Kind::Int && c->i >= 0) f->min_rank = std::max<int>(f->min_rank, (int)c->i + 1);
          }
        } else if (auto* f = param_of(v)) {
          f->list_use = true;
        }
        return true;
      }
      if (n->is("Attribute")) {
        auto attr = n->str("attr");
        if (attr == "ndim" || attr == "slice" || attr == "tiled_view" || attr == "get_raw_memory")
          if (auto* f = param_of(n->child("value"))) { f->array_use = true; if (!f->first_use) f->first_use = n; }
        return true;
      }
      if (!n->is("Call")) return true;
      auto* fn = n->child("func");
      auto q = mi.cutile_name(fn);
      if (q) {
        const std::string& op = *q;
        auto* arr = call_arg(n, 0);
        if (!arr) arr = call_kwarg(n, "array");
        Facts* f = param_of(arr);
        if (!f) return true;
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
          note(f, n, r);
        } else if (op == "store") {
          note(f, n, index_rank(arg_or_kw(n, 1, "index")));
        } else if (op == "gather" || op == "scatter" || op.rfind("atomic_", 0) == 0 ||
                   op == "load_advanced_indexing" || op == "store_advanced_indexing") {
          note(f, n, index_rank(arg_or_kw(n, 1, "indices")));
        } else if (op == "num_tiles") {
          auto* shp = arg_or_kw(n, 2, "shape");
          note(f, n, tuple_len(shp));
        }
        return true;
      }
      // A plain helper call: remember where each parameter flows.
      if (fn->is("Name")) {
        auto it = mi.functions.find(std::string(fn->str("id")));
        if (it != mi.functions.end() && !mi.kernel_by_def(it->second)) {
          auto callee_names = param_names(it->second);
          auto args = nodes_of(n, "args");
          for (size_t k = 0; k < args.size(); ++k)
            if (auto* f = param_of(args[k])) f->passed_to.push_back({it->second, k});
          for (auto* kw : nodes_of(n, "keywords")) {
            auto* f = param_of(kw->child("value"));
            if (!f) continue;
            for (size_t k = 0; k < callee_names.size(); ++k)
              if (callee_names[k] == kw->str("arg")) f->passed_to.push_back({it->second, k});
          }
        }
      }
      return true;
    });
  }
  return facts;
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
      f.array_use = f.array_use || g.array_use;
      f.list_use = f.list_use || g.list_use;
      f.ranks.insert(g.ranks.begin(), g.ranks.end());
      f.min_rank = std::max(f.min_rank, g.min_rank);
      if (!f.first_use) f.first_use = g.first_use;
    }
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
      if (p.annotation->is("Name")) {
        auto id = p.annotation->str("id");
        if (id == "int" || id == "float" || id == "bool") p.scalar_annotation = std::string(id);
      }
    }
    Facts f = resolved(def, i, 0);
    auto ov = rank_overrides.find(k.name + "." + p.name);
    if (ov == rank_overrides.end()) ov = rank_overrides.find(p.name);
    if (f.list_use && !f.array_use) {
      p.kind = ParamKind::Kind::ArrayList;
    } else if (f.array_use || ov != rank_overrides.end() || p.int64_index) {
      p.kind = ParamKind::Kind::Array;
      if (ov != rank_overrides.end()) {
        p.rank = ov->second;
      } else if (f.ranks.size() == 1) {
        p.rank = *f.ranks.begin();
        if (p.rank < f.min_rank) {
          diags.error(a->lineno, a->col_offset,
                      "array parameter '" + p.name + "' is loaded with rank " + std::to_string(p.rank) +
                          " but its shape is indexed at position " + std::to_string(f.min_rank - 1));
        }
      } else if (f.ranks.size() > 1) {
        std::string rs;
        for (int r : f.ranks) rs += (rs.empty() ? "" : ", ") + std::to_string(r);
        diags.error(a->lineno, a->col_offset,
                    "array parameter '" + p.name + "' is used with different ranks (" + rs +
                        "); cuTile requires one rank per array");
      } else {
        diags.error(a->lineno, a->col_offset,
                    "cannot determine the rank of array parameter '" + p.name + "' of kernel '" + k.name +
                        "' (it is never used by ct.load/ct.store/ct.gather/ct.scatter/ct.num_tiles); pass it "
                        "explicitly with the converter option array_ranks={\"" + k.name + "." + p.name + "\": N}");
      }
    } else {
      p.kind = ParamKind::Kind::Scalar;
    }
    out.push_back(p);
  }
  return out;
}

}  // namespace c2t::sema
