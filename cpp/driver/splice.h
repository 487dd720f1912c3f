// Tile helpers imported from sibling modules (`from .gelu import gelu_forward_ct`).
//
// A cuTile helper is compiled for each call site's argument types, so a helper
// that another module defines cannot be lowered there (it has no call site) and
// cannot be imported as a ready @triton.jit function. The driver therefore
// copies the helper's definition -- with the sibling's functions, constants and
// plain imports it refers to -- to the end of the importing module before
// conversion; the helper is then lowered at its call sites like a local one,
// and the import statement drops the copied names (host_rewrite).
//
// Relative imports are followed (`from .x import f`, `from ..pkg.x import f`),
// read from the folder of the converted file's path, and absolute dotted ones
// whose package (a folder with __init__.py) is in that folder or in the first
// folder upwards that is not a package (where a script's or pytest's sys.path
// finds it: `from kernels.matmul import swizzle_2d` in cutile-python's
// test/kernels); a package comes before a module file of the same name, as in
// Python. A single-name absolute import (`from math import floor`) is not read:
// it may be a built-in or standard module. A copy is also skipped when a name it
// needs is bound more than once (here or there; Python keeps the last), when the
// importer binds such a name by other code, or when top-level code of the
// importer reads the name (the copy goes at the end); `skipped` says why, and the
// "not defined in tile code" diagnostic repeats it. A copy is skipped
// (the import stays, and lowering reports the unknown name) when it would
// rebind a name the importing module defines, or when the sibling binds
// cuda.tile under another alias.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "sema/module_scope.h"
#include "syntax/ast.h"

namespace c2t::driver {

struct Splice {
  std::string text;                 // appended to the module text ("" when nothing is copied)
  std::set<std::string> names;      // imported names whose definitions were copied
  std::set<std::pair<int, int>> imports;  // (line, column) of the import statements they came from
  /// Imported names tile code uses whose definitions were not copied, and why (added to the
  /// "not defined in tile code" diagnostic).
  std::map<std::string, std::string> skipped;
  /// Where each copied statement came from, for diagnostics: lines
  /// [first, first + count) of `text` (1-based) are lines [origin_line, ...)
  /// of `file`, copied for the import statement at `import_line`.
  struct Origin {
    int first = 0, count = 0;
    std::string file;
    int origin_line = 0;
    int import_line = 0, import_col = 0;
  };
  std::vector<Origin> origins;
};

/// `mi` is the analysed importing module (its names for cuda.tile and its
/// kernels); `path` its file path on disk. An imported function counts as a tile
/// helper where the sibling's definition uses cuTile (or calls a sibling function
/// that does) or where a kernel of `mi` calls it (cutile-python's
/// unswizzle_32_4_4 only calls tile methods).
Splice splice_imported_helpers(const sema::ModuleInfo& mi, const std::string& path);

}  // namespace c2t::driver
