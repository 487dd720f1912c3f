#include "lower/source_comments.h"

#include <algorithm>

#include "sema/ast_util.h"

namespace c2t::lower {
namespace {

// A comment's text without its `#` and one space; "" for a tool pragma (left out).
std::string comment_text(std::string_view tok) {
  tok.remove_prefix(1);
  if (!tok.empty() && tok.front() == ' ') tok.remove_prefix(1);
  while (!tok.empty() && (tok.back() == ' ' || tok.back() == '\t' || tok.back() == '\r')) tok.remove_suffix(1);
  for (std::string_view pragma : {"type:", "noqa", "pragma:", "fmt:", "pylint:", "isort:"})
    if (tok.substr(0, pragma.size()) == pragma) return "";
  return std::string(tok);
}

}  // namespace

SourceComments::SourceComments(const std::vector<syntax::Token>& tokens, const syntax::Source& source,
                               const syntax::Node* root) {
  sema::walk(root, [&](const syntax::Node* n) {
    parsed_.insert(n);
    return true;
  });
  using K = syntax::TokenKind;
  code_lines_.assign(source.line_count() + 2, false);
  for (auto& t : tokens)  // a line holding any code token (a multi-line string: every line it spans)
    if (t.kind != K::Comment && t.kind != K::NL && t.kind != K::Newline && t.kind != K::Indent &&
        t.kind != K::Dedent && t.kind != K::EndMarker)
      for (int l = t.line; l <= t.end_line && l < (int)code_lines_.size(); ++l) code_lines_[l] = true;
  for (auto& t : tokens) {
    if (t.kind != K::Comment) continue;
    std::string text = comment_text(source.text().substr(t.begin, t.end - t.begin));
    if (!text.empty()) (code_lines_[t.line] ? trailing_ : full_line_)[t.line] = std::move(text);
  }
}

std::vector<std::pair<int, std::string>> SourceComments::before(const syntax::Node* s) const {
  std::vector<std::pair<int, std::string>> out;
  if (!s || s->lineno < 1 || s->lineno >= (int)code_lines_.size() || !parsed_.count(s)) return out;
  // Upwards to the first line of code; blank lines and pragmas (left out) do not end the run.
  for (int line = s->lineno - 1; line >= 1 && !code_lines_[line]; --line) {
    auto it = full_line_.find(line);
    if (it != full_line_.end()) out.emplace_back(line, it->second);
  }
  std::reverse(out.begin(), out.end());
  auto it = trailing_.find(s->lineno);
  if (it != trailing_.end()) out.emplace_back(s->lineno, it->second);
  return out;
}

}  // namespace c2t::lower
