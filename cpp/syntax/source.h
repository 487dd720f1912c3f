// A source file: decoded UTF-8 text plus a line table.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace c2t::syntax {

class Source {
 public:
  /// `text` must already be UTF-8 (see pyvalue/source_decode.h for bytes -> text).
  explicit Source(std::string text) : text_(std::move(text)) {
    line_starts_.push_back(0);
    for (size_t i = 0; i < text_.size(); ++i)
      if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
  std::string_view text() const { return text_; }
  int line_count() const { return static_cast<int>(line_starts_.size()); }
  /// Byte offset of (1-based line, 0-based byte col). Clamped to the text.
  size_t offset(int line, int col) const {
    if (line < 1) return 0;
    if (line > line_count()) return text_.size();
    size_t o = line_starts_[line - 1] + static_cast<size_t>(col < 0 ? 0 : col);
    return o > text_.size() ? text_.size() : o;
  }
  /// The text of 1-based `line` without its line ending.
  std::string_view line(int line) const {
    if (line < 1 || line > line_count()) return {};
    size_t b = line_starts_[line - 1];
    size_t e = line < line_count() ? line_starts_[line] : text_.size();
    std::string_view s(text_.data() + b, e - b);
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.remove_suffix(1);
    return s;
  }

 private:
  std::string text_;
  std::vector<size_t> line_starts_;
};

}  // namespace c2t::syntax
