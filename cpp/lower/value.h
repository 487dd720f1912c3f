// A value during lowering: the Triton expression that computes it plus what
// sema knows about it (sema/types.h). Arrays are not single Triton values;
// they travel as a group: base pointer, per-axis shape and stride scalars,
// element dtype (cuTile Array = pointer + runtime int32 shape/strides,
// reference/cutile_api.md §2.1).
#pragma once

#include <memory>
#include <string>
#include <vector>

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
};

struct LVal {
  TExprPtr expr;                     // Triton expression (null for pure compile-time entities)
  sema::ValueInfo info;
  std::shared_ptr<ArrayVal> array;   // info.kind == Array
  std::vector<LVal> elems;           // info.kind == Tuple
  std::shared_ptr<LVal> self;        // info.kind == Method: the receiver
  std::vector<std::shared_ptr<LVal>> slice_parts;  // info.kind == Slice: start, length
  const syntax::Node* node = nullptr;  // source expression, for diagnostics

  bool ok() const { return info.kind != sema::VKind::Unknown; }
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
