// Driver entry points of the converter (what the Python extension and the
// c2t-cli tool call).
//
//   ConvertResult r = convert_source(bytes, "softmax.py", {});
//   if (r.ok) write(r.code); else print(r.rendered);
//
// convert_source runs parse -> sema -> lower -> emit -> host rewrite. Any
// error (syntax, unsupported construct, unknown name...) gives ok == false,
// error diagnostics with line/column, and an empty `code`: no partial or
// known-wrong output is ever returned.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "support/diagnostics.h"

namespace c2t {

/// The converter's version, printed in generated headers.
extern const char* const kVersion;

struct ConvertOptions {
  /// Ranks of array parameters that uses do not determine:
  /// "kernel.param" (or "param") -> rank.
  std::map<std::string, int> array_ranks;
  /// Compute memory offsets in int64 for every array (cuTile's default index
  /// type is int32; ct.IndexedWithInt64 arrays always use int64).
  bool int64_indexing = false;
  /// Line width of the generated kernels.
  int max_line = 100;
};

struct ConvertResult {
  bool ok = false;
  std::string code;        // the converted module (empty unless ok)
  Diagnostics diags;       // errors, warnings and notes (line, 0-based byte col)
  std::string rendered;    // diags rendered as `file:line:col: error: msg` + source line + caret
  bool is_cutile = true;   // false when the module does not import cuda.tile: then `code` is the
                           // host-only rewrite (register_impl backend, import paths), which is
                           // the text unchanged when nothing applies
  std::string source_text; // decoded source the diagnostics refer to (for re-rendering)
  /// Every kernel lowered with its parameter names: a tree run checks its array_ranks
  /// entries against all modules' (an entry that names nothing is a typo).
  std::vector<std::pair<std::string, std::vector<std::string>>> kernel_params;
};

/// Converts one cuTile module (the file's raw bytes) to a Triton module.
ConvertResult convert_source(std::string_view bytes, std::string_view filename, const ConvertOptions& opts = {});

/// The pre-flight analysis of one module as JSON text:
/// {"file", "is_cutile", "ok", "kernels": [{"name", "line", "params": [...],
///   "loads_1d", "loads_nd", "stores_1d", "stores_nd", "gathers", "scatters", "atomics",
///   "tma_candidates", "accesses": [...], "layout_flags", "helpers", "ops", "unsupported": [...], "notes"}],
///  "host": {"launch_sites", "autotune": [...], "register_impl": [...]},
///  "diagnostics": [{"severity", "line", "col", "message"}]}
/// Lines are 1-based; "col" is 1-based in characters, like rendered diagnostics.
std::string analyze_source(std::string_view bytes, std::string_view filename, const ConvertOptions& opts = {});

namespace syntax { struct Node; }
/// Adds an error and returns false if some statement of `module` nests more
/// than 200 levels (expressions and statements): the stages after the parser
/// recurse per level with large frames. Both convert_source and analyze_source
/// call it before sema.
bool check_nesting(const syntax::Node* module, Diagnostics& diags);

}  // namespace c2t
