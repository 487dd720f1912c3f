// cuTile's rules for matrix products (see mma_rules.h).
#include "lower/mma_rules.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace c2t::lower {

namespace {

// "16 x 32" (sema's dimension texts: literals or constexpr names).
std::string shape_text(const sema::Shape& s) {
  std::string t;
  for (const auto& d : s) t += (t.empty() ? "" : " x ") + d.expr;
  return t;
}

// Whether a dimension can be written in Triton as it is: a literal or a plain name (a constexpr
// parameter); other symbolic texts are left alone.
bool plain_dim(const sema::Dim& d) {
  if (d.value) return true;
  if (d.expr.empty() || std::isdigit(static_cast<unsigned char>(d.expr[0]))) return false;
  return std::all_of(d.expr.begin(), d.expr.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// Two sizes the rule needs equal that sema cannot prove equal or different (constexpr names):
// Triton checks them when it compiles the kernel, with a message of its own ("accumulator shape is
// incompatible", no shapes, at the generated line); a tl.static_assert says the cuTile rule and the
// cuTile line instead, at the same compile time. Not inside an arm of a conditional expression (its
// statements run whichever arm is taken).
void assert_equal(Lowerer& L, const sema::Dim& a, const sema::Dim& b, const syntax::Node* at, const std::string& rule) {
  if (a.same(b) || (a.value && b.value) || !plain_dim(a) || !plain_dim(b) || L.in_conditional_expression()) return;
  L.emit(TStmt::expr(tl_call("static_assert", {compare("==", Lowerer::dim_to_expr(a), Lowerer::dim_to_expr(b)),
                                               lit_str("line " + std::to_string(at->lineno) + ": " + rule)})));
}

}  // namespace

bool product_shapes_agree(Lowerer& L, const LVal& x, const LVal& y, const LVal* acc, const syntax::Node* at,
                          const char* op) {
  const sema::Shape &xs = x.info.shape, &ys = y.info.shape;
  if (xs.unknown_rank || ys.unknown_rank || xs.size() < 2 || ys.size() < 2) return true;
  if (xs.size() > 3 || ys.size() > 3) {
    L.unsupported(at, "mma rank", std::string(op) + " of tiles with rank 4 or more is not supported (Triton's " +
                                      "tl.dot takes 2-D or 3-D operands)");
    return false;
  }
  auto differ = [](const sema::Dim& a, const sema::Dim& b) { return a.value && b.value && *a.value != *b.value; };
  // The operands as the user wrote them ("b", "ct.transpose(a)"); cuTile's parameter names for both when
  // either does not fit on one line (a mix would read as two naming schemes).
  const std::string qx = L.source_text(x.node, ""), qy = L.source_text(y.node, "");
  const bool quoted = !qx.empty() && !qy.empty();
  const std::string nx = quoted ? qx : std::string("x"), ny = quoted ? qy : std::string("y");
  std::string what = std::string(op) + ": " + nx + " (" + shape_text(xs) + ") @ " + ny + " (" + shape_text(ys) + ")";
  const sema::Dim &K = xs.back(), &Ky = ys[ys.size() - 2];
  std::string inner = what + ": " + nx + "'s last dimension (" + K.expr + ") must equal " + ny + "'s second-to-last (" +
                      Ky.expr + "); an operand swapped or not transposed?";
  if (differ(K, Ky)) {
    L.error(at, inner);
    return false;
  }
  assert_equal(L, K, Ky, at, inner);
  // The product: [batch,] M, N; its batch is the one that is not 1 (broadcast).
  sema::Shape product;
  if (xs.size() == 3 && ys.size() == 3) {
    if (differ(xs[0], ys[0]) && !xs[0].is_one() && !ys[0].is_one()) {
      L.error(at, what + ": batch dimensions " + xs[0].expr + " and " + ys[0].expr + " do not broadcast");
      return false;
    }
    product.push_back(xs[0].is_one() ? ys[0] : xs[0]);
  } else if (xs.size() == 3 || ys.size() == 3) {
    product.push_back(xs.size() == 3 ? xs[0] : ys[0]);
  }
  product.push_back(xs[xs.size() - 2]);
  product.push_back(ys.back());
  if (!acc || acc->info.shape.unknown_rank) return true;
  const sema::Shape& as = acc->info.shape;
  bool wrong = as.size() != product.size();
  for (size_t k = 0; !wrong && k < as.size(); ++k) wrong = differ(as[k], product[k]);
  std::string acc_rule = std::string(op) + ": " + L.source_text(acc->node, "acc") + " (" + shape_text(as) +
                         ") must have the product's shape (" + shape_text(product) + " from " + nx + " (" +
                         shape_text(xs) + ") @ " + ny + " (" + shape_text(ys) + "))";
  if (wrong) {
    L.error(at, acc_rule);
    return false;
  }
  for (size_t k = 0; k < as.size(); ++k) assert_equal(L, as[k], product[k], at, acc_rule);
  return true;
}

bool mma_dtypes_agree(Lowerer& L, const sema::DType& x, const sema::DType& y, const sema::DType& acc,
                      const syntax::Node* at) {
  static const std::vector<std::pair<std::string_view, std::vector<std::string_view>>> kAcc = {
      {"float8_e4m3fn", {"float16", "float32"}}, {"float8_e5m2", {"float16", "float32"}},
      {"float16", {"float16", "float32"}},       {"bfloat16", {"float32"}},
      {"float32", {"float32"}},                  {"tfloat32", {"float32"}},
      {"float64", {"float64"}},                  {"int8", {"int32"}},
      {"uint8", {"int32"}}};
  if (!x.known() || !y.known()) return true;
  auto int8ish = [](const sema::DType& d) { return d.is("int8") || d.is("uint8"); };
  if (x.name != y.name && int8ish(x) && int8ish(y)) {  // cuTile allows the mix; Triton's tl.dot does not
    L.unsupported(at, "mma int8 x uint8", "ct.mma of int8 and uint8 operands is not supported (Triton's tl.dot "
                                          "needs operands of one dtype)");
    return false;
  }
  if (x.name != y.name) {
    L.error(at, "ct.mma: x and y must have the same dtype unless they are int8/uint8 (cuTile does not promote "
                "mma operands), got " + x.name + " and " + y.name + "; cast one with ct.astype");
    return false;
  }
  auto row = std::find_if(kAcc.begin(), kAcc.end(), [&](const auto& r) { return r.first == x.name; });
  if (row == kAcc.end()) {
    L.error(at, "ct.mma: unsupported input dtype " + x.name + " (cuTile's mma takes float8_e4m3fn, float8_e5m2, "
                "float16, bfloat16, float32, tfloat32, float64, int8, uint8)");
    return false;
  }
  if (!acc.known() || std::find(row->second.begin(), row->second.end(), acc.name) != row->second.end()) return true;
  std::string allowed;
  for (auto d : row->second) allowed += (allowed.empty() ? "" : " or ") + std::string(d);
  L.error(at, "ct.mma: an accumulator of " + acc.name + " is not supported for " + x.name + " operands (cuTile: " +
                  allowed + ")");
  return false;
}

}  // namespace c2t::lower
