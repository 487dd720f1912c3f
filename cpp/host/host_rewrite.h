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
//  * any other use of a cuda.tile name in host code is an error (the output
//    must not import cuda.tile).
// A header comment names the tool and the source file.
#pragma once

#include <string>
#include <string_view>

#include "lower/module_lowering.h"
#include "sema/module_scope.h"
#include "support/diagnostics.h"
#include "syntax/parser.h"

namespace c2t::host {

struct HostRewriteOptions {
  std::string filename;   // shown in the header comment
  std::string version;    // converter version for the header
  int max_line = 100;     // printer line width
};

/// Returns the converted module text; errors go to `diags` (the text is then
/// meaningless and must not be used).
std::string rewrite_module(const syntax::ParseResult& pr, const sema::ModuleInfo& mi,
                           const lower::LoweredModule& lm, const HostRewriteOptions& opts, Diagnostics& diags);

}  // namespace c2t::host
