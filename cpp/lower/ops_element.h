// Element-space addressing shared by gather/scatter and the atomics.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lower/op_registry.h"
#include "lower/value.h"

namespace c2t::lower {

struct ElementAccess {
  std::shared_ptr<ArrayVal> array;
  TExprPtr ptrs;        // base + sum(idx_d * stride_d)
  TExprPtr mask;        // per-dimension bounds (null when check_bounds=False)
  sema::Shape shape;    // broadcast shape of the indices
};

/// Addresses of `array[indices]` for the call's "array" and `indices_param`
/// arguments, with cuTile's per-dimension bounds mask when `check_bounds`.
std::optional<ElementAccess> element_access(OpCall& c, const std::string& indices_param, bool check_bounds,
                                            const std::string& hint);
void record_element_site(OpCall& c, const ElementAccess& ea, bool check_bounds);
std::optional<bool> check_bounds_arg(OpCall& c);

/// `check_bounds=`: a constant, or a compile-time condition only Triton
/// knows (e.g. `check_bound = TILE != N`); then masks apply only when the
/// condition holds (`mask=m if cond else None`): unchecked accesses are the
/// caller's promise of in-bounds indices in cuTile.
struct BoundsCheck {
  bool on = true;     // bounds masks are built
  TExprPtr cond;      // non-null: they apply only when this constexpr holds
};
std::optional<BoundsCheck> bounds_check_arg(OpCall& c);
/// `value if bc.cond else alt` (just `value` for an unconditional check).
TExprPtr when_checked(const BoundsCheck& bc, TExprPtr value, TExprPtr alt);
/// `memory_order=` / `memory_scope=` of an atomic as Triton's sem= / scope=
/// (nothing for cuTile's defaults ACQ_REL / DEVICE, which are Triton's);
/// false after a diagnostic.
bool atomic_memory_kwargs(OpCall& c, std::vector<std::pair<std::string, TExprPtr>>& kw);
/// An atomic's update for pointers of `shape`: a lower-rank tile gets leading
/// unit axes and is broadcast (Triton's atomics broadcast only between equal
/// ranks); numbers and scalars stay as they are.
TExprPtr atomic_update(Lowerer& L, const LVal& update, const sema::Shape& shape, const sema::DType& elem);
/// tl.atomic_cas at `ptrs` with cuTile's semantics: `expected`/`desired`
/// broadcast to `shape`; where `mask` (may be null) is false, memory is not
/// changed (the lane swaps `base` with itself) and `expected` is returned.
/// `mask_name` names the bound mask in the output.
LVal atomic_cas_at(OpCall& c, TExprPtr ptrs, TExprPtr base, TExprPtr mask, LVal expected, LVal desired,
                   const std::vector<std::pair<std::string, TExprPtr>>& kw, const sema::Shape& shape,
                   const sema::DType& elem, const std::string& mask_name);
/// `padding_value=` of a masked load as Triton's `other=` (zero padding when
/// absent); nullopt after a diagnostic.
std::optional<TExprPtr> padding_value_arg(OpCall& c, const sema::DType& elem);
/// bounds-mask & user `mask=` (broadcasting `shape`).
TExprPtr combine_user_mask(OpCall& c, TExprPtr mask, sema::Shape& shape);

}  // namespace c2t::lower
