#include "syntax/roundtrip.h"

#include <string_view>
#include <vector>

namespace c2t::syntax {

namespace {

struct SpanChecker {
  const Source& src;
  std::string* problems;

  void report(const Node* n, const char* what) {
    if (!problems) return;
    *problems += std::string(n->type) + " at " + std::to_string(n->lineno) + ":" +
                 std::to_string(n->col_offset) + ": " + what + "\n";
  }
  size_t begin(const Node* n) const { return src.offset(n->lineno, n->col_offset); }
  size_t end(const Node* n) const { return src.offset(n->end_lineno, n->end_col_offset); }

  // Checks `n` and its descendants; `lo`/`hi` bound the enclosing positioned node.
  void visit(const Node* n, size_t lo, size_t hi, bool in_fstring = false) {
    // Python 3.11 gives the literal pieces and format specs of an f-string
    // synthetic positions (CPython's own quirk, which the dump reproduces);
    // only the expressions inside replacement fields have real spans.
    bool synthetic = in_fstring && (n->is("Constant") || n->is("JoinedStr") || n->is("FormattedValue"));
    in_fstring = in_fstring || n->is("JoinedStr");
    if (n->has_pos && !synthetic) {
      if (begin(n) > end(n)) report(n, "span ends before it begins");
      if (begin(n) < lo || end(n) > hi) report(n, "span outside its parent");
      lo = begin(n);
      hi = end(n);
    }
    // In 3.11 ASTs the pieces of an f-string carry the whole f-string's span,
    // so siblings overlap there by design.
    bool ordered = !n->is("JoinedStr");
    for (auto& [name, v] : n->fields) {
      // Decorators precede the `def`/`class` keyword where the node's span starts.
      bool outside = name == "decorator_list";
      visit_value(v, outside ? 0 : lo, outside ? src.text().size() : hi, ordered, in_fstring);
    }
  }
  void visit_value(const Value& v, size_t lo, size_t hi, bool ordered, bool in_fstring) {
    if (v.kind == Value::Kind::Node) {
      visit(v.node, lo, hi, in_fstring);
    } else if (v.kind == Value::Kind::List) {
      size_t prev_end = lo;
      for (auto& item : v.items) {
        if (item.kind != Value::Kind::Node) continue;
        const Node* c = item.node;
        if (ordered && c->has_pos && begin(c) < prev_end) report(c, "overlaps its previous sibling");
        visit(c, lo, hi, in_fstring);
        if (c->has_pos) prev_end = end(c);
      }
    }
  }
};

// Re-applies the original line endings (in order of appearance in `raw`) to
// `text`, whose line endings are all '\n'.
std::string restore_line_endings(const std::string& text, std::string_view raw, std::string* problems) {
  if (raw.find('\r') == std::string_view::npos) return text;
  std::vector<std::string_view> endings;
  for (size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\r') {
      bool crlf = i + 1 < raw.size() && raw[i + 1] == '\n';
      endings.push_back(crlf ? "\r\n" : "\r");
      i += crlf;
    } else if (raw[i] == '\n') {
      endings.push_back("\n");
    }
  }
  std::string out;
  out.reserve(text.size() + endings.size());
  size_t k = 0;
  for (char c : text) {
    if (c != '\n') { out += c; continue; }
    out += k < endings.size() ? endings[k] : std::string_view("\n");
    ++k;
  }
  if (k != endings.size() && problems) *problems += "line endings of the input and the text differ in number\n";
  return out;
}

}  // namespace

std::string print_tree(const ParseResult& r, std::string_view raw, std::string* problems) {
  std::string_view text = r.source->text();
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  bool prev_fstring_middle = false;
  for (const Token& t : r.tokens) {
    if (t.begin < pos || t.end < t.begin || t.end > text.size()) {
      if (problems) *problems += "token at " + std::to_string(t.line) + ":" + std::to_string(t.col) + " out of order\n";
      continue;
    }
    // The gap may hold only blanks and explicit line joins -- and, after an
    // f-string middle piece, the second brace of a `{{`/`}}` escape, which
    // CPython's tokenizer (and ours) leaves outside the token.
    for (size_t i = pos; i < t.begin; ++i) {
      char c = text[i];
      bool brace = (c == '{' || c == '}') && i == pos && prev_fstring_middle && i > 0 && text[i - 1] == c;
      if (c != ' ' && c != '\t' && c != '\f' && c != '\\' && c != '\r' && c != '\n' && !brace && problems)
        *problems += "non-blank byte between tokens at offset " + std::to_string(i) + "\n";
    }
    prev_fstring_middle = t.kind == TokenKind::FStringMiddle;
    out.append(text.substr(pos, t.end - pos));
    pos = t.end;
  }
  out.append(text.substr(pos));
  if (r.tree.root) {
    SpanChecker checker{*r.source, problems};
    checker.visit(r.tree.root, 0, text.size());
  }
  std::string result = restore_line_endings(out, raw, problems);
  // A UTF-8 byte order mark is consumed by source decoding; keep it.
  if (raw.substr(0, 3) == "\xEF\xBB\xBF" && std::string_view(result).substr(0, 3) != "\xEF\xBB\xBF")
    result.insert(0, "\xEF\xBB\xBF");
  return result;
}

}  // namespace c2t::syntax
