// What the compiler knows about one value of tile code (stage sema).
//
// cuTile values are: arrays (global memory: pointer + runtime shape/strides,
// compile-time dtype and rank), tiles (immutable, static power-of-two shape,
// dtype; a 0-d tile is a scalar), compile-time constants (Constant[...]
// parameters, literals, folded module constants), dtypes, tuples and
// references to cuTile functions (reference/cutile_api.md §2).
//
// Shapes and dtypes are kept *symbolically*: a tile dimension is a Triton
// constexpr expression in the scope of the function being lowered
// ("TILE_SIZE", "2 * BLOCK", "16"), with its integer value when known; a
// dtype is a cuTile dtype name when known, otherwise a Triton expression
// evaluating to the tl.dtype ("A_ptr.dtype.element_ty"), a compile-time
// selection between two dtypes, or "dynamic" (Triton computes the same dtype
// as cuTile, but we only know it through the value itself, `x.dtype`).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sema/const_value.h"
#include "sema/dtype.h"

namespace c2t::sema {

/// Sign knowledge for integer values; decides where Python floor `//` and
/// `%` may be printed as Triton's truncating operators (equal for operands >= 0).
enum class Sign { Unknown, NonNeg, Pos };

inline Sign sign_join(Sign a, Sign b) {  // sign after control-flow merge
  if (a == b) return a;
  if (a == Sign::Unknown || b == Sign::Unknown) return Sign::Unknown;
  return Sign::NonNeg;
}
inline bool nonneg(Sign s) { return s != Sign::Unknown; }

/// One tile dimension: Triton constexpr expression text (empty = only known
/// through the value, `x.shape[k]`) and its value when known. `maybe_one`: a
/// symbolic extent that is 1 in some specializations and not in others (the
/// reduced axis of a keepdims reduction along a ct.Constant axis), so
/// broadcasting takes the other operand's extent (broadcast_shapes).
struct Dim {
  std::string expr;
  std::optional<long long> value;
  bool maybe_one = false;
  static Dim known(long long v) { return {std::to_string(v), v}; }
  static Dim sym(std::string e) { return {std::move(e), std::nullopt}; }
  bool is_one() const { return value && *value == 1; }
  bool same(const Dim& o) const {
    if (value && o.value) return *value == *o.value;
    return !expr.empty() && expr == o.expr;
  }
};
/// A tile shape. `unknown_rank` marks a tile whose rank differs between
/// constexpr-specialized paths (e.g. `if BLOCK_W == 1: t = ct.zeros((C,))
/// else: t = ct.zeros((C, W))`): Triton resolves it per specialization, the
/// converter only knows it is a tile.
struct Shape : std::vector<Dim> {
  using std::vector<Dim>::vector;
  bool unknown_rank = false;
  static Shape unknown() { Shape s; s.unknown_rank = true; return s; }
  bool is_tile() const { return unknown_rank || !empty(); }
};

struct DType {
  enum class Kind { Dynamic, Concrete, Symbolic, Select };
  Kind kind = Kind::Dynamic;
  std::string name;   // Concrete: cuTile dtype name
  std::string texpr;  // Symbolic: Triton expression of the tl.dtype; Select: the constexpr condition
  std::shared_ptr<DType> then_, else_;  // Select
  std::string alias;  // a Triton local holding this dtype (printed instead of the expression)

  static DType dynamic() { return {}; }
  static DType concrete(std::string n) { DType d; d.kind = Kind::Concrete; d.name = std::move(n); return d; }
  static DType symbolic(std::string e) { DType d; d.kind = Kind::Symbolic; d.texpr = std::move(e); return d; }
  static DType select(std::string cond, DType a, DType b) {
    DType d; d.kind = Kind::Select; d.texpr = std::move(cond);
    d.then_ = std::make_shared<DType>(std::move(a)); d.else_ = std::make_shared<DType>(std::move(b));
    return d;
  }
  const DTypeDesc* desc() const { return kind == Kind::Concrete ? find_dtype(name) : nullptr; }
  bool is(std::string_view n) const { return kind == Kind::Concrete && name == n; }
  bool known() const { return kind == Kind::Concrete; }
  /// Triton spelling, or "" for Dynamic (callers then use `value.dtype`).
  std::string triton() const;
  bool same(const DType& o) const;
  /// False only when this is certainly not an fp8 dtype (a dtype only Triton knows may be one).
  bool may_be_fp8() const;
  /// Whether this is tfloat32 or a compile-time selection with a tfloat32 branch: the one dtype Triton
  /// code cannot tell from fp32 (it holds tf32 values in fp32), so a product's input_precision and a
  /// conversion to it follow the conversion's own record.
  bool may_be_tf32() const;
  /// True/false when the dtype is certainly a float / certainly not; nullopt if unknown.
  std::optional<bool> is_float() const;
  std::optional<bool> is_int() const;  // signed/unsigned integer (not bool)
};

enum class VKind {
  Unknown,
  None,        // Python None
  Constexpr,   // compile-time number/bool/str (value in cval when known at conversion time)
  Scalar,      // runtime 0-d value
  Tile,        // runtime tile of rank >= 1
  Array,       // global-memory array
  ArrayList,   // list of arrays (indexed with a runtime int; `len` is its runtime length)
  DTypeV,      // a dtype value (dtype field)
  Tuple,       // elems
  Enum,        // cval = Enum member
  CtFunc,      // a cuTile function/class (ref = qualified name)
  Method,      // a bound method (ref = method name, receiver in the lowering value)
  Module,      // ref = "math" / "numpy" / "torch" / "ct" / ...
  Function,    // a plain helper function (ref = name)
  Builtin,     // ref = "range", "min", ...
  Slice,       // ct.Slice(start, length)
  RawMemory,   // Array.get_raw_memory(): the array's base pointer, addressed by element offsets
  TiledView,   // Array.tiled_view(...): the array plus a constant tile shape, steps and padding
};

struct ValueInfo {
  VKind kind = VKind::Unknown;
  Shape shape;                      // Tile
  DType dtype;                      // Tile/Scalar/Array element type, or the DTypeV value
  Sign sign = Sign::Unknown;        // integer Scalars/Tiles/Constexprs
  std::optional<ConstValue> cval;   // compile-time value when known
  bool is_bool = false;             // comparison result (Triton int1)
  int rank = -1;                    // Array
  std::vector<ValueInfo> elems;     // Tuple
  std::string ref;                  // CtFunc/Method/Module/Function/Builtin name

  bool is_tile_like() const { return kind == VKind::Tile || kind == VKind::Scalar; }
  bool is_runtime() const { return is_tile_like(); }
  bool is_compile_time() const { return kind == VKind::Constexpr || kind == VKind::DTypeV || kind == VKind::Enum || kind == VKind::None; }
  int tile_rank() const { return kind == VKind::Tile ? (int)shape.size() : 0; }
};

/// NumPy broadcasting of two static shapes (cuTile broadcasts like NumPy).
/// Returns nullopt when the shapes are known to be incompatible.
/// True when `from` broadcasts to exactly `to` (cuTile
/// is_shape_broadcastable_to): rank at most `to`'s and, right-aligned, each
/// extent 1 or equal. Symbolic extents are taken as compatible (a valid
/// program has them equal; Triton checks them when it compiles).
bool broadcasts_to(const Shape& from, const Shape& to);

/// What a value of kind `k` is, for diagnostics ("None", "an array", "a tuple", ...).
const char* describe_kind(VKind k);
std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b);

}  // namespace c2t::sema
