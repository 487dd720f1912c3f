#include "lower/prelude.h"

#include <functional>
#include <set>

namespace c2t::lower {
namespace {

const std::vector<PreludeHelper>& helpers() {
  static const std::vector<PreludeHelper> h = {
      {"_c2t_floordiv", {}, R"PY(@triton.jit
def _c2t_floordiv(a, b):
    # cuTile `//` rounds toward -inf (Python): Triton's integer `//` truncates toward 0,
    # and Triton has no float `//` (cuTile: floor(a / b)).
    res_ty = (a + b).dtype
    if res_ty.is_floating():
        if res_ty == tl.float64:
            q = tl.floor(tl.cast(a, tl.float64) / tl.cast(b, tl.float64))
        else:
            q = tl.floor(tl.div_rn(tl.cast(a, tl.float32), tl.cast(b, tl.float32))).to(res_ty)
    else:
        q = a // b
        q = q - ((q * b != a) & ((a < 0) != (b < 0))).to(q.dtype)
    return q
)PY"},
      {"_c2t_mod", {}, R"PY(@triton.jit
def _c2t_mod(a, b):
    # cuTile `%` takes the sign of the divisor (Python); Triton's `%` takes the sign of the dividend.
    r = a % b
    return tl.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)
)PY"},
      {"_c2t_cdiv", {"_c2t_floordiv"}, R"PY(@triton.jit
def _c2t_cdiv(a, b):
    # ct.cdiv is a true ceiling division, also for negative operands; tl.cdiv is (a + b - 1) // b.
    return -_c2t_floordiv(-a, b)
)PY"},
      {"_c2t_truediv", {}, R"PY(@triton.jit
def _c2t_truediv(x, y):
    # cuTile `/` rounds to nearest (IEEE) and keeps the promoted float dtype (int / int -> float32);
    # Triton's fp32 `/` is approximate and promotes fp16 / bf16 to fp32.
    res_ty = (x + y).dtype
    if res_ty == tl.float64:
        q = tl.cast(x, tl.float64) / tl.cast(y, tl.float64)
    else:
        q = tl.div_rn(tl.cast(x, tl.float32), tl.cast(y, tl.float32))
        if res_ty == tl.float16 or res_ty == tl.bfloat16:
            q = q.to(res_ty)
    return q
)PY"},
      {"_c2t_math_in", {}, R"PY(@triton.jit
def _c2t_math_in(x):
    # Triton's math functions accept fp32/fp64 only; cuTile computes fp16/bf16 natively
    # and converts integer inputs to float32.
    if x.dtype == tl.float64:
        y = x
    else:
        y = x.to(tl.float32)
    return y
)PY"},
      {"_c2t_math_out", {}, R"PY(@triton.jit
def _c2t_math_out(r, x):
    # Result dtype of a cuTile math function: the input's float dtype, float32 for integer inputs.
    if x.dtype == tl.float16 or x.dtype == tl.bfloat16:
        y = r.to(x.dtype)
    else:
        y = r
    return y
)PY"},
      {"_c2t_tanh", {}, R"PY(@triton.jit
def _c2t_tanh(x):
    # Triton 3.6 has no tl.tanh (libdevice does not run in the interpreter);
    # tanh(x) = sign(x) * (1 - e) / (1 + e) with e = exp(-2|x|), accurate for fp32.
    e = tl.exp(-2.0 * tl.abs(x))
    t = (1.0 - e) / (1.0 + e)
    return tl.where(x < 0, -t, t)
)PY"},
      {"_c2t_item", {}, R"PY(@triton.jit
def _c2t_item(x):
    # Tile.item(): the single element of a one-element tile as a scalar (Triton has no 0-d blocks).
    return tl.sum(tl.reshape(x, [1]), axis=0).to(x.dtype)
)PY"},
      {"_c2t_sqrt_rn", {}, R"PY(@triton.jit
def _c2t_sqrt_rn(x):
    # cuTile sqrt rounds to nearest (IEEE); tl.sqrt is sqrt.approx for fp32, tl.sqrt_rn takes fp32 only.
    if x.dtype == tl.float64:
        y = tl.sqrt(x)
    else:
        y = tl.sqrt_rn(x.to(tl.float32))
    return y
)PY"},
      {"_c2t_mul_combine", {}, R"PY(@triton.jit
def _c2t_mul_combine(a, b):
    # combine function of ct.prod (Triton has no tl.prod)
    return a * b
)PY"},
      {"_c2t_isnan", {}, R"PY(@triton.jit
def _c2t_isnan(x):
    # ct.isnan (cuTile lowers it to x != x).
    return x != x
)PY"},
  };
  return h;
}

}  // namespace

const PreludeHelper* find_prelude(const std::string& name) {
  for (auto& h : helpers())
    if (h.name == name) return &h;
  return nullptr;
}

std::string prelude_source(const std::vector<std::string>& names) {
  std::set<std::string> done;
  std::string out;
  std::function<void(const std::string&)> add = [&](const std::string& n) {
    if (done.count(n)) return;
    auto* h = find_prelude(n);
    if (!h) return;
    done.insert(n);
    for (auto& d : h->deps) add(d);
    if (!out.empty()) out += "\n\n";
    out += h->source;
  };
  // Emit in the fixed table order so the output does not depend on request order.
  for (auto& h : helpers())
    for (auto& n : names)
      if (n == h.name) add(n);
  return out;
}

}  // namespace c2t::lower
