#include "lower/loop_pipelining.h"

#include <algorithm>

#include "lower/op_registry.h"

namespace c2t::lower {

namespace {

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

// Whether two accesses sit in different branches of one constexpr `if`.
bool exclusive(const ConstexprBranches& a, const ConstexprBranches& b) {
  for (auto& x : a)
    for (auto& y : b)
      if (x.first == y.first && x.second != y.second) return true;
  return false;
}

void pointer_names(const TExprPtr& e, const std::set<std::string>& params, std::vector<std::string>& out) {
  if (!e) return;
  if (e->kind == TExpr::Kind::Name && params.count(e->text) &&
      std::find(out.begin(), out.end(), e->text) == out.end())
    out.push_back(e->text);
  for (auto& a : e->args) pointer_names(a, params, out);
}

}  // namespace

std::vector<std::string> pointer_params_in(const TExprPtr& ptr, const std::set<std::string>& pointer_params) {
  std::vector<std::string> out;
  pointer_names(ptr, pointer_params, out);
  return out;
}

void record_memory_effect(MemoryEffects& fx, const OpCall& c, const OpEntry& entry,
                          const std::set<std::string>& pointer_params, const ConstexprBranches& branch,
                          int runtime_ifs) {
  if (entry.family != "memory" && entry.family != "gather" && entry.family != "atomic") return;
  // A load or store with a memory order synchronizes with other programs (an acquire load of a
  // flag, then the data it guards): as an atomic, it keeps the loop unpipelined.
  bool atomic = entry.family == "atomic" || c.has("memory_order");
  bool load = !atomic && (contains(entry.name, "load") || contains(entry.name, "gather"));
  bool write = atomic || contains(entry.name, "store") || contains(entry.name, "scatter");
  if (!load && !write) return;
  MemoryAccess a;
  a.load = load;
  a.write = write;
  a.atomic = atomic;
  a.branch = branch;
  a.runtime_ifs = runtime_ifs;
  for (const char* p : {"array", "self"}) {
    const LVal* v = c.evaluated(p);
    if (v && v->array) {
      a.arrays = pointer_params_in(v->array->ptr, pointer_params);
      break;
    }
  }
  fx.accesses.push_back(std::move(a));
}

void add_helper_effects(MemoryEffects& fx, const MemoryEffects& helper, const ConstexprBranches& branch,
                        int runtime_ifs) {
  for (auto a : helper.accesses) {
    a.arrays.clear();
    a.branch = branch;
    a.runtime_ifs = runtime_ifs;
    fx.accesses.push_back(std::move(a));
  }
  fx.dots += helper.dots;
  fx.pipelined_loops += helper.pipelined_loops;
}

bool may_prefetch(const MemoryEffects& body, size_t first_access, int dots, int runtime_ifs) {
  if (dots > 0) return false;
  bool loads = false;
  for (size_t i = first_access; i < body.accesses.size(); ++i) {
    const auto& a = body.accesses[i];
    if (a.atomic) return false;
    loads = loads || (a.load && a.runtime_ifs == runtime_ifs);
  }
  if (!loads) return false;
  for (size_t i = first_access; i < body.accesses.size(); ++i) {
    const auto& w = body.accesses[i];
    if (!w.write) continue;
    for (size_t j = first_access; j < body.accesses.size(); ++j) {
      const auto& r = body.accesses[j];
      if (!r.load || exclusive(w.branch, r.branch)) continue;
      if (w.arrays.empty() || r.arrays.empty()) return false;
      for (auto& x : w.arrays)
        if (std::find(r.arrays.begin(), r.arrays.end(), x) != r.arrays.end()) return false;
    }
  }
  return true;
}

}  // namespace c2t::lower
