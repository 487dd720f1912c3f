// Compiler-style diagnostics shared by every pipeline stage.
//
// A Diagnostic is rendered as clang/ruff do:
//   FILE:LINE:COL: error: MESSAGE
//   <the source line>
//   <spaces>^
// LINE is 1-based; COL is 1-based and counts characters (code points) of the
// line, the way editors count, while the stored `col` is CPython's 0-based
// UTF-8 byte offset (ast col_offset).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace c2t {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  int line = 0;        // 1-based line; 0 = whole file (no caret)
  int col = 0;         // 0-based UTF-8 byte offset within the line (CPython col_offset)
  std::string message; // one line, no trailing period needed
};

/// Renders `d` for file `filename` whose full text is `source` (UTF-8).
/// Output ends with a newline. Never throws on out-of-range positions: the
/// caret is clamped to the end of the line.
std::string render(const Diagnostic& d, std::string_view filename, std::string_view source);

/// 1-based column in characters (code points) of 0-based byte column `col` on
/// 1-based `line` of `source`, as render() prints it; 0 when line is 0.
int display_column(std::string_view source, int line, int col);

/// A list of diagnostics with convenience checks.
struct Diagnostics {
  std::vector<Diagnostic> items;
  void error(int line, int col, std::string msg) { items.push_back({Severity::Error, line, col, std::move(msg)}); }
  void warning(int line, int col, std::string msg) { items.push_back({Severity::Warning, line, col, std::move(msg)}); }
  bool has_errors() const {
    for (auto& d : items) if (d.severity == Severity::Error) return true;
    return false;
  }
  std::string render_all(std::string_view filename, std::string_view source) const {
    std::string out;
    for (auto& d : items) out += render(d, filename, source);
    return out;
  }
};

}  // namespace c2t
