// Span edits on a source text: the only way later stages change a file.
//
// Stages record replacements of byte ranges of the original text; apply()
// produces the new text with everything outside the edited ranges
// byte-identical. Overlapping edits are a programming error, reported by
// apply() returning false (never a silent corruption).
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace c2t::syntax {

class Rewriter {
 public:
  explicit Rewriter(std::string_view original) : original_(original) {}

  /// Replace bytes [begin, end) of the original text with `text`.
  void replace(size_t begin, size_t end, std::string text) { edits_.push_back({begin, end, std::move(text), edits_.size()}); }
  /// Insert `text` before original byte `at` (after earlier insertions at the same place).
  void insert(size_t at, std::string text) { replace(at, at, std::move(text)); }

  /// The edited text; false (and `out` untouched) if two edits overlap or an
  /// edit lies outside the text.
  bool apply(std::string& out) const {
    std::vector<Edit> es = edits_;
    std::stable_sort(es.begin(), es.end(), [](const Edit& a, const Edit& b) {
      return a.begin != b.begin ? a.begin < b.begin : a.seq < b.seq;
    });
    std::string result;
    result.reserve(original_.size());
    size_t pos = 0;
    for (const Edit& e : es) {
      if (e.begin < pos || e.end < e.begin || e.end > original_.size()) return false;
      result.append(original_.substr(pos, e.begin - pos));
      result += e.text;
      pos = e.end;
    }
    result.append(original_.substr(pos));
    out = std::move(result);
    return true;
  }
  bool empty() const { return edits_.empty(); }

 private:
  struct Edit {
    size_t begin, end;
    std::string text;
    size_t seq;
  };
  std::string_view original_;
  std::vector<Edit> edits_;
};

}  // namespace c2t::syntax
