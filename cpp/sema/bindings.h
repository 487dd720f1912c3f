// Every name a module binds, with where and in which scope: one list of Python's binding forms,
// for the driver's checks of names the generated code owns (driver/convert.cpp) and of builtins it
// reads (driver/runtime_builtins.cpp).
#pragma once

#include <string_view>

#include "sema/ast_util.h"

namespace c2t::sema {

/// Calls bind(name, node, module_level) for every binding in `module` (pre-order): assignment,
/// deletion, for/with/walrus targets (Name nodes not loaded), def and class names, parameters (never
/// module level), import aliases (the bound root name: `a` for `import a.b`; `*` for a star import,
/// with the ImportFrom as node), `except ... as`, match captures (as, star, a mapping's rest), and
/// `global` declarations (module level wherever they are). `module_level`: the binding is the
/// module's own (not inside a def, class body, lambda or comprehension, which have their own scopes).
template <class Bind>
void for_each_binding(const syntax::Node* module, Bind&& bind) {
  auto visit = [&](auto& self, const syntax::Node* n, bool module_level) -> void {
    bool inner = module_level;
    if (n->is("FunctionDef") || n->is("AsyncFunctionDef") || n->is("ClassDef")) {
      bind(n->str("name"), n, module_level);
      inner = false;
    } else if (n->is("Lambda") || n->is("ListComp") || n->is("SetComp") || n->is("DictComp") ||
               n->is("GeneratorExp")) {
      inner = false;
    } else if (n->is("arg")) {
      bind(n->str("arg"), n, false);
    } else if (n->is("Name") && n->child("ctx") && !n->child("ctx")->is("Load")) {
      bind(n->str("id"), n, module_level);
    } else if (n->is("ExceptHandler") || n->is("MatchAs") || n->is("MatchStar")) {
      if (!n->str("name").empty()) bind(n->str("name"), n, module_level);
    } else if (n->is("MatchMapping")) {
      if (!n->str("rest").empty()) bind(n->str("rest"), n, module_level);
    } else if (n->is("Global")) {
      for (auto& v : n->get("names")->items) bind(std::string_view(v.text), n, true);
    } else if (n->is("ImportFrom") || n->is("Import")) {
      for (auto* a : nodes_of(n, "names")) {
        std::string_view nm = a->str("asname").empty() ? a->str("name") : a->str("asname");
        if (nm == "*") bind(nm, n, module_level);
        else bind(nm.substr(0, nm.find('.')), a, module_level);
      }
      return;
    }
    for (auto& f : n->fields) {
      if (f.second.kind == syntax::Value::Kind::Node) {
        if (f.second.node) self(self, f.second.node, inner);
      } else if (f.second.kind == syntax::Value::Kind::List) {
        for (auto& item : f.second.items)
          if (item.kind == syntax::Value::Kind::Node && item.node) self(self, item.node, inner);
      }
    }
  };
  for (const syntax::Node* stmt : nodes_of(module, "body")) visit(visit, stmt, true);
}

}  // namespace c2t::sema
