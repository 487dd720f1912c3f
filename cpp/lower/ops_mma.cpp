// Matrix multiply: ct.mma, ct.matmul and the `@` operator (cuTile §3.6).
//
// Precision: cuTile computes fp32 operands in full fp32 and uses TF32 only
// when the operands were cast to ct.tfloat32; Triton's tl.dot defaults to
// TF32, so fp32 dots get input_precision="ieee" and tf32-cast operands
// input_precision="tf32" (a compile-time dtype choice becomes a constexpr
// conditional). ct.mma keeps the accumulator dtype (out_dtype=acc dtype,
// which Triton requires to equal acc's dtype). tl.dot needs K >= 16 (8-bit: 32) on the
// GPU; smaller K (all static) uses a broadcast multiply + sum, exact in the
// accumulator dtype.
#include "lower/op_registry.h"
#include "lower/mma_rules.h"
#include "lower/ops_common.h"

namespace c2t::lower {

namespace {

// input_precision for operands of dtype `dt` (nullptr: omit, not an fp32 dot).
TExprPtr precision(const sema::DType& dt) {
  switch (dt.kind) {
    case sema::DType::Kind::Concrete:
      if (dt.name == "tfloat32") return lit_str("tf32");
      if (dt.name == "float32") return lit_str("ieee");
      return nullptr;
    case sema::DType::Kind::Select: {
      TExprPtr a = precision(*dt.then_), b = precision(*dt.else_);
      if (!a && !b) return nullptr;
      if (!a) a = lit_str("ieee");
      if (!b) b = lit_str("ieee");
      if (source(a) == source(b)) return a;
      return ifexp(raw(dt.texpr), a, b);
    }
    default:
      return lit_str("ieee");  // exact for fp32, ignored by Triton for other dtypes
  }
}

// Triton's NVIDIA backend takes tl.dot from K = 16, and from K = 32 for 8-bit operands
// (backends/nvidia/compiler.py min_dot_size; the interpreter takes any K, so only a GPU compile sees it).
long long min_dot_k(const sema::DType& dt) {
  return dt.known() && dt.desc() && dt.desc()->bits == 8 ? 32 : 16;
}
bool small_k(const sema::Dim& k, const sema::DType& dt) { return k.value && *k.value < min_dot_k(dt); }

// max_num_imprecise_acc for an fp8 dot over K: K itself, i.e. the dot's product is added to the
// fp32 accumulator once, as cuTile's ct.mma (without use_fast_acc) does once per call: on an H200,
// TileGym's fp8 matmul converted this way gave errors identical to cuTile's own to the printed
// digits where both used 64-deep K tiles (1024^3, randn and rand inputs: max, mean and bias), and
// was 1.09x (1024^3) and 1.22x (4096^3) faster than flushing every 32 products, which is more
// precise than cuTile whenever the tile's K exceeds 32 (cutile2triton's BENCHMARKS.md, "fp8
// accumulation per ct.mma call"). Triton's sm_90 default (2^30) never flushes: the whole K loop
// stays in the tensor cores' reduced-precision accumulator (TileGym's gemm_alpha_beta fp8, K=4096,
// came out 7% low). Triton requires the value <= K; its sm_90 WGMMA lowering (DotOpToLLVM/WGMMA.cpp,
// needsPartialAccumulator: fp8, fp32 accumulator, value <= K) then sums into a zeroed partial
// accumulator and adds that to the fp32 one every `value` products.
TExprPtr imprecise_acc_limit(Lowerer& L, LVal& x, const sema::Dim& K, size_t r) {
  if (K.value) return lit_int(*K.value);
  return L.dim_expr(x, r - 1);
}

// `lo` as a 3-D tile of `hi`'s batch: tl.broadcast_to(lo3, [hi's batch, lo's matrix dimensions]),
// `lo3` being lo's expression with a batch axis (itself, or a new axis of a matrix).
void broadcast_to_batch(Lowerer& L, LVal& lo, LVal& hi, TExprPtr lo3) {
  size_t r = lo.info.shape.size();
  sema::Shape s{hi.info.shape[0], lo.info.shape[r - 2], lo.info.shape[r - 1]};
  lo.expr = tl_call("broadcast_to",
                    {std::move(lo3), list({L.dim_expr(hi, 0), Lowerer::dim_to_expr(s[1]), Lowerer::dim_to_expr(s[2])})});
  lo.info.shape = s;
}

// Makes 2-D x 3-D operands batch-compatible for tl.dot (equal ranks).
bool match_ranks(Lowerer& L, LVal& x, LVal& y, const syntax::Node* at) {
  for (LVal* v : {&x, &y})
    if (v->info.shape.unknown_rank) v->info.shape = sema::Shape(2, sema::Dim{});  // assume a matrix
  size_t rx = x.info.shape.size(), ry = y.info.shape.size();
  if (rx == ry) return true;
  LVal& lo = rx < ry ? x : y;
  LVal& hi = rx < ry ? y : x;
  if (lo.info.shape.size() != 2 || hi.info.shape.size() != 3) {
    L.unsupported(at, "mma rank", "matrix products of tiles with ranks " + std::to_string(rx) + " and " +
                                      std::to_string(ry) + " are not supported");
    return false;
  }
  broadcast_to_batch(L, lo, hi, subscript(lo.expr, {lit("None"), full_slice(), full_slice()}));
  return true;
}

// 3-D operands whose batch sizes differ with one of them 1 (cuTile broadcasts batch dimensions,
// tl.dot needs equal ones): that operand is broadcast to the other's batch.
void broadcast_batch(Lowerer& L, LVal& x, LVal& y) {
  const sema::Dim &bx = x.info.shape[0], &by = y.info.shape[0];
  if (bx.same(by) || (!bx.is_one() && !by.is_one())) return;
  LVal& lo = bx.is_one() ? x : y;
  broadcast_to_batch(L, lo, bx.is_one() ? y : x, lo.expr);
}

LVal dot(Lowerer& L, LVal x, LVal y, LVal* acc, const sema::DType& acc_dt, const syntax::Node* at,
         bool fast_acc = false) {
  for (LVal* v : {&x, &y})
    if (v->info.shape.unknown_rank) v->info.shape = sema::Shape(2, sema::Dim{});
  if (x.info.kind != sema::VKind::Tile || y.info.kind != sema::VKind::Tile || x.info.shape.size() < 2 ||
      y.info.shape.size() < 2) {
    L.unsupported(at, "mma operands", "matrix products need tiles of rank 2 or 3 here");
    return {};
  }

  if (!match_ranks(L, x, y, at)) return {};
  size_t r = x.info.shape.size();
  if (r == 3) broadcast_batch(L, x, y);
  sema::Shape out = x.info.shape;
  out[r - 1] = y.info.shape[r - 1];
  const sema::Dim& K = x.info.shape[r - 1];
  // x[..., :, :, None] * y[..., None, :, :] summed over K, in the accumulator dtype.
  auto small_product = [&]() -> TExprPtr {
    auto tdt = L.dtype_expr(acc_dt, acc);
    std::vector<TExprPtr> ix(r + 1, full_slice()), iy(r + 1, full_slice());
    ix[r] = lit("None");
    iy[r - 2] = lit("None");
    // fp16/bf16 accumulators sum in fp32 and round once: Triton 3.6's TritonCombineOps pass fails on an
    // fp16 multiply-sum (hostile round s35), and tensor cores do not round each step either.
    bool half_acc = acc_dt.is("float16") || acc_dt.is("bfloat16");
    TExprPtr sum_dt = half_acc ? tl_attr("float32") : tdt;
    auto conv = [&](LVal& v) {
      bool same = !half_acc && v.info.dtype.known() && acc_dt.known() && v.info.dtype.name == acc_dt.name;
      return sum_dt && !same ? method(v.expr, "to", {sum_dt}) : v.expr;
    };
    auto xe = subscript(conv(x), ix);
    auto ye = subscript(conv(y), iy);
    // (sum keeps fp32/fp64; narrower accumulators are cast back)
    TExprPtr prod = tl_call("sum", {binop("*", xe, ye)}, {{"axis", lit_int((long long)r - 1)}});
    if (tdt && !(acc_dt.is("float32") || acc_dt.is("float64"))) prod = method(prod, "to", {tdt});
    return acc ? binop("+", acc->expr, prod) : prod;
  };
  if (small_k(K, x.info.dtype)) return ops::make_value(small_product(), out, acc_dt);
  L.note_footprint(out, true, &K);
  if (x.info.dtype.may_be_fp8() && y.info.dtype.may_be_fp8()) L.note_k_major(x, y);  // tl.dot operands (k_major.h)
  std::vector<TExprPtr> args{x.expr, y.expr};
  std::vector<std::pair<std::string, TExprPtr>> kw;
  if (acc) args.push_back(acc->expr);
  if (auto p = precision(x.info.dtype)) kw.push_back({"input_precision", p});
  if (!fast_acc && x.info.dtype.may_be_fp8() && y.info.dtype.may_be_fp8())
    kw.push_back({"max_num_imprecise_acc", imprecise_acc_limit(L, x, K, r)});
  if (!acc_dt.is("float32")) {
    auto od = L.dtype_expr(acc_dt, acc);
    if (!od) {
      L.error(at, "cannot determine the accumulator dtype of this matrix product");
      return {};
    }
    kw.push_back({"out_dtype", od});
  }
  TExprPtr d = tl_call("dot", args, kw);
  if (!K.value) {
    // K known only to Triton: tl.dot needs K >= min_dot_k on the GPU (16; 32 for operands known to be
    // 8-bit), so smaller specializations take the broadcast product (a constexpr choice).
    d = ifexp(compare(">=", L.dim_expr(x, r - 1), lit_int(min_dot_k(x.info.dtype))), d, small_product());
  }
  return ops::make_value(d, out, acc_dt);
}

// E for `tl.trans(E)`, else nullptr.
TExprPtr trans_operand(const TExprPtr& e) {
  if (!e || e->kind != TExpr::Kind::Call || e->args.size() != 2 || !e->kwargs.empty()) return nullptr;
  const TExprPtr& f = e->args[0];
  bool tl_trans = f->kind == TExpr::Kind::Attr && f->text == "trans" && f->args.size() == 1 &&
                  f->args[0]->kind == TExpr::Kind::Name && f->args[0]->text == "tl";
  return tl_trans ? e->args[1] : nullptr;
}

// A 2-D LVal with `e` as its expression and its shape's axes swapped (a loaded tile's array axes
// too: lower/k_major.h).
LVal swapped(const LVal& v, TExprPtr e) {
  LVal t = v;
  t.expr = std::move(e);
  t.info.shape = sema::Shape{v.info.shape[1], v.info.shape[0]};
  t.origin = TileOrigin::permuted(v.origin, {1, 0});
  return t;
}

// ct.mma(ct.transpose(a), b, acc) with 2-D tiles, b not itself transposed, as
// tl.trans(tl.dot(tl.trans(b), a, tl.trans(acc))): the same sums of the same
// products, (a^T b + acc)^T = b^T a + acc^T. Triton 3.6 on the H200 gave an
// illegal shared-memory access for the transposed A operand: flashinfer's MLA
// decode (TileGym fmha_decode_bsr.py, TRANS_QK) at a 512 x 64 ct.transpose(v)
// with BLOCK_H 32, one pipeline stage, 4 or 8 warps; swapped, it ran and its
// test passed (cutile2triton's BENCHMARKS.md, "MLADecodePaged"). nullopt:
// not this form.
std::optional<LVal> transposed_a_dot(OpCall& c, LVal& x, LVal& y, LVal& acc, const sema::DType& acc_dt,
                                     bool fast_acc) {
  for (LVal* v : {&x, &y, &acc})
    if (v->info.shape.unknown_rank || v->info.shape.size() != 2) return std::nullopt;
  TExprPtr a = trans_operand(x.expr);
  if (!a || trans_operand(y.expr)) return std::nullopt;
  LVal bt = swapped(y, tl_call("trans", {y.expr})), at = swapped(x, a);
  LVal acct = swapped(acc, tl_call("trans", {acc.expr}));
  LVal r = dot(c.L, bt, at, &acct, acc_dt, c.node, fast_acc);
  if (!r.ok()) return r;
  return swapped(r, tl_call("trans", {r.expr}));
}

// ct.mma_scaled(x, x_scale, y, y_scale, acc) (cuTile _stub.py, _ir/ops.py
// mma_scaled_impl, _datatype.py _mma_scaled_supported_dtypes):
//   acc[i, j] + sum_k x[i, k] * x_scale[i, k // B] * y[k, j] * y_scale[k // B, j],
// B = K // K_s. Lowered by the prelude helper _c2t_mma_scaled: the e8m0 scales
// are decoded to fp32 powers of two, expanded over their blocks, multiplied
// into the fp8 operands (exact in fp32) and summed by an IEEE fp32 tl.dot.
// Not tl.dot_scaled: the CPU interpreter cannot run it and its operand layout
// differs (rhs scales [N, K // 32]); see the helper for the precision note.
// Checked here where sema knows shapes and dtypes, by tl.static_assert in the
// helper otherwise (array dtypes are known only to Triton).
LVal mma_scaled(OpCall& c) {
  static const char* names[] = {"x", "x_scale", "y", "y_scale", "acc"};
  LVal* v[5];
  for (int k = 0; k < 5; ++k) {
    v[k] = &c.arg(names[k]);
    if (!v[k]->ok()) return {};
  }
  for (int k = 0; k < 5; ++k) {
    if (v[k]->info.kind != sema::VKind::Tile) {
      c.L.error(c.at(names[k]), std::string("ct.mma_scaled: `") + names[k] + "` must be a tile");
      return {};
    }
    const auto& sh = v[k]->info.shape;
    if (sh.unknown_rank) continue;
    if (sh.size() == 3) {
      c.L.unsupported(c.at(names[k]), "mma_scaled batched",
                      "batched (3-D) ct.mma_scaled is not supported yet; only [M, K] x [K, N] tiles are");
      return {};
    }
    if (sh.size() != 2) {
      c.L.error(c.at(names[k]), std::string("ct.mma_scaled expects `") + names[k] + "` to be 2D or 3D, got rank " +
                                    std::to_string(sh.size()));
      return {};
    }
  }
  LVal &x = *v[0], &xs = *v[1], &y = *v[2], &ys = *v[3], &acc = *v[4];
  // dtypes (cuTile _resolve_mma_scaled_supported_dtype)
  for (LVal* o : {&x, &y}) {
    const auto& dt = o->info.dtype;
    if (!dt.known()) continue;
    if (dt.is("float4_e2m1fn")) {
      c.L.unsupported(c.at(o == &x ? "x" : "y"), "mma_scaled fp4",
                      "ct.mma_scaled with float4_e2m1fn operands is not supported: Triton has no fp4 dtype "
                      "(only the float8_e4m3fn / float8_e5m2 forms with float8_e8m0fnu scales are)");
      return {};
    }
    if (!dt.is("float8_e4m3fn") && !dt.is("float8_e5m2")) {
      c.L.error(c.at(o == &x ? "x" : "y"), "ct.mma_scaled: unsupported input dtype " + dt.name +
                                               " (cuTile: float8_e4m3fn, float8_e5m2 or float4_e2m1fn)");
      return {};
    }
  }
  if (x.info.dtype.known() && y.info.dtype.known() && x.info.dtype.name != y.info.dtype.name) {
    c.L.error(c.node, "ct.mma_scaled: x and y must have the same dtype, got " + x.info.dtype.name + " and " +
                          y.info.dtype.name);
    return {};
  }
  for (LVal* o : {&xs, &ys}) {
    const auto& dt = o->info.dtype;
    if (dt.known() && !dt.is("float8_e8m0fnu")) {
      c.L.error(c.at(o == &xs ? "x_scale" : "y_scale"),
                "ct.mma_scaled: fp8 operands take float8_e8m0fnu scales, got " + dt.name);
      return {};
    }
  }
  if (acc.info.dtype.known() && !acc.info.dtype.is("float32")) {
    c.L.error(c.at("acc"), "ct.mma_scaled: the accumulator must be float32, got " + acc.info.dtype.name);
    return {};
  }
  // shapes (cuTile _verify_scaling_block_size; B = 32 for fp8)
  auto val = [](const LVal& t, size_t d) -> std::optional<long long> {
    if (t.info.shape.unknown_rank || t.info.shape.size() != 2) return std::nullopt;
    return t.info.shape[d].value;
  };
  auto check_block = [&](const LVal& t, const LVal& s, size_t kd, const char* tn, const char* sn) {
    auto K = val(t, kd), Ks = val(s, kd);
    if (K && Ks && (*Ks == 0 || *K % *Ks != 0 || *K / *Ks != 32)) {
      c.L.error(c.at(sn), std::string("ct.mma_scaled: ") + tn + ".shape[" + std::to_string(kd) + "] = " +
                              std::to_string(*K) + " must be 32 times " + sn + ".shape[" + std::to_string(kd) +
                              "] = " + std::to_string(*Ks) + " (scaling block size 32 for fp8 operands)");
      return false;
    }
    size_t od = 1 - kd;
    auto a = val(t, od), b = val(s, od);
    if (a && b && *a != *b) {
      c.L.error(c.at(sn), std::string("ct.mma_scaled: ") + sn + ".shape[" + std::to_string(od) + "] = " +
                              std::to_string(*b) + " must equal " + tn + ".shape[" + std::to_string(od) + "] = " +
                              std::to_string(*a));
      return false;
    }
    return true;
  };
  if (!check_block(x, xs, 1, "x", "x_scale") || !check_block(y, ys, 0, "y", "y_scale")) return {};
  auto Kx = val(x, 1), Ky = val(y, 0), M = val(x, 0), N = val(y, 1), Ma = val(acc, 0), Na = val(acc, 1);
  if ((Kx && Ky && *Kx != *Ky) || (M && Ma && *M != *Ma) || (N && Na && *N != *Na)) {
    c.L.error(c.node, "ct.mma_scaled: the shapes of x [M, K], y [K, N] and acc [M, N] do not match");
    return {};
  }
  c.L.note_footprint(acc.info.shape, true, x.info.shape.size() == 2 ? &x.info.shape[1] : nullptr);
  TExprPtr e = call(name(c.L.prelude("_c2t_mma_scaled")), {x.expr, xs.expr, y.expr, ys.expr, acc.expr});
  return ops::make_value(e, acc.info.shape, sema::DType::concrete("float32"));
}

}  // namespace

namespace ops {

LVal matmul(Lowerer& L, LVal a, LVal b, const syntax::Node* at) {
  if (!a.ok() || !b.ok()) return {};
  if (a.info.kind != sema::VKind::Tile || b.info.kind != sema::VKind::Tile) {
    L.error(at, "matmul / @ needs tiles");
    return {};
  }
  if (a.info.shape.size() == 1 || b.info.shape.size() == 1) {
    L.unsupported(at, "matmul 1-D", "matmul with 1-D tiles is not supported yet");
    return {};
  }
  // cuTile: promoted input dtype, accumulated in that dtype's default
  // accumulator (f16 -> f16, bf16/f32/tf32 -> f32, i8 -> i32), result cast
  // back to the promoted input dtype.
  sema::DType in = a.info.dtype.known() && b.info.dtype.known() ? promote(a, b) : a.info.dtype;
  sema::DType acc = sema::DType::concrete("float32");
  TExprPtr back;
  if (in.is("float16")) acc = in;
  else if (in.is("float64")) acc = in;
  else if (in.is("int8") || in.is("uint8")) { acc = sema::DType::concrete("int32"); back = raw(in.triton()); }
  else if (in.is("bfloat16") || in.is("float8_e4m3fn") || in.is("float8_e5m2")) back = raw(in.triton());
  else if (!in.known()) {
    // dtype known only to Triton: accumulate in fp32 and cast back (exact for
    // fp32; for fp16 this is more precise than cuTile's fp16 accumulation).
    back = attr(L.as_name(a, "a"), "dtype");
  }
  if (!product_shapes_agree(L, a, b, nullptr, at, "matmul")) return {};
  // cuTile promotes both operands to the common dtype (matmul_impl); tl.dot needs them alike.
  if (in.known() && !in.is("tfloat32"))
    for (LVal* v : {&a, &b})
      if (v->info.dtype.known() && v->info.dtype.name != in.name && !v->info.dtype.is("tfloat32")) {
        v->expr = method(v->expr, "to", {raw(in.triton())});
        v->info.dtype = in;
      }
  LVal r = dot(L, a, b, nullptr, acc, at);
  if (!r.ok()) return {};
  if (back) r.expr = method(r.expr, "to", {back});
  r.info.dtype = in.is("tfloat32") ? sema::DType::concrete("float32") : in;
  return r;
}

}  // namespace ops

void register_mma_ops(Registry& r) {
  r.add("mma", "mma", "x, y, /, acc, *, use_fast_acc=", [](OpCall& c) {
    LVal& x = c.arg("x");
    LVal& y = c.arg("y");
    LVal& acc = c.arg("acc");
    if (!x.ok() || !y.ok() || !acc.ok()) return LVal{};
    if (acc.info.kind != sema::VKind::Tile) {
      c.L.error(c.at("acc"), "ct.mma needs an accumulator tile");
      return LVal{};
    }
    // use_fast_acc=True (fp8): Triton's default sm_90 fp8 accumulation, which is the fast one.
    bool fast_acc = false;
    if (c.has("use_fast_acc")) {
      LVal& f = c.arg("use_fast_acc");
      fast_acc = f.info.cval && f.info.cval->kind == sema::ConstValue::Kind::Bool && f.info.cval->b;
    }
    sema::DType acc_dt = acc.info.dtype;
    if (acc_dt.kind == sema::DType::Kind::Dynamic && acc.expr) acc_dt = sema::DType::symbolic(source(attr(c.L.as_name(acc, "acc"), "dtype")));
    if (!product_shapes_agree(c.L, x, y, &acc, c.node, "ct.mma")) return LVal{};
    if (!mma_dtypes_agree(c.L, x.info.dtype, y.info.dtype, acc.info.dtype, c.node)) return LVal{};
    LVal r;
    if (auto t = transposed_a_dot(c, x, y, acc, acc_dt, fast_acc)) r = *t;
    else r = dot(c.L, x, y, &acc, acc_dt, c.node, fast_acc);
    // cuTile's result has the accumulator's type (mma_impl): its shape's names, which the operands'
    // may spell differently (e.g. `ct.mma(ct.transpose(a), b, acc) if TRANS else ct.mma(a, b, acc)`:
    // both arms are acc's shape, whatever a's dimensions are called).
    if (r.ok() && !acc.info.shape.unknown_rank && acc.info.shape.size() == r.info.shape.size())
      r.info.shape = acc.info.shape;
    return r;
  }, "tl.dot(x, y, acc, input_precision='ieee'|'tf32', out_dtype=acc.dtype, max_num_imprecise_acc=K for fp8); "
     "x = ct.transpose(a): tl.trans(tl.dot(tl.trans(y), a, tl.trans(acc)))");
  r.add("mma_scaled", "mma", "x, x_scale, y, y_scale, /, acc", mma_scaled,
        "_c2t_mma_scaled: e8m0 scales (uint8 bits) expanded per 32-block, multiplied in fp32, tl.dot(ieee)");
  r.add("matmul", "mma", "x, y", [](OpCall& c) { return ops::matmul(c.L, c.arg("x"), c.arg("y"), c.node); },
        "tl.dot(x, y, out_dtype=default acc) cast back to the input dtype");
}

}  // namespace c2t::lower
