// Host-module rewrite (stage host): turns the cuTile module around the
// kernels into a Triton module, editing only the byte spans it changes.
//
//  * imports: `import cuda.tile as ct` / `from cuda.tile import ...` go;
//    `import triton` and `import triton.language as tl` come (once);
//  * module constants and aliases built from cuda.tile names
//    (`ConstInt = ct.Constant[int]`, `PAD_ZERO = ct.PaddingMode.ZERO`) go
//    when host code does not use them (kernels have them inlined);
//  * each kernel definition becomes its @triton.jit version followed by its
//    launcher (launcher.h); helpers reached from kernels become @triton.jit
//    helpers; the prelude helpers used are inserted before the first of them;
//  * `ct.launch(stream, grid, kernel, args)` -> `launch_<kernel>(grid, *args)`,
//    host `ct.cdiv` -> `triton.cdiv`, `register_impl(..., backend="cutile")`
//    -> `backend="triton"`, `name = ct.kernel(fn, ...)` -> `name = fn`;
//  * cuTile host APIs without a one-line Triton spelling (kernel objects in
//    variables/dicts/other modules, replace_hints, ct.kernel re-wraps,
//    exhaustive_search, compiler_timeout, ByTarget, explicit streams) go
//    through the host runtime block (runtime.h);
//  * imports of converted modules follow the /cutile/ -> /triton/ mirror;
//  * any other use of a cuda.tile name in host code is an error (the output
//    must not import cuda.tile).
// A header comment names the tool and the source file.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include "lower/module_lowering.h"
#include "sema/module_scope.h"
#include "support/diagnostics.h"
#include "syntax/parser.h"

namespace c2t::host {

struct HostRewriteOptions {
  std::string filename;   // shown in the header comment
  std::string version;    // converter version for the header
  int max_line = 100;     // printer line width
  /// Names imported from sibling modules whose definitions the driver copied
  /// into this module (driver/splice.h): their import goes.
  std::set<std::string> spliced_names = {};
  /// (line, column) of the import statements those names came from.
  std::set<std::pair<int, int>> spliced_imports = {};
};

/// Returns the converted module text; errors go to `diags` (the text is then
/// meaningless and must not be used).
std::string rewrite_module(const syntax::ParseResult& pr, const sema::ModuleInfo& mi,
                           const lower::LoweredModule& lm, const HostRewriteOptions& opts, Diagnostics& diags);

/// The host-only rewrite of a module that does not use cuda.tile but lives in
/// a cuTile package: register_impl/is_backend_available "cutile" -> "triton"
/// and import paths through the mirror. Returns the text unchanged (no
/// header) when nothing applies.
std::string rewrite_plain_module(const syntax::ParseResult& pr, const sema::ModuleInfo& mi,
                                 const HostRewriteOptions& opts, Diagnostics& diags);

/// `a.cutile.b` -> `a.triton.b` (each component equal to "cutile"); nullopt
/// when no component is.
std::optional<std::string> mirror_module_path(std::string_view dotted);

}  // namespace c2t::host
