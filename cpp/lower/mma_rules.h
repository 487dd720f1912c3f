// cuTile's rules for matrix products (ct.mma, ct.matmul, `@`), checked at conversion time where
// sema knows the sizes and dtypes, so that input cuTile would reject is said at the cuTile call
// (file:line:col) instead of failing later in Triton's tl.dot, or computing something else.
// Sources: cuda.tile _ir/ops.py (_matmul_broadcast_shape, mma_impl, matmul_impl) and _datatype.py
// (_mma_supported_dtypes, _resolve_mma_supported_dtype).
#pragma once

#include "lower/lowerer.h"
#include "lower/value.h"

namespace c2t::lower {

/// x [..., M, K] @ y [..., K, N] (+ acc): inner dimensions equal, 3-D batch dimensions equal or one
/// of them 1 (broadcast), acc exactly the product's shape ([batch,] M, N). Sizes sema knows are
/// checked here; sizes known only as constexpr names that differ by name get a tl.static_assert
/// (emitted at the current point) that states the rule and the cuTile line when Triton compiles
/// the kernel. Operands of rank 4 or more are unsupported (tl.dot takes 2-D or 3-D). `op` names
/// the call in messages ("ct.mma", "matmul"). False after an error reported at `at`.
bool product_shapes_agree(Lowerer& L, const LVal& x, const LVal& y, const LVal* acc, const syntax::Node* at,
                          const char* op);

/// ct.mma's dtypes: x and y alike (int8/uint8 may mix; cuTile does not promote mma operands) and
/// an accumulator cuTile allows for them (f8 -> f16/f32, f16 -> f16/f32, bf16/f32/tf32 -> f32,
/// f64 -> f64, i8/u8 -> i32). Dtypes known only to Triton (an array's element type) are not
/// checked. False after an error reported at `at`.
bool mma_dtypes_agree(Lowerer& L, const sema::DType& x, const sema::DType& y, const sema::DType& acc,
                      const syntax::Node* at);

}  // namespace c2t::lower
