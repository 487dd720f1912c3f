// Memory-access planning for tile-space loads and stores (ct.load /
// ct.store), one plan object per access site.
//
// cuTile semantics (reference/cutile_api.md §2.3): the array is viewed as
// P = array.permute(order); tile axis k covers elements
// [index[k] * shape[k], (index[k] + 1) * shape[k]) of P's axis k, i.e. of the
// array's axis order[k]; out-of-bounds elements of a partial tile read the
// padding value and are not written.
//
// Today every site uses pointer arithmetic + a per-axis bounds mask, which
// is correct for any stride, alignment and padding value. The plan also
// records whether the site could use a TMA tensor descriptor
// (tl.make_tensor_descriptor) so that a later pass can add that path behind
// a host-checked constexpr (16-byte aligned base and non-last strides, last
// stride 1, zero/NaN padding only; triton_target.md §1.4).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lower/lowerer.h"
#include "lower/value.h"
#include "sema/types.h"

namespace c2t::lower {

class OpCall;

struct AccessPlan {
  enum class Strategy {
    PointerMask,       // ptr + broadcast offsets, mask = per-axis bounds (partial tiles)
    PointerUnmasked,   // check_bounds=False: the caller guarantees in-bounds
    PointerScalar,     // shape=() / scalar store: one element, no mask (a fully OOB tile is UB)
  };
  Strategy strategy = Strategy::PointerMask;
  std::vector<int> order;          // tile axis k reads array axis order[k]
  sema::Shape tile_shape;          // in tile-axis order
  /// Elements between consecutive tile origins per tile axis (a tiled view's
  /// traversal_steps); empty = the tile shape (ct.load's partition).
  sema::Shape steps;
  std::string padding = "UNDETERMINED";  // PaddingMode member for loads
  bool tma_candidate = false;
  std::string tma_note;
};

/// Whether order= (tile axis k reads array axis order[k]) moves the array's last axis: such a
/// load's descriptor reads its box in memory order and permutes it (tma.cpp); such a store stays
/// on pointers.
inline bool moves_last_axis(const std::vector<int>& order) {
  return !order.empty() && order.back() != (int)order.size() - 1;
}

/// Decides the plan of one tile access. `allow_tma` is the site's
/// `allow_tma=` (nullopt = not given).
AccessPlan plan_tile_access(const ArrayVal& array, const sema::Shape& tile_shape, std::vector<int> order,
                            const std::string& padding, bool check_bounds, std::optional<bool> allow_tma,
                            bool is_store);

/// Pointer expression (and mask, null when not needed) of a tile access,
/// emitting the offset computations as statements named after `hint`.
/// With `squeeze`, the extent-1 axes of a tile with two or more other axes
/// take no pointer dimension: the pointers have the rank of the other axes and
/// `squeezed` lists those axes' extents (the caller reshapes between the two).
/// Unit axes between others ((1, H, 1, D)) only with `interior` as well.
/// Why: a (1, TM, TK) tile reshaped to (TM, TK) for tl.dot cost Triton a
/// layout conversion per load (sm_90 TTGIR of TileGym's bmm: 5 convert_layout
/// ops, 1 when loaded as (TM, TK)); tl.reshape(tl.reshape(x, A), B) folds.
/// Why `interior` is the caller's choice: on the H200 (Triton 3.6), TileGym's
/// MLA decoding ((TILE_N, 1, D) loads, a (1, H, 1, D) store) hit an illegal
/// memory access with full-rank pointers and passed squeezed, while its
/// in-place RoPE ((1, H, 1, D) tiles loaded and stored back to one array) gave
/// wrong values squeezed and passed full-rank (BENCHMARKS.md).
struct TilePointers {
  TExprPtr ptrs;
  TExprPtr mask;  // may be null
  std::vector<TExprPtr> squeezed;  // empty: the pointers have the tile's rank
};
TilePointers emit_tile_pointers(Lowerer& L, const ArrayVal& array, const std::vector<LVal>& index,
                                const AccessPlan& plan, const std::string& hint, bool squeeze = false,
                                bool interior = false);

/// The Triton `other=` value of a padding mode. `elem` is the array's
/// element dtype: ZERO pads with `zero_padding(elem)`, and so does
/// UNDETERMINED (any value is allowed; zero keeps results reproducible).
TExprPtr padding_value(Lowerer& L, const std::string& mode, const sema::DType& elem);

/// The bounds test of one axis of an element index: `0 <= idx < extent`
/// (cuTile converts indices to unsigned, so negatives are out of bounds;
/// reference/cutile_api.md §3.3); just `idx < extent` when `idx` is known
/// non-negative.
TExprPtr index_in_bounds(TExprPtr idx, TExprPtr extent, bool known_nonneg = false);

/// The `padding_mode=` argument of ct.load / ct.load_advanced_indexing: the
/// PaddingMode member's name ("UNDETERMINED" when absent or None); nullopt
/// after a diagnostic when it is not a member known at compile time.
std::optional<std::string> padding_mode_arg(OpCall& c);

/// The `other=` of a masked tl.load that pads with zero: `0` for a known
/// integer or bool array, `0.0` for any other (float, fp8, dtype only Triton
/// knows). tl.load casts `other` to the element type, and Triton's cast has no
/// integer -> fp8 rule (semantic.cast: "cannot cast int32 to fp8e4nv" on
/// sm_90), while float 0.0 converts exactly to every numeric dtype.
TExprPtr zero_padding(const sema::DType& elem);

}  // namespace c2t::lower
