// Byte-span edits of a source text. The host rewrite only replaces the spans
// it changes, so every other byte of the module comes out unchanged.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace c2t::host {

struct Edit {
  size_t begin = 0, end = 0;  // [begin, end) byte offsets into the original text
  std::string text;           // replacement
};

class EditList {
 public:
  /// Adds an edit. Returns false (and adds nothing) if it overlaps an
  /// existing edit, except that a pure insertion (begin == end) may sit at
  /// the boundary of another edit.
  bool add(size_t begin, size_t end, std::string text);
  /// `text[begin, end)` with the edits that lie inside that range applied;
  /// those edits are removed from the list (the caller re-emits the range).
  std::string take_range(std::string_view text, size_t begin, size_t end);
  /// The whole text with all edits applied.
  std::string apply(std::string_view text) const;
  const std::vector<Edit>& edits() const { return edits_; }

 private:
  std::vector<Edit> edits_;
};

}  // namespace c2t::host
