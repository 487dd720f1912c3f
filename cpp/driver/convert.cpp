#include "driver/convert.h"

#include <algorithm>
#include <set>

#include "driver/runtime_builtins.h"
#include "driver/splice.h"
#include "host/host_rewrite.h"
#include "lower/module_lowering.h"
#include "sema/ast_util.h"
#include "sema/bindings.h"
#include "sema/module_scope.h"
#include "syntax/parser.h"

namespace c2t {

const char* const kVersion = "0.1.0";

namespace {

lower::LowerOptions lower_options(const ConvertOptions& o) {
  lower::LowerOptions l;
  l.array_ranks = o.array_ranks;
  l.int64_indexing = o.int64_indexing;
  return l;
}

bool has_errors(const Diagnostics& d) { return d.has_errors(); }

}  // namespace

// Lowering, emission and the host rewrite recurse once per AST level with
// frames of a few hundred bytes (more under sanitizers); the parser allows
// 1000 levels. Code nested deeper than this is rejected before those
// stages run (a fuzzer-found stack overflow at 712 levels under ASan). Real
// code stays far below: the deepest statement in TileGym src/ and cuTile samples/ is 19 levels.
namespace {
constexpr int kMaxNesting = 200;
}  // namespace

bool check_nesting(const syntax::Node* module, Diagnostics& diags) {
  for (const syntax::Node* stmt : sema::nodes_of(module, "body")) {
    const syntax::Node* deep = sema::first_deeper_than(stmt, kMaxNesting);
    if (!deep) continue;
    diags.error(deep->has_pos ? deep->lineno : stmt->lineno, deep->has_pos ? deep->col_offset : stmt->col_offset,
                "code nested more than " + std::to_string(kMaxNesting) +
                    " levels deep (expressions and statements); cutile2triton does not convert it: split the "
                    "expression into several assignments");
    return false;  // one diagnostic is enough
  }
  return true;
}

namespace {
// CPython's compiler (symtable.c), not its parser, rejects a parameter named twice: ast.parse, and so
// our parser, accept `def f(x, x)`, which converted into a module that does not compile (s39 hostile round).
void check_duplicate_params(const syntax::Node* module, Diagnostics& diags) {
  sema::walk(module, [&](const syntax::Node* n) {
    if (!n->is("FunctionDef") && !n->is("AsyncFunctionDef") && !n->is("Lambda")) return true;
    std::set<std::string_view> seen;
    for (auto* a : sema::param_nodes(n->child("args")))
      if (!seen.insert(a->str("arg")).second)
        diags.error(a->has_pos ? a->lineno : n->lineno, a->has_pos ? a->col_offset : n->col_offset,
                    "duplicate argument '" + std::string(a->str("arg")) + "' in function definition");
    return true;
  });
}

// A diagnostic inside a tile helper copied from a sibling module (splice.h)
// is reported at the import statement, naming the helper's own file:line:col.
void remap_spliced(Diagnostics& diags, const driver::Splice& splice, int base) {
  for (auto& d : diags.items) {
    if (d.line <= base) continue;
    int rel = d.line - base;
    for (auto& o : splice.origins) {
      if (rel < o.first || rel >= o.first + o.count) continue;
      d.message = "in " + o.file + ":" + std::to_string(o.origin_line + rel - o.first) + ":" + std::to_string(d.col + 1) +
                  " (a tile helper imported here): " + d.message;
      d.line = o.import_line;
      d.col = o.import_col;
      break;
    }
  }
}
}  // namespace

namespace {
// Names the generated module defines itself: cuTile code that binds them
// would silently replace the converter's helpers (`_c2t_tan`), its launchers
// (`launch_<kernel>`) or the Triton modules (`tl`, `triton`). Rejected, with
// the binding's location. Imports of the real Triton modules are fine.
// Every way Python binds a name counts (assignment and deletion targets, def,
// class, import, except ... as, match captures, global), in any scope: a
// function binding `launch_<kernel>` would shadow the launcher its own
// rewritten launches call.
bool check_reserved_names(const syntax::Node* module, const sema::ModuleInfo& mi, Diagnostics& diags) {
  std::set<std::string> launchers;
  for (auto& k : mi.kernels) launchers.insert("launch_" + k.name);
  bool ok = true;
  auto check = [&](std::string_view id, const syntax::Node* at, bool module_level) {
    std::string why;
    if (id.rfind("_c2t_", 0) == 0) why = "names starting with '_c2t_' are reserved for the helpers cutile2triton generates";
    else if (id == "tl" || id == "triton") why = "the converted module uses '" + std::string(id) + "' for Triton";
    else if (launchers.count(std::string(id)))  // in a function too: its rewritten launches would call the local
      why = std::string("the converted module defines this launcher for the kernel") +
            (module_level ? "" : ", and the host code's launches call it by this name");
    if (why.empty()) return;
    ok = false;
    diags.error(at->has_pos ? at->lineno : 0, at->has_pos ? at->col_offset : 0,
                "'" + std::string(id) + "' cannot be converted: " + why + "; rename it");
  };
  sema::for_each_binding(module, [&](std::string_view id, const syntax::Node* at, bool module_level) {
    if (id == "*") return;
    if (at->is("alias")) {  // the real Triton modules under their usual names are fine
      std::string full(at->str("name"));
      bool plain = at->str("asname").empty();
      if ((id == "triton" && plain && (full == "triton" || full.rfind("triton.", 0) == 0)) ||
          (id == "tl" && full == "triton.language"))
        return;
    }
    check(id, at, module_level);
  });
  // A kernel parameter named like a Triton launch option (CUDAOptions, triton/backends/nvidia/compiler.py):
  // Triton's binder takes the options as keywords beside the parameters, so the runtime's num_warps= (or a
  // caller's) gives "multiple values for argument" at every launch.
  static const std::set<std::string_view> options = {
      "num_warps", "num_ctas", "num_stages", "warp_size", "maxnreg", "ptx_version", "ptx_options", "ir_override",
      "enable_fp_fusion", "enable_reflect_ftz", "launch_cooperative_grid", "launch_pdl", "supported_fp8_dtypes",
      "deprecated_fp8_dot_operand_dtypes", "default_dot_input_precision", "allowed_dot_input_precisions",
      "max_num_imprecise_acc_default", "extern_libs", "debug", "backend_name", "sanitize_overflow", "arch",
      "instrumentation_mode"};
  for (auto& k : mi.kernels)
    for (auto* a : sema::param_nodes(k.def->child("args")))
      if (options.count(a->str("arg"))) {
        ok = false;
        diags.error(a->has_pos ? a->lineno : k.def->lineno, a->has_pos ? a->col_offset : k.def->col_offset,
                    "'" + std::string(a->str("arg")) + "' cannot be converted: a Triton kernel's launch takes '" +
                        std::string(a->str("arg")) + "' as an option, which a parameter of that name clashes with; rename it");
      }
  return ok;
}
}  // namespace

ConvertResult convert_source(std::string_view bytes, std::string_view filename, const ConvertOptions& opts) {
  ConvertResult r;
  syntax::ParseResult pr = syntax::parse(bytes, filename);
  r.source_text = pr.source ? std::string(pr.source->text()) : std::string(bytes);
  driver::Splice splice;
  int spliced_from = 0;  // lines of the module's own text, when helpers were appended
  auto finish = [&]() {
    if (spliced_from > 0) remap_spliced(r.diags, splice, spliced_from);
    for (auto& d : r.diags.items)  // an imported name whose definition was not copied: say why
      for (auto& [name, why] : splice.skipped)
        if (d.message.rfind("name '" + name + "' is not defined in tile code", 0) == 0 ||
            d.message.rfind("'" + name + "' is imported from another module", 0) == 0)
          d.message += "; " + why;
    r.rendered = r.diags.render_all(filename, r.source_text);
    if (!r.ok) r.code.clear();
    return r;
  };
  if (!pr.ok()) {
    r.diags = std::move(pr.diags);
    return finish();
  }
  for (auto& d : pr.diags.items) r.diags.items.push_back(d);  // parser warnings
  check_nesting(pr.tree.root, r.diags);
  if (!has_errors(r.diags)) check_duplicate_params(pr.tree.root, r.diags);
  if (has_errors(r.diags)) return finish();
  // Tile helpers imported from sibling modules are copied in (driver/splice.h);
  // only for plain UTF-8 files, whose decoded text is their bytes.
  Diagnostics sema_diags;
  sema::ModuleInfo mi = sema::analyze_module(pr.tree.root, sema_diags);
  if (pr.source->text() == bytes && !mi.ct_modules.empty())
    splice = driver::splice_imported_helpers(mi, std::string(filename));
  if (!splice.names.empty()) {
    std::string spliced(bytes);
    if (!spliced.empty() && spliced.back() != '\n') spliced += '\n';
    spliced += splice.text;
    syntax::ParseResult again = syntax::parse(spliced, filename);
    if (again.ok()) {
      spliced_from = (int)std::count(spliced.begin(), spliced.end() - (std::ptrdiff_t)splice.text.size(), '\n');
      pr = std::move(again);
      r.source_text = spliced;
      if (!check_nesting(pr.tree.root, r.diags)) return finish();  // the copied helpers too
      sema_diags = {};
      mi = sema::analyze_module(pr.tree.root, sema_diags);
    } else {
      splice = {};
    }
  }
  for (auto& d : sema_diags.items) r.diags.items.push_back(d);
  if (mi.ct_modules.empty() && mi.ct_names.empty() && mi.cutile_imports.empty()) {
    // Not a cuTile module; in a cuTile package it still needs the host-only
    // rewrite (registration backend, import paths) to work in the mirror.
    r.is_cutile = false;
    host::HostRewriteOptions ho;
    ho.filename = std::string(filename);
    ho.version = kVersion;
    ho.max_line = opts.max_line;
    std::string code = host::rewrite_plain_module(pr, mi, ho, r.diags);
    r.ok = !has_errors(r.diags);
    if (r.ok) r.code = std::move(code);
    return finish();
  }
  if (mi.kernels.empty() && !has_errors(r.diags))  // (not beside an error saying why a kernel is none)
    r.diags.warning(0, 0, "no @ct.kernel in this module; only the host code is rewritten");
  check_reserved_names(pr.tree.root, mi, r.diags);
  if (has_errors(r.diags)) return finish();
  auto lopts = lower_options(opts);
  lower::ModuleLowering ml(mi, lopts, r.diags);
  ml.set_source(pr.source.get());
  lower::SourceComments comments(pr.tokens, *pr.source, pr.tree.root);
  ml.set_comments(&comments);
  lower::LoweredModule lm = ml.run();
  for (auto& k : lm.reports) {
    r.kernel_params.emplace_back(k.name, std::vector<std::string>{});
    for (auto& p : k.params) r.kernel_params.back().second.push_back(p.name);
  }
  if (has_errors(r.diags) || !lm.ok) return finish();
  host::HostRewriteOptions ho;
  ho.filename = std::string(filename);
  ho.version = kVersion;
  ho.max_line = opts.max_line;
  ho.spliced_names = splice.names;
  ho.spliced_imports = splice.imports;
  std::string code = host::rewrite_module(pr, mi, lm, ho, r.diags);
  if (has_errors(r.diags)) return finish();
  if (!driver::check_runtime_builtins(pr.tree.root, code, r.diags)) return finish();
  r.ok = true;
  r.code = std::move(code);
  return finish();
}

}  // namespace c2t
