// The public names of the cuda.tile module (cuTile Python 1.6/1.7,
// src/cuda/tile/_stub.py and __init__.py; catalogued in
// shared/reference/cutile_api.md §3). Used only to word diagnostics: a real
// cuTile operation that the converter does not lower yet is reported
// differently from a name cuda.tile does not have (such as ct.sigmoid).
#pragma once

#include <string_view>
#include <vector>

namespace c2t::lower {

/// True if `name` (without the "ct." prefix) is a public cuda.tile name.
bool is_cutile_public_name(std::string_view name);

/// Every public cuda.tile name (for "did you mean" suggestions).
const std::vector<std::string_view>& cutile_public_names();

}  // namespace c2t::lower
