#include "sema/dtype.h"

#include <array>

namespace c2t::sema {
namespace {

using C = DTypeCategory;
constexpr std::array<DTypeDesc, 19> kDTypes = {{
    {"bool_", "tl.int1", 8, C::Bool},
    {"int8", "tl.int8", 8, C::SignedInt},
    {"int16", "tl.int16", 16, C::SignedInt},
    {"int32", "tl.int32", 32, C::SignedInt},
    {"int64", "tl.int64", 64, C::SignedInt},
    {"uint8", "tl.uint8", 8, C::UnsignedInt},
    {"uint16", "tl.uint16", 16, C::UnsignedInt},
    {"uint32", "tl.uint32", 32, C::UnsignedInt},
    {"uint64", "tl.uint64", 64, C::UnsignedInt},
    {"float16", "tl.float16", 16, C::Float},
    {"bfloat16", "tl.bfloat16", 16, C::Float},
    {"float32", "tl.float32", 32, C::Float},
    {"float64", "tl.float64", 64, C::Float},
    {"tfloat32", "tl.float32", 32, C::RestrictedFloat},
    {"float8_e4m3fn", "tl.float8e4nv", 8, C::RestrictedFloat},
    {"float8_e5m2", "tl.float8e5", 8, C::RestrictedFloat},
    {"float8_e8m0fnu", "", 8, C::RestrictedFloat},
    {"float8_e5m3fnu", "", 8, C::RestrictedFloat},
    {"float4_e2m1fn", "", 4, C::RestrictedFloat},
}};

struct Alias { std::string_view from, to; };
// NumPy / torch spellings accepted by cuTile wherever a dtype is expected.
constexpr std::array<Alias, 9> kAliases = {{
    {"bool", "bool_"}, {"half", "float16"}, {"float", "float32"}, {"double", "float64"},
    {"int", "int32"}, {"long", "int64"}, {"short", "int16"}, {"float8_e4m3fn", "float8_e4m3fn"},
    {"bfloat16", "bfloat16"},
}};

}  // namespace

const DTypeDesc* find_dtype(std::string_view name) {
  for (auto& a : kAliases)
    if (a.from == name) { name = a.to; break; }
  for (auto& d : kDTypes)
    if (d.name == name) return &d;
  return nullptr;
}

const DTypeDesc* promote(const DTypeDesc* a, const DTypeDesc* b) {
  if (!a || !b) return nullptr;
  if (a == b) return a;
  if (a->category == C::RestrictedFloat || b->category == C::RestrictedFloat) return nullptr;
  if (a->category == C::Bool) return b;  // bool only appears after an explicit cast in arithmetic
  if (b->category == C::Bool) return a;
  if (a->category == C::Float && b->category == C::Float) {
    if ((a->name == "float16" && b->name == "bfloat16") || (a->name == "bfloat16" && b->name == "float16"))
      return nullptr;
    return a->bits >= b->bits ? a : b;
  }
  if (a->category == C::Float) return a;  // int x float -> the float (int x float16 = float16)
  if (b->category == C::Float) return b;
  if (a->category != b->category) return nullptr;  // signed x unsigned is an error in cuTile
  return a->bits >= b->bits ? a : b;
}

}  // namespace c2t::sema
