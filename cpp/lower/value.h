// A value during lowering: the Triton expression that computes it plus what
// sema knows about it (sema/types.h). Arrays are not single Triton values;
// they travel as a group: base pointer, per-axis shape and stride scalars,
// element dtype (cuTile Array = pointer + runtime int32 shape/strides,
// reference/cutile_api.md §2.1).
#pragma once

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "lower/index_bounds.h"
#include "lower/triton_ast.h"
#include "sema/types.h"
#include "syntax/ast.h"

namespace c2t::lower {

struct ArrayVal {
  std::string display;               // the cuTile name, for messages
  TExprPtr ptr;                      // base pointer (element pointer)
  std::vector<TExprPtr> shape;       // one runtime int per axis (elements)
  std::vector<TExprPtr> strides;     // one runtime int per axis (elements)
  sema::DType dtype;                 // element dtype
  int rank = 0;
  bool int64_index = false;          // ct.IndexedWithInt64: offsets computed in int64
  /// The cuTile kernel parameter this array is, unchanged (not a view, not a
  /// helper's copy): only such arrays can get a host-checked TMA descriptor.
  std::string kernel_param;
  /// A kernel array parameter used with several ranks (sema ParamKind::ranks):
  /// `shape`/`strides` hold the highest rank's slots, `ndim_param` names the
  /// constexpr with the actual rank, and each use gets a one-rank view
  /// (Lowerer::array_use_view). Empty for ordinary arrays.
  std::vector<int> ranks;
  std::string ndim_param;
  std::shared_ptr<const std::map<const syntax::Node*, int>> use_ranks;
  /// The kernel's list-of-arrays parameter this array is an element of (`Bs[g]`), else empty.
  std::string list_param;
  /// The kernel parameter this array is a one-rank view of (a parameter used with several ranks,
  /// `ranks` above), else empty.
  std::string rank_view_of;
};

/// A list of arrays (cuTile ListTy): every element has rank `rank` and one
/// dtype. At run time it is cuTile's own layout (compilation.rst,
/// ListConstraint): a table of int64 words, (1 + 2 * rank) per element --
/// data pointer, shapes, strides -- and the length. `first` is the list's
/// first array, passed only for its pointer type (the element dtype; the
/// launcher checks that all elements share it).
struct ArrayListVal {
  std::string display;               // the cuTile name, for messages
  TExprPtr table;                    // pointer to int64 words
  TExprPtr length;                   // runtime int32
  TExprPtr first;                    // pointer to the first element (its dtype)
  // constexpr int, from the launcher (the runtime's _c2t_array_list, host/runtime_lists.cpp): bit k set when word k
  // (address in bytes, shapes, strides) of every element is a multiple of 16, bit unit_stride_bit(d)
  // when every element's stride d is 1. The table's words are runtime values Triton knows nothing of; these are the
  // facts its own specialization finds in pointer and integer arguments, without which it neither
  // vectorizes nor software-pipelines the loads (masks on extents it cannot divide). As with that
  // specialization, each facts value a launch brings compiles a kernel of its own.
  TExprPtr facts;
  /// The arguments a helper call passes for the list, in its parameters' order (add_list_params).
  std::vector<TExprPtr> args() const { return {table, length, first, facts}; }
  int rank = 0;                      // of every element
  bool int64_index = false;          // elements' shapes/strides kept in int64
  std::string kernel_param;          // the kernel parameter this list is (empty in helpers)
  int words() const { return 1 + 2 * rank; }
  /// The facts' bit for "every element's stride d is 1": words() for the last dimension, then one
  /// up per dimension towards the first (the runtime's _c2t_list_entry sets them).
  int unit_stride_bit(int d) const { return words() + rank - 1 - d; }
};

/// What Array.tiled_view fixes at compile time (cuTile TiledViewTy): the
/// tile shape (empty = single elements), the element distance between
/// consecutive tile origins per axis (the tile shape unless traversal_steps
/// is given; 1s for single elements) and the PaddingMode member of loads.
/// Extents may be constexprs only Triton knows (Dim::sym).
struct TiledSpec {
  sema::Shape tile_shape;
  sema::Shape steps;
  std::string padding = "UNDETERMINED";
  bool same(const TiledSpec& o) const {
    if (padding != o.padding || steps.size() != o.steps.size() || tile_shape.size() != o.tile_shape.size())
      return false;
    for (size_t k = 0; k < tile_shape.size(); ++k)
      if (!tile_shape[k].same(o.tile_shape[k])) return false;
    for (size_t k = 0; k < steps.size(); ++k)
      if (!steps[k].same(o.steps[k])) return false;
    return true;
  }
  /// The distinct extents only Triton knows (constexpr expressions), tile
  /// shape first: what a helper receiving the view takes as constexprs.
  std::vector<std::string> symbolic_exprs() const {
    std::vector<std::string> out;
    for (const sema::Shape* s : {&tile_shape, &steps})
      for (auto& d : *s)
        if (!d.value && std::find(out.begin(), out.end(), d.expr) == out.end()) out.push_back(d.expr);
    return out;
  }
  /// traversal_steps equal to the tile shape: a partition (ct.load's tiling).
  bool partition() const {
    if (tile_shape.empty()) return false;
    for (size_t k = 0; k < steps.size(); ++k)
      if (!steps[k].same(tile_shape[k])) return false;
    return true;
  }
};

/// A tile as ct.load read it from a kernel parameter (an array, or an element of a list of
/// arrays), possibly transposed since: per tile dimension, the array axis it runs along, and the
/// branches of ifs on a Constant the load is in. A name bound in both branches of an if holds
/// either branch's tile: one source each. What the launcher needs to lay out fp8 matrix-product
/// operands K-major (lower/k_major.h).
struct TileOrigin {
  struct Source {
    std::string param;  // an array parameter, or a list of arrays whose element was loaded
    std::vector<int> axes;
    std::vector<std::pair<std::string, bool>> conds;  // as KMajorUse::conds
    bool known = true;
  };
  std::vector<Source> sources;

  /// The origin of the tile permuted by `perm` (result axis k is axis perm[k]); null when a source
  /// does not have perm's rank.
  static std::shared_ptr<const TileOrigin> permuted(const std::shared_ptr<const TileOrigin>& o,
                                                    const std::vector<long long>& perm) {
    if (!o) return nullptr;
    auto p = std::make_shared<TileOrigin>(*o);
    for (auto& s : p->sources) {
      if (s.axes.size() != perm.size()) return nullptr;
      auto axes = s.axes;
      for (size_t k = 0; k < perm.size(); ++k) s.axes[k] = axes[perm[k]];
    }
    return p;
  }
};

struct LVal {
  TExprPtr expr;                     // Triton expression (null for pure compile-time entities)
  sema::ValueInfo info;
  std::shared_ptr<ArrayVal> array;   // info.kind == Array, RawMemory, TiledView (the viewed array)
  std::shared_ptr<const TiledSpec> tiled;  // info.kind == TiledView
  std::shared_ptr<ArrayListVal> list;  // info.kind == ArrayList
  std::vector<LVal> elems;           // info.kind == Tuple
  std::shared_ptr<LVal> self;        // info.kind == Method: the receiver
  std::vector<std::shared_ptr<LVal>> slice_parts;  // info.kind == Slice: start, length
  const syntax::Node* node = nullptr;  // source expression, for diagnostics
  std::shared_ptr<const TileOrigin> origin;  // Tile: a kernel parameter's tile as loaded, if known
  std::shared_ptr<const IndexFacts> index;   // Tile: index bounds or an all-true test (index_bounds.h)

  bool ok() const { return info.kind != sema::VKind::Unknown; }
  /// Arrays and the views of one (raw memory, tiled views) travel as the
  /// array's pointer, shapes and strides.
  bool has_array_group() const {
    return info.kind == sema::VKind::Array || info.kind == sema::VKind::RawMemory ||
           info.kind == sema::VKind::TiledView;
  }
};

/// Builds the ValueInfo of a Tuple from its elements.
inline LVal make_tuple(std::vector<LVal> elems) {
  LVal t;
  t.info.kind = sema::VKind::Tuple;
  bool all_expr = true;
  std::vector<TExprPtr> ex;
  for (auto& e : elems) {
    t.info.elems.push_back(e.info);
    all_expr = all_expr && e.expr;
    if (e.expr) ex.push_back(e.expr);
  }
  if (all_expr) t.expr = tuple(std::move(ex));
  t.elems = std::move(elems);
  return t;
}

}  // namespace c2t::lower
