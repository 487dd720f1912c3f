// Dtype conversion: ct.astype / Tile.astype / ct.bitcast (cuTile §3.8).
#include "lower/op_registry.h"
#include "lower/ops_common.h"

namespace c2t::lower {

namespace {

std::optional<sema::DType> dtype_arg(OpCall& c, const std::string& p) {
  LVal& d = c.arg(p);
  if (!d.ok()) return std::nullopt;
  if (d.info.kind != sema::VKind::DTypeV) {
    c.L.error(c.at(p), "expected a dtype (e.g. ct.float32 or A.dtype)");
    return std::nullopt;
  }
  return d.info.dtype;
}

LVal astype(OpCall& c) {
  auto to = dtype_arg(c, "dtype");
  if (!to) return {};
  std::string rounding;
  if (c.has("rounding_mode")) {
    auto rm = ops::rounding_arg(c.L, c.arg("rounding_mode"), c.at("rounding_mode"));
    if (!rm) return {};
    rounding = *rm;
  }
  LVal& x = c.arg("x");
  if (to->kind == sema::DType::Kind::Dynamic) {
    c.L.error(c.at("dtype"), "cannot determine this target dtype");
    return {};
  }
  LVal r = ops::cast_to(c.L, x, *to, c.node, rounding);
  // A loaded tile cast to a dtype that may be fp8 (the same fp8 dtype: a no-op) stays that
  // parameter's tile for the K-major layout of fp8 products (lower/k_major.h; the runtime copies
  // only fp8 arrays, so a cast that is no no-op costs at most an unneeded copy).
  if (x.origin && r.ok() && to->may_be_fp8()) r.origin = x.origin;
  return r;
}

// ct.pack_to_bytes (cuTile _stub.py): the tile flattened and its raw bits
// reinterpreted as a 1-D uint8 tile (total bits divisible by 8, not bool).
// 8-bit dtypes: a bitcast; float4_e2m1fn (uint8 codes here): two codes per
// byte, the first in the low nibble. Wider dtypes are not supported yet.
LVal pack_to_bytes(OpCall& c) {
  LVal& x = c.arg("x");
  if (!x.ok()) return {};
  if (x.info.kind != sema::VKind::Tile || x.info.shape.unknown_rank) {
    c.L.error(c.at("x"), "ct.pack_to_bytes needs a tile of known rank");
    return {};
  }
  std::optional<long long> n = 1;
  std::string total;  // the element count as a constexpr expression ("" if unknown)
  for (auto& d : x.info.shape) {
    n = n && d.value ? std::optional<long long>(*n * *d.value) : std::nullopt;
    total = d.expr.empty() || (total.empty() && &d != &x.info.shape[0]) ? std::string("?")
            : total.empty() ? "(" + d.expr + ")" : total + " * (" + d.expr + ")";
  }
  if (total.find('?') != std::string::npos) total.clear();
  const auto& dt = x.info.dtype;
  if (x.info.is_bool || dt.is("bool_")) {
    c.L.error(c.at("x"), "ct.pack_to_bytes from a bool_ tile is not allowed (cuTile)");
    return {};
  }
  if (dt.is("float4_e2m1fn")) {
    if (n && *n % 2 != 0) {
      c.L.error(c.at("x"), "ct.pack_to_bytes: the tile's total bits (" + std::to_string(*n * 4) +
                               ") must be divisible by 8");
      return {};
    }
    sema::Shape out{n ? sema::Dim::known(*n / 2) : total.empty() ? sema::Dim{} : sema::Dim::sym("(" + total + ") // 2")};
    return ops::make_value(call(name(c.L.prelude("_c2t_pack_e2m1")), {x.expr}), out,
                           sema::DType::concrete("uint8"));
  }
  if (!dt.known() || !dt.desc() || dt.desc()->bits != 8 || dt.triton().empty()) {
    c.L.unsupported(c.node, "pack_to_bytes " + (dt.known() ? dt.name : std::string("dtype")),
                    "ct.pack_to_bytes is supported for 8-bit dtypes and float4_e2m1fn only" +
                        std::string(dt.known() ? "" : " (this tile's dtype is known only to Triton)"));
    return {};
  }
  sema::Shape out{n ? sema::Dim::known(*n) : total.empty() ? sema::Dim{} : sema::Dim::sym(total)};
  TExprPtr flat = x.expr;
  if (x.info.shape.size() != 1) {
    if (!n && total.empty()) {
      c.L.unsupported(c.node, "pack_to_bytes shape", "ct.pack_to_bytes needs a tile of static shape here");
      return {};
    }
    flat = tl_call("reshape", {x.expr, list({n ? lit_int(*n) : raw(total)})});
  }
  TExprPtr e = dt.is("uint8") ? flat : method(flat, "to", {tl_attr("uint8")}, {{"bitcast", lit("True")}});
  return ops::make_value(e, out, sema::DType::concrete("uint8"));
}

}  // namespace

void register_convert_ops(Registry& r) {
  r.add("pack_to_bytes", "convert", "x, /", pack_to_bytes,
        "8-bit: tl.reshape + bitcast to uint8; float4_e2m1fn (uint8 codes): _c2t_pack_e2m1, low nibble first");
  r.add("astype", "convert", "x, dtype, /, *, rounding_mode=", astype,
        "x.to(dtype); tfloat32 keeps fp32 data and selects input_precision='tf32' in tl.dot");
  r.add("Tile.astype", "convert", "x, dtype, *, rounding_mode=", astype, "x.to(dtype)");
  r.add("bitcast", "convert", "x, dtype", [](OpCall& c) {
    auto to = dtype_arg(c, "dtype");
    if (!to) return LVal{};
    LVal& x = c.arg("x");
    if (!x.ok()) return LVal{};
    if (!ops::is_number_like(x)) {  // a function, module or array: nothing to reinterpret
      c.L.error(c.at("x"), "ct.bitcast takes a number, scalar or tile");
      return LVal{};
    }
    auto tdt = to->triton();
    if (tdt.empty()) {
      c.L.unsupported(c.node, "bitcast", "ct.bitcast to this dtype is not supported (no Triton dtype)");
      return LVal{};
    }
    return ops::make_value(method(x.expr, "to", {raw(tdt)}, {{"bitcast", lit("True")}}), ops::shape_of(x), *to);
  }, "x.to(dtype, bitcast=True)");
}

}  // namespace c2t::lower
