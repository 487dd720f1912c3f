#include "sema/module_scope.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include <limits>

#include "sema/ast_util.h"
#include "sema/dtype.h"
#include "syntax/parser.h"

namespace c2t::sema {

const KernelInfo* ModuleInfo::kernel_by_def(const Node* def) const {
  for (auto& k : kernels)
    if (k.def == def) return &k;
  return nullptr;
}

const KernelInfo* ModuleInfo::kernel_by_name(std::string_view name) const {
  for (auto& k : kernels)
    if (k.name == name) return &k;
  return nullptr;
}

std::optional<std::string> ModuleInfo::cutile_name(const Node* e) const {
  // Most names are not cuTile's: answer those without building the dotted name.
  const Node* base = dotted_base(e);
  if (!base) return std::nullopt;
  std::string base_id(base->str("id"));
  if (!ct_modules.count(base_id) && !ct_names.count(base_id)) return std::nullopt;
  auto d = dotted_name(e);
  if (!d) return std::nullopt;
  std::string s = *d;
  auto dot = s.find('.');
  std::string head = s.substr(0, dot);
  std::string rest = dot == std::string::npos ? "" : s.substr(dot + 1);
  if (ct_modules.count(head)) {
    if (rest.empty()) return std::nullopt;  // the module itself
    return rest;
  }
  auto it = ct_names.find(head);
  if (it != ct_names.end()) return rest.empty() ? it->second : it->second + "." + rest;
  return std::nullopt;
}

namespace {
// cuTile's enum members (cuda/tile/_numeric_semantics.py, _memory_model.py), qualified by their enum.
const std::set<std::string>& members() {
  static const std::set<std::string> all = {
      "PaddingMode.UNDETERMINED", "PaddingMode.ZERO", "PaddingMode.NEG_ZERO", "PaddingMode.NAN",
      "PaddingMode.POS_INF", "PaddingMode.NEG_INF", "RoundingMode.RN", "RoundingMode.RZ", "RoundingMode.RM",
      "RoundingMode.RP", "RoundingMode.RA", "RoundingMode.FULL", "RoundingMode.APPROX", "RoundingMode.RZI",
      "MemoryOrder.WEAK", "MemoryOrder.RELAXED", "MemoryOrder.ACQUIRE", "MemoryOrder.RELEASE",
      "MemoryOrder.ACQ_REL", "MemoryScope.NONE", "MemoryScope.BLOCK", "MemoryScope.CLUSTER",
      "MemoryScope.DEVICE", "MemoryScope.SYS"};
  return all;
}
}  // namespace

std::optional<ConstValue> ModuleInfo::cutile_constant(const std::string& q) {
  if (find_dtype(q) && q != "float" && q != "int" && q != "bool") return ConstValue::dtype(std::string(find_dtype(q)->name));
  // Only real members (cuda/tile/_numeric_semantics.py, _memory_model.py):
  // an unknown one such as PaddingMode.ONE must stay unresolved, so its use
  // is diagnosed instead of lowered as some other mode.
  if (members().count(q)) return ConstValue::enum_member(q);
  return std::nullopt;
}

std::vector<std::string_view> ModuleInfo::enum_members(std::string_view enum_name) {
  std::vector<std::string_view> out;
  for (auto& m : members()) {
    std::string_view v = m;
    if (v.size() > enum_name.size() && v.substr(0, enum_name.size()) == enum_name && v[enum_name.size()] == '.')
      out.push_back(v.substr(enum_name.size() + 1));
  }
  return out;
}

std::optional<ConstValue> ModuleInfo::fold(const Node* e) const {
  ConstResolver resolve = [this](const Node* x) -> std::optional<ConstValue> {
    if (auto q = cutile_name(x)) return cutile_constant(*q);
    if (x->is("Name")) {
      auto id = std::string(x->str("id"));
      if (math_modules.count(id)) return ConstValue::ct_ref("<module math>");
      auto it = constants.find(id);
      if (it != constants.end()) return it->second;
      return std::nullopt;
    }
    if (x->is("Attribute")) {
      auto base = name_id(x->child("value"));
      auto attr = x->str("attr");
      if (math_modules.count(std::string(base))) {
        if (attr == "pi") return ConstValue::real(3.141592653589793);
        if (attr == "e") return ConstValue::real(2.718281828459045);
        if (attr == "inf") return ConstValue::real(std::numeric_limits<double>::infinity());
        if (attr == "nan") return ConstValue::real(std::numeric_limits<double>::quiet_NaN());
        if (attr == "tau") return ConstValue::real(6.283185307179586);
      }
      if (numpy_modules.count(std::string(base)) || torch_modules.count(std::string(base))) {
        if (auto* d = find_dtype(attr)) return ConstValue::dtype(std::string(d->name));
        if (attr == "inf") return ConstValue::real(std::numeric_limits<double>::infinity());
        if (attr == "pi") return ConstValue::real(3.141592653589793);
      }
    }
    return std::nullopt;
  };
  // `ct.Constant[T]` (and aliases of it) is the annotation marker, not a value.
  if (e && e->is("Subscript")) {
    auto q = cutile_name(e->child("value"));
    if (q && *q == "Constant") {
      ConstValue c;
      c.kind = ConstValue::Kind::ConstantAnnotation;
      const Node* t = e->child("slice");
      if (t && t->is("Name")) c.s = std::string(t->str("id"));  // "int", "float", "bool": what Triton will see
      return c;
    }
  }
  if (auto q = cutile_name(e)) {
    if (*q == "Constant") { ConstValue c; c.kind = ConstValue::Kind::ConstantAnnotation; return c; }
  }
  return const_eval(e, resolve);
}

namespace {

bool is_cutile_module(std::string_view m) { return m == "cuda.tile"; }

// Reads `@ct.kernel` / `@ct.kernel(...)` / `@kernel` on a def.
const Node* kernel_decorator(const ModuleInfo& mi, const Node* def) {
  for (auto* d : nodes_of(def, "decorator_list")) {
    const Node* callee = d->is("Call") ? d->child("func") : d;
    auto q = mi.cutile_name(callee);
    if (q && *q == "kernel") return d;
  }
  return nullptr;
}

// Decorators on a kernel other than ct.kernel: the converted kernel is a @triton.jit function and
// carries none over, so a registry decorator (`@register("op")`) would silently register nothing.
// Said at the decorator. TileGym's `experimental_kernel` (tilegym.experimental: a one-time notice that
// patches ct.launch) is dropped on purpose (host/host_rewrite.cpp).
void other_kernel_decorators(const ModuleInfo& mi, const Node* def, const Node* kernel_dec, Diagnostics& diags) {
  for (auto* d : nodes_of(def, "decorator_list")) {
    if (d == kernel_dec) continue;
    const Node* callee = d->is("Call") ? d->child("func") : d;
    std::string_view name = callee->is("Name") ? callee->str("id") : callee->is("Attribute") ? callee->str("attr") : "";
    if (name == "experimental_kernel") continue;
    auto q = mi.cutile_name(callee);
    diags.error(d->lineno, d->col_offset,
                (q ? "ct." + *q : name.empty() ? std::string("this decorator") : "'" + std::string(name) + "'") +
                    " decorates a cuTile kernel: the converted kernel is a @triton.jit function, and cutile2triton "
                    "carries no other decorator over (it would be dropped); call it in host code on the kernel "
                    "instead (e.g. `register(\"op\")(" + std::string(def->str("name")) + ")` after the def)");
  }
}

void read_options(const Node* call, KernelInfo& k) {
  if (!call || !call->is("Call")) return;
  for (auto* kw : nodes_of(call, "keywords"))
    if (!kw->str("arg").empty()) k.options[std::string(kw->str("arg"))] = kw->child("value");
}

// ct.kernel's keyword options are these four (cuda/tile/_execution.py kernel); another is a TypeError in
// cuTile. Reports the first other one; false if there is one.
bool known_options(const Node* call, Diagnostics& diags) {
  for (auto* kw : nodes_of(call, "keywords")) {
    std::string k(kw->str("arg"));
    if (k != "num_ctas" && k != "occupancy" && k != "opt_level" && k != "num_worker_warps") {
      diags.error(kw->lineno, kw->col_offset,
                  "ct.kernel() has no option '" + k + "' (its options: num_ctas, occupancy, opt_level, "
                  "num_worker_warps)");
      return false;
    }
  }
  return true;
}

// `class Color(Enum): RED = 0 ...` (enum.Enum or enum.IntEnum as a base, by any of these spellings):
// its constant members, recorded in mi.user_enums.
void user_enum(ModuleInfo& mi, const Node* cls) {
  bool is_enum = false, is_int = false;
  for (auto* b : nodes_of(cls, "bases")) {
    auto d = dotted_name(b);
    if (!d) continue;
    std::string n = *d;
    if (n.rfind("enum.", 0) == 0) n = n.substr(5);
    is_enum = is_enum || n == "Enum" || n == "IntEnum";
    is_int = is_int || n == "IntEnum";
  }
  if (!is_enum) return;
  auto& e = mi.user_enums[std::string(cls->str("name"))];
  e.is_int = is_int;
  for (auto* st : nodes_of(cls, "body")) {
    if (!st->is("Assign") || nodes_of(st, "targets").size() != 1 || !nodes_of(st, "targets")[0]->is("Name")) continue;
    auto v = mi.fold(st->child("value"));
    if (v && (v->is_number() || v->kind == ConstValue::Kind::Str))
      e.members.emplace_back(std::string(nodes_of(st, "targets")[0]->str("id")), *v);
  }
}

// The keyword options of a ct.kernel(...) call as text, to compare two calls' options; an option given
// its default (cuda/tile/_execution.py kernel: num_ctas, occupancy and num_worker_warps None, opt_level 3)
// is left out, as if not given.
std::string options_text(const Node* call) {
  std::map<std::string, std::string> opts;
  for (auto* kw : nodes_of(call, "keywords"))
    opts[std::string(kw->str("arg"))] = syntax::dump(kw->child("value"), {11, false});
  static const std::string none = "Constant(value=None)", three = "Constant(value=3)";
  for (auto [name, dflt] : {std::pair<const char*, const std::string*>{"num_ctas", &none}, {"occupancy", &none},
                            {"num_worker_warps", &none}, {"opt_level", &three}}) {
    auto it = opts.find(name);
    if (it != opts.end() && it->second == *dflt) opts.erase(it);
  }
  std::string t;
  for (auto& [k, v] : opts) t += k + "=" + v + ";";
  return t;
}

// `ct.kernel(fn)` in host code, on a module-level function `fn` that is no kernel
// yet (cutile-python's tests: `ct.launch(stream, grid, ct.kernel(f), args)`,
// `kernel = ct.kernel(_vec_add_impl)` inside a test): `fn` is a kernel named as
// itself, converted in place (the call becomes `_c2t_kernel(fn)`, which launches
// through its launcher). Hints given there stay with that kernel object at run
// time; the kernel's own options are those of the first such call, and calls
// with other options are an error (one Triton kernel per function).
void inline_kernels(ModuleInfo& mi, const std::vector<const Node*>& body, Diagnostics& diags) {
  std::set<const Node*> defs;
  for (auto& k : mi.kernels) defs.insert(k.def);
  std::map<const Node*, const Node*> first_call;  // def -> the ct.kernel call that made it a kernel
  for (auto* st : body) {
    if (defs.count(st)) continue;  // kernel bodies are tile code
    bool is_call_form = false;     // `name = ct.kernel(fn)` at module level: pass 2 took it
    for (auto& k : mi.kernels) is_call_form = is_call_form || k.assign_stmt == st;
    if (is_call_form) continue;
    walk(st, [&](const Node* n) {
      if (n->is("FunctionDef") && defs.count(n)) return false;  // a factory's kernel
      if (!n->is("Call")) return true;
      // `ct.kernel(occupancy=2)(f)`: the decorator form called on a function.
      if (n->child("func")->is("Call")) {
        auto inner = mi.cutile_name(n->child("func")->child("func"));
        if (inner && *inner == "kernel" && !call_arg(n->child("func"), 0)) {
          diags.error(n->lineno, n->col_offset,
                      "ct.kernel(options...)(f) in host code is not supported; write ct.kernel(f, options...)");
          return false;
        }
      }
      auto q = mi.cutile_name(n->child("func"));
      const Node* fn = q && *q == "kernel" ? call_arg(n, 0) : nullptr;
      auto fit = fn && fn->is("Name") ? mi.functions.find(std::string(fn->str("id"))) : mi.functions.end();
      if (fn && fn->is("Name") && fit == mi.functions.end() && st->is("FunctionDef")) {
        // A def nested in this host function: it would be left in host code, which cannot run tile code.
        bool nested = false;
        walk(st, [&](const Node* d) {
          nested = nested || (d != st && d->is("FunctionDef") && d->str("name") == fn->str("id"));
          return !nested;
        });
        if (nested) {
          diags.error(n->lineno, n->col_offset,
                      "ct.kernel(" + std::string(fn->str("id")) + ") on a function defined inside '" +
                          std::string(st->str("name")) + "' is not supported; define it at module level (or "
                          "decorate it with @ct.kernel where it is)");
          return true;
        }
      }
      if (fit != mi.functions.end() && !defs.count(fit->second) && !nodes_of(fit->second, "decorator_list").empty()) {
        // cuTile makes a kernel of what the decorators return, which need not be this body.
        diags.error(n->lineno, n->col_offset,
                    "ct.kernel(" + fit->first + ") on a function with other decorators is not supported (cuTile "
                    "compiles what they return); apply @ct.kernel to an undecorated function");
        return true;
      }
      if (fit != mi.functions.end() && defs.count(fit->second) && !first_call.count(fit->second)) {
        // ct.kernel of a kernel: cuTile's kernel takes a Python function (TypeError there).
        diags.error(n->lineno, n->col_offset,
                    "ct.kernel(" + fit->first + "): '" + fit->first + "' is a kernel already; ct.kernel takes a "
                    "Python function (to change its hints: " + fit->first + ".replace_hints(...))");
        return true;
      }
      if (fit == mi.functions.end()) return true;
      if (!known_options(n, diags)) return true;
      auto [it, fresh] = first_call.emplace(fit->second, n);
      if (fresh) {
        KernelInfo k;
        k.name = fit->first;
        k.def = fit->second;
        k.decorator = n;
        read_options(n, k);
        mi.kernels.push_back(std::move(k));
        defs.insert(fit->second);
      } else if (options_text(it->second) != options_text(n)) {
        diags.error(n->lineno, n->col_offset,
                    "ct.kernel(" + fit->first + ", ...) is called with other options than at line " +
                        std::to_string(it->second->lineno) +
                        "; cutile2triton converts one Triton kernel per function: give each variant its own "
                        "`name = ct.kernel(" + fit->first + ", ...)` at module level");
      }
      return true;
    });
  }
}

// The parameter names a def's or lambda's `args` node binds.
std::set<std::string> param_names(const Node* args) {
  std::set<std::string> out;
  for (auto* a : param_nodes(args)) out.insert(std::string(a->str("arg")));
  return out;
}

}  // namespace

std::set<std::string> kernel_own_names(const Node* k) {
  std::set<std::string> own = param_names(k->child("args"));
  for (auto* st : nodes_of(k, "body"))
    walk(st, [&](const Node* n) {
      if (n->is("Name") && n->child("ctx") && !n->child("ctx")->is("Load")) own.insert(std::string(n->str("id")));
      if (n->is("FunctionDef")) own.insert(std::string(n->str("name")));
      return !(n->is("FunctionDef") || n->is("Lambda"));  // a nested function's locals are its own
    });
  return own;
}

std::set<const Node*> names_not_read_as_values(const Node* f) {
  std::set<const Node*> out;
  for (auto* st : nodes_of(f, "body"))
    walk(st, [&](const Node* n) {
      if (n->is("Call") && n->child("func") && n->child("func")->is("Name")) out.insert(n->child("func"));
      if (n->is("Attribute") && n->child("value") && n->child("value")->is("Name")) out.insert(n->child("value"));
      if (n->is("AnnAssign") && n->child("annotation"))
        walk(n->child("annotation"), [&](const Node* a) {
          if (a->is("Name")) out.insert(a);
          return true;
        });
      return true;
    });
  return out;
}

namespace {

// The Name loads of kernel `k`'s own body, and of the lambdas in it (not of nested defs, which the lowerer
// checks for captures itself), of names they do not bind, in source order. A lambda's reads count: a
// ct.reduce / ct.scan combine lambda may read the kernel's values, and a plain lambda reading one is
// diagnosed as a capture of a kernel parameter.
std::vector<const Node*> body_reads(const Node* k, const std::set<std::string>& own) {
  std::vector<const Node*> out;
  std::function<void(const Node*, const std::set<std::string>&)> visit = [&](const Node* root,
                                                                           const std::set<std::string>& bound) {
    walk(root, [&](const Node* n) {
      if (n->is("FunctionDef") || n->is("AsyncFunctionDef") || n->is("ClassDef")) return false;
      if (n->is("Lambda")) {
        std::set<std::string> inner = bound;
        auto* args = n->child("args");
        inner.merge(param_names(args));
        for (auto* field : {"defaults", "kw_defaults"})
          for (auto* d : nodes_of(args, field)) visit(d, bound);
        visit(n->child("body"), inner);
        return false;
      }
      if (n->is("Name") && n->child("ctx") && n->child("ctx")->is("Load") && !bound.count(std::string(n->str("id"))))
        out.push_back(n);
      return true;
    });
  };
  for (auto* st : nodes_of(k, "body")) visit(st, own);
  return out;
}

// Whether module-level `name` is a module cutile2triton reads (cuda.tile, math, numpy, torch, operator,
// triton), or something else tile code resolves at conversion: a constant, a cuTile or operator name, a
// function, enum or kernel.
bool known_module(const ModuleInfo& mi, const std::string& name) {
  return mi.ct_modules.count(name) || mi.ct_submodules.count(name) || mi.triton_names.count(name) ||
         mi.math_modules.count(name) || mi.numpy_modules.count(name) || mi.torch_modules.count(name) ||
         mi.operator_modules.count(name) || name == "cuda";
}
bool known_name(const ModuleInfo& mi, const std::string& name) {
  return known_module(mi, name) || mi.constants.count(name) || mi.ct_names.count(name) ||
         mi.functions.count(name) || mi.user_enums.count(name) || mi.kernel_by_name(name) ||
         mi.operator_names.count(name);
}

// Module-level imports at any depth of module-level blocks (not inside defs, classes or lambdas), into `mi`:
// the modules `import m` binds that cutile2triton does not read (imported_modules), every name
// `from M import name` binds (imported_values; analyze_module drops those known after all), star imports from modules it
// does not read (star_imports), and the rebindings imports make, into `bind_count` (and
// rebound_by_import): an import after a module-level def or constant of the same name rebinds it (Python
// keeps the last); one before a def does not count, since a helper copied in from a sibling module is
// appended after its import (driver/splice.h); a star import may rebind every constant before it.
void module_imports(ModuleInfo& mi, const std::vector<const Node*>& body, std::map<std::string, int>& bind_count) {
  int star_line = 0;
  std::map<std::string, int> def_line;
  for (auto* st : body)
    if (st->is("FunctionDef") || st->is("AsyncFunctionDef") || st->is("ClassDef"))
      def_line.emplace(std::string(st->str("name")), st->lineno);
  for (auto* st : body)
    walk(st, [&](const Node* n) {
      if (n->is("FunctionDef") || n->is("AsyncFunctionDef") || n->is("ClassDef") || n->is("Lambda")) return false;
      if (n->is("Import"))
        for (auto* a : nodes_of(n, "names")) {
          std::string_view nm = a->str("asname").empty() ? a->str("name") : a->str("asname");
          std::string bound(nm.substr(0, nm.find('.')));
          if (!known_module(mi, bound))
            mi.imported_modules.emplace(bound, a->str("asname").empty() ? bound : std::string(a->str("name")));
        }
      if (n->is("ImportFrom") && !is_cutile_package(n->str("module")) && n->str("module") != "cuda")
        for (auto* a : nodes_of(n, "names")) {
          std::string from(n->str("module")), where = std::string(import_level(n), '.') + from;
          if (a->str("name") == "*") {
            if (from != "math" && from != "operator" && from != "typing" && from != "__future__") {
              star_line = std::max(star_line, n->lineno);
              mi.star_imports.emplace_back(where, n->lineno);
            }
            continue;
          }
          std::string bound(a->str("asname").empty() ? a->str("name") : a->str("asname"));
          auto d = def_line.find(bound);
          auto c = mi.constant_stmts.find(bound);
          bool after_def = d != def_line.end() && d->second < n->lineno;
          if (after_def || (c != mi.constant_stmts.end() && c->second->lineno < n->lineno)) bind_count[bound] += 2;
          if (after_def && mi.functions.count(bound) && !mi.kernel_by_name(bound))
            mi.rebound_by_import.emplace(bound, n->lineno);
          mi.imported_values[bound] = where + (from.empty() ? "" : ".") + std::string(a->str("name"));
        }
      return true;
    });
  for (auto& [name, _] : mi.imported_modules) mi.imported_values.erase(name);  // `import m` too: a module
  if (star_line > 0)
    for (auto& [name, st] : mi.constant_stmts)
      if (st->lineno < star_line) bind_count[name] += 2;
}

// Module-level names bound by assignments (at any depth of module-level `if`/`try`/`for`/`with`
// blocks, not inside defs, classes, lambdas or comprehensions) that have no compile-time value:
// ModuleInfo::runtime_globals. Called after the rebound constants were dropped.
std::set<std::string> module_runtime_globals(const ModuleInfo& mi, const std::vector<const Node*>& body) {
  std::set<std::string> stored;
  for (auto* st : body)
    walk(st, [&](const Node* n) {
      if (n->is("FunctionDef") || n->is("AsyncFunctionDef") || n->is("ClassDef") || n->is("Lambda") ||
          n->is("ListComp") || n->is("SetComp") || n->is("DictComp") || n->is("GeneratorExp"))
        return false;
      if (n->is("Name") && n->child("ctx") && n->child("ctx")->is("Store")) stored.insert(std::string(n->str("id")));
      return true;
    });
  std::set<std::string> out;
  for (auto& name : stored)
    if (!known_name(mi, name) && !mi.imported_modules.count(name)) out.insert(name);
  return out;
}

// @ct.kernel defs that cutile2triton cannot place: in a class body (a method) or inside a function
// nested in a module-level function or class (a factory of factories). Said at the decorator: left
// alone, the enclosing function would look like a tile helper and be left out of the output.
void misplaced_kernels(const ModuleInfo& mi, const Node* top, Diagnostics& diags) {
  std::function<void(const Node*, const Node*, int)> visit = [&](const Node* n, const Node* owner, int depth) {
    for (auto& [key, v] : n->fields) {
      auto each = [&](const Node* c) {
        if (!c) return;
        bool scope = c->is("FunctionDef") || c->is("AsyncFunctionDef") || c->is("ClassDef");
        if (c->is("FunctionDef") && (depth >= 2 || (depth == 1 && owner->is("ClassDef"))))
          if (auto* dec = kernel_decorator(mi, c)) {
            diags.error(dec->lineno, dec->col_offset,
                        "kernel '" + std::string(c->str("name")) + "' is defined inside " +
                            (owner->is("ClassDef") ? "class '" : "function '") + std::string(owner->str("name")) +
                            "'" + (depth >= 2 ? ", itself inside '" + std::string(top->str("name")) + "'" : "") +
                            "; cutile2triton converts kernels defined at module level or directly inside a "
                            "module-level function (a kernel factory)");
            return;
          }
        visit(c, scope ? c : owner, depth + (scope ? 1 : 0));
      };
      if (v.kind == syntax::Value::Kind::Node) each(v.node);
      else if (v.kind == syntax::Value::Kind::List)
        for (auto& item : v.items)
          if (item.kind == syntax::Value::Kind::Node) each(item.node);
    }
  };
  visit(top, top, 1);
}

// Kernels defined inside module-level function `fn` (kernel factories such
// as TileGym nvfp4_quantize.py's lru_cache'd `_make_nvfp4_kernel(occupancy)`).
// Converted in place: the factory's values its body reads (parameters, locals)
// are constants read at launch (KernelInfo::launch_constants), passed by the
// launcher defined beside it, so every kernel the factory returns is the same
// Triton kernel specialized on them; hints (decorator arguments) Triton does not
// take. A read of a factory's nested def, or of its names in the kernel's
// signature, is diagnosed.
void factory_kernels(ModuleInfo& mi, const Node* fn, Diagnostics& diags) {
  std::string fname(fn->str("name"));
  std::vector<const Node*> nested;
  walk(fn, [&](const Node* n) {
    if (n == fn) return true;
    if (n->is("FunctionDef") && kernel_decorator(mi, n)) {
      nested.push_back(n);
      return false;
    }
    return !(n->is("FunctionDef") || n->is("AsyncFunctionDef") || n->is("Lambda") || n->is("ClassDef"));
  });
  if (nested.empty()) return;
  std::map<const Node*, std::vector<const Node*>> k_launch_constants;
  // Names the factory binds, outside its kernels: values (parameters, assignment targets) and
  // functions or classes (nested defs).
  std::set<std::string> bound = param_names(fn->child("args")), bound_defs;
  std::set<std::string> bound_imports;  // `from m import x` in the factory: a value only as a value read
  walk(fn, [&](const Node* n) {
    if (n == fn) return true;
    if (n->is("Name") && n->child("ctx") && !n->child("ctx")->is("Load")) bound.insert(std::string(n->str("id")));
    if (n->is("ImportFrom"))
      for (auto* a : nodes_of(n, "names"))
        if (a->str("name") != "*") bound_imports.insert(std::string(a->str("asname").empty() ? a->str("name") : a->str("asname")));
    if (n->is("FunctionDef") || n->is("AsyncFunctionDef") || n->is("ClassDef")) {
      bound_defs.insert(std::string(n->str("name")));
      return false;
    }
    return !n->is("Lambda");
  });
  for (auto& d : bound_defs) bound.erase(d);  // a name both assigned and def'd: diagnosed as a def
  for (auto* k : nested) {
    const Node* dec = kernel_decorator(mi, k);
    other_kernel_decorators(mi, k, dec, diags);
    std::string kname(k->str("name"));
    std::set<std::string> own = kernel_own_names(k);
    // The signature (annotations, defaults) is read when the factory runs, as Python: not tile code.
    const Node* captured = nullptr;
    for (auto* part : {k->child("args"), k->child("returns")})
      if (part)
        walk(part, [&](const Node* n) {
          std::string id(n->is("Name") ? n->str("id") : "");
          if (!captured && (bound.count(id) || bound_defs.count(id)) && id != kname) captured = n;
          return !captured;
        });
    // The body's reads of the factory's values are constants at launch; of its functions, errors.
    std::set<std::string> seen;
    std::set<const Node*> not_values = names_not_read_as_values(k);
    for (const Node* n : body_reads(k, own))
      if (std::string id(n->str("id")); id != kname && !captured) {
        if (bound_defs.count(id)) captured = n;
        else if ((bound.count(id) || (bound_imports.count(id) && !not_values.count(n))) && seen.insert(id).second)
          k_launch_constants[k].push_back(n);
      }
    // Same-named kernels nested in different functions (cuTile's own tests define `kernel` in each
    // test) are each converted in place: their launchers are local to their functions. One named like
    // a module-level kernel, or like another in the same function, would share its launcher's name.
    bool clash = false;
    for (auto& other : mi.kernels) clash = clash || (other.name == kname && (!other.factory || other.factory == fn));
    if (captured || clash) {
      const Node* at = captured ? captured : dec;  // the name read, or the decorator of a clash
      diags.error(at->lineno, at->col_offset,
                  "kernel '" + kname + "' is defined inside function '" + fname + "' (a kernel factory) and " +
                      (captured ? "reads '" + std::string(captured->str("id")) + "' of that function" +
                                      (bound_defs.count(std::string(captured->str("id")))
                                           ? ", a function defined there; cutile2triton converts a factory's kernel "
                                             "that calls module-level functions only"
                                           : " in its signature, which cuTile reads as Python; a kernel's body may "
                                             "read the factory's values (they are constants at launch)")
                                : "another kernel of this module has the same name" +
                                      std::string(" (at module level or in this function): the converted kernel and "
                                                  "its launcher would share their names; rename one")));
      continue;
    }
    KernelInfo ki;
    ki.name = kname;
    ki.def = k;
    ki.decorator = dec;
    ki.factory = fn;
    ki.launch_constants = k_launch_constants[k];
    for (auto* n : ki.launch_constants) ki.factory_constants.insert(std::string(n->str("id")));
    read_options(dec, ki);
    mi.kernels.push_back(std::move(ki));
  }
}

}  // namespace

ModuleInfo analyze_module(const Node* module, Diagnostics& diags) {
  ModuleInfo mi;
  mi.module = module;
  auto body = nodes_of(module, "body");
  std::map<std::string, int> bind_count;

  // Pass 1: imports (they may appear anywhere at top level, usually first).
  for (auto* st : body) {
    if (st->is("Import")) {
      bool touches = false;
      for (auto* alias : nodes_of(st, "names")) {
        std::string name(alias->str("name"));
        std::string as(alias->str("asname"));
        std::string bound = as.empty() ? name.substr(0, name.find('.')) : as;
        if (is_cutile_module(name)) {
          touches = true;
          if (!as.empty()) mi.ct_modules.insert(as);
          else mi.ct_modules.insert("cuda.tile");  // `import cuda.tile` -> used as cuda.tile.X
        } else if (is_cutile_package(name)) {
          touches = true;
          if (!as.empty()) mi.ct_submodules.insert(as);
        } else if (name == "math") {
          mi.math_modules.insert(bound);
        } else if (name == "numpy") {
          mi.numpy_modules.insert(bound);
        } else if (name == "torch") {
          mi.torch_modules.insert(bound);
        } else if (name == "operator") {
          mi.operator_modules.insert(bound);
        } else if (name == "triton" || name == "triton.language") {
          mi.triton_names.insert(as.empty() ? name : as);
        }
      }
      if (touches) mi.cutile_imports.push_back(st);
    } else if (st->is("ImportFrom")) {
      std::string mod(st->str("module"));
      bool touches = false;
      for (auto* alias : nodes_of(st, "names")) {
        std::string name(alias->str("name"));
        std::string as(alias->str("asname"));
        std::string bound = as.empty() ? name : as;
        if (mod == "cuda" && name == "tile_experimental") {  // `from cuda import tile_experimental`
          touches = true;
          mi.ct_submodules.insert(bound);
        } else if (mod == "cuda" && name == "tile") {
          touches = true;
          mi.ct_modules.insert(bound);
        } else if (is_cutile_package(mod)) {
          touches = true;
          // `from cuda.tile._datatype import float4_e2m1fn` names the same thing as ct.float4_e2m1fn.
          if (is_cutile_module(mod) || mod == "cuda.tile._datatype" || mod == "cuda.tile._stub" ||
              mod == "cuda.tile._numeric_semantics")
            mi.ct_names[bound] = name;
          else
            mi.ct_submodules.insert(bound);
        } else if (mod == "triton" && name == "language") {
          mi.triton_names.insert(bound);
        } else if (mod == "operator") {
          mi.operator_names[bound] = name;
        }
      }
      if (touches) mi.cutile_imports.push_back(st);
    }
  }

  // Pass 2: functions, constants, kernels (in source order).
  for (auto* st : body) {
    if (st->is("FunctionDef")) {
      std::string name(st->str("name"));
      mi.functions[name] = st;
      bind_count[name]++;
      if (auto* dec = kernel_decorator(mi, st)) {
        other_kernel_decorators(mi, st, dec, diags);
        // One Triton kernel and one launcher per name: a second def would replace the first's
        // everywhere, also where host code kept the first (`k_v1 = k`: its launches ran the second).
        for (auto& other : mi.kernels)
          if (other.name == name && other.def != st)
            diags.error(st->lineno, st->col_offset,
                        "kernel '" + name + "' is defined again (first at line " + std::to_string(other.def->lineno) +
                            "); cutile2triton converts one kernel per name: give each its own name");
        KernelInfo k;
        k.name = name;
        k.def = st;
        k.decorator = dec;
        read_options(dec, k);
        mi.kernels.push_back(std::move(k));
      } else {
        factory_kernels(mi, st, diags);
      }
      misplaced_kernels(mi, st, diags);
    } else if (st->is("AsyncFunctionDef") || st->is("ClassDef")) {
      bind_count[std::string(st->str("name"))]++;
      misplaced_kernels(mi, st, diags);
      if (st->is("ClassDef")) user_enum(mi, st);
      // cuTile compiles a kernel from a plain function (ct.kernel on a coroutine function is no kernel):
      // said at the decorator, not later as "no @ct.kernel in this module".
      if (st->is("AsyncFunctionDef"))
        if (auto* dec = kernel_decorator(mi, st))
          diags.error(dec->lineno, dec->col_offset, "a cuTile kernel is a plain function: 'async def' cannot be a @ct.kernel");
    } else if (st->is("Assign") || st->is("AnnAssign")) {
      const Node* value = st->child("value");
      std::vector<const Node*> targets = st->is("Assign") ? nodes_of(st, "targets") : std::vector<const Node*>{st->child("target")};
      for (auto* t : targets)
        if (t->is("Name")) bind_count[std::string(t->str("id"))]++;
      if (!value || targets.size() != 1 || !targets[0]->is("Name")) continue;
      std::string name(targets[0]->str("id"));
      // Call form: `name = ct.kernel(fn, **options)`.
      if (value->is("Call")) {
        auto q = mi.cutile_name(value->child("func"));
        if (q && *q == "kernel") {
          auto* fn = call_arg(value, 0);
          auto fit = fn && fn->is("Name") ? mi.functions.find(std::string(fn->str("id"))) : mi.functions.end();
          if (fit == mi.functions.end()) {
            diags.error(value->lineno, value->col_offset,
                        "ct.kernel(...) must wrap a function defined at module level in this file");
            continue;
          }
          KernelInfo k;
          k.name = name;
          k.def = fit->second;
          k.decorator = value;
          k.assign_stmt = st;
          read_options(value, k);
          bool other_options = false;  // one Triton kernel per function: its options are one set
          for (auto& other : mi.kernels)
            if (other.def == k.def && other.decorator && other.decorator->is("Call") &&
                options_text(other.decorator) != options_text(value))
              other_options = true;
          if (other_options) {
            diags.error(value->lineno, value->col_offset,
                        "ct.kernel(" + std::string(fn->str("id")) + ", ...) is given other options here than for "
                        "another kernel of the same function; cutile2triton converts one Triton kernel per "
                        "function: give each variant its own function");
            continue;
          }
          mi.kernels.push_back(std::move(k));
          continue;
        }
      }
      if (auto c = mi.fold(value)) {
        mi.constants[name] = *c;
        mi.constant_stmts[name] = st;
      } else if (auto q = mi.cutile_name(value)) {
        // `RMd = ct.RoundingMode`: a module-level alias of a cuTile name.
        mi.ct_names[name] = *q;
        mi.constant_stmts[name] = st;
      }
    } else if (st->is("AugAssign")) {
      if (auto* t = st->child("target"); t && t->is("Name")) bind_count[std::string(t->str("id"))] += 2;
    }
  }
  inline_kernels(mi, body, diags);
  // Bindings pass 2 did not count: names stored or deleted inside module-level blocks (if, try, for,
  // with, match; walrus in any statement) and names functions or classes declare `global` (they may
  // rebind them when called).
  for (auto* st : body) {
    bool own_targets = st->is("Assign") || st->is("AnnAssign") || st->is("AugAssign");
    walk(st, [&](const Node* n) {
      if (n->is("Global")) {
        for (auto& v : n->get("names")->items) bind_count[std::string(v.text)] += 2;
        return false;
      }
      if (n != st && (n->is("Lambda") || n->is("ListComp") || n->is("SetComp") || n->is("DictComp") ||
                      n->is("GeneratorExp")))
        return false;
      if (n->is("Name") && n->child("ctx") && !n->child("ctx")->is("Load")) {
        bool counted = false;  // a top-level assignment's own target: counted in pass 2
        if (own_targets)
          for (auto* t : st->is("Assign") ? nodes_of(st, "targets") : std::vector<const Node*>{st->child("target")})
            counted = counted || t == n;
        if (!counted && (n->child("ctx")->is("Store") || n->child("ctx")->is("Del")))
          bind_count[std::string(n->str("id"))] += st->is("FunctionDef") || st->is("ClassDef") ||
                                                            st->is("AsyncFunctionDef") ? 0 : 1;
      }
      return true;
    });
  }
  module_imports(mi, body, bind_count);
  // A name rebound at module level is not a constant: cuTile reads the value at
  // compile time, which we cannot know statically.
  for (auto& [name, n] : bind_count) {
    if (n > 1) {
      mi.assigned_more_than_once.insert(name);
      mi.constants.erase(name);
      mi.constant_stmts.erase(name);
    }
  }
  // What kernels read at launch: module-level values folding cannot compute (a factory's own names,
  // found above, shadow them).
  // Imported names that are known after all (a constant assigned after its import, a function) are not values.
  std::erase_if(mi.imported_values, [&](const auto& entry) { return known_name(mi, entry.first); });
  mi.runtime_globals = module_runtime_globals(mi, body);
  for (auto& k : mi.kernels) {
    std::set<std::string> seen;
    for (auto* n : k.launch_constants) seen.insert(std::string(n->str("id")));
    std::set<std::string> own = kernel_own_names(k.def);
    std::set<const Node*> not_values = names_not_read_as_values(k.def);
    for (const Node* n : body_reads(k.def, own)) {
      std::string id(n->str("id"));
      bool imported_value = mi.imported_values.count(id) && !not_values.count(n);
      if ((mi.runtime_globals.count(id) || imported_value) && seen.insert(id).second) k.launch_constants.push_back(n);
    }
    std::stable_sort(k.launch_constants.begin(), k.launch_constants.end(), [](const Node* a, const Node* b) {
      return std::pair(a->lineno, a->col_offset) < std::pair(b->lineno, b->col_offset);
    });
  }
  return mi;
}

std::optional<ConstValue> ModuleInfo::UserEnum::member(const std::string& cls, const std::string& name) const {
  for (auto& [n, v] : members)
    if (n == name) return is_int && v.kind == ConstValue::Kind::Int ? v : ConstValue::enum_member(cls + "." + n);
  return std::nullopt;
}

}  // namespace c2t::sema
