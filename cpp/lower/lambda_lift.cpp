#include "lower/lambda_lift.h"

#include <deque>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "sema/ast_util.h"
#include "syntax/parser.h"

namespace c2t::lower {

namespace {

// Rebuilds `def` in place as `def _c2t_lambda(<args>): <ret>` at the
// lambda's position (CPython's FunctionDef fields, 3.12).
void build_def(syntax::Node& def, const syntax::Node* lambda, syntax::Node* args, syntax::Node* ret) {
  def = syntax::Node{};
  def.type = "FunctionDef";
  def.set_pos(*lambda);
  def.fields.push_back({"name", syntax::Value::str("_c2t_lambda")});
  def.fields.push_back({"args", syntax::Value::of(args)});
  def.fields.push_back({"body", syntax::Value::list({syntax::Value::of(ret)})});
  def.fields.push_back({"decorator_list", syntax::Value::list()});
  def.fields.push_back({"returns", syntax::Value::null()});
  def.fields.push_back({"type_comment", syntax::Value::null()});
  def.fields.push_back({"type_params", syntax::Value::list()});
}

// The synthesized nodes of one lambda. Rebuilt in place on every request, so
// an entry left by a freed tree whose address is reused is never stale.
struct LiftedLambda {
  syntax::Node def;
  syntax::Node ret;
};

}  // namespace

const syntax::Node* lambda_as_def(const syntax::Node* lambda) {
  // One table per thread: conversions on different threads never share it.
  thread_local std::map<const syntax::Node*, std::unique_ptr<LiftedLambda>> table;
  auto& slot = table[lambda];
  if (!slot) slot = std::make_unique<LiftedLambda>();
  syntax::Node* body = lambda->child("body");
  syntax::Node& ret = slot->ret;
  ret = syntax::Node{};
  ret.type = "Return";
  ret.set_pos(*body);
  ret.fields.push_back({"value", syntax::Value::of(body)});
  build_def(slot->def, lambda, lambda->child("args"), &ret);
  return &slot->def;
}

namespace {

// Nodes of one lifted combine def; rebuilt in place on every request (the
// def node keeps its address, so helper specializations are still shared).
struct LiftedCombine {
  syntax::Node def;
  std::deque<syntax::Node> parts;
  syntax::Node* make(std::string_view type, const syntax::Node* pos) {
    syntax::Node& n = parts.emplace_back();
    n.type = type;
    if (pos) n.set_pos(*pos);
    return &n;
  }
};

}  // namespace

const syntax::Node* lambda_as_combine_def(const syntax::Node* lambda, size_t n_values,
                                          const std::vector<std::string>& captured) {
  if (captured.empty()) return lambda_as_def(lambda);
  thread_local std::map<const syntax::Node*, std::unique_ptr<LiftedCombine>> table;
  auto& slot = table[lambda];
  if (!slot) slot = std::make_unique<LiftedCombine>();
  LiftedCombine& L = *slot;
  L.parts.clear();
  syntax::Node* body = lambda->child("body");
  auto* load = L.make("Load", nullptr);
  auto arg = [&](const std::string& id) {
    auto* a = L.make("arg", lambda);
    a->fields.push_back({"arg", syntax::Value::str(id)});
    a->fields.push_back({"annotation", syntax::Value::null()});
    a->fields.push_back({"type_comment", syntax::Value::null()});
    return syntax::Value::of(a);
  };
  // Parameters: the lambda's first n (one side), the captured names, its other n, placeholders.
  std::vector<syntax::Value> params;
  auto orig = sema::nodes_of(lambda->child("args"), "args");
  for (size_t k = 0; k < orig.size(); ++k) {
    if (k == n_values)
      for (auto& c : captured) params.push_back(arg(c));
    params.push_back(syntax::Value::of(const_cast<syntax::Node*>(orig[k])));
  }
  if (orig.size() <= n_values)
    for (auto& c : captured) params.push_back(arg(c));
  for (size_t j = 0; j < captured.size(); ++j) params.push_back(arg("_c2t_cap_" + std::to_string(j + 1)));
  auto* args = L.make("arguments", nullptr);
  args->fields.push_back({"posonlyargs", syntax::Value::list()});
  args->fields.push_back({"args", syntax::Value::list(params)});
  args->fields.push_back({"vararg", syntax::Value::null()});
  args->fields.push_back({"kwonlyargs", syntax::Value::list()});
  args->fields.push_back({"kw_defaults", syntax::Value::list()});
  args->fields.push_back({"kwarg", syntax::Value::null()});
  args->fields.push_back({"defaults", syntax::Value::list()});
  // return (<body> | *<body>, c_1, ..., c_m)
  std::vector<syntax::Value> elts;
  if (n_values > 1) {
    auto* st = L.make("Starred", body);
    st->fields.push_back({"value", syntax::Value::of(body)});
    st->fields.push_back({"ctx", syntax::Value::of(load)});
    elts.push_back(syntax::Value::of(st));
  } else {
    elts.push_back(syntax::Value::of(body));
  }
  for (auto& c : captured) {
    auto* nm = L.make("Name", body);
    nm->fields.push_back({"id", syntax::Value::str(c)});
    nm->fields.push_back({"ctx", syntax::Value::of(load)});
    elts.push_back(syntax::Value::of(nm));
  }
  auto* tup = L.make("Tuple", body);
  tup->fields.push_back({"elts", syntax::Value::list(elts)});
  tup->fields.push_back({"ctx", syntax::Value::of(load)});
  auto* ret = L.make("Return", body);
  ret->fields.push_back({"value", syntax::Value::of(tup)});
  build_def(L.def, lambda, args, ret);
  return &L.def;
}

std::vector<const syntax::Node*> free_name_loads(const syntax::Node* def) {
  std::set<std::string> bound;
  auto* args = def->child("args");
  for (const char* f : {"posonlyargs", "args", "kwonlyargs"})
    for (auto* a : sema::nodes_of(args, f)) bound.insert(std::string(a->str("arg")));
  for (const char* f : {"vararg", "kwarg"})
    if (auto* a = args->child(f)) bound.insert(std::string(a->str("arg")));
  // Names stored anywhere in the body, and nested defs, are locals of the function.
  for (auto* st : sema::nodes_of(def, "body"))
    sema::walk(st, [&](const syntax::Node* n) {
      if (n->is("Name") && n->child("ctx") && !n->child("ctx")->is("Load")) bound.insert(std::string(n->str("id")));
      if (n->is("FunctionDef")) bound.insert(std::string(n->str("name")));
      return true;
    });
  std::vector<const syntax::Node*> out;
  std::set<std::string> seen;
  for (auto* st : sema::nodes_of(def, "body"))
    sema::walk(st, [&](const syntax::Node* n) {
      if (n->is("Lambda") || n->is("FunctionDef")) return false;
      if (n->is("Name") && n->child("ctx") && n->child("ctx")->is("Load")) {
        std::string id(n->str("id"));
        if (!bound.count(id) && seen.insert(id).second) out.push_back(n);
      }
      return true;
    });
  return out;
}

const syntax::Node* first_capture(const sema::ModuleInfo& mi, const syntax::Node* def) {
  auto all = captured_names(mi, def);
  return all.empty() ? nullptr : all.front();
}

namespace {

bool contains(const syntax::Node* root, const syntax::Node* target) {
  bool found = false;
  sema::walk(root, [&](const syntax::Node* n) {
    found = found || n == target;
    return !found;
  });
  return found;
}

// Adds the names function `fn` (a FunctionDef or Lambda) binds -- its
// parameters, assignment targets, nested defs -- and recurses into the nested
// function that contains `target`.
void scope_names(const syntax::Node* fn, const syntax::Node* target, std::set<std::string>& out) {
  auto* args = fn->child("args");
  for (const char* f : {"posonlyargs", "args", "kwonlyargs"})
    for (auto* a : sema::nodes_of(args, f)) out.insert(std::string(a->str("arg")));
  for (const char* f : {"vararg", "kwarg"})
    if (auto* a = args->child(f)) out.insert(std::string(a->str("arg")));
  auto visit = [&](const syntax::Node* st) {
    sema::walk(st, [&](const syntax::Node* n) {
      if (n->is("FunctionDef") || n->is("Lambda")) {
        if (n->is("FunctionDef")) out.insert(std::string(n->str("name")));
        if (contains(n, target)) scope_names(n, target, out);
        return false;
      }
      if (n->is("Name") && n->child("ctx") && !n->child("ctx")->is("Load")) out.insert(std::string(n->str("id")));
      return true;
    });
  };
  if (fn->is("Lambda")) visit(fn->child("body"));
  else
    for (auto* st : sema::nodes_of(fn, "body")) visit(st);
}

// Names bound by the functions enclosing `n` (Python resolves a free name of
// a nested function there before the module scope).
std::set<std::string> enclosing_scope(const sema::ModuleInfo& mi, const syntax::Node* n) {
  std::set<std::string> out;
  if (auto* fn = module_function_containing(mi, n)) scope_names(fn, n, out);
  return out;
}

}  // namespace

const syntax::Node* module_function_containing(const sema::ModuleInfo& mi, const syntax::Node* n) {
  for (auto& entry : mi.functions)
    if (contains(entry.second, n)) return entry.second;
  return nullptr;
}

std::vector<const syntax::Node*> captured_names(const sema::ModuleInfo& mi, const syntax::Node* def) {
  std::vector<const syntax::Node*> out;
  static const std::set<std::string> builtins = {"range", "min", "max", "abs", "len", "float", "int", "bool",
                                                 "print", "divmod", "tuple", "getattr", "isinstance", "None",
                                                 "True", "False"};
  for (auto* n : free_name_loads(def)) {
    std::string id(n->str("id"));
    // A name the enclosing function binds shadows the module's (a captured variable).
    if (enclosing_scope(mi, n).count(id)) {
      out.push_back(n);
      continue;
    }
    if (mi.constants.count(id) || mi.functions.count(id) || mi.ct_modules.count(id) || mi.math_modules.count(id) ||
        mi.numpy_modules.count(id) || mi.torch_modules.count(id) || mi.ct_submodules.count(id) || builtins.count(id) ||
        mi.operator_modules.count(id) || mi.operator_names.count(id) ||
        mi.cutile_name(n))
      continue;
    out.push_back(n);
  }
  return out;
}

const syntax::Node* binary_combine_def(const std::string& name, const std::string& expr, const syntax::Node* at) {
  // Parsed once per thread and kept: the node must outlive every conversion
  // that specializes it (like the lifted lambdas above). Its nodes take the
  // position of the reference on every request, so diagnostics point there.
  thread_local std::map<std::string, syntax::ParseResult> table;
  std::string text = "def " + name + "(a, b):\n    return " + expr + "\n";
  auto it = table.find(text);
  if (it == table.end()) it = table.emplace(text, syntax::parse(text, "<" + name + ">")).first;
  if (!it->second.ok()) return nullptr;
  if (at)
    sema::walk(it->second.tree.root, [&](const syntax::Node* n) {
      const_cast<syntax::Node*>(n)->set_pos(*at);
      return true;
    });
  return sema::nodes_of(it->second.tree.root, "body").front();
}

}  // namespace c2t::lower
