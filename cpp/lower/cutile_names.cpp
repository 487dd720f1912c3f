#include "lower/cutile_names.h"

#include <algorithm>
#include <array>

namespace c2t::lower {

namespace {
constexpr std::array<std::string_view, 144> kNames = {
    "Array", "ArrayAnnotation", "ByTarget", "Constant", "ConstantAnnotation", "DType", "IndexedWithInt64",
    "ListAnnotation", "MemoryOrder", "MemoryScope", "PaddingMode", "RoundingMode", "Scalar", "ScalarInt64",
    "Slice", "Tile", "TiledView", "abs", "add", "arange", "argmax", "argmin", "assert_", "assume_divisible_by",
    "astile", "astype", "atan2", "atomic_add", "atomic_and", "atomic_cas", "atomic_max", "atomic_min",
    "atomic_or", "atomic_xchg", "atomic_xor", "bfloat16", "bid", "bitcast", "bitwise_and", "bitwise_lshift",
    "bitwise_not", "bitwise_or", "bitwise_rshift", "bitwise_xor", "bool_", "broadcast_to", "cat", "cdiv", "ceil",
    "compiler_timeout", "cos", "cosh", "cumprod", "cumsum", "divmod", "ensure_constant", "equal", "exp", "exp2",
    "expand_dims", "extract", "float16", "float32", "float4_e2m1fn", "float64", "float8_e4m3fn", "float8_e5m2",
    "float8_e5m3fnu", "float8_e8m0fnu", "floor", "floordiv", "full", "function", "gather", "greater",
    "greater_equal", "grid_dependency_control_launch_dependents", "grid_dependency_control_wait", "insert",
    "int16", "int32", "int64", "int8", "isnan", "kernel", "launch", "less", "less_equal", "load",
    "load_advanced_indexing", "log", "log2", "matmul", "max", "maximum", "min", "minimum", "mma", "mma_scaled",
    "mod", "mul", "negative", "not_equal", "num_blocks", "num_tiles", "ones", "pack_to_bytes", "permute", "pow",
    "print", "printf", "prod", "reduce", "reshape", "rsqrt", "scan", "scatter", "sin", "sinh", "sqrt",
    "static_assert", "static_eval", "static_iter", "store", "store_advanced_indexing", "sub", "sum", "tan",
    "tanh", "tfloat32", "transpose", "truediv", "uint16", "uint32", "uint64", "uint8", "unpack_from_bytes",
    "where", "zeros", "zeros_like", "full_like", "ones_like", "tile", "tune"};
}  // namespace

const std::vector<std::string_view>& cutile_public_names() {
  static const std::vector<std::string_view> names(kNames.begin(), kNames.end());
  return names;
}

bool is_cutile_public_name(std::string_view name) {
  // The table is small; a linear scan keeps it free of ordering mistakes.
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

}  // namespace c2t::lower
