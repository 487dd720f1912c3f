// Lossless printing of a parsed file (the identity transformation).
//
// Later stages edit only the byte spans they change (see rewriter.h); this
// printer is the proof that an unchanged tree reproduces its input: it
// rebuilds the text from the token stream and the gaps between tokens, and
// checks on the way that tokens and AST node spans are consistent (ordered,
// non-overlapping, nested in their parents), because a wrong span would make a
// later span edit corrupt the file.
#pragma once

#include <string>

#include "syntax/parser.h"

namespace c2t::syntax {

/// The text of `r` rebuilt from its tokens and inter-token gaps, with the
/// line endings of `raw` (the bytes that were parsed: the tokenizer sees
/// \r\n and \r translated to \n, as CPython's does, and they are put back
/// here). Precondition: r.ok(). Span inconsistencies are appended to
/// `problems` (one line each); the result equals the decoded input iff the
/// token stream is lossless.
std::string print_tree(const ParseResult& r, std::string_view raw, std::string* problems = nullptr);

}  // namespace c2t::syntax
