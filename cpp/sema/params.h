// Kernel parameter classification (stage sema).
//
// cuTile kernel parameters are compile-time constants when annotated
// `ct.Constant[T]` (or an alias such as `ConstInt = ct.Constant[int]`),
// otherwise arrays or runtime scalars; which one is not written down: an
// array's rank (needed to expand it into pointer + shape + strides) is
// inferred from how tile code uses it: ct.load/ct.store index tuples,
// gather/scatter/atomic index tuples, ct.num_tiles shapes, `A.shape[k]`,
// including uses inside the helpers the array is passed to.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "sema/module_scope.h"
#include "support/diagnostics.h"

namespace c2t::sema {

struct ParamKind {
  enum class Kind { Scalar, Constexpr, Array, ArrayList };
  Kind kind = Kind::Scalar;
  std::string name;
  int rank = -1;                 // Array
  bool int64_index = false;      // Array annotated ct.IndexedWithInt64
  const Node* annotation = nullptr;
  const Node* arg_node = nullptr;  // the `arg` node (for positions)
  const Node* default_value = nullptr;
  std::string scalar_annotation; // "int" / "float" / "bool" when annotated so
};

/// Classifies the parameters of kernel `k`. `rank_overrides` maps
/// "kernel.param" or "param" to a rank given by the user (ConvertOptions).
/// Errors: an array whose rank cannot be determined or is used with
/// conflicting ranks; *args/**kwargs on a kernel (cuTile rejects them too).
std::vector<ParamKind> classify_kernel_params(const ModuleInfo& mi, const KernelInfo& k,
                                              const std::map<std::string, int>& rank_overrides,
                                              Diagnostics& diags);

}  // namespace c2t::sema
