// Test fixture shared by the lower-stage tests: parse -> sema -> lowering of
// a source text, with the lowered statements as text to search.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "lower/module_lowering.h"
#include "lower/triton_ast.h"
#include "sema/module_scope.h"
#include "syntax/parser.h"

namespace c2t::lower::testing {

struct Lowered {
  syntax::ParseResult pr;
  Diagnostics diags;
  sema::ModuleInfo mi;
  LowerOptions opts;
  std::unique_ptr<ModuleLowering> ml;
  LoweredModule lm;
  std::string all_source;  // every expression of every statement of kernels and helpers, one per line
  std::string text;        // the same, each function's parameters first ("param NAME[: annotation]")
};

inline void collect(const std::vector<TStmt>& body, std::string& out) {
  for (auto& s : body) {
    if (s.target) out += source(s.target) + " = ";
    if (s.value) out += source(s.value);
    out += "\n";
    collect(s.body, out);
    collect(s.orelse, out);
  }
}

/// Lowers `src` (as file "t.py") with default options; parse errors fail the test.
inline std::unique_ptr<Lowered> lower_src(const std::string& src) {
  auto l = std::make_unique<Lowered>();
  l->pr = syntax::parse(src, "t.py");
  EXPECT_TRUE(l->pr.ok()) << l->pr.diags.render_all("t.py", src);
  if (!l->pr.ok()) return l;
  l->mi = sema::analyze_module(l->pr.tree.root, l->diags);
  l->ml = std::make_unique<ModuleLowering>(l->mi, l->opts, l->diags);
  l->lm = l->ml->run();
  auto add = [&](const TFunction& fn) {
    for (auto& p : fn.params) l->text += "param " + p.name + (p.annotation.empty() ? "" : ": " + p.annotation) + "\n";
    std::string body;
    collect(fn.body, body);
    l->text += body;
    l->all_source += body;
  };
  for (auto& k : l->lm.kernels) add(k.fn);
  for (auto* h : l->lm.helpers) add(h->fn);
  return l;
}

}  // namespace c2t::lower::testing
