// Module-level bindings that would replace a builtin the generated code reads: the host runtime and
// the launchers call int, type, len, isinstance... through the converted module's globals, so a
// cuTile module's `type = "fp32"` (or `from torch import *`, which binds int, float and bool to
// torch dtypes) broke every launch or the module's import (the hostile round of s39).
#pragma once

#include <string>

#include "support/diagnostics.h"
#include "syntax/ast.h"

namespace c2t::driver {

/// Errors (at each binding, in `diags`) for the names `module` (the cuTile source's tree) binds at
/// module level that are Python builtins read by the generated part of `code` (the converted
/// module: its host runtime block and its `launch_*` launchers). Returns false if any.
bool check_runtime_builtins(const syntax::Node* module, const std::string& code, Diagnostics& diags);

}  // namespace c2t::driver
