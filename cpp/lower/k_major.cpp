// fp8 matrix-product operands laid out K-major by the launcher: which parameters may be copied
// (k_major.h says why and when).
#include "lower/k_major.h"

#include <algorithm>
#include <map>

#include "sema/ast_util.h"

namespace c2t::lower {

using syntax::Node;

std::set<std::string> load_only_params(const sema::ModuleInfo& mi, const Node* def, const std::set<std::string>& arrays,
                                       const std::set<std::string>& lists) {
  std::map<std::string, std::string> owner;  // a tracked name -> the parameter it stands for
  for (auto& a : arrays) owner[a] = a;
  for (auto& l : lists) owner[l] = l;
  auto tracked = [&](const Node* n) -> const std::string* {
    if (!n || !n->is("Name")) return nullptr;
    auto it = owner.find(std::string(n->str("id")));
    return it == owner.end() ? nullptr : &it->second;
  };
  std::vector<const Node*> body;
  for (auto* st : sema::nodes_of(def, "body")) body.push_back(st);
  // Elements of a list bound by `x = L[i]` (the only way an element may get a name); a name bound
  // to elements of two lists, or also bound otherwise, keeps both out (its other bindings are Name
  // stores that are not accepted below).
  std::set<const Node*> accepted;
  std::set<std::string> rejected;
  for (auto* st : body) {
    sema::walk(st, [&](const Node* n) {
      if (!n->is("Assign")) return true;
      auto targets = sema::nodes_of(n, "targets");
      const Node* v = n->child("value");
      if (targets.size() != 1 || !targets[0]->is("Name") || !v || !v->is("Subscript")) return true;
      const Node* l = v->child("value");
      if (!l || !l->is("Name") || !lists.count(std::string(l->str("id")))) return true;
      std::string x(targets[0]->str("id")), list(l->str("id"));
      auto it = owner.find(x);
      if (it != owner.end() && it->second != list) {
        rejected.insert(it->second);
        rejected.insert(list);
        return true;
      }
      owner[x] = list;
      accepted.insert(targets[0]);
      accepted.insert(l);
      return true;
    });
  }
  // Reads that a copy of the array answers alike: the array of ct.load / ct.num_tiles, its shape,
  // dtype and rank, a list's length.
  for (auto* st : body) {
    sema::walk(st, [&](const Node* n) {
      if (n->is("Call")) {
        const Node* func = n->child("func");
        auto q = mi.cutile_name(func);
        if (q && (*q == "load" || *q == "num_tiles")) {
          const Node* a = sema::call_arg(n, 0) ? sema::call_arg(n, 0) : sema::call_kwarg(n, "array");
          if (const std::string* p = tracked(a); p && !lists.count(std::string(a->str("id")))) accepted.insert(a);
        } else if (func && func->is("Name") && func->str("id") == "len" && sema::nodes_of(n, "args").size() == 1) {
          const Node* a = sema::call_arg(n, 0);
          if (a && a->is("Name") && lists.count(std::string(a->str("id")))) accepted.insert(a);
        }
      } else if (n->is("Attribute")) {
        std::string_view attr = n->str("attr");
        const Node* v = n->child("value");
        if ((attr == "shape" || attr == "dtype" || attr == "ndim") && tracked(v) &&
            !lists.count(std::string(v->str("id"))))
          accepted.insert(v);
      }
      return true;
    });
  }
  // Any other occurrence of a tracked name (a store, an atomic, a view, an alias, a call, a
  // rebinding, a nested function's use) keeps its parameter out.
  for (auto* st : body) {
    sema::walk(st, [&](const Node* n) {
      if (const std::string* p = tracked(n); p && !accepted.count(n)) rejected.insert(*p);
      return true;
    });
  }
  std::set<std::string> out;
  for (auto* s : {&arrays, &lists})
    for (auto& p : *s)
      if (!rejected.count(p)) out.insert(p);
  return out;
}

std::vector<KMajorUse> k_major_operands(const std::vector<KMajorUse>& uses, const std::set<std::string>& load_only) {
  std::vector<KMajorUse> out;
  std::set<std::string> done;
  for (auto& first : uses) {
    if (!load_only.count(first.param) || !done.insert(first.param).second) continue;
    std::vector<KMajorUse> mine;
    bool one_layout = true, known = true;
    for (auto& u : uses) {
      if (u.param != first.param) continue;
      one_layout = one_layout && u.k_axis == first.k_axis && u.other_axis == first.other_axis;
      known = known && u.known;
      if (std::find(mine.begin(), mine.end(), u) == mine.end()) mine.push_back(u);
    }
    if (one_layout) {
      KMajorUse u = first;
      u.conds.clear();
      u.known = true;
      for (auto& m : mine)  // partners that differ between the uses: none known
        if (m.partner != u.partner || m.partner_axis != u.partner_axis) {
          u.partner.clear();
          u.partner_axis = -1;
        }
      out.push_back(std::move(u));
    } else if (known) {
      out.insert(out.end(), mine.begin(), mine.end());
    }
  }
  return out;
}

}  // namespace c2t::lower
