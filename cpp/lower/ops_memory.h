// Tile-space loads and stores shared by ct.load / ct.store and the tiled
// views (Array.tiled_view), which are the same operation with the tiling
// fixed in the view (cuTile _ir/ops.py: _tile_load_impl_inner and
// _tile_store_impl_inner take the view's traversal steps).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lower/op_registry.h"
#include "lower/ops_element.h"
#include "lower/value.h"

namespace c2t::lower {

/// The `index` argument `p` as one integer scalar per axis (a bare scalar for
/// rank 1); nullopt after a diagnostic when its length is not `rank`.
std::optional<std::vector<LVal>> tile_index_arg(OpCall& c, const std::string& p, int rank);

/// `allow_tma=`: nullopt inside = not given; outer nullopt after a diagnostic.
std::optional<std::optional<bool>> allow_tma_arg(OpCall& c);

/// One tile access: tile `index` of the tiling of `array` (permuted by
/// `order`) whose tile origins lie `steps` elements apart (empty steps = the
/// tile shape, cuTile's partition). `shape` empty = one element.
struct TileAccess {
  const ArrayVal* array = nullptr;
  std::vector<LVal> index;
  sema::Shape shape;
  std::vector<int> order;
  sema::Shape steps;
  BoundsCheck bounds;
  std::optional<bool> allow_tma;
  std::string padding = "UNDETERMINED";  // loads: PaddingMode member
  /// memory_order other than WEAK: Triton's sem ("relaxed", "acquire",
  /// "release") and scope ("cta", "gpu", "sys"); empty for weak accesses.
  std::string sem, scope;
};

/// The loaded tile (pointer path, plus the descriptor path when legal).
LVal lower_tile_load(OpCall& c, const TileAccess& t);
/// Stores `tile` (already of the access's shape or broadcastable by Triton).
LVal lower_tile_store(OpCall& c, const TileAccess& t, const LVal& tile);

}  // namespace c2t::lower
