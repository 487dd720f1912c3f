// The author's comments, carried into the lowered kernels: converted Triton is code its users go on
// maintaining, and a kernel's comments say why (a tile size, a mask, an accumulation order).
//
// From the lossless token stream (syntax/parser.h): full-line comments and comments trailing a line
// of code, by line. Lowerer::lower_block emits, before each statement it lowers, the run of
// full-line comments directly above the statement (blank lines allowed; a line of code ends the run,
// so comments inside a multi-line `def` header or call never attach to the next statement) and the
// comment trailing the statement's first line, for statements of the parsed module only (not the
// bodies the converter synthesizes for lambdas and combine functions, whose nodes borrow a source
// position: they would repeat the comments of the statement they came from). Tool pragmas
// (`type:`, `noqa`, `pragma:`, `fmt:`, `pylint:`, `isort:`) are left out: they speak about the
// source line, not the Triton one.
#pragma once

#include <map>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "syntax/ast.h"
#include "syntax/source.h"
#include "syntax/token.h"

namespace c2t::lower {

class SourceComments {
 public:
  SourceComments() = default;
  /// `tokens` of `source`, parsed into the tree under `root` (all three outlive this object).
  SourceComments(const std::vector<syntax::Token>& tokens, const syntax::Source& source, const syntax::Node* root);

  /// (line, text without the `#` and one space) of the comments that belong before statement `s`,
  /// top to bottom; empty for a default-constructed object, or for a node not in the parsed tree.
  std::vector<std::pair<int, std::string>> before(const syntax::Node* s) const;

 private:
  std::vector<bool> code_lines_;  // by 1-based line: a token other than a comment on it
  std::map<int, std::string> full_line_, trailing_;
  std::unordered_set<const syntax::Node*> parsed_;  // the tree's nodes
};

}  // namespace c2t::lower
