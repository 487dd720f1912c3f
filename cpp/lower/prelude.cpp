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
            # the quotient is rounded to the result dtype first (cuTile divides in fp16 /
            # bf16), then floored; fp32 division then rounding is exact (24 >= 2 * 11 + 2)
            q = tl.div_rn(tl.cast(a, tl.float32), tl.cast(b, tl.float32)).to(res_ty)
            q = tl.floor(q.to(tl.float32)).to(res_ty)
    else:
        q = a // b
        q = q - ((q * b != a) & ((a < 0) != (b < 0))).to(q.dtype)
    return q
)PY"},
      {"_c2t_cast_back", {}, R"PY(@triton.jit
def _c2t_cast_back(r, dtype: tl.constexpr):
    # cuTile keeps a reduction's input dtype, except that bools count as int32
    if dtype == tl.int1:
        return r.to(tl.int32)
    else:
        return r.to(dtype)
)PY"},
      {"_c2t_neg", {}, R"PY(@triton.jit
def _c2t_neg(x):
    # cuTile negates floats by flipping the sign (also of zeros); Triton's -x is 0 - x
    if x.dtype.is_floating():
        return x * -1.0
    else:
        return -x
)PY"},
      {"_c2t_scalar_arg", {}, R"PY(@triton.jit
def _c2t_scalar_arg(x):
    # a scalar kernel argument as a tensor, as cuTile's are: Triton makes an int argument equal to 1
    # a Python constant on the GPU (its launcher specializes it; int8 tile + 1 then stays int8), and
    # the CPU interpreter passes floats as Python floats; for a tensor this is x itself. (None, which
    # cuTile takes only for Constant parameters, never reaches it: those are tl.constexpr here.)
    return tl.where(True, x, x)
)PY"},
      {"_c2t_neg_zero", {}, R"PY(@triton.jit
def _c2t_neg_zero(dtype: tl.constexpr = tl.float32):
    # -0.0 as a value: Triton materializes every constant equal to zero as +0.0
    return tl.full([], -1.0, dtype) * 0.0
)PY"},
      {"_c2t_bits_ptr", {}, R"PY(@triton.jit
def _c2t_bits_ptr(ptrs):
    # the same addresses as integers of the element width: Triton's atomics take 32/64-bit integers
    bits: tl.constexpr = ptrs.dtype.element_ty.primitive_bitwidth
    tl.static_assert(bits == 32 or bits == 64, "a load or store with a memory order needs 32- or 64-bit elements")
    if bits == 32:
        return ptrs.to(tl.pointer_type(tl.int32))
    else:
        return ptrs.to(tl.pointer_type(tl.int64))
)PY"},
      {"_c2t_load_ordered", {"_c2t_bits_ptr"}, R"PY(@triton.jit
def _c2t_load_ordered(ptrs, mask, other, SEM: tl.constexpr, SCOPE: tl.constexpr):
    # cuTile ct.load(memory_order=RELAXED/ACQUIRE): tl.load has no memory order, so each element is
    # read by an atomic OR with 0 on its bits (never changes memory, not even -0.0 or a NaN payload)
    v = tl.atomic_or(_c2t_bits_ptr(ptrs), 0, mask=mask, sem=SEM, scope=SCOPE).to(ptrs.dtype.element_ty, bitcast=True)
    if mask is not None:
        v = tl.where(mask, v, other)
    return v
)PY"},
      {"_c2t_store_ordered", {"_c2t_bits_ptr"}, R"PY(@triton.jit
def _c2t_store_ordered(ptrs, value, mask, SEM: tl.constexpr, SCOPE: tl.constexpr):
    # cuTile ct.store(memory_order=RELAXED/RELEASE): tl.store has no memory order, so each element is
    # written by an atomic exchange of its bits with that order
    bits = _c2t_bits_ptr(ptrs)
    v = tl.cast(value, ptrs.dtype.element_ty).to(bits.dtype.element_ty, bitcast=True)
    tl.atomic_xchg(bits, v, mask=mask, sem=SEM, scope=SCOPE)
)PY"},
      {"_c2t_mod", {}, R"PY(@triton.jit
def _c2t_mod(a, b):
    # cuTile `%` takes the sign of the divisor (Python); Triton's `%` takes the sign of the dividend.
    r = a % b
    return tl.where((r != 0) & ((r < 0) != (b < 0)), r + b, r)
)PY"},
      {"_c2t_e8m0_to_f32", {}, R"PY(@triton.jit
def _c2t_e8m0_to_f32(s):
    # float8_e8m0fnu (OCP MX scale: 8 exponent bits, bias 127, no sign, no mantissa), passed to
    # Triton as its uint8 bits s: 2^(s - 127), and NaN for 0xFF. Built from the fp32 bit pattern
    # (exact, also 2^-127, the one subnormal), not with exp2 (approximate on the GPU).
    b = s.to(tl.int32)
    bits = tl.where(b == 0, 0x00400000, b << 23)
    bits = tl.where(b == 255, 0x7FC00000, bits)
    return bits.to(tl.float32, bitcast=True)
)PY"},
      {"_c2t_mma_scaled", {"_c2t_e8m0_to_f32"}, R"PY(@triton.jit
def _c2t_mma_scaled(x, x_scale, y, y_scale, acc):
    # ct.mma_scaled: acc[i, j] + sum_k x[i, k] * x_scale[i, k // 32] * y[k, j] * y_scale[k // 32, j]
    # for fp8 operands with float8_e8m0fnu scales (block size 32; cuTile _datatype.py). Each scale
    # is expanded over its block and multiplied into its operand in fp32, which is exact (fp8 times
    # a power of two; only results beyond fp32's range round); the products are summed by an IEEE
    # fp32 tl.dot. Blackwell's block-scaled MMA sums in its own order and precision, so results
    # agree to fp32 accumulation rounding, not bit for bit.
    tl.static_assert(x.dtype == y.dtype, "ct.mma_scaled: x and y must have the same dtype")
    tl.static_assert(x.dtype == tl.float8e4nv or x.dtype == tl.float8e5,
                     "ct.mma_scaled: operands must be float8_e4m3fn or float8_e5m2 (fp4 is not supported)")
    tl.static_assert(x_scale.dtype == tl.uint8 and y_scale.dtype == tl.uint8,
                     "ct.mma_scaled: scales must be float8_e8m0fnu (passed to Triton as uint8)")
    tl.static_assert(acc.dtype == tl.float32, "ct.mma_scaled: the accumulator must be float32")
    tl.static_assert(x.shape[1] == 32 * x_scale.shape[1] and x.shape[0] == x_scale.shape[0],
                     "ct.mma_scaled: x_scale must be [M, K // 32]")
    tl.static_assert(y.shape[0] == 32 * y_scale.shape[0] and y.shape[1] == y_scale.shape[1],
                     "ct.mma_scaled: y_scale must be [K // 32, N]")
    xs = tl.broadcast_to(_c2t_e8m0_to_f32(x_scale)[:, :, None], (x_scale.shape[0], x_scale.shape[1], 32))
    xs = tl.reshape(xs, (x.shape[0], x.shape[1]))
    ys = tl.broadcast_to(_c2t_e8m0_to_f32(y_scale)[:, None, :], (y_scale.shape[0], 32, y_scale.shape[1]))
    ys = tl.reshape(ys, (y.shape[0], y.shape[1]))
    return tl.dot(x.to(tl.float32) * xs, y.to(tl.float32) * ys, acc, input_precision="ieee")
)PY"},
      {"_c2t_to_e2m1", {}, R"PY(@triton.jit
def _c2t_to_e2m1(x):
    # ct.astype(x, float4_e2m1fn): Triton has no fp4 dtype, so the result is a uint8 tile of
    # e2m1 codes (bit 3 sign, bits 2-1 exponent with bias 1, bit 0 mantissa; magnitudes
    # 0, 0.5, 1, 1.5, 2, 3, 4, 6). Round to nearest, ties to even; beyond 6 (also inf)
    # saturates to 6 (e2m1 has no inf; PTX's only conversion is cvt.rn.satfinite); signed zeros
    # keep their sign; NaN (which e2m1 cannot represent) becomes code 0x7.
    if x.dtype == tl.float64:
        a = x
        neg = (x.to(tl.uint64, bitcast=True) >> 63) != 0
    else:
        a = x.to(tl.float32)
        neg = (a.to(tl.uint32, bitcast=True) >> 31) != 0
    m = tl.abs(a)
    code = tl.where(m <= 0.25, 0, tl.where(m < 0.75, 1, tl.where(m <= 1.25, 2, tl.where(m < 1.75, 3, 7))))
    code = tl.where(m < 1.75, code, tl.where(m <= 2.5, 4, tl.where(m < 3.5, 5, tl.where(m <= 5.0, 6, 7))))
    code = tl.where(neg & (m == m), code | 8, code)
    return code.to(tl.uint8)
)PY"},
      {"_c2t_pack_e2m1", {}, R"PY(@triton.jit
def _c2t_pack_e2m1(codes):
    # ct.pack_to_bytes of a float4_e2m1fn tile (uint8 e2m1 codes, see _c2t_to_e2m1): flattened
    # in row-major order, element 2i in the low nibble of byte i and element 2i + 1 in the high
    # nibble (little-endian within the byte, as 8-bit elements pack in byte order).
    pairs = tl.reshape(codes, (codes.numel // 2, 2))
    lo, hi = tl.split(pairs)
    return lo | (hi << 4)
)PY"},
      {"_c2t_loose_float", {}, R"PY(@triton.jit
def _c2t_loose_float(x, c, c_fp16, c_bf16):
    # Float constant c compared with tile x, whose dtype is known only here: cuTile gives c x's dtype
    # when x is a float tile (fp16(0.1), not 0.1), else it stays fp32. c_fp16 and c_bf16 are c rounded
    # by the converter (exact in fp32; the interpreter has no bf16 constants).
    if x.dtype == tl.float16:
        return tl.full([], c_fp16, tl.float32)
    if x.dtype == tl.bfloat16:
        return tl.full([], c_bf16, tl.float32)
    if x.dtype == tl.float64:
        return tl.full([], c, tl.float64)
    return tl.full([], c, tl.float32)
)PY"},
      {"_c2t_loose_const", {}, R"PY(@triton.jit
def _c2t_loose_const(x, c):
    # Constant c (a constexpr of a value known only here) compared with tile x: cuTile gives a loosely
    # typed constant x's dtype when x is a float tile (fp16(0.1), not 0.1); Triton would compare in fp32.
    if x.dtype.is_floating():
        return tl.full([], c, x.dtype)
    return c
)PY"},
      {"_c2t_cdiv", {"_c2t_floordiv"}, R"PY(@triton.jit
def _c2t_cdiv(a, b):
    # ct.cdiv is a true ceiling division, also for negative operands; tl.cdiv is (a + b - 1) // b.
    res_ty = (a + b).dtype
    if res_ty.is_int_unsigned():  # -a wraps: the quotient, plus one where a remainder is left
        q = a // b
        return q + (a - q * b != 0).to(res_ty)
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
    # tanh(x) = sign(x) * (1 - e) / (1 + e) with e = exp(-2|x|), except near 0, where 1 - e
    # cancels (tanh(1e-8) came out 0): there the series x - x^3/3 + 2x^5/15 - 17x^7/315
    # + 62x^9/2835 - 1382x^11/155925, within 2e-11 relative below 0.2 (fp32), 2e-23 below 0.02 (fp64).
    a = tl.abs(x)
    e = tl.exp(-2.0 * a)
    t = (1.0 - e) / (1.0 + e)
    t = tl.where(x < 0, -t, t)
    x2 = x * x
    p = x * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0 + x2 * (62.0 / 2835.0 + x2 * (-1382.0 / 155925.0))))))
    if x.dtype == tl.float64:
        return tl.where(a < 0.02, p, t)
    return tl.where(a < 0.2, p, t)
)PY"},
      {"_c2t_tan", {}, R"PY(@triton.jit
def _c2t_tan(x):
    # ct.tan: Triton 3.6 has tan only in libdevice (not runnable in the interpreter);
    # sin / cos with IEEE division (measured <= 2 ulp fp32 / fp64 against a float64 tan).
    if x.dtype == tl.float64:
        y = tl.sin(x) / tl.cos(x)
    else:
        y = tl.div_rn(tl.sin(x), tl.cos(x))
    return y
)PY"},
      {"_c2t_sinh", {}, R"PY(@triton.jit
def _c2t_sinh(x):
    # ct.sinh (libdevice-only in Triton 3.6). |x| < 1: odd Taylor series to x**21 (no cancellation);
    # else e*e/2 - f*f/2 with e = exp(|x|/2), f = exp(-|x|/2), finite up to the true overflow point.
    # Measured <= 3 ulp fp32 / 2 ulp fp64 against a float64 sinh.
    t = tl.abs(x)
    z = t * t
    p = 1.9572941063391263e-20 * z + 8.22063524662433e-18
    p = p * z + 2.8114572543455206e-15
    p = p * z + 7.647163731819816e-13
    p = p * z + 1.6059043836821613e-10
    p = p * z + 2.505210838544172e-08
    p = p * z + 2.7557319223985893e-06
    p = p * z + 0.0001984126984126984
    p = p * z + 0.008333333333333333
    p = p * z + 0.16666666666666666
    e = tl.exp(0.5 * t)
    f = tl.exp(-0.5 * t)
    big = (0.5 * e) * e - (0.5 * f) * f
    return tl.where(t < 1.0, x + x * z * p, tl.where(x < 0, -big, big))
)PY"},
      {"_c2t_cosh", {}, R"PY(@triton.jit
def _c2t_cosh(x):
    # ct.cosh (libdevice-only in Triton 3.6): e*e/2 + f*f/2 with e = exp(|x|/2), f = exp(-|x|/2)
    # (a sum of positives, finite up to the true overflow point; measured <= 3 ulp fp32 / 2 ulp fp64).
    t = tl.abs(x)
    e = tl.exp(0.5 * t)
    f = tl.exp(-0.5 * t)
    return (0.5 * e) * e + (0.5 * f) * f
)PY"},
      {"_c2t_signbit", {}, R"PY(@triton.jit
def _c2t_signbit(x):
    # The IEEE sign bit of a float32 / float64 value (true for -0.0 and -nan too).
    if x.dtype == tl.float64:
        s = x.to(tl.int64, bitcast=True) < 0
    else:
        s = x.to(tl.int32, bitcast=True) < 0
    return s
)PY"},
      {"_c2t_atan01", {}, R"PY(@triton.jit
def _c2t_atan01(r):
    # atan(r) for r in [0, 1]: Cephes atanf (float32) / atan (float64) approximations, with
    # atan(r) = pi/4 + atan((r - 1) / (r + 1)) above tan(pi/8).
    big = r > 0.41421356237309503
    if r.dtype == tl.float64:
        u = tl.where(big, (r - 1.0) / (r + 1.0), r)
        z = u * u
        num = ((((-8.750608600031904122785e-1 * z - 1.615753718733365076637e1) * z - 7.500855792314704667340e1) * z
                - 1.228866684490136173410e2) * z - 6.485021904942025371773e1)
        den = ((((z + 2.485846490142306297962e1) * z + 1.650270098316988542046e2) * z + 4.328810604912902668951e2) * z
               + 4.853903996359136964868e2) * z + 1.945506571482613964425e2
        a = u + u * (z * num / den)
    else:
        u = tl.where(big, tl.div_rn(r - 1.0, r + 1.0), r)
        z = u * u
        a = (((8.05374449538e-2 * z - 1.38776856032e-1) * z + 1.99777106478e-1) * z - 3.33329491539e-1) * z * u + u
    return tl.where(big, 0.7853981633974483 + a, a)
)PY"},
      {"_c2t_atan2", {"_c2t_signbit", "_c2t_atan01"}, R"PY(@triton.jit
def _c2t_atan2(y, x):
    # ct.atan2(y, x) (libdevice-only in Triton 3.6) with C99's special cases (signed zeros, infinities,
    # NaN): atan of min(|x|,|y|) / max(|x|,|y|), then the octant. Measured <= 1.3 ulp fp32 / fp64.
    # (`a * -1.0`, not `-a`: Triton negates as 0 - a, which loses the sign of zero.)
    ax = tl.abs(x)
    ay = tl.abs(y)
    swap = ay > ax
    mn = tl.where(swap, ax, ay)
    mx = tl.where(swap, ay, ax)
    if x.dtype == tl.float64:
        q = mn / mx
    else:
        q = tl.div_rn(mn, mx)
    r = tl.where(mx == 0, 0.0, tl.where(mn == mx, 1.0, q))
    a = _c2t_atan01(r)
    a = tl.where(swap, 1.5707963267948966 - a, a)
    a = tl.where(_c2t_signbit(x), 3.141592653589793 - a, a)
    a = tl.where(_c2t_signbit(y), a * -1.0, a)
    return tl.where(x != x, x + y, tl.where(y != y, x + y, a))
)PY"},
      {"_c2t_atan2_any", {"_c2t_atan2"}, R"PY(@triton.jit
def _c2t_atan2_any(y, x):
    # ct.atan2 when the operand dtypes are known only to Triton: cuTile's promoted float dtype is that
    # of y + x; fp16 / bf16 are computed in fp32 and rounded back. (tl.cast: an operand may be a literal.)
    res_ty = (y + x).dtype
    if res_ty == tl.float64:
        r = _c2t_atan2(tl.cast(y, tl.float64), tl.cast(x, tl.float64))
    else:
        r = _c2t_atan2(tl.cast(y, tl.float32), tl.cast(x, tl.float32))
        if res_ty == tl.float16 or res_ty == tl.bfloat16:
            r = r.to(res_ty)
    return r
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
      {"_c2t_max_nan_combine", {}, R"PY(@triton.jit
def _c2t_max_nan_combine(a, b):
    # combine of ct.max(propagate_nan=True): a NaN wins (tl.max has no NaN option).
    return tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL).to(a.dtype)
)PY"},
      {"_c2t_min_nan_combine", {}, R"PY(@triton.jit
def _c2t_min_nan_combine(a, b):
    # combine of ct.min(propagate_nan=True): a NaN wins (tl.min has no NaN option).
    return tl.minimum(a, b, propagate_nan=tl.PropagateNan.ALL).to(a.dtype)
)PY"},
      {"_c2t_argmax_combine", {}, R"PY(@triton.jit
def _c2t_argmax_combine(v1, i1, v2, i2):
    # combine of ct.argmax: NaN is the worst value (an all-NaN slice gives its first index), ties -> the
    # smaller index. tl.argmax's combine is not NaN-aware (order-dependent result).
    first = i1 < i2
    better = (v1 > v2) | ((v1 == v2) & first)
    pick1 = tl.where(v2 != v2, (v1 == v1) | first, better)
    return tl.where(pick1, v1, v2), tl.where(pick1, i1, i2)
)PY"},
      {"_c2t_argmin_combine", {}, R"PY(@triton.jit
def _c2t_argmin_combine(v1, i1, v2, i2):
    # combine of ct.argmin: NaN is the worst value (an all-NaN slice gives its first index), ties -> the
    # smaller index. tl.argmin's combine is not NaN-aware (order-dependent result).
    first = i1 < i2
    better = (v1 < v2) | ((v1 == v2) & first)
    pick1 = tl.where(v2 != v2, (v1 == v1) | first, better)
    return tl.where(pick1, v1, v2), tl.where(pick1, i1, i2)
)PY"},
      {"_c2t_argmax_nan_combine", {}, R"PY(@triton.jit
def _c2t_argmax_nan_combine(v1, i1, v2, i2):
    # combine of ct.argmax(propagate_nan=True): the first NaN wins, ties -> the smaller index.
    first = i1 < i2
    better = (v1 > v2) | ((v1 == v2) & first)
    pick1 = tl.where(v1 != v1, (v2 == v2) | first, better)
    return tl.where(pick1, v1, v2), tl.where(pick1, i1, i2)
)PY"},
      {"_c2t_argmin_nan_combine", {}, R"PY(@triton.jit
def _c2t_argmin_nan_combine(v1, i1, v2, i2):
    # combine of ct.argmin(propagate_nan=True): the first NaN wins, ties -> the smaller index.
    first = i1 < i2
    better = (v1 < v2) | ((v1 == v2) & first)
    pick1 = tl.where(v1 != v1, (v2 == v2) | first, better)
    return tl.where(pick1, v1, v2), tl.where(pick1, i1, i2)
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
