// Entry points of stage 1 (syntax): source bytes -> tokens + AST.
//
// parse() accepts the whole Python 3.12 grammar and rejects (with a
// diagnostic) every input that CPython's `ast.parse` rejects. It never
// crashes, never overflows the stack (nesting is bounded, as CPython bounds
// it) and never loops forever, whatever the bytes.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "support/diagnostics.h"
#include "syntax/ast.h"
#include "syntax/source.h"
#include "syntax/token.h"

namespace c2t::syntax {

struct ParseResult {
  std::unique_ptr<Source> source;  // decoded text + line table; nodes' positions refer to it
  std::vector<Token> tokens;       // every token, comments and NL included (lossless)
  Tree tree;                       // tree.root is the Module, or nullptr on error
  Diagnostics diags;               // on error: exactly one error, at CPython's position where feasible
  bool ok() const { return tree.root != nullptr && !diags.has_errors(); }
};

/// Parses `bytes` (the file's raw content; UTF-8, or a PEP 263 coding cookie /
/// BOM) as a Python module. `filename` is used only for messages.
ParseResult parse(std::string_view bytes, std::string_view filename = "<unknown>");

struct DumpOptions {
  int python_minor = 11;           // field set of Python 3.<minor> (11 or 12)
  bool include_attributes = true;  // as ast.dump(include_attributes=True)
};

/// Text identical to `ast.dump(node, include_attributes=...)` of CPython 3.<minor>.
std::string dump(const Node* node, const DumpOptions& opts = {});

}  // namespace c2t::syntax
