#include "lower/source_comments.h"

#include <algorithm>

#include "sema/ast_util.h"

namespace c2t::lower {
namespace {

bool blank(std::string_view line) {
  return std::all_of(line.begin(), line.end(), [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f'; });
}

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
                               const syntax::Node* root)
    : source_(&source) {
  sema::walk(root, [&](const syntax::Node* n) {
    parsed_.insert(n);
    return true;
  });
  for (size_t i = 0; i < tokens.size(); ++i) {
    const syntax::Token& t = tokens[i];
    if (t.kind != syntax::TokenKind::Comment) continue;
    std::string text = comment_text(source.text().substr(t.begin, t.end - t.begin));
    if (text.empty()) continue;
    std::string_view line = source.line(t.line);
    bool alone = blank(line.substr(0, std::min<size_t>((size_t)t.col, line.size())));
    (alone ? full_line_ : trailing_)[t.line] = std::move(text);
  }
}

std::vector<std::pair<int, std::string>> SourceComments::before(const syntax::Node* s) const {
  std::vector<std::pair<int, std::string>> out;
  if (!source_ || !s || s->lineno < 1 || !parsed_.count(s)) return out;
  for (int line = s->lineno - 1; line >= 1; --line) {
    auto it = full_line_.find(line);
    if (it != full_line_.end()) {
      out.emplace_back(line, it->second);
    } else if (!blank(source_->line(line))) {
      // A line of code ends the run; a pragma's own line (left out above) does not.
      std::string_view l = source_->line(line);
      size_t first = l.find_first_not_of(" \t\r\f");
      if (first == std::string_view::npos || l[first] != '#') break;
    }
  }
  std::reverse(out.begin(), out.end());
  auto it = trailing_.find(s->lineno);
  if (it != trailing_.end()) out.emplace_back(s->lineno, it->second);
  return out;
}

}  // namespace c2t::lower
