#include "lower/op_registry.h"

#include <algorithm>
#include <sstream>

#include "lower/lowerer.h"
#include "support/suggest.h"
#include "sema/ast_util.h"

namespace c2t::lower {

LVal& OpCall::arg(const std::string& param) {
  auto it = values_.find(param);
  if (it != values_.end()) return it->second;
  auto n = nodes_.find(param);
  if (n == nodes_.end()) {
    L.error(node, "ct." + op + "() is missing its argument '" + param + "'");
    return values_[param];  // Unknown
  }
  LVal v = L.eval(n->second);
  v.node = n->second;
  return values_[param] = std::move(v);
}

const syntax::Node* OpCall::arg_node(const std::string& param) const {
  auto n = nodes_.find(param);
  return n == nodes_.end() ? nullptr : n->second;
}

const syntax::Node* OpCall::at(const std::string& param) const {
  auto* n = arg_node(param);
  return n ? n : node;
}

void Registry::add(std::string name, std::string family, std::string signature, LowerFn fn, std::string triton) {
  OpEntry e;
  e.name = name;
  e.family = std::move(family);
  e.lower = std::move(fn);
  e.triton = std::move(triton);
  std::istringstream in(signature);
  std::string tok;
  bool kwonly = false;
  while (std::getline(in, tok, ',')) {
    auto b = tok.find_first_not_of(' ');
    if (b == std::string::npos) continue;
    tok = tok.substr(b, tok.find_last_not_of(' ') - b + 1);
    if (tok == "/") continue;
    if (tok == "*") { kwonly = true; continue; }
    OpParam p;
    if (tok[0] == '*') { p.varargs = true; p.required = false; tok = tok.substr(1); kwonly = true; }
    if (!tok.empty() && tok.back() == '=') { p.required = false; tok.pop_back(); }
    p.name = tok;
    p.keyword_only = kwonly && !p.varargs;
    e.params.push_back(p);
  }
  entries_[name] = std::move(e);
}

const OpEntry* Registry::find(const std::string& name) const {
  auto it = entries_.find(name);
  return it == entries_.end() ? nullptr : &it->second;
}

const Registry& registry() {
  static const Registry r = [] {
    Registry reg;
    register_grid_ops(reg);
    register_memory_ops(reg);
    register_gather_ops(reg);
    register_adv_index_ops(reg);
    register_atomic_ops(reg);
    register_factory_ops(reg);
    register_convert_ops(reg);
    register_arith_ops(reg);
    register_math_ops(reg);
    register_reduce_ops(reg);
    register_custom_reduce_ops(reg);
    register_insert_ops(reg);
    register_shape_ops(reg);
    register_mma_ops(reg);
    register_debug_ops(reg);
    register_view_ops(reg);
    register_view_atomic_ops(reg);
    return reg;
  }();
  return r;
}

bool bind_call(OpCall& c, const OpEntry& entry, const syntax::Node* call, const LVal* self) {
  size_t next = 0;
  if (self) {
    c.bind_value(entry.params.at(0).name, *self);
    next = 1;
  }
  std::string shown = entry.name.find('.') == std::string::npos ? "ct." + entry.name : entry.name;
  bool ok = true;
  for (auto* a : sema::nodes_of(call, "args")) {
    if (a->is("Starred")) {
      c.L.unsupported(a, "starred argument", "star-unpacking of arguments to " + shown + "() is not supported");
      return false;
    }
    while (next < entry.params.size() && entry.params[next].keyword_only) ++next;
    if (next >= entry.params.size()) {
      c.L.error(a, shown + "() takes fewer positional arguments");
      return false;
    }
    if (entry.params[next].varargs) {
      c.varargs.push_back(a);
      continue;
    }
    c.bind_node(entry.params[next++].name, a);
  }
  for (auto* kw : sema::nodes_of(call, "keywords")) {
    std::string k(kw->str("arg"));
    if (k.empty()) {
      c.L.unsupported(kw, "**kwargs", "keyword unpacking in a call of " + shown + "() is not supported");
      return false;
    }
    bool found = false;
    for (auto& p : entry.params) found = found || (p.name == k && !p.varargs);
    if (!found) {
      std::vector<std::string_view> names;
      for (auto& p : entry.params)
        if (!p.varargs) names.push_back(p.name);
      std::string hint = did_you_mean(k, names, "", "'");
      // PyTorch's spellings of NumPy's (and cuTile's) keywords, too far apart for the edit distance.
      static const std::pair<std::string_view, std::string_view> kTorchNames[] = {{"dim", "axis"},
                                                                                   {"keepdim", "keepdims"}};
      for (auto& [torch_name, name] : kTorchNames)
        if (hint.empty() && k == torch_name && std::find(names.begin(), names.end(), name) != names.end())
          hint = "; did you mean '" + std::string(name) + "'? (PyTorch's " + std::string(torch_name) +
                 " is cuTile's " + std::string(name) + ", as in NumPy)";
      // The caret at the keyword's name (`dim=0` at `dim`), as CPython's keyword node spans it.
      c.L.error(kw->lineno ? kw : kw->child("value"), shown + "() got an unexpected keyword argument '" + k + "'" + hint);
      ok = false;
      continue;
    }
    if (c.has(k)) {
      c.L.error(kw->child("value"), shown + "() got multiple values for argument '" + k + "'");
      ok = false;
      continue;
    }
    c.bind_node(k, kw->child("value"));
  }
  for (auto& p : entry.params) {
    if (p.required && !c.has(p.name)) {
      c.L.error(call, shown + "() missing required argument '" + p.name + "'");
      ok = false;
    }
  }
  return ok;
}

}  // namespace c2t::lower
