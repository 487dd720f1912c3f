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
  enum class Kind { Scalar, Constexpr, Array, ArrayList, Tuple };
  Kind kind = Kind::Scalar;
  std::string name;
  int rank = -1;                 // Array; ArrayList: the rank of every element
  bool int64_index = false;      // Array annotated ct.IndexedWithInt64
  // Array used with several ranks, each use in a branch a Constant selects
  // (sorted; empty for the usual one-rank array, then `rank` holds it). The
  // kernel then takes `rank` (the highest) shape/stride slots plus the actual
  // rank as a constexpr.
  std::vector<int> ranks;
  // With `ranks`: the Name node of each use whose rank is visible (a ct.load /
  // ct.store / ... array argument) -> that rank; -2 for `.dtype` (any rank).
  std::map<const Node*, int> use_ranks;
  // With `ranks`: every use that shows a rank sits in a branch a Constant
  // removes, so a specialization may pass an array of any lower rank (a
  // dummy, as TileGym's dyt.py does when HAVE_BETA is false); the launcher
  // then pads the slots instead of rejecting the rank.
  bool lower_ranks_allowed = false;
  const Node* annotation = nullptr;
  const Node* arg_node = nullptr;  // the `arg` node (for positions)
  const Node* default_value = nullptr;
  std::string scalar_annotation; // "int" / "float" / "bool" when annotated so
  // Tuple (cuTile TupleConstraint): the elements the kernel reads, in index
  // order, each an Array or Scalar named `<param>_<index>`; `tuple_index` is
  // the element's position in the tuple the host passes.
  std::vector<ParamKind> tuple_elems;
  long long tuple_index = -1;
  // A Constexpr the kernel reads from an enclosing scope (KernelInfo::launch_constants), appended
  // after the source's parameters: the launcher passes the name's value at launch, call sites do not.
  bool launch_constant = false;
};

/// Classifies the parameters of kernel `k`. `rank_overrides` maps
/// "kernel.param" or "param" to a rank given by the user (ConvertOptions).
/// A parameter indexed only by compile-time integers (`addends[0] + x`,
/// `ct.load(pair[1], ...)`) is a Tuple. Any other parameter indexed in tile
/// code (`As[g]`, `len(As)`) is an ArrayList
/// whose `rank` is the rank of its elements (all elements of a cuTile list
/// share one array type, compilation.rst ListConstraint). An array used with
/// several ranks gets them all in `ranks` (see ParamKind).
/// Errors: an array (or list element) whose rank cannot be determined, list
/// elements used with several ranks; *args/**kwargs on a kernel (cuTile
/// rejects them too).
std::vector<ParamKind> classify_kernel_params(const ModuleInfo& mi, const KernelInfo& k,
                                              const std::map<std::string, int>& rank_overrides,
                                              Diagnostics& diags);

}  // namespace c2t::sema
