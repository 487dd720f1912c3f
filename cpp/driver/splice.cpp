#include "driver/splice.h"

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <vector>

#include "sema/ast_util.h"
#include "sema/module_scope.h"
#include "syntax/parser.h"

namespace c2t::driver {

namespace fs = std::filesystem;
using sema::import_level;
using sema::nodes_of;
using syntax::Node;

namespace {

bool read(const fs::path& p, std::string& out) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

// Names a top-level statement binds (defs, single-name assignments, imports).
std::vector<std::string> bound_names(const Node* st) {
  std::vector<std::string> out;
  if (st->is("FunctionDef") || st->is("ClassDef")) out.emplace_back(st->str("name"));
  if (st->is("Assign"))
    for (auto* t : nodes_of(st, "targets"))
      if (t->is("Name")) out.emplace_back(t->str("id"));
  if (st->is("Import") || st->is("ImportFrom"))
    for (auto* a : nodes_of(st, "names")) {
      std::string n(a->str("name")), as(a->str("asname"));
      out.push_back(as.empty() ? n.substr(0, n.find('.')) : as);
    }
  return out;
}

// How many times each name is bound at module level: top-level statements and those nested in
// if/try/for/while/with/match blocks (not in function, class or lambda bodies, nor comprehensions), plus
// `global` declarations in functions. A name bound more than once has no one value to copy or keep.
std::map<std::string, int> module_binding_counts(const Node* module) {
  std::map<std::string, int> count;
  std::function<void(const Node*)> visit = [&](const Node* st) {
    for (auto& n : bound_names(st)) count[n]++;
    if (st->is("FunctionDef") || st->is("AsyncFunctionDef") || st->is("ClassDef")) {
      sema::walk(st, [&](const Node* n) {  // `global x` inside functions binds module-level x
        if (n->is("Global"))
          if (auto* names = n->get("names"))
            for (auto& g : names->items) count[g.text]++;
        return true;
      });
      return;
    }
    if (st->is("Assign") || st->is("AnnAssign") || st->is("AugAssign") || st->is("Import") || st->is("ImportFrom")) {
      sema::walk(st, [&](const Node* n) {  // tuple targets, walrus: every stored name
        if (n->is("Lambda") || n->is("ListComp") || n->is("SetComp") || n->is("DictComp") || n->is("GeneratorExp"))
          return false;
        if (n->is("Name") && n->child("ctx") && n->child("ctx")->is("Store") &&
            !(st->is("Assign") && nodes_of(st, "targets").size() == 1 && nodes_of(st, "targets")[0] == n))
          count[std::string(n->str("id"))]++;
        return true;
      });
      return;
    }
    // Compound statements: their own stored names (loop targets, `with ... as`, except handlers, walrus),
    // then their nested statements.
    sema::walk(st, [&](const Node* n) {
      if (n == st) return true;
      if (n->is("FunctionDef") || n->is("AsyncFunctionDef") || n->is("ClassDef") || n->is("Lambda") ||
          n->is("ListComp") || n->is("SetComp") || n->is("DictComp") || n->is("GeneratorExp"))
        return false;
      if (n->is("Name") && n->child("ctx") && n->child("ctx")->is("Store")) count[std::string(n->str("id"))]++;
      if (n->is("ExceptHandler") && !n->str("name").empty()) count[std::string(n->str("name"))]++;
      if (n->is("Import") || n->is("ImportFrom"))
        for (auto& b : bound_names(n)) count[b]++;
      return true;
    });
    sema::walk(st, [&](const Node* n) {  // defs and classes nested in blocks
      if (n != st && (n->is("FunctionDef") || n->is("AsyncFunctionDef") || n->is("ClassDef"))) {
        count[std::string(n->str("name"))]++;
        return false;
      }
      return !(n->is("Lambda"));
    });
  };
  for (auto* st : nodes_of(module, "body")) visit(st);
  return count;
}

// Two statements that are the same code (ast.dump without positions): an importer binding a name just
// as the sibling does (`ConstInt = ct.Constant[int]` in both) keeps its own.
bool same_code(const Node* a, const Node* b) {
  return syntax::dump(a, {11, false}) == syntax::dump(b, {11, false});
}

// The file a `from MODULE import ...` statement of the module at `dir` reads, or
// "" when there is none to follow. Relative imports are read from `dir` (one folder
// up per extra dot). An absolute one is read where Python would find it when the
// importing file runs as a script (sys.path[0] is its folder) or under pytest
// (its default "prepend" mode puts the first folder upwards without an
// __init__.py on sys.path): cutile-python's test/kernels/fused_moe.py imports
// `from kernels.matmul import swizzle_2d`, TileGym's files
// `from tilegym.ops.cutile.utils import ...`. cuda.* is cuTile's own.
fs::path imported_file(const Node* imp, const fs::path& dir, const fs::path& self) {
  std::error_code ec;
  int level = import_level(imp);
  std::string mod(imp->str("module"));
  // Absolute imports: only a dotted name (`pkg.mod`) whose package is a folder with an __init__.py. A
  // single name (`from math import floor`) may be a built-in or standard module that Python finds
  // before any local file of that name.
  if (level == 0 && (mod.find('.') == std::string::npos || mod.rfind("cuda.", 0) == 0)) return {};
  fs::path rel;
  for (size_t p = 0; p <= mod.size() && !mod.empty();) {
    size_t dot = mod.find('.', p);
    rel /= mod.substr(p, dot == std::string::npos ? std::string::npos : dot - p);
    if (dot == std::string::npos) break;
    p = dot + 1;
  }
  std::vector<fs::path> roots;
  if (level >= 1) {
    fs::path base = dir;
    for (int i = 1; i < level; ++i) base = base.parent_path();
    roots.push_back(base);
  } else {
    roots.push_back(dir);
    fs::path abs = fs::absolute(dir, ec).lexically_normal(), up = dir;  // walked on the absolute path, named like `dir`
    if (!abs.has_filename()) abs = abs.parent_path();  // "/a/b/" (from "/a/b/.") names /a/b
    while (!ec && fs::is_regular_file(abs / "__init__.py", ec) && abs.parent_path() != abs) {
      abs = abs.parent_path();
      up /= "..";
    }
    if (up != dir) roots.push_back(up.lexically_normal());
  }
  std::string top = mod.substr(0, mod.find('.'));
  for (auto& r : roots) {
    if (level == 0 && !fs::is_regular_file(r / top / "__init__.py", ec)) continue;
    // A package of that name comes before a module file (Python's path finder).
    fs::path package = r / rel / "__init__.py", file = r / rel;
    file += ".py";
    for (auto& f : {package, file})
      if (fs::is_regular_file(f, ec)) return fs::equivalent(f, self, ec) ? fs::path() : f;
  }
  return {};
}

// Names that tile code of `mi` loads: only these can be tile helpers (functions of the module that use
// cuda.tile, kernels and helpers). Other imports are not read at all.
std::set<std::string> tile_loaded_names(const sema::ModuleInfo& mi) {
  std::set<std::string> out;
  for (auto* st : nodes_of(mi.module, "body")) {
    if (!st->is("FunctionDef")) continue;
    auto names = sema::name_ids(st);
    bool tile = false;
    for (auto& m : mi.ct_modules) tile = tile || std::binary_search(names.begin(), names.end(), std::string_view(m));
    if (tile)
      for (auto n : names) out.emplace(n);
  }
  return out;
}

// Functions the kernels call by name, directly or through the module's own functions, and those host
// code makes kernels of (`ct.kernel(f)`, sema inline_kernels): tile code, wherever defined.
std::set<std::string> tile_functions_called(const sema::ModuleInfo& mi) {
  std::set<std::string> out;
  std::vector<const Node*> bodies;
  for (auto& k : mi.kernels) bodies.push_back(k.def);
  while (!bodies.empty()) {
    const Node* body = bodies.back();
    bodies.pop_back();
    sema::walk(body, [&](const Node* n) {
      if (!n->is("Call") || !n->child("func")->is("Name")) return true;
      std::string f(n->child("func")->str("id"));
      auto local_fn = mi.functions.find(f);
      if (out.insert(f).second && local_fn != mi.functions.end()) bodies.push_back(local_fn->second);
      return true;
    });
  }
  for (auto* st : nodes_of(mi.module, "body")) {
    bool is_kernel = false;
    for (auto& k : mi.kernels) is_kernel = is_kernel || k.def == st;
    if (is_kernel) continue;
    sema::walk(st, [&](const Node* n) {
      auto q = n->is("Call") ? mi.cutile_name(n->child("func")) : std::nullopt;
      const Node* f = q && *q == "kernel" ? sema::call_arg(n, 0) : nullptr;
      if (f && f->is("Name")) out.emplace(f->str("id"));
      return true;
    });
  }
  return out;
}

// Names the module's top-level statements read outside functions and classes (`NAME = f.__name__`).
std::set<std::string> top_level_reads(const Node* module) {
  std::set<std::string> out;
  for (auto* st : nodes_of(module, "body")) {
    if (st->is("FunctionDef") || st->is("AsyncFunctionDef") || st->is("ClassDef") || st->is("Import") ||
        st->is("ImportFrom"))
      continue;
    sema::walk(st, [&](const Node* n) {
      if (n->is("FunctionDef") || n->is("AsyncFunctionDef") || n->is("ClassDef") || n->is("Lambda")) return false;
      if (n->is("Name") && n->child("ctx") && n->child("ctx")->is("Load")) out.emplace(n->str("id"));
      return true;
    });
  }
  return out;
}

// Whether a function of a sibling module is a tile helper: it uses cuTile in its body (not only
// cuTile's host API: TileGym's utils.cached_replace_hints stays imported, the converted sibling defines
// it with its module state), takes a ct.Constant parameter (host code takes no compile-time constants;
// also through an alias, `ConstInt = ct.Constant[int]`), or calls an undecorated sibling function that
// is one (TileGym's gelu_forward_ct only calls standard_normal_cdf_ct, which uses cuTile).
class TileHelperTest {
 public:
  TileHelperTest(const sema::ModuleInfo& there, const std::map<std::string, const Node*>& defs)
      : there_(there), defs_(defs) {}

  bool operator()(const Node* st) {
    auto [it, fresh] = memo_.emplace(st, false);  // false while in progress: recursion ends
    if (!fresh) return it->second;
    bool tile = uses_ct(st) || constant_param(st);
    // Calls of undecorated sibling functions only: host code names kernels too (ct.launch).
    sema::walk(st, [&](const Node* n) {
      if (tile) return false;
      const Node* f = n->is("Call") ? n->child("func") : nullptr;
      if (!f || !f->is("Name")) return true;
      auto d = defs_.find(std::string(f->str("id")));
      tile = d != defs_.end() && d->second != st && d->second->is("FunctionDef") &&
             nodes_of(d->second, "decorator_list").empty() && (*this)(d->second);
      return !tile;
    });
    return memo_[st] = tile;
  }

 private:
  bool uses_ct(const Node* st) const {
    static const std::set<std::string> host_api = {"kernel", "launch", "tune", "compiler_timeout", "ByTarget",
                                                   "Constant", "cdiv"};
    bool found = false;
    std::set<const Node*> skip;  // annotations
    sema::walk(st, [&](const Node* n) {
      if (n->is("arg") || n->is("FunctionDef"))
        for (const char* f : {"annotation", "returns"})
          if (auto* a = n->child(f)) skip.insert(a);
      return true;
    });
    sema::walk(st, [&](const Node* n) {
      if (skip.count(n)) return false;
      if (n->is("Attribute") && n->child("value")->is("Name") &&
          there_.ct_modules.count(std::string(n->child("value")->str("id"))))
        found = found || !host_api.count(std::string(n->str("attr")));
      return !found;
    });
    return found;
  }

  bool constant_param(const Node* st) const {
    bool found = false;
    sema::walk(st, [&](const Node* n) {
      auto* a = n->is("arg") ? n->child("annotation") : nullptr;
      if (!a || found) return !found;
      auto c = there_.fold(a);
      found = c && c->kind == sema::ConstValue::Kind::ConstantAnnotation;
      if (!found)
        sema::walk(a, [&](const Node* m) {
          found = found || (m->is("Attribute") && m->str("attr") == "Constant");
          return !found;
        });
      return !found;
    });
    return found;
  }

  const sema::ModuleInfo& there_;
  const std::map<std::string, const Node*>& defs_;
  std::map<const Node*, bool> memo_;
};

// What the importing module is, for the copies: the names its tile code needs from imports, what it
// binds itself, and what its top-level code reads (copies go at the end of the module).
struct Importer {
  const std::set<std::string>& ct_modules;
  std::set<std::string> kernel_calls;  // undecorated functions its kernels call
  std::set<std::string> tile_loads;    // names its tile code reads (kernel_calls among them)
  std::map<std::string, int> count;    // its module-level bindings of each name, and how often
  std::map<std::string, const Node*> stmt;  // its top-level binding of each name (the last)
  std::set<std::string> local;         // names it binds itself (not only by a candidate import)
  std::set<std::string> top_reads;     // names its top-level statements read
};

// Copies, for one import statement of a sibling `file`, the imported tile helpers with what they
// refer to there, into `out`, or says in out.skipped why not. `added`: names copied so far (for
// earlier imports too: no statement twice).
class ImportCopy {
 public:
  ImportCopy(const Importer& importer, const Node* imp, const fs::path& file, std::set<std::string>& added,
             Splice& out)
      : in_(importer), imp_(imp), file_(file), added_(added), out_(out) {}

  void run() {
    std::string bytes;
    if (!read(file_, bytes)) return skip("the file cannot be read");
    syntax::ParseResult pr = syntax::parse(bytes, file_.string());
    if (!pr.ok()) return skip("that file does not parse");
    Diagnostics ignore;
    sema::ModuleInfo there = sema::analyze_module(pr.tree.root, ignore);
    if (there.ct_modules != in_.ct_modules)  // `ct` must mean the same in both
      return skip("it binds cuda.tile under other names than this module");
    sibling_count_ = module_binding_counts(pr.tree.root);
    for (auto* st : nodes_of(pr.tree.root, "body"))
      for (auto& n : bound_names(st)) defs_[n] = st;
    std::vector<const Node*> todo = wanted_helpers(there);
    if (wanted_.empty()) return;
    std::string why = closure(todo);
    if (!why.empty()) {
      for (auto& n : wanted_) out_.skipped.emplace(n, "its import from " + file_.string() + " was not followed: " + why);
      return;
    }
    append(pr);
  }

 private:
  // Why the import is not followed, for the diagnostic that its names are then unknown in tile code.
  void skip(const std::string& why) {
    for (auto* a : nodes_of(imp_, "names"))
      if (in_.tile_loads.count(std::string(a->str("name"))))
        out_.skipped.emplace(a->str("asname").empty() ? std::string(a->str("name")) : std::string(a->str("asname")),
                             "its import from " + file_.string() + " was not followed: " + why);
  }

  // The imported tile helpers' definitions (wanted_ gets their names).
  std::vector<const Node*> wanted_helpers(const sema::ModuleInfo& there) {
    TileHelperTest is_tile_helper(there, defs_);
    std::vector<const Node*> todo;
    for (auto* a : nodes_of(imp_, "names")) {
      std::string n(a->str("name"));
      if (a->str("asname").empty() && added_.count(n)) {  // copied already, as a helper's helper
        out_.names.insert(n);
        out_.imports.emplace(imp_->lineno, imp_->col_offset);
        continue;
      }
      auto it = defs_.find(n);
      // A relative import's function is copied where it uses cuTile (TileGym's liger
      // fused_linear_jsd.py copies the kernel _jsd_kernel that way, as tested on the H200).
      // An absolute import may name any utility module (cutile-python's test/util.py has
      // host functions that use ct.compilation), so there only undecorated functions the
      // kernels call are: the converted sibling defines the rest.
      bool tile_fn = it != defs_.end() && it->second->is("FunctionDef") &&
                     (import_level(imp_) >= 1 ? (in_.kernel_calls.count(n) || is_tile_helper(it->second))
                                              : in_.kernel_calls.count(n) && nodes_of(it->second, "decorator_list").empty());
      if (!a->str("asname").empty() || !tile_fn) continue;
      if (count_in(in_.count, n) > 1 || sibling_count_[n] > 1) {  // imported twice, rebound, or defined twice
        out_.skipped.emplace(n, "its import from " + file_.string() + " was not followed: '" + n +
                                    "' is bound more than once " + (count_in(in_.count, n) > 1 ? "in this module" : "there"));
        continue;
      }
      wanted_.insert(n);
      todo.push_back(it->second);
    }
    return todo;
  }

  // The sibling's statements the helpers need (into stmts_), from `todo` on; why they cannot be copied
  // (a name bound twice there, or bound otherwise here), or "".
  std::string closure(std::vector<const Node*> todo) {
    std::string why;
    while (!todo.empty()) {
      const Node* st = todo.back();
      todo.pop_back();
      if (!stmts_.insert(st).second) continue;
      for (std::string_view id : sema::name_ids(st)) {
        std::string n(id);
        auto it = defs_.find(n);
        if (it == defs_.end() || stmts_.count(it->second)) continue;
        const Node* dep = it->second;
        if (added_.count(n)) continue;  // copied for an earlier import
        if (dep->is("ImportFrom") && import_level(dep) != 0) continue;  // the sibling's own siblings: not followed
        if (in_.ct_modules.count(n) || (dep->is("ImportFrom") && std::string(dep->str("module")).rfind("cuda", 0) == 0))
          continue;  // cuda.tile names: the importing module binds them the same way
        if (sibling_count_[n] > 1) {  // no one value to copy
          why = "it uses '" + n + "', which " + file_.string() + " binds more than once";
          continue;
        }
        if (in_.local.count(n)) {
          // The importer binds this name already: fine where it binds it by the same code (the same
          // absolute import, `ConstInt = ct.Constant[int]`), else the copy would see the importer's.
          auto own = in_.stmt.find(n);
          bool same = count_in(in_.count, n) == 1 && own != in_.stmt.end() && same_code(own->second, dep) &&
                      !(dep->is("ImportFrom") && import_level(dep) != 0);
          if (!same) why = "it uses '" + n + "', which this module binds otherwise (rename one)";
          continue;
        }
        todo.push_back(dep);
      }
    }
    for (auto* st : stmts_)
      for (auto& n : bound_names(st))
        if (in_.local.count(n) && !wanted_.count(n) && !(st->is("Import") || st->is("ImportFrom")))
          why = "copying it would bind '" + n + "', which this module binds otherwise (rename one)";
    for (auto& n : wanted_)
      if (in_.top_reads.count(n))
        why = "this module's top-level code reads '" + n + "' before the copied definition would be";
    return why;
  }

  // The needed statements' text, in the sibling's order (constants before uses), onto out_.text.
  void append(const syntax::ParseResult& pr) {
    std::string text = "\n\n# cutile2triton: tile helpers copied from " + std::string(import_level(imp_), '.') +
                       std::string(imp_->str("module")) + " (compiled at this module's call sites; see driver/splice.h)";
    const syntax::Source& src = *pr.source;
    auto lines_in = [](const std::string& t) { return (int)std::count(t.begin(), t.end(), '\n'); };
    for (auto* st : nodes_of(pr.tree.root, "body")) {
      if (!stmts_.count(st)) continue;
      int first = st->lineno;
      for (auto* d : nodes_of(st, "decorator_list")) first = std::min(first, d->lineno);
      size_t b = src.offset(first, 0);
      size_t e = st->end_lineno >= src.line_count() ? src.text().size() : src.offset(st->end_lineno + 1, 0);
      text += "\n\n";
      // Line numbers within out.text count from 1 at its first character.
      int at = lines_in(out_.text) + lines_in(text) + 1;
      text += std::string(src.text().substr(b, e - b));
      if (text.back() != '\n') text += '\n';
      out_.origins.push_back({at, st->end_lineno - first + 1, file_.string(), first, imp_->lineno, imp_->col_offset});
      for (auto& n : bound_names(st)) added_.insert(n);
    }
    out_.text += text;
    out_.names.insert(wanted_.begin(), wanted_.end());
    out_.imports.emplace(imp_->lineno, imp_->col_offset);
  }

  static int count_in(const std::map<std::string, int>& m, const std::string& n) {
    auto it = m.find(n);
    return it == m.end() ? 0 : it->second;
  }

  const Importer& in_;
  const Node* imp_;
  const fs::path& file_;
  std::set<std::string>& added_;
  Splice& out_;
  std::map<std::string, int> sibling_count_;
  std::map<std::string, const Node*> defs_;  // the sibling's top-level bindings (the last of each)
  std::set<std::string> wanted_;             // the imported helpers to copy
  std::set<const Node*> stmts_;              // the sibling's statements to copy
};

}  // namespace

Splice splice_imported_helpers(const sema::ModuleInfo& mi, const std::string& path) {
  const Node* module = mi.module;
  Splice out;
  std::error_code ec;
  fs::path dir = fs::path(path).parent_path();
  if (path.empty()) return out;
  if (dir.empty()) dir = ".";  // a file in the working folder
  bool from_import = false;  // the usual case: none, and nothing to do
  for (auto* st : nodes_of(module, "body")) from_import = from_import || st->is("ImportFrom");
  if (!from_import || !fs::is_regular_file(path, ec)) return out;
  Importer in{mi.ct_modules, tile_functions_called(mi), tile_loaded_names(mi), {}, {}, {}, {}};
  in.tile_loads.insert(in.kernel_calls.begin(), in.kernel_calls.end());
  std::map<const Node*, fs::path> sources;  // import statements that may bring tile helpers: their files
  for (auto* imp : nodes_of(module, "body")) {
    if (!imp->is("ImportFrom")) continue;
    bool candidate = false;
    for (auto* a : nodes_of(imp, "names")) candidate = candidate || in.tile_loads.count(std::string(a->str("name")));
    if (!candidate) continue;
    fs::path file = imported_file(imp, dir, path);
    if (!file.empty()) {
      sources.emplace(imp, file);
    } else if (import_level(imp) >= 1 || std::string(imp->str("module")).find('.') != std::string::npos) {
      for (auto* a : nodes_of(imp, "names"))
        out.skipped.emplace(a->str("asname").empty() ? std::string(a->str("name")) : std::string(a->str("asname")),
                            "its module was not found beside this file (absolute imports: a package, a folder with "
                            "__init__.py, in this file's folder or its package root)");
    }
  }
  if (sources.empty()) return out;
  // Names the importing module binds itself (anywhere at module level), and how often: an imported name
  // it binds again (or imports twice) has no one definition to copy.
  in.count = module_binding_counts(module);
  for (auto* st : nodes_of(module, "body"))
    for (auto& n : bound_names(st)) in.stmt[n] = st;
  for (auto& [n, c] : in.count) in.local.insert(n);
  for (auto& [imp, file] : sources)  // the candidate imports' own names are not the importer's
    for (auto* a : nodes_of(imp, "names")) {
      std::string n(a->str("asname").empty() ? a->str("name") : a->str("asname"));
      if (in.count[n] <= 1) in.local.erase(n);
    }
  in.top_reads = top_level_reads(module);
  std::set<std::string> added;
  for (auto* imp : nodes_of(module, "body")) {
    auto source = sources.find(imp);
    if (source != sources.end()) ImportCopy(in, imp, source->second, added, out).run();
  }
  return out;
}

}  // namespace c2t::driver
