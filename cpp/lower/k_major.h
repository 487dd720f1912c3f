// fp8 matrix-product operands laid out K-major by the launcher.
//
// Why: Hopper's wgmma reads 8-bit operands only K-major from shared memory (no transposed form
// for 8-bit types, PTX ISA "wgmma.mma_async", matrix descriptors). Triton 3.6 stages an fp8
// operand whose contiguous axis is not K through registers to transpose it, and does not
// software-pipeline that load: TileGym's group_gemm in fp8 with B (K x N, N contiguous) ran 152
// TFLOPS at 4 x 4096^3 on the H200, 585-928 (4 / 8 warps) with the same B laid out K-major
// (cutile2triton's BENCHMARKS.md, s25 sweep). Triton's own matmul tutorial transposes fp8 B on the
// host for the same reason.
//
// What: the lowering notes, for every tl.dot whose operand is a tile ct.load read from a kernel
// parameter (an array, or an element of a list of arrays; possibly transposed since), which array
// axis carries the product's depth K and which the operand's other matrix dimension, under which
// constexpr branches, and the product's other operand (KMajorUse). The launcher passes a K-major
// copy of such a parameter when at launch it is fp8, on sm_90, contiguous along the other axis
// and not along K, large enough (2^22 elements) and read by enough rows of the other operand (256)
// for the copy to pay (the runtime's _c2t_k_major; C2T_K_MAJOR=0 turns it off) -- only for
// parameters the kernel never writes nor hands on (load_only_params: a copy of an array the
// kernel only reads cannot change what it computes) and never reads through a TMA descriptor (whose
// last stride must be 1, which a K-major copy of a K x N operand does not have) -- except through
// descriptors of transposed loads only (order= moving the last axis): a copy then fails the
// launcher's descriptor checks, so that launch takes pointers, and none is made under use_tma=True.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sema/module_scope.h"
#include "syntax/ast.h"

namespace c2t::lower {

/// One matrix-product operand loaded from a kernel parameter.
struct KMajorUse {
  std::string param;    // the kernel parameter: an array, or a list of arrays
  int k_axis = -1;      // the array axis the product's depth K runs along
  int other_axis = -1;  // the array axis of the operand's other matrix dimension (M of x, N of y)
  /// The branches of ifs on a Constant the product is in: (constexpr parameter, branch taken when it
  /// is true). `known` is false when a branch's condition is not a bare parameter or its `not`.
  std::vector<std::pair<std::string, bool>> conds;
  bool known = true;
  /// The product's other operand where it too is a parameter's tile ("" otherwise): its
  /// parameter and the array axis of its other matrix dimension -- how often the product reads
  /// each element of this operand (M rows for B), which decides whether a copy pays.
  std::string partner;
  int partner_axis = -1;
  bool operator==(const KMajorUse& o) const {
    return param == o.param && k_axis == o.k_axis && other_axis == o.other_axis && conds == o.conds &&
           known == o.known && partner == o.partner && partner_axis == o.partner_axis;
  }
};

/// The parameters among `arrays` and `lists` that kernel `def` only reads through the first
/// argument of ct.load / ct.num_tiles and `.shape` / `.dtype` / `.ndim` (a list: `len(L)` and
/// elements bound by `x = L[i]`, each used that way) and never rebinds. Anything else (a store, an
/// atomic, a view, an alias, a helper call, a nested function) keeps the parameter out.
std::set<std::string> load_only_params(const sema::ModuleInfo& mi, const syntax::Node* def,
                                       const std::set<std::string>& arrays, const std::set<std::string>& lists);

/// What the launcher may lay out (host/launcher.cpp k_major_source): the uses of load-only
/// parameters; a parameter whose uses all have one layout as one use without branches (whichever
/// branch a launch takes, that is the layout), else its uses if their branches are all known.
std::vector<KMajorUse> k_major_operands(const std::vector<KMajorUse>& uses, const std::set<std::string>& load_only);

}  // namespace c2t::lower
