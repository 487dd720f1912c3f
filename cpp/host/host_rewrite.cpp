#include "host/host_rewrite.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "emit/printer.h"
#include "host/edits.h"
#include "host/launcher.h"
#include "host/runtime.h"
#include "lower/op_registry.h"
#include "lower/prelude.h"
#include "sema/ast_util.h"

namespace c2t::host {

using sema::import_level;
using sema::nodes_of;
using syntax::Node;

namespace {

class Rewriter {
 public:
  Rewriter(const syntax::ParseResult& pr, const sema::ModuleInfo& mi, const lower::LoweredModule& lm,
           const HostRewriteOptions& opts, Diagnostics& diags)
      : pr_(pr), src_(*pr.source), text_(pr.source->text()), mi_(mi), lm_(lm), opts_(opts), diags_(diags) {}

  std::string run();
  std::string run_plain();

 private:
  size_t off(int line, int col) const { return src_.offset(line, col); }
  size_t begin_of(const Node* n) const { return off(n->lineno, n->col_offset); }
  size_t end_of(const Node* n) const { return off(n->end_lineno, n->end_col_offset); }
  size_t line_start(int line) const { return off(line, 0); }
  // Start of the line after `line` (or end of text).
  size_t next_line(int line) const { return line >= src_.line_count() ? text_.size() : off(line + 1, 0); }
  // Whole-line span of a top-level statement (decorators included).
  std::pair<size_t, size_t> stmt_lines(const Node* st) const {
    int first = st->lineno;
    for (auto* d : nodes_of(st, "decorator_list")) first = std::min(first, d->lineno);
    return {line_start(first), next_line(st->end_lineno)};
  }
  void error(const Node* at, const std::string& msg) {
    diags_.error(at ? at->lineno : 0, at ? at->col_offset : 0, msg);
  }

  void rewrite_imports();
  void rewrite_constants();
  void rewrite_functions();
  void rewrite_host_code();
  std::string unused_tile_helper(const Node* st) const;
  void rewrite_import_paths();
  void insert_runtime();
  void rewrite_coding_cookie();
  void host_expr(const Node* n);
  bool host_ct_rewrite(const Node* n);
  bool torch_query_rewrite(const Node* n);
  // A stream argument that is torch's current stream: `torch.cuda.current_stream()`, None / 0,
  // or a local name bound once to the former.
  bool is_current_stream_arg(const Node* s) const;
  void host_function(const Node* n);
  void host_generic(const Node* n);
  void rewrite_launch(const Node* call);
  bool is_ct_reference(const Node* n) const;
  std::optional<std::string> host_ct_name(const Node* n) const;
  std::string header() const;
  size_t header_offset() const;  // where the header goes: after a shebang / coding line

  const syntax::ParseResult& pr_;
  const syntax::Source& src_;
  std::string_view text_;
  const sema::ModuleInfo& mi_;
  const lower::LoweredModule& lm_;
  const HostRewriteOptions& opts_;
  Diagnostics& diags_;
  EditList edits_;
  std::set<const Node*> tile_defs_;        // kernels and helpers (not host code)
  std::set<const Node*> deleted_stmts_;    // statements removed entirely
  std::set<const Node*> reported_stmts_;   // statements an error names already (not reported again inside)
  std::set<std::string> reported_names_;   // cuda.tile aliases an error names already (not at each use)
  std::set<std::string> host_names_;       // names loaded by host code
  std::set<const Node*> nested_kernels_;   // kernels defined inside factory functions (replaced in place)
  bool triton_imported_ = false, tl_imported_ = false;
  RuntimeNeeds needs_;                     // host runtime pieces the module uses (runtime.h)
  std::map<std::string, std::string> ct_from_;  // `from cuda.tile.X import n as b`: b -> "X.n"
  std::set<std::string> kernel_names_;
  bool plain_ = false;                     // run_plain: a module without cuda.tile
  // Per enclosing function: local names bound once, to torch.cuda.current_stream()
  // (`stream = torch.cuda.current_stream()`), so launches on them need no stream switch.
  std::vector<std::set<std::string>> current_stream_names_;
  // `stream = torch.cuda.current_stream()` lines whose name only the launches read (which drop it): each
  // becomes a comment, so host code that only launches needs no CUDA (the interpreter on a CPU machine).
  std::set<const Node*> dead_stream_assigns_;
  void note_dead_stream_assigns(const Node* fn, const std::set<std::string>& current,
                                const std::map<std::string, const Node*>& assign_of);
  std::vector<std::set<std::string>> local_names_;  // names each enclosing host function binds (parameters, stores)
  std::vector<const Node*> functions_;               // the enclosing host functions, outermost first
};

}  // namespace

std::optional<std::string> mirror_module_path(std::string_view dotted) {
  std::string out;
  bool changed = false;
  size_t pos = 0;
  while (true) {
    size_t dot = dotted.find('.', pos);
    std::string_view part = dotted.substr(pos, dot == std::string_view::npos ? std::string_view::npos : dot - pos);
    if (part == "cutile") {
      out += "triton";
      changed = true;
    } else {
      out += part;
    }
    if (dot == std::string_view::npos) break;
    out += '.';
    pos = dot + 1;
  }
  if (!changed) return std::nullopt;
  return out;
}

namespace {

// Imports of other converted modules follow the /cutile/ -> /triton/ mirror
// (`from tilegym.ops.cutile.utils import x` -> `tilegym.ops.triton.utils`),
// wherever they are (nested imports included). Relative imports need nothing.
void Rewriter::rewrite_import_paths() {
  // TileGym's `experimental_kernel` decorator (tilegym.experimental) patches
  // ct.launch and imports cuda.tile; the converted kernels drop it, so its
  // import goes too unless host code still uses the name.
  for (auto* st : nodes_of(mi_.module, "body")) {
    if (plain_ || !st->is("ImportFrom") || st->str("module") != "tilegym.experimental") continue;
    bool used = false;
    for (auto* a : nodes_of(st, "names")) {
      std::string as(a->str("asname"));
      used = used || host_names_.count(as.empty() ? std::string(a->str("name")) : as);
    }
    if (used) continue;
    auto [b, e] = stmt_lines(st);
    edits_.add(b, e, "");
    deleted_stmts_.insert(st);
  }
  // Names whose definitions the driver copied in (driver/splice.h) are no longer imported.
  for (auto* st : nodes_of(mi_.module, "body")) {
    if (!st->is("ImportFrom") || !opts_.spliced_imports.count({st->lineno, st->col_offset})) continue;
    int level = import_level(st);
    std::string keep;
    bool dropped = false;
    for (auto* a : nodes_of(st, "names")) {
      std::string n(a->str("name")), as(a->str("asname"));
      if (as.empty() && opts_.spliced_names.count(n)) {
        dropped = true;
        continue;
      }
      keep += (keep.empty() ? "" : ", ") + n + (as.empty() ? "" : " as " + as);
    }
    if (!dropped) continue;
    auto [b, e] = stmt_lines(st);
    std::string mod(st->str("module"));
    if (level == 0) mod = mirror_module_path(mod).value_or(mod);  // what stays imports the converted module
    edits_.add(b, e, keep.empty() ? "" : "from " + std::string(level, '.') + mod + " import " + keep + "\n");
    deleted_stmts_.insert(st);
  }
  sema::walk(mi_.module, [&](const Node* n) {
    if (n->is("ImportFrom")) {
      std::string mod(n->str("module"));
      auto m = mirror_module_path(mod);
      if (!m || deleted_stmts_.count(n)) return false;
      size_t at = text_.find(mod, begin_of(n) + 4);
      if (at != std::string_view::npos && at < end_of(n)) edits_.add(at, at + mod.size(), *m);
      return false;
    }
    if (n->is("Import")) {
      if (deleted_stmts_.count(n)) return false;
      for (auto* a : nodes_of(n, "names")) {
        std::string name(a->str("name"));
        auto m = mirror_module_path(name);
        if (m && text_.substr(begin_of(a), name.size()) == name) edits_.add(begin_of(a), begin_of(a) + name.size(), *m);
      }
      return false;
    }
    return true;
  });
}

// A file name as comment text: control characters as \xNN, since a newline or carriage return in
// the name would end the comment and leave the rest of the name on a line of code, and the
// backslash too (\x5c), so that no other name reads the same
// (cutile2triton/convert.py is_generated compares headers as written, and undoes \xNN to find the file).
std::string comment_safe(std::string_view name) {
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (char c : name) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f || c == '\\') out += std::string("\\x") + hex[u >> 4] + hex[u & 15];
    else out += c;
  }
  return out;
}

std::string Rewriter::header() const {
  return "# Generated by cutile2triton " + opts_.version + " from " + comment_safe(opts_.filename) + ".\n" +
         (plain_ ? "# The Triton package's copy of a module of the cuTile package; edit the source instead.\n"
                 : "# Triton kernels converted from cuTile (cuda.tile); edit the cuTile source instead.\n");
}

bool Rewriter::is_ct_reference(const Node* n) const {
  if (!n->is("Name")) return false;
  std::string id(n->str("id"));
  return mi_.ct_modules.count(id) || mi_.ct_names.count(id) || mi_.ct_submodules.count(id);
}

void Rewriter::rewrite_imports() {
  for (auto* st : mi_.cutile_imports)
    if (st->is("ImportFrom")) {
      std::string mod(st->str("module"));
      if (mod.rfind("cuda.tile.", 0) != 0 || mod == "cuda.tile._datatype" || mod == "cuda.tile._stub" ||
          mod == "cuda.tile._numeric_semantics")
        continue;
      for (auto* a : nodes_of(st, "names")) {
        std::string n(a->str("name")), as(a->str("asname"));
        ct_from_[as.empty() ? n : as] = mod.substr(10) + "." + n;
      }
    }
  for (auto* st : nodes_of(mi_.module, "body")) {
    if (st->is("Import")) {
      for (auto* a : nodes_of(st, "names")) {
        std::string n(a->str("name")), as(a->str("asname"));
        if (n == "triton" && as.empty()) triton_imported_ = true;
        if (n == "triton.language" && as == "tl") tl_imported_ = true;
      }
    }
    if (st->is("ImportFrom") && st->str("module") == "triton")
      for (auto* a : nodes_of(st, "names"))
        if (a->str("name") == "language" && a->str("asname") == "tl") tl_imported_ = true;
  }
  bool inserted = false;
  for (auto* st : mi_.cutile_imports) {
    std::string keep;  // `import cuda.tile as ct, torch` keeps `import torch`
    if (st->is("Import")) {
      for (auto* a : nodes_of(st, "names")) {
        std::string n(a->str("name")), as(a->str("asname"));
        if (sema::is_cutile_package(n)) continue;
        keep += (keep.empty() ? "" : ", ") + n + (as.empty() ? "" : " as " + as);
      }
    }
    std::string repl;
    if (!keep.empty()) repl = "import " + keep + "\n";
    if (!inserted) {
      if (!triton_imported_) repl += "import triton\n";
      if (!tl_imported_) repl += "import triton.language as tl\n";
      inserted = true;
    }
    auto [b, e] = stmt_lines(st);
    // A statement sharing its line with others (`import x; import cuda.tile`) keeps the line.
    bool alone = text_.substr(b, begin_of(st) - b).find_first_not_of(" \t") == std::string_view::npos;
    if (!alone) {
      edits_.add(begin_of(st), end_of(st), repl.empty() ? "pass" : repl.substr(0, repl.size() - 1));
    } else {
      edits_.add(b, e, repl);
    }
    deleted_stmts_.insert(st);
  }
  if (!inserted && (!triton_imported_ || !tl_imported_)) {
    // No cuda.tile import (kernels through an alias module?): add ours at the top.
    std::string repl;
    if (!triton_imported_) repl += "import triton\n";
    if (!tl_imported_) repl += "import triton.language as tl\n";
    auto body = nodes_of(mi_.module, "body");
    size_t at = body.empty() ? text_.size() : line_start(body[0]->lineno);
    edits_.add(at, at, repl);
  }
}

void Rewriter::rewrite_constants() {
  // Module statements defining names from cuda.tile: removed unless host code uses them.
  for (auto& [name, st] : mi_.constant_stmts) {
    bool uses_ct = false;
    sema::walk(st, [&](const Node* n) {
      uses_ct = uses_ct || is_ct_reference(n);
      return !uses_ct;
    });
    if (!uses_ct) continue;
    if (host_names_.count(name)) {
      error(st, "host code uses '" + name + "', which is defined from cuda.tile names; the converted module cannot "
                "import cuda.tile");
      reported_stmts_.insert(st);
      reported_names_.insert(name);
      continue;
    }
    auto [b, e] = stmt_lines(st);
    edits_.add(b, e, "");
    deleted_stmts_.insert(st);
  }
}

// The statements after a kernel's launcher that attach it and its launch marks to the kernel.
static std::string attachment(const lower::LoweredKernel& k) {
  return launcher_attachment(std::string(k.info->def->str("name")), launcher_name(k), k.occupancy, k.pipelined,
                             dot_tile_params(k), k.pipelined && !k.dots);
}

void Rewriter::rewrite_functions() {
  // Which module statement each generated function replaces.
  std::map<const Node*, std::string> replacement;
  std::map<const Node*, std::string> appended;  // host-used helpers keep their def; jit copies follow
  std::set<const Node*> factories;
  for (auto& k : lm_.kernels) {
    if (!k.ok) continue;
    bool clash = false;  // a constant read at launch under a name the launcher itself binds or calls
    auto reserved = launcher_reserved_names(std::string(k.info->def->str("name")));
    std::set<std::string> launchers;  // functions the converted module defines under those names
    for (auto& other : lm_.kernels) launchers.insert(launcher_name(other));
    for (auto& p : k.params)
      if (p.launch_constant && (reserved.count(p.name) || launchers.count(p.name) || p.name.rfind("_c2t", 0) == 0)) {
        error(p.arg_node, "kernel '" + k.info->name + "' reads '" + p.name + "' at launch, but " +
                              (reserved.count(p.name) ? "its launcher " + launcher_name(k) + " uses that name itself"
                                                      : std::string("the converted module defines that name")) +
                              "; rename it");
        clash = true;
      }
    if (clash) continue;
    if (k.info->factory) {
      // A kernel defined inside a factory function (sema: the factory names it
      // reads are constants read at launch): the Triton kernel, its launcher and the attachment
      // replace the nested def where it is, so the factory returns the Triton
      // kernel and ct.launch of it goes through _c2t_launch.
      int col = k.info->def->col_offset;
      std::string pad(col, ' ');
      std::string rest = launcher_source(k) + attachment(k);
      std::string indented;
      size_t pos = 0;
      while (pos < rest.size()) {
        size_t nl = rest.find('\n', pos);
        std::string line = rest.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos + 1);
        indented += (line == "\n" ? "" : pad) + line;
        if (nl == std::string::npos) break;
        pos = nl + 1;
      }
      auto [b, e] = stmt_lines(k.info->def);
      edits_.add(b, e, emit::print_function(k.fn, col, {opts_.max_line}) + "\n" + indented);
      nested_kernels_.insert(k.info->def);
      factories.insert(k.info->factory);
      continue;
    }
    std::string text = emit::print_function(k.fn, 0, {opts_.max_line}) + "\n\n" + launcher_source(k) +
                       attachment(k);
    replacement[k.info->def] += text;
    if (k.info->assign_stmt) {
      // `name = ct.kernel(fn, ...)` -> `name = fn`
      auto* v = k.info->assign_stmt->child("value");
      edits_.add(begin_of(v), end_of(v), std::string(k.info->def->str("name")));
    }
  }
  // Helpers that are no module statement (lambdas lifted to @triton.jit,
  // lower/lambda_lift.h) are emitted with the prelude helpers.
  std::set<const Node*> module_stmts;
  for (auto* st : nodes_of(mi_.module, "body")) module_stmts.insert(st);
  std::string detached;
  for (auto* h : lm_.helpers) {
    std::string text = emit::print_function(h->fn, 0, {opts_.max_line});
    if (!module_stmts.count(h->def)) {
      detached += (detached.empty() ? "" : "\n\n") + text;
      continue;
    }
    std::string name(h->def->str("name"));
    if (h->emitted_name.find("_jit") != std::string::npos && h->emitted_name.rfind(name + "_jit", 0) == 0) {
      // The plain def stays for host code only if it is host code: a def using
      // cuda.tile names cannot run on the host, so the name refers to the
      // @triton.jit copy instead (kernels call the copy either way).
      bool uses_ct = false;
      sema::walk(h->def, [&](const Node* n) {
        uses_ct = uses_ct || is_ct_reference(n);
        return !uses_ct;
      });
      if (uses_ct && !replacement.count(h->def))
        replacement[h->def] = text + "\n\n\n" + name + " = " + h->emitted_name + "\n";
      else if (uses_ct)
        replacement[h->def] += "\n\n" + text;
      else
        appended[h->def] += "\n\n" + text;
    } else {
      replacement[h->def] += (replacement[h->def].empty() ? "" : "\n\n") + text;
    }
  }
  // Prelude helpers go right before the first replaced/extended function.
  const Node* first = nullptr;
  for (auto* st : nodes_of(mi_.module, "body")) {
    if (replacement.count(st) || appended.count(st) || factories.count(st)) {
      first = st;
      break;
    }
  }
  std::string prelude = lower::prelude_source(lm_.prelude);
  if (!detached.empty()) prelude += (prelude.empty() ? "" : "\n\n") + detached;
  for (auto* st : nodes_of(mi_.module, "body")) {
    bool rep = replacement.count(st) > 0, app = appended.count(st) > 0;
    if (!rep && !app && st == first && !prelude.empty()) {  // a factory: host code around a kernel
      edits_.add(stmt_lines(st).first, stmt_lines(st).first, prelude + "\n\n");
      continue;
    }
    if (!rep && !app) continue;
    tile_defs_.insert(st);
    auto [b, e] = stmt_lines(st);
    std::string pre = st == first && !prelude.empty() ? prelude + "\n\n" : "";
    if (rep) {
      std::string body = replacement[st];
      if (app) body += appended[st];
      edits_.add(b, e, pre + body);
    } else {
      if (!pre.empty()) edits_.add(b, b, pre);
      edits_.add(e, e, appended[st].substr(1) + "\n");
    }
  }
  // Kernels that failed to lower are not host code either.
  for (auto& k : lm_.kernels) tile_defs_.insert(k.info->def);
}

// The stream argument of ct.launch: Triton launches on torch's current
// stream, so `torch.cuda.current_stream()` (what TileGym passes) is dropped;
// any other stream expression makes the launch run with that stream current.
static bool is_current_stream(const Node* s) {
  // None / 0: cuTile's null stream, which is torch's default current stream.
  if (s->is("Constant")) {
    auto* v = s->get("value");
    return !v || v->kind == syntax::Value::Kind::Null || (v->kind == syntax::Value::Kind::Int && v->text == "0");
  }
  if (!s->is("Call")) return false;
  auto f = sema::dotted_name(s->child("func"));
  return f && (*f == "current_stream" || (f->size() > 15 && f->substr(f->size() - 15) == ".current_stream"));
}

bool Rewriter::is_current_stream_arg(const Node* s) const {
  if (is_current_stream(s)) return true;
  if (!s->is("Name")) return false;
  // The innermost enclosing function that binds the name decides: a nested function's own parameter or
  // local of that name is another stream, not the outer current one.
  std::string id(s->str("id"));
  for (size_t i = current_stream_names_.size(); i-- > 0;) {
    if (current_stream_names_[i].count(id)) return true;
    if (local_names_[i].count(id)) return false;
  }
  return false;
}

void Rewriter::rewrite_launch(const Node* n) {
  auto args = nodes_of(n, "args");
  if (args.size() != 4 || !nodes_of(n, "keywords").empty()) {
    error(n, "ct.launch(stream, grid, kernel, args) with exactly these four positional arguments is supported");
    return;
  }
  const Node* kern = args[2];
  const lower::LoweredKernel* lk = nullptr;
  if (kern->is("Name"))
    for (auto& k : lm_.kernels)
      if (k.info->name == kern->str("id")) lk = &k;
  // A local of an enclosing function that shadows a module-level kernel's name (`f = ct.kernel(g)`, a
  // parameter `f`) is another kernel object: launched through _c2t_launch (the hostile round of s31: it
  // launched the module-level f). A nested kernel binds its own name locally, which is that kernel.
  if (lk && !lk->info->factory)
    for (size_t i = local_names_.size(); i-- > 0;)
      if (local_names_[i].count(std::string(kern->str("id")))) {
        lk = nullptr;
        break;
      }
  // A nested kernel's launcher is a local of its factory: named directly only inside it. Elsewhere the
  // name is another function's local (`k = make(3)`), launched through the launcher the kernel carries.
  if (lk && lk->info->factory && std::find(functions_.begin(), functions_.end(), lk->info->factory) == functions_.end())
    lk = nullptr;
  bool current = is_current_stream_arg(args[0]);
  for (auto* a : {args[0], args[1], args[2], args[3]})
    if (a != args[0] || !current) host_expr(a);  // nested rewrites (e.g. ct.cdiv in the grid); a dropped stream: none
  std::string grid = edits_.take_range(text_, begin_of(args[1]), end_of(args[1]));
  // A kernel object that is not a literal kernel name of this module (chosen at
  // run time, from a dict, imported, re-hinted) goes through _c2t_launch, which
  // finds the launcher attached to the kernel.
  std::string callee = lk ? launcher_name(*lk) : "_c2t_launch";
  std::string kernel_arg = lk ? "" : ", " + edits_.take_range(text_, begin_of(kern), end_of(kern));
  if (!lk) needs_.launch = true;
  std::string kargs;
  const Node* tup = args[3];
  if (tup->is("Tuple") || tup->is("List")) {
    auto elts = nodes_of(tup, "elts");
    size_t starred = 0;  // `*rest` elements: their length is known at run time (the launcher checks it)
    for (auto* e : elts) {
      kargs += ", " + edits_.take_range(text_, begin_of(e), end_of(e));
      starred += e->is("Starred");
    }
    size_t fixed = elts.size() - starred;
    size_t arity = lk ? std::count_if(lk->params.begin(), lk->params.end(),
                                      [](const sema::ParamKind& p) { return !p.launch_constant; })
                      : 0;  // the source's parameters (constants read at launch are not passed)
    if (lk && (starred ? fixed > arity : fixed != arity))
      error(tup, "ct.launch passes " + std::string(starred ? "at least " : "") + std::to_string(fixed) +
                     " arguments but kernel '" + lk->info->name + "' has " + std::to_string(arity) + " parameters");
  } else {
    kargs = ", *" + edits_.take_range(text_, begin_of(tup), end_of(tup));
  }
  std::string stream = edits_.take_range(text_, begin_of(args[0]), end_of(args[0]));
  edits_.take_range(text_, begin_of(n), end_of(n));  // drop anything else inside
  std::string call = current
                         ? callee + "(" + grid + kernel_arg + kargs + ")"
                         : "_c2t_on_stream(" + stream + ", " + callee + ", " + grid + kernel_arg + kargs + ")";
  if (!current) needs_.on_stream = true;
  edits_.add(begin_of(n), end_of(n), call);
}

std::optional<std::string> Rewriter::host_ct_name(const Node* n) const {
  if (auto q = mi_.cutile_name(n)) return q;
  // `from cuda.tile.tune import exhaustive_search` binds a submodule member.
  if (ct_from_.empty()) return std::nullopt;
  auto d = sema::dotted_name(n);
  if (!d) return std::nullopt;
  std::string head = d->substr(0, d->find('.'));
  auto it = ct_from_.find(head);
  if (it == ct_from_.end()) return std::nullopt;
  return head.size() == d->size() ? it->second : it->second + d->substr(head.size());
}

// cuTile host APIs with a Triton spelling (runtime.h); true when `n` was handled.
bool Rewriter::host_ct_rewrite(const Node* n) {
  if (n->is("Call")) {
    auto q = host_ct_name(n->child("func"));
    if (q && *q == "launch") {
      rewrite_launch(n);
      return true;
    }
    if (q && *q == "tune.exhaustive_search") {
      // The search times on torch's current stream unless given another (runtime
      // _c2t_exhaustive_search): the current stream is passed as None, as ct.launch drops it,
      // so host code run without a GPU (the interpreter) reaches the search's no-device path.
      auto args = nodes_of(n, "args");
      const Node* s = args.size() >= 2 ? args[1] : sema::call_kwarg(n, "stream");
      if (s && is_current_stream_arg(s)) edits_.add(begin_of(s), end_of(s), "None");
      return false;  // the callee's name and the other arguments: the generic walk
    }
    if (q && *q == "cdiv") {
      auto* f = n->child("func");
      edits_.add(begin_of(f), end_of(f), "triton.cdiv");
      for (auto* a : nodes_of(n, "args")) host_expr(a);
      return true;
    }
    return false;
  }
  if (n->is("Name") || n->is("Attribute")) {
    auto q = host_ct_name(n);
    if (!q) return false;
    static const std::map<std::string, std::pair<std::string, bool RuntimeNeeds::*>> names = {
        {"tune.exhaustive_search", {"_c2t_exhaustive_search", &RuntimeNeeds::tune}},
        {"compiler_timeout", {"_c2t_compiler_timeout", &RuntimeNeeds::timeout}},
        {"ByTarget", {"_C2TByTarget", &RuntimeNeeds::by_target}},
        // host `ct.kernel(k._pyfunc, occupancy=...)`: a re-hinted kernel object
        {"kernel", {"_c2t_kernel", &RuntimeNeeds::kernel}},
        // cuTile's private host helpers (cutile-python samples' capability / tileiras gates)
        {"_cext.get_compute_capability", {"_c2t_get_compute_capability", &RuntimeNeeds::private_apis}},
        {"_cext.dev_features_enabled", {"_c2t_dev_features_enabled", &RuntimeNeeds::private_apis}},
        {"_bytecode.version.BytecodeVersion", {"_C2TBytecodeVersion", &RuntimeNeeds::private_apis}},
        {"_bytecode.BytecodeVersion", {"_C2TBytecodeVersion", &RuntimeNeeds::private_apis}},  // re-exported
        {"_compile._get_max_supported_bytecode_version",
         {"_c2t_max_supported_bytecode_version", &RuntimeNeeds::private_apis}},
    };
    auto it = names.find(*q);
    // `BytecodeVersion.V_13_3`, `BytecodeVersion.V_13_3.as_string()`: the shim class carries the members
    // and their methods; the class name is rewritten wherever it starts the chain.
    if (it == names.end() && n->is("Attribute")) {
      for (auto* base = n->child("value"); base; base = base->is("Attribute") ? base->child("value") : nullptr) {
        auto qb = host_ct_name(base);
        if (qb && (*qb == "_bytecode.version.BytecodeVersion" || *qb == "_bytecode.BytecodeVersion"))
          return host_ct_rewrite(base);
      }
    }
    if (it == names.end()) return false;
    edits_.add(begin_of(n), end_of(n), it->second.first);
    needs_.*(it->second.second) = true;
    return true;
  }
  return false;
}

// torch.cuda queries that TileGym's host code makes on every op call, spelled as the runtime's
// cheaper equivalents (runtime.h, _c2t_current_stream): the same values without torch.cuda's
// Python device-index resolution, which on the H200's host is most of their cost.
// `torch.cuda.get_device_properties(d)` -> `_c2t_device_properties(torch, d)`. Only names bound to
// torch by the module's imports (mi_.torch_modules) and not rebound by an enclosing function, and the
// argument forms torch documents; the call's arguments stay and are walked as host code. Returns
// false: the caller walks the call.
bool Rewriter::torch_query_rewrite(const Node* n) {
  if (plain_ || !n->is("Call")) return false;
  auto f = sema::dotted_name(n->child("func"));
  if (!f) return false;
  size_t dot = f->find('.');
  if (dot == std::string::npos || !mi_.torch_modules.count(f->substr(0, dot))) return false;
  for (auto& local : local_names_)  // `torch` rebound in an enclosing function: not the module
    if (local.count(f->substr(0, dot))) return false;
  std::string attr = f->substr(dot + 1);
  auto args = nodes_of(n, "args");
  auto kws = nodes_of(n, "keywords");
  for (auto* a : args)
    if (a->is("Starred")) return false;
  // torch.cuda.current_stream(device=None); get_device_properties / get_device_capability(device=None)
  bool device_kw_only = kws.empty() || (kws.size() == 1 && kws[0]->str("arg") == "device" && args.empty());
  const char* to = nullptr;
  if (attr == "cuda.current_stream" && args.empty() && kws.empty()) to = "_c2t_current_stream";
  else if (attr == "cuda.get_device_properties" && args.size() <= 1 && device_kw_only) to = "_c2t_device_properties";
  else if (attr == "cuda.get_device_capability" && args.size() <= 1 && device_kw_only) to = "_c2t_device_capability";
  if (!to) return false;
  // The module is passed as the call names it (`torch`, `th`): a fake or rebound module, or a test's
  // mock of torch's function, is what the runtime asks then, as the original call would.
  std::string mod = f->substr(0, dot);
  auto* fn = n->child("func");
  const Node* first = !args.empty() ? args[0] : !kws.empty() ? kws[0] : nullptr;
  bool added = first ? edits_.add(begin_of(fn), begin_of(first), std::string(to) + "(" + mod + ", ")
                     : edits_.add(begin_of(n), end_of(n), std::string(to) + "(" + mod + ")");
  if (added) needs_.torch_queries = true;
  return false;
}

// Which of function `fn`'s current-stream names (bound once, by `assign_of`) are read only as the stream of
// ct.launch or tune.exhaustive_search, which drop it: every read counted, nested functions included, any
// other read (an argument, `s.synchronize()`, `del s`) keeps the line. Single-line statements alone on
// their line and not alone in their block only (the comment that replaces them leaves the block valid).
void Rewriter::note_dead_stream_assigns(const Node* fn, const std::set<std::string>& current,
                                        const std::map<std::string, const Node*>& assign_of) {
  if (current.empty()) return;
  std::map<std::string, int> reads, dropped;
  std::set<const Node*> not_alone;
  std::set<std::string> shared;  // `global` / `nonlocal` names: read elsewhere too
  sema::walk(fn, [&](const Node* x) {
    if (x->is("Global") || x->is("Nonlocal"))
      for (auto& nm : x->list("names")) shared.insert(nm.text);
    for (auto* field : {"body", "orelse", "finalbody"}) {
      auto b = nodes_of(x, field);
      if (b.size() > 1) not_alone.insert(b.begin(), b.end());
    }
    if (x->is("Name") && !(x->child("ctx") && x->child("ctx")->is("Store"))) reads[std::string(x->str("id"))]++;
    if (x->is("Call")) {
      auto q = host_ct_name(x->child("func"));
      auto args = nodes_of(x, "args");
      const Node* stream = nullptr;
      if (q && *q == "launch" && args.size() == 4 && nodes_of(x, "keywords").empty()) stream = args[0];
      if (q && *q == "tune.exhaustive_search") stream = args.size() >= 2 ? args[1] : sema::call_kwarg(x, "stream");
      if (stream && stream->is("Name")) dropped[std::string(stream->str("id"))]++;
    }
    return true;
  });
  auto blank = [&](size_t a, size_t b) {
    for (size_t i = a; i < b && i < text_.size(); ++i)
      if (text_[i] == '#') return true;
      else if (text_[i] != ' ' && text_[i] != '\t' && text_[i] != '\r' && text_[i] != '\n') return false;
    return true;
  };
  for (auto& name : current) {
    const Node* st = assign_of.at(name);
    if (reads[name] != dropped[name] || shared.count(name) || !not_alone.count(st) || st->lineno != st->end_lineno)
      continue;
    if (blank(line_start(st->lineno), begin_of(st)) && blank(end_of(st), next_line(st->lineno)))
      dead_stream_assigns_.insert(st);
  }
}

void Rewriter::host_expr(const Node* n) {
  if (!n || nested_kernels_.count(n)) return;
  if (dead_stream_assigns_.count(n)) {
    edits_.add(begin_of(n), begin_of(n), "# ");
    edits_.add(end_of(n), end_of(n), "  # cutile2triton: the launches take torch's current stream");
    return;
  }
  // `ct.launch = wrapper` patches cuda.tile, which the converted module does not import; a rewrite to the
  // runtime's name would rebind a local or the runtime instead.
  if (n->is("Attribute") && n->child("ctx") && !n->child("ctx")->is("Load")) {
    if (auto q = host_ct_name(n)) {
      error(n, "host code assigns to or deletes 'ct." + *q + "' (patching cuda.tile); the converted module does not "
               "import cuda.tile, so there is nothing to patch");
      return;
    }
  }
  if (host_ct_rewrite(n)) return;
  torch_query_rewrite(n);
  if (n->is("Call")) {
    // register_impl("op", backend="cutile") -> backend="triton"
    auto fname = sema::dotted_name(n->child("func"));
    auto ends_with = [&](const std::string& suffix) {
      return fname && (*fname == suffix || (fname->size() > suffix.size() &&
                                            fname->compare(fname->size() - suffix.size() - 1, std::string::npos,
                                                           "." + suffix) == 0));
    };
    if (ends_with("register_impl")) {
      if (auto* b = sema::call_kwarg(n, "backend"); b && sema::is_str_constant(b) && b->get("value")->text == "cutile")
        edits_.add(begin_of(b), end_of(b), "\"triton\"");
    }
    // `if is_backend_available("cutile"):` guards a cuTile package's imports; the mirror is Triton's.
    if (ends_with("is_backend_available")) {
      auto args = nodes_of(n, "args");
      if (args.size() == 1 && sema::is_str_constant(args[0]) && args[0]->get("value")->text == "cutile")
        edits_.add(begin_of(args[0]), end_of(args[0]), "\"triton\"");
    }
  }
  // Annotations naming cuTile types in host code (`kernel: ct.kernel`) carry no
  // behaviour; they go with the cuda.tile import.
  if (n->is("arg")) {
    auto* ann = n->child("annotation");
    if (ann && host_ct_name(ann)) {
      edits_.add(begin_of(n) + n->str("arg").size(), end_of(n), "");
      return;
    }
  }
  if (n->is("FunctionDef") || n->is("AsyncFunctionDef")) {
    std::map<std::string, int> binds;
    std::set<std::string> current;
    std::map<std::string, const Node*> assign_of;
    for (auto* a : nodes_of(n->child("args"), "args")) binds[std::string(a->str("arg"))] += 2;  // parameters: never
    sema::walk(n, [&](const Node* x) {
      if (x != n && (x->is("FunctionDef") || x->is("Lambda"))) return false;
      if (x->is("Name") && x->child("ctx") && x->child("ctx")->is("Store")) binds[std::string(x->str("id"))]++;
      // match captures (`case kernel:`) and handler names bind locals too (s39 hostile round)
      if ((x->is("MatchAs") || x->is("MatchStar") || x->is("ExceptHandler")) && !x->str("name").empty())
        binds[std::string(x->str("name"))] += 2;
      if (x->is("MatchMapping") && !x->str("rest").empty()) binds[std::string(x->str("rest"))] += 2;
      if (x->is("Assign") && nodes_of(x, "targets").size() == 1 && nodes_of(x, "targets")[0]->is("Name") &&
          is_current_stream(x->child("value"))) {
        current.insert(std::string(nodes_of(x, "targets")[0]->str("id")));
        assign_of[std::string(nodes_of(x, "targets")[0]->str("id"))] = x;
      }
      return true;
    });
    for (auto it = current.begin(); it != current.end();) it = binds[*it] == 1 ? std::next(it) : current.erase(it);
    note_dead_stream_assigns(n, current, assign_of);
    std::set<std::string> local;
    for (auto& [name, count] : binds) local.insert(name);
    for (auto* a : sema::param_nodes(n->child("args"))) local.insert(std::string(a->str("arg")));
    current_stream_names_.push_back(current);
    local_names_.push_back(std::move(local));
    functions_.push_back(n);
    host_function(n);
    functions_.pop_back();
    local_names_.pop_back();
    current_stream_names_.pop_back();
    return;
  }
  if (n->is("Lambda")) {  // its parameters shadow module names (`lambda kernel: ct.launch(..., kernel, ...)`)
    std::set<std::string> local;
    for (auto* a : sema::param_nodes(n->child("args"))) local.insert(std::string(a->str("arg")));
    current_stream_names_.push_back({});
    local_names_.push_back(std::move(local));
    host_generic(n);
    local_names_.pop_back();
    current_stream_names_.pop_back();
    return;
  }
  host_generic(n);
}

void Rewriter::host_function(const Node* n) {
  {
    auto* ret = n->child("returns");
    if (ret && host_ct_name(ret)) {
      size_t rb = begin_of(ret);
      size_t arrow = text_.rfind("->", rb);
      size_t from = arrow;
      while (from > 0 && (text_[from - 1] == ' ' || text_[from - 1] == '\t')) --from;
      if (arrow != std::string_view::npos) edits_.add(from, end_of(ret), "");
      for (auto& f : n->fields)
        if (f.first != "returns") {
          if (f.second.kind == syntax::Value::Kind::Node) host_expr(f.second.node);
          else if (f.second.kind == syntax::Value::Kind::List)
            for (auto& it : f.second.items)
              if (it.kind == syntax::Value::Kind::Node) host_expr(it.node);
        }
      return;
    }
  }
  host_generic(n);
}

void Rewriter::host_generic(const Node* n) {
  // kernel.replace_hints(...) / kernel._pyfunc: cuTile kernel-object API; any
  // object is wrapped, since kernels travel through variables and parameters.
  if (n->is("Attribute") && (n->str("attr") == "replace_hints" || n->str("attr") == "_pyfunc") &&
      !host_ct_name(n->child("value"))) {
    auto* v = n->child("value");
    host_expr(v);
    std::string inner = edits_.take_range(text_, begin_of(v), end_of(v));
    edits_.add(begin_of(v), end_of(v), "_c2t_kernel(" + inner + ")");
    needs_.kernel = true;
    return;
  }
  if (n->is("Name") && reported_names_.count(std::string(n->str("id")))) return;
  if (is_ct_reference(n) || (n->is("Name") && ct_from_.count(std::string(n->str("id"))))) {
    std::string shown = sema::dotted_name(n).value_or("cuda.tile");
    error(n, "host code uses the cuda.tile name '" + shown + "', which has no Triton equivalent here (supported: "
             "launch, cdiv, kernel, replace_hints, tune.exhaustive_search, compiler_timeout, ByTarget)");
    return;
  }
  if (n->is("Attribute")) {
    // Report `ct.DType` once, at its full dotted name.
    if (auto q = host_ct_name(n)) {
      error(n, "host code uses 'ct." + *q + "', which has no Triton equivalent here (supported: launch, cdiv, "
               "kernel, replace_hints, tune.exhaustive_search, compiler_timeout, ByTarget)");
      return;
    }
  }
  for (auto& f : n->fields) {
    if (f.second.kind == syntax::Value::Kind::Node) host_expr(f.second.node);
    else if (f.second.kind == syntax::Value::Kind::List)
      for (auto& it : f.second.items)
        if (it.kind == syntax::Value::Kind::Node) host_expr(it.node);
  }
}

void Rewriter::rewrite_host_code() {
  for (auto& k : lm_.kernels) kernel_names_.insert(k.info->name);
  for (auto* st : nodes_of(mi_.module, "body")) {
    if (tile_defs_.count(st) || deleted_stmts_.count(st) || reported_stmts_.count(st)) continue;
    bool is_kernel_assign = false;
    for (auto& k : lm_.kernels) is_kernel_assign = is_kernel_assign || k.info->assign_stmt == st;
    if (is_kernel_assign) continue;
    if (st->is("Assign") && !nodes_of(st, "targets").empty()) {
      // `ct.pack_to_bytes = pack_to_bytes` (TileGym nvfp4_quantize.py): setting
      // attributes of the cuda.tile module configures cuTile only; the
      // converted module has no cuda.tile, so the statement goes.
      bool all_ct = true;
      for (auto* t : nodes_of(st, "targets"))
        all_ct = all_ct && t->is("Attribute") && is_ct_reference(t->child("value"));
      if (all_ct) {
        bool plain_value = true;  // a name or cuTile attribute: nothing runs
        sema::walk(st->child("value"), [&](const Node* n) {
          plain_value = plain_value && (n->is("Name") || n->is("Attribute") || n->is("Load"));
          return plain_value;
        });
        if (plain_value) {
          auto [b, e] = stmt_lines(st);
          edits_.add(b, e, "");
          continue;
        }
      }
    }
    if (st->is("FunctionDef")) {
      // A function using tile operations that no kernel of this module calls
      // (a helper for kernels in other files) cannot stay as host code.
      std::string tile_op = unused_tile_helper(st);
      if (!tile_op.empty()) {
        // A tile helper for kernels of other modules: without a call site there
        // are no argument types to lower it with, and as host code it cannot run.
        // It is left out here (a comment says so, and a warning); a sibling module
        // importing it by name gets its own copy, lowered at its call sites
        // (driver/splice.cpp).
        std::string name(st->str("name"));
        if (host_names_.count(name)) {
          // Left out, the host code's reference would be a NameError at run time.
          diags_.error(st->lineno, st->col_offset,
                       "function '" + name + "' is cuTile tile code (" + tile_op +
                           ") that host code of this module refers to, but no kernel calls it and it is not "
                           "launched as ct.kernel(" + name + "); decorate it with @ct.kernel if it is a kernel");
          continue;
        }
        diags_.warning(st->lineno, st->col_offset,
                       "function '" + name + "' is cuTile tile code (" + tile_op +
                           ") but no kernel in this module calls it; it is left out of this module's Triton "
                           "output (a converted sibling module that imports it gets its own copy)");
        auto [b, e] = stmt_lines(st);
        edits_.add(b, e,
                   "# cutile2triton: `" + name + "` (a cuTile tile helper that no kernel of this module calls) is "
                   "not converted here;\n# converted sibling modules that import it get their own copy.\n");
        continue;
      }
    }
    host_expr(st);
  }
  insert_runtime();
}

// A module without cuda.tile in a cuTile package (`__init__.py`, host
// utilities, pure-torch ops): only registration, backend checks and import
// paths change; an untouched module stays byte-identical (no header).
// The output is UTF-8 text (the source decoded), so a PEP 263 cookie naming
// another encoding would make Python decode it wrongly: it says utf-8 instead.
void Rewriter::rewrite_coding_cookie() {
  for (int line = 1; line <= std::min(2, src_.line_count()); ++line) {
    std::string_view l = src_.line(line);
    size_t hash = l.find('#');
    if (hash == std::string_view::npos || l.substr(0, hash).find_first_not_of(" \t\f") != std::string_view::npos) {
      if (l.find_first_not_of(" \t\f\r\n") != std::string_view::npos) return;  // code: no cookie further down
      continue;
    }
    // PEP 263: the first "coding" followed by ':' or '=' ("#coding coding:x" names x).
    size_t c = l.find("coding", hash);
    while (c != std::string_view::npos && !(c + 6 < l.size() && (l[c + 6] == ':' || l[c + 6] == '=')))
      c = l.find("coding", c + 1);
    if (c == std::string_view::npos) continue;
    size_t b = c + 7;
    while (b < l.size() && (l[b] == ' ' || l[b] == '\t')) ++b;
    size_t e = b;
    while (e < l.size() && (isalnum(static_cast<unsigned char>(l[e])) || l[e] == '-' || l[e] == '_' || l[e] == '.')) ++e;
    std::string enc(l.substr(b, e - b));
    for (auto& ch : enc) ch = static_cast<char>(tolower(static_cast<unsigned char>(ch)));
    if (enc == "utf-8" || enc == "utf8" || enc == "utf_8" || enc.rfind("utf-8-", 0) == 0 || enc.rfind("utf_8_", 0) == 0)
      return;
    size_t at = line_start(line);
    edits_.add(at + b, at + e, "utf-8");
    return;
  }
}

std::string Rewriter::run_plain() {
  plain_ = true;
  rewrite_coding_cookie();
  rewrite_import_paths();
  for (auto* st : nodes_of(mi_.module, "body")) host_expr(st);
  // The header even without other edits: the mirror is generated too (converting again replaces it).
  edits_.add(header_offset(), header_offset(), header());
  return edits_.apply(text_);
}

size_t Rewriter::header_offset() const {
  // After a shebang / coding line, which must stay first.
  size_t at = 0;
  for (int line = 1; line <= std::min(2, src_.line_count()); ++line) {
    auto l = src_.line(line);
    if ((line == 1 && l.rfind("#!", 0) == 0) || (l.rfind("#", 0) == 0 && l.find("coding") != std::string_view::npos))
      at = next_line(line);
    else
      break;
  }
  return at;
}

// The converted text with exactly two blank lines after the runtime block's end marker (PEP 8):
// statements the rewrite removed there (`ConstInt = ct.Constant[int]`) leave their own blank lines.
std::string two_blank_lines_after_runtime(std::string out) {
  size_t at = out.find(kRuntimeEndMarker);
  if (at == std::string::npos) return out;
  size_t from = at + std::char_traits<char>::length(kRuntimeEndMarker), to = from;
  while (to < out.size() && out[to] == '\n') ++to;
  if (to < out.size()) out.replace(from, to - from, "\n\n");
  return out;
}

// The runtime block (runtime.h) goes after the module's leading imports, so
// that module-level host code (`k2 = k.replace_hints(...)`) can use it.
void Rewriter::insert_runtime() {
  needs_.run_kernel = !lm_.kernels.empty();  // launchers call _c2t_run_kernel
  needs_.array_lists = std::any_of(lm_.kernels.begin(), lm_.kernels.end(), [](const lower::LoweredKernel& k) {
    return k.ok && std::any_of(k.params.begin(), k.params.end(),
                               [](const sema::ParamKind& p) { return p.kind == sema::ParamKind::Kind::ArrayList; });
  });
  needs_.k_major = std::any_of(lm_.kernels.begin(), lm_.kernels.end(),
                               [](const lower::LoweredKernel& k) { return k.ok && !k.k_major.empty(); });
  needs_.launch_constants = std::any_of(lm_.kernels.begin(), lm_.kernels.end(), [](const lower::LoweredKernel& k) {
    return k.ok && std::any_of(k.params.begin(), k.params.end(), [](const sema::ParamKind& p) { return p.launch_constant; });
  });
  std::string rt = runtime_source(needs_);
  if (rt.empty()) return;
  const Node* last_import = nullptr;
  for (auto* st : nodes_of(mi_.module, "body")) {
    if (st->is("Import") || st->is("ImportFrom")) last_import = st;
    else if (!(st->is("Expr") && sema::is_str_constant(st->child("value")))) break;
  }
  size_t at = last_import ? next_line(last_import->end_lineno) : header_offset();  // (after a shebang)
  edits_.add(at, at, "\n\n" + rt + "\n\n");  // blank lines after it: two (converted_text)
}

// What marks module function `st` as cuTile tile code, or "": a call of a
// tile operation (ct.cdiv is host API too), the @ct.function decorator, or a
// ct.Constant parameter annotation.
std::string Rewriter::unused_tile_helper(const Node* st) const {
  if (!st->is("FunctionDef")) return "";
  std::string why;
  sema::walk(st, [&](const Node* n) {
    if (!why.empty() || nested_kernels_.count(n)) return false;
    if (n->is("Call")) {
      auto q = mi_.cutile_name(n->child("func"));
      if (q && lower::registry().find(*q) && *q != "cdiv") why = "ct." + *q;
    }
    return true;
  });
  for (auto* d : nodes_of(st, "decorator_list")) {
    auto q = mi_.cutile_name(d->is("Call") ? d->child("func") : d);
    if (why.empty() && q && *q == "function") why = "@ct.function";
  }
  auto* args = st->child("args");
  for (auto* field : {"posonlyargs", "args", "kwonlyargs"})
    for (auto* a : nodes_of(args, field)) {
      auto* ann = a->child("annotation");
      auto c = ann ? mi_.fold(ann) : std::nullopt;
      if (why.empty() && c && c->kind == sema::ConstValue::Kind::ConstantAnnotation)
        why = "ct.Constant parameter '" + std::string(a->str("arg")) + "'";
    }
  return why;
}

std::string Rewriter::run() {
  // cuda.tile imported inside a function or block: the converted module would import cuda.tile when it
  // runs (the hostile round of s31: `def info(): from cuda.tile._bytecode.version import ...` was kept).
  for (auto* st : nodes_of(mi_.module, "body"))
    sema::walk(st, [&](const Node* n) {
      if (n == st && (st->is("Import") || st->is("ImportFrom"))) return false;  // module level: handled
      std::string ct;  // the cuTile package imported (sema::is_cutile_package; not other cuda.* ones, e.g. cuda.bindings)
      if (n->is("ImportFrom") && import_level(n) == 0) {
        std::string m(n->str("module"));
        if (sema::is_cutile_package(m)) ct = m;
        if (m == "cuda")
          for (auto* a : nodes_of(n, "names"))
            if (ct.empty() && sema::is_cutile_package("cuda." + std::string(a->str("name"))))
              ct = "cuda." + std::string(a->str("name"));
      } else if (n->is("Import")) {
        for (auto* a : nodes_of(n, "names"))
          if (ct.empty() && sema::is_cutile_package(a->str("name"))) ct = a->str("name");
      }
      if (!ct.empty())
        error(n, ct + " imported inside a function or block: the converted module cannot import it; import "
                      "it at module level, where cutile2triton replaces what the host code uses");
      return true;
    });
  // Names host code loads (to keep module constants it uses).
  for (auto* st : nodes_of(mi_.module, "body")) {
    bool is_tile = !unused_tile_helper(st).empty();
    for (auto& k : lm_.kernels) is_tile = is_tile || k.info->def == st;
    for (auto* h : lm_.helpers) is_tile = is_tile || (h->def == st && h->emitted_name.find("_jit") == std::string::npos);
    if (is_tile) continue;
    if (mi_.constant_stmts.count(st->is("Assign") && !nodes_of(st, "targets").empty()
                                     ? std::string(sema::name_id(nodes_of(st, "targets")[0]))
                                     : std::string()))
      continue;
    sema::walk(st, [&](const Node* n) {
      for (auto& k : lm_.kernels)
        if (k.info->def == n) return false;  // a kernel inside a factory function
      if (n->is("Name") && n->child("ctx") && n->child("ctx")->is("Load")) host_names_.insert(std::string(n->str("id")));
      return true;
    });
  }
  // The header first: insertions at one offset keep the order they were added in, and the header
  // must lead what other edits insert there (imports, the runtime of a module not starting with
  // imports), as convert.py's is_generated looks for it among the first lines.
  edits_.add(header_offset(), header_offset(), header());
  rewrite_coding_cookie();
  rewrite_imports();
  rewrite_import_paths();
  rewrite_functions();
  rewrite_constants();
  rewrite_host_code();
  return two_blank_lines_after_runtime(edits_.apply(text_));
}

}  // namespace

std::string rewrite_plain_module(const syntax::ParseResult& pr, const sema::ModuleInfo& mi,
                                 const HostRewriteOptions& opts, Diagnostics& diags) {
  lower::LoweredModule none;
  Rewriter r(pr, mi, none, opts, diags);
  return r.run_plain();
}

std::string rewrite_module(const syntax::ParseResult& pr, const sema::ModuleInfo& mi, const lower::LoweredModule& lm,
                           const HostRewriteOptions& opts, Diagnostics& diags) {
  Rewriter r(pr, mi, lm, opts, diags);
  return r.run();
}

}  // namespace c2t::host
