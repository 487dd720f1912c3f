#include "support/diagnostics.h"

#include <algorithm>

namespace c2t {

namespace {
// Number of code points in the first `bytes` bytes of `s` (UTF-8 continuation
// bytes are not counted), so that the caret sits under the right character.
int count_chars(std::string_view s, size_t bytes) {
  int n = 0;
  for (size_t i = 0; i < bytes && i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) ++n;
  return n;
}
// `s` with every byte that is not part of a well-formed UTF-8 sequence
// replaced by U+FFFD, so that diagnostics about undecodable files are still
// valid text for terminals and for Python callers.
std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    bool ok = n > 0 && i + n <= s.size();
    for (size_t k = 1; ok && k < n; ++k) ok = (static_cast<unsigned char>(s[i + k]) & 0xC0) == 0x80;
    if (ok && n == 2) ok = c >= 0xC2;
    if (ok && n == 3) {
      unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
      ok = !(c == 0xE0 && c1 < 0xA0) && !(c == 0xED && c1 >= 0xA0);
    }
    if (ok && n == 4) {
      unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
      ok = c <= 0xF4 && !(c == 0xF0 && c1 < 0x90) && !(c == 0xF4 && c1 >= 0x90);
    }
    if (ok) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

}  // namespace

namespace {
std::string_view line_of(std::string_view source, int line_no) {
  size_t start = 0;
  for (int line = 1; line < line_no && start < source.size(); ++line) {
    size_t nl = source.find('\n', start);
    if (nl == std::string_view::npos) return {};
    start = nl + 1;
  }
  size_t end = source.find('\n', start);
  return source.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
}
}  // namespace

int display_column(std::string_view source, int line, int col) {
  if (line <= 0) return 0;
  std::string_view text = line_of(source, line);
  return count_chars(text, std::min<size_t>(std::max(col, 0), text.size())) + 1;
}

std::string render(const Diagnostic& d, std::string_view filename, std::string_view source) {
  const char* sev = d.severity == Severity::Error ? "error" : d.severity == Severity::Warning ? "warning" : "note";
  std::string out = valid_utf8(filename);
  if (d.line <= 0) {
    out += ": ";
    out += sev;
    out += ": " + valid_utf8(d.message) + "\n";
    return out;
  }
  // Find the line.
  size_t start = 0;
  int line = 1;
  while (line < d.line && start < source.size()) {
    size_t nl = source.find('\n', start);
    if (nl == std::string_view::npos) { start = source.size(); break; }
    start = nl + 1;
    ++line;
  }
  size_t end = source.find('\n', start);
  if (end == std::string_view::npos) end = source.size();
  std::string line_text = valid_utf8(source.substr(start, end - start));
  std::string_view text = line_text;
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  size_t col_bytes = std::min<size_t>(std::max(d.col, 0), text.size());
  int col_chars = count_chars(text, col_bytes);
  out += ':';
  out += std::to_string(d.line) + ":" + std::to_string(col_chars + 1) + ": " + sev + ": " + valid_utf8(d.message) + "\n";
  // Tabs are kept in the caret line so the caret lines up in a terminal.
  std::string caret;
  int seen = 0;
  for (size_t i = 0; i < text.size() && seen < col_chars; ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c & 0xC0) == 0x80) continue;
    caret += (c == '\t') ? '\t' : ' ';
    ++seen;
  }
  out += std::string(text) + "\n" + caret + "^\n";
  return out;
}

}  // namespace c2t
