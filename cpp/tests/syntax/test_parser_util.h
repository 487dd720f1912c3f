// Helpers shared by the parser tests (test_parser_*.cpp).
#pragma once

#include <string>
#include <string_view>

#include "syntax/parser.h"

namespace c2t::syntax::testing {

/// What CPython's ast.dump(ast.parse(src), include_attributes=...) prints for
/// `src`, or "ERROR line:col: message" (col 0-based) when parsing fails.
inline std::string parse_dump(std::string_view src, int minor = 11, bool attrs = true) {
  ParseResult r = parse(src, "<test>");
  if (!r.ok()) {
    if (r.diags.items.empty()) return "ERROR (no diagnostic)";
    const Diagnostic& d = r.diags.items.front();
    std::string s = "ERROR " + std::to_string(d.line) + ":" + std::to_string(d.col) + ": " + d.message;
    if (r.diags.items.size() != 1) s += " [" + std::to_string(r.diags.items.size()) + " diagnostics]";
    return s;
  }
  DumpOptions o;
  o.python_minor = minor;
  o.include_attributes = attrs;
  return dump(r.tree.root, o);
}

struct Case {
  const char* src;
  const char* expected;
};

}  // namespace c2t::syntax::testing
