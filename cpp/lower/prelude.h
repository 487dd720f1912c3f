// Small @triton.jit helper functions that generated kernels call where a
// cuTile operation has no one-expression Triton equivalent (Python floor
// division, IEEE division of an operand whose dtype is only known to Triton,
// ...). Only the helpers a module uses are emitted, once, before its first
// kernel; each carries a comment saying which cuTile rule it implements.
#pragma once

#include <string>
#include <vector>

namespace c2t::lower {

struct PreludeHelper {
  std::string name;                 // "_c2t_floordiv"
  std::vector<std::string> deps;    // other helpers it calls
  std::string source;               // full Python source, '\n'-terminated
};

/// nullptr if there is no such helper.
const PreludeHelper* find_prelude(const std::string& name);

/// Sources of `names` and their dependencies, dependencies first, each
/// emitted once, separated by blank lines.
std::string prelude_source(const std::vector<std::string>& names);

}  // namespace c2t::lower
