// cuTile element data types and their Triton spellings.
//
// Source: cuTile `_datatype.py` (names, bit widths, categories) and
// reference/cutile_api.md §3.19; Triton names from triton.language (3.6).
// Restricted floats (tfloat32, fp8, fp4, e8m0) are never implicitly promoted
// in cuTile. tfloat32 has no Triton dtype: a tile "of dtype tfloat32" is an
// fp32 tile whose consuming tl.dot runs with input_precision="tf32".
#pragma once

#include <string>
#include <string_view>

namespace c2t::sema {

enum class DTypeCategory { Bool, SignedInt, UnsignedInt, Float, RestrictedFloat };

struct DTypeDesc {
  std::string_view name;     // cuTile name without the module: "float32", "bool_"
  std::string_view triton;   // Triton spelling ("tl.float32"); "" when Triton has none
  int bits;
  DTypeCategory category;
};

/// Looks up a cuTile dtype by its cuTile name ("float16"), NumPy name
/// ("float16", "bool", "uint8") or torch name ("half", "float"). nullptr if unknown.
const DTypeDesc* find_dtype(std::string_view name);

/// Promotion of two *concrete* dtypes for arithmetic, per cuTile's table
/// (`_datatype.py` / `_ir/ops_utils.py`): same-signedness ints widen, int x
/// float -> the float, floats widen. Returns nullptr for combinations cuTile
/// rejects (signed x unsigned, float16 x bfloat16, restricted floats mixed).
const DTypeDesc* promote(const DTypeDesc* a, const DTypeDesc* b);

inline bool is_float(const DTypeDesc* d) {
  return d && (d->category == DTypeCategory::Float || d->category == DTypeCategory::RestrictedFloat);
}
inline bool is_int(const DTypeDesc* d) {
  return d && (d->category == DTypeCategory::SignedInt || d->category == DTypeCategory::UnsignedInt);
}

}  // namespace c2t::sema
