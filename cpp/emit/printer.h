// Prints the Triton syntax tree (lower/triton_ast.h) as Python source.
//
// Output style: 4-space indentation, minimal parentheses from Python's
// operator precedence, one statement per line; calls longer than
// `max_line` columns are broken one argument per line with a trailing comma
// (the layout black/ruff produce), so generated kernels read like
// hand-written ones and are stable across runs.
#pragma once

#include <string>

#include "lower/triton_ast.h"

namespace c2t::emit {

struct PrintOptions {
  int max_line = 100;
};

/// One expression on one line.
std::string print_expr(const lower::TExprPtr& e);

/// Statements, each line prefixed by `indent` spaces, '\n'-terminated.
std::string print_stmts(const std::vector<lower::TStmt>& body, int indent, const PrintOptions& opts = {});

/// A whole function definition (decorators, signature, docstring, body).
std::string print_function(const lower::TFunction& fn, int indent = 0, const PrintOptions& opts = {});

}  // namespace c2t::emit
