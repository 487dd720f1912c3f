// Options that change the generated Triton code.
#pragma once

#include <map>
#include <string>

namespace c2t::lower {

struct LowerOptions {
  /// Array ranks the user supplies where uses do not determine them:
  /// "kernel.param" or "param" -> rank.
  std::map<std::string, int> array_ranks;
  /// Compute every memory offset in int64 (cuTile's default index type is
  /// int32; arrays annotated ct.IndexedWithInt64 always use int64).
  bool int64_indexing = false;
};

}  // namespace c2t::lower
