// Tile footprints: the tile sizes a kernel loads, stores or accumulates in a
// matrix product, kept as texts the host launcher can evaluate at launch time
// (host/launcher.cpp num_warps_source, the runtime's _c2t_num_warps). cuTile
// sizes each kernel's thread blocks itself; Triton needs num_warps per launch,
// and its default of 4 spilled registers at cuTile's tile sizes on the H200
// (BENCHMARKS.md, "Launch options").
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sema/types.h"

namespace c2t::lower {

/// A loop's trip count as footprint texts: {count, ""}, or {numerator,
/// denominator} of a ct.cdiv.
using LoopTrip = std::pair<std::string, std::string>;

/// One tile. Each dim is an int literal, the name of a constexpr parameter of
/// the function it was recorded in, or `p.shape[k]` for an extent of a helper's
/// tile parameter `p`. A matrix product whose size is not expressible keeps
/// `dot` with no dims: the kernel still counts as one with tl.dot.
struct TileFootprint {
  std::vector<std::string> dims;
  bool dot = false;  // a tl.dot accumulator (dims: ..., rows, columns)
  /// A tl.dot's depth K (the operands' shared dimension) as a dim text; "" when unknown. Deep
  /// products want more warps than their accumulator alone says (the runtime's _c2t_num_warps).
  /// A tile loaded or stored in loops whose trip counts are compile-time, one
  /// per loop (texts as dims). The tile's elements times the trips are what one
  /// program walks, which sizes its warps like a tile of that many elements (the
  /// launcher's num_warps; BENCHMARKS.md, "Warps for a row walked in tiles").
  std::vector<LoopTrip> trips = {};
  std::string depth = {};
  bool operator==(const TileFootprint& o) const {
    return dims == o.dims && dot == o.dot && trips == o.trips && depth == o.depth;
  }
};

/// What a dim text is: an int literal, a name, `p.shape[k]`, or none of these.
enum class DimKind { Other, Literal, Name, ParamExtent };
DimKind dim_kind(const std::string& s);

/// Maps a symbolic dim text to its footprint text, nullopt when the launcher
/// cannot evaluate it. The default keeps literals, names and `p.shape[k]`; the
/// Lowerer also refuses names the function rebinds (Lowerer::footprint_dim).
using DimText = std::function<std::optional<std::string>(const std::string&)>;
std::optional<std::string> plain_dim_text(const std::string& s);

/// The footprint of a tile of `shape`; nullopt when a dim has no text and the
/// tile is no matrix-product accumulator. `depth`: a matrix product's K, kept where it has a text.
std::optional<TileFootprint> footprint_of(const sema::Shape& shape, bool dot, const DimText& text = plain_dim_text,
                                          const sema::Dim* depth = nullptr);

/// Appends `f` unless `to` has it already.
void add_footprint(std::vector<TileFootprint>& to, TileFootprint f);

/// A callee's footprints in the caller's texts: `subst` maps the callee's
/// parameter names (and `p.shape[k]`) to the caller's argument texts, which
/// `text` checks. A tile with an unmapped dim is dropped; a matrix product
/// keeps its `dot` mark (and its depth where that maps).
std::vector<TileFootprint> map_footprints(const std::vector<TileFootprint>& fps,
                                          const std::map<std::string, std::string>& subst,
                                          const DimText& text = plain_dim_text);

}  // namespace c2t::lower
