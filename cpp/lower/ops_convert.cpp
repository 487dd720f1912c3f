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
  return ops::cast_to(c.L, x, *to, c.node, rounding);
}

}  // namespace

void register_convert_ops(Registry& r) {
  r.add("astype", "convert", "x, dtype, /, *, rounding_mode=", astype,
        "x.to(dtype); tfloat32 keeps fp32 data and selects input_precision='tf32' in tl.dot");
  r.add("Tile.astype", "convert", "x, dtype, *, rounding_mode=", astype, "x.to(dtype)");
  r.add("bitcast", "convert", "x, dtype", [](OpCall& c) {
    auto to = dtype_arg(c, "dtype");
    if (!to) return LVal{};
    LVal& x = c.arg("x");
    if (!x.ok()) return LVal{};
    auto tdt = to->triton();
    if (tdt.empty()) {
      c.L.unsupported(c.node, "bitcast", "ct.bitcast to this dtype is not supported (no Triton dtype)");
      return LVal{};
    }
    return ops::make_value(method(x.expr, "to", {raw(tdt)}, {{"bitcast", lit("True")}}), ops::shape_of(x), *to);
  }, "x.to(dtype, bitcast=True)");
}

}  // namespace c2t::lower
