// Array views in tile code (ops_views.cpp): what the tiled-view atomics
// (ops_atomic.cpp) share with TiledView.load/store.
#pragma once

#include <optional>
#include <string>

#include "lower/op_registry.h"
#include "lower/ops_memory.h"

namespace c2t::lower {

/// Checks RawArrayMemory's `offset` argument: an integer scalar or tile
/// (elements from the base pointer); false after a diagnostic.
bool raw_offsets_ok(OpCall& c, LVal& off);

/// RawArrayMemory's `mask=` broadcast to the offsets' `shape` (cuTile
/// _process_custom_mask; the offsets never broadcast to the mask): null when
/// absent, nullopt after a diagnostic.
std::optional<TExprPtr> raw_offset_mask(OpCall& c, const sema::Shape& shape);

/// The tile access of a TiledView method call ("self" is the view; "index",
/// optional "check_bounds"/"allow_tma"); nullopt after a diagnostic.
std::optional<TileAccess> tiled_view_access(OpCall& c, const LVal& view);

/// Argument `param` broadcast to the view's tile shape (cuTile: "The tile's
/// shape must be broadcastable to tile_shape"); nullopt after a diagnostic
/// when it does not broadcast.
std::optional<LVal> tiled_view_tile(OpCall& c, const std::string& param, const LVal& view);

}  // namespace c2t::lower
