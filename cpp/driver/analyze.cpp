// analyze_source: the structured pre-flight report (JSON).
#include <algorithm>
#include <cctype>

#include "driver/convert.h"
#include "driver/json_writer.h"
#include "host/host_rewrite.h"
#include "lower/module_lowering.h"
#include "sema/ast_util.h"
#include "sema/module_scope.h"
#include "syntax/parser.h"

namespace c2t {

namespace {

// 1-based column in code points (as rendered diagnostics count).
int char_col(std::string_view line, int byte_col) {
  int n = 0;
  for (int i = 0; i < byte_col && i < (int)line.size(); ++i)
    if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) ++n;
  return n + 1;
}

}  // namespace

std::string analyze_source(std::string_view bytes, std::string_view filename, const ConvertOptions& opts) {
  Diagnostics diags;
  syntax::ParseResult pr = syntax::parse(bytes, filename);
  JsonWriter j;
  j.begin_object();
  j.key("file").value(std::string(filename));
  bool is_cutile = false;
  std::vector<lower::KernelReport> reports;
  // Host-side patterns (workflow phase c2t-1): launches, autotuning, registration.
  int launches = 0;
  std::vector<std::string> autotune, registered;
  std::string text = pr.source ? std::string(pr.source->text()) : std::string(bytes);
  syntax::Source src(text);
  if (!pr.ok()) {
    diags = std::move(pr.diags);
  } else if (check_nesting(pr.tree.root, diags)) {
    sema::ModuleInfo mi = sema::analyze_module(pr.tree.root, diags);
    is_cutile = !(mi.ct_modules.empty() && mi.ct_names.empty() && mi.cutile_imports.empty());
    if (is_cutile) {
      lower::LowerOptions lo;
      lo.array_ranks = opts.array_ranks;
      lo.int64_indexing = opts.int64_indexing;
      lower::ModuleLowering ml(mi, lo, diags);
      ml.set_source(pr.source.get());
      lower::LoweredModule lm = ml.run();
      // Host-code problems (autotuning, cross-module helpers, ...) are
      // reported too; the rewritten text itself is not needed here.
      if (lm.ok && !diags.has_errors()) {
        host::HostRewriteOptions ho;
        ho.filename = std::string(filename);
        ho.version = kVersion;
        host::rewrite_module(pr, mi, lm, ho, diags);
      }
      reports = std::move(lm.reports);
      auto add_once = [](std::vector<std::string>& v, const std::string& s) {
        if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
      };
      sema::walk(pr.tree.root, [&](const syntax::Node* n) {
        if (n->is("Call")) {
          auto q = mi.cutile_name(n->child("func"));
          if (q && *q == "launch") ++launches;
          if (q && (*q == "tune.exhaustive_search" || *q == "compiler_timeout")) add_once(autotune, *q);
          auto d = sema::dotted_name(n->child("func"));
          if (d && (*d == "register_impl" || (d->size() > 14 && d->substr(d->size() - 14) == ".register_impl")))
            if (auto* a = sema::call_arg(n, 0); a && sema::is_str_constant(a)) add_once(registered, a->get("value")->text);
        }
        if (n->is("Name") && mi.ct_submodules.count(std::string(n->str("id"))))
          add_once(autotune, std::string(n->str("id")));
        if (n->is("Attribute") && (n->str("attr") == "replace_hints" || n->str("attr") == "_pyfunc"))
          add_once(autotune, std::string(n->str("attr")));
        return true;
      });
    }
  }
  j.key("is_cutile").value(is_cutile);
  j.key("ok").value(is_cutile && !diags.has_errors());
  j.key("kernels").begin_array();
  for (auto& k : reports) {
    j.begin_object();
    j.key("name").value(k.name);
    j.key("line").value(k.line);
    j.key("params").begin_array();
    for (auto& p : k.params) {
      j.begin_object();
      j.key("name").value(p.name);
      j.key("kind").value(p.kind);
      if (p.kind == "array") j.key("rank").value(p.rank);
      j.end_object();
    }
    j.end_array();
    int l1 = 0, ln = 0, s1 = 0, sn = 0, g = 0, sc = 0, at = 0, tma = 0;
    for (auto& a : k.accesses) {
      bool nd = a.array_rank >= 2;
      if (a.op == "load") (nd ? ln : l1)++;
      else if (a.op == "store") (nd ? sn : s1)++;
      else if (a.op == "gather") g++;
      else if (a.op == "scatter") sc++;
      else at++;
      if (a.tma_candidate) tma++;
    }
    j.key("loads_1d").value(l1);
    j.key("loads_nd").value(ln);
    j.key("stores_1d").value(s1);
    j.key("stores_nd").value(sn);
    j.key("gathers").value(g);
    j.key("scatters").value(sc);
    j.key("atomics").value(at);
    j.key("tma_candidates").value(tma);
    j.key("accesses").begin_array();
    for (auto& a : k.accesses) {
      j.begin_object();
      j.key("op").value(a.op);
      j.key("array").value(a.array);
      j.key("array_rank").value(a.array_rank);
      j.key("tile_rank").value(a.tile_rank);
      j.key("line").value(a.line);
      j.key("col").value(char_col(src.line(a.line), a.col));
      j.key("strategy").value(a.strategy);
      j.key("tma_candidate").value(a.tma_candidate);
      j.key("tma_note").value(a.tma_note);
      if (!a.padding.empty()) j.key("padding").value(a.padding);
      if (!a.order.empty()) j.key("order").value(a.order);
      j.end_object();
    }
    j.end_array();
    // Constexpr parameters that select a layout (TRANSPOSE_A, ...): the
    // workflow converts these into separate kernels when one mode is slow.
    j.key("layout_flags").begin_array();
    for (auto& p : k.params) {
      std::string up;
      for (char ch : p.name) up += (char)std::toupper((unsigned char)ch);
      if (p.kind == "constexpr" && (up.find("TRANS") != std::string::npos || up.find("LAYOUT") != std::string::npos))
        j.value(p.name);
    }
    j.end_array();
    j.key("helpers").begin_array();
    for (auto& h : k.helpers) j.value(h);
    j.end_array();
    j.key("ops").begin_array();
    for (auto& o : k.ops) j.value(o);
    j.end_array();
    j.key("unsupported").begin_array();
    for (auto& u : k.unsupported) {
      j.begin_object();
      j.key("what").value(u.what);
      j.key("message").value(u.message);
      j.key("line").value(u.line);
      j.key("col").value(char_col(src.line(u.line), u.col));
      j.end_object();
    }
    j.end_array();
    j.key("notes").begin_array();
    for (auto& n : k.notes) j.value(n);
    j.end_array();
    j.end_object();
  }
  j.end_array();
  j.key("host").begin_object();
  j.key("launch_sites").value(launches);
  j.key("autotune").begin_array();
  for (auto& a : autotune) j.value(a);
  j.end_array();
  j.key("register_impl").begin_array();
  for (auto& r : registered) j.value(r);
  j.end_array();
  j.end_object();
  j.key("diagnostics").begin_array();
  for (auto& d : diags.items) {
    j.begin_object();
    j.key("severity").value(d.severity == Severity::Error ? "error" : d.severity == Severity::Warning ? "warning" : "note");
    j.key("line").value(d.line);
    j.key("col").value(d.line > 0 ? char_col(src.line(d.line), d.col) : 0);
    j.key("message").value(d.message);
    j.end_object();
  }
  j.end_array();
  // The same diagnostics in compiler form (source line and caret), as convert prints them.
  j.key("rendered").value(diags.render_all(filename, text));
  j.end_object();
  return j.str();
}

}  // namespace c2t
