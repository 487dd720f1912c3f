// TMA tensor descriptors for ct.load / ct.store (workflow phase c2t-4).
//
// A tile access of a kernel-parameter array with a power-of-two block gets
// two paths, chosen by a constexpr flag the host launcher computes:
//
//   if USE_TMA:                                   # at the top of the kernel (hoisted out of loops)
//       X_desc = tl.make_tensor_descriptor(X_ptr, [X_shape_0, X_shape_1], [X_stride_0, 1], [TM, TN])
//   ...
//   t = X_desc.load([i * TM, j * TN]) if USE_TMA else tl.load(X_ptr + ..., mask=..., other=0)
//
// Why a host-checked flag (triton_target.md §1.4, DESIGN.md §3): a device-side
// descriptor needs a 16-byte aligned base, every non-last stride x element
// size a multiple of 16, last stride 1 (Triton wants the literal 1) and an
// innermost block of at least 16 bytes; a misaligned row stride gives
// silently wrong data on the H200. The launcher checks exactly these on the
// actual tensors (host/launcher.cpp) and passes USE_TMA=False otherwise (and
// on CPU tensors, so the interpreter CI runs the pointer path). Innermost
// offsets are index * block[-1] elements: a multiple of 16 bytes once the
// block is (power of two, at least 16 bytes).
//
// What stays on the pointer path: views (Array.slice moves the base), arrays
// inside helpers (no flag there), int64-indexed arrays (descriptor offsets
// are int32), ranks outside 2..5, blocks not expressible at the top of the
// kernel (extents that are not literals or constexpr parameters), and the
// cases plan_tile_access rejects (stores whose order= moves the last axis,
// paddings other than zero/NaN, allow_tma=False). A load whose order= moves the
// last axis (K^T of attention) reads its box in memory order and permutes it.
#include <cctype>

#include "lower/access_plan.h"
#include "lower/lowerer.h"

namespace c2t::lower {

namespace {

// Identifiers in a symbolic extent (Triton expression text).
std::vector<std::string> identifiers(const std::string& text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size();) {
    unsigned char ch = (unsigned char)text[i];
    if (std::isalpha(ch) || ch == '_') {
      size_t j = i;
      while (j < text.size() && (std::isalnum((unsigned char)text[j]) || text[j] == '_')) ++j;
      out.push_back(text.substr(i, j - i));
      i = j;
    } else if (std::isdigit(ch)) {
      while (i < text.size() && (std::isalnum((unsigned char)text[i]) || text[i] == '.')) ++i;  // 0x10, 1e3
    } else {
      ++i;
    }
  }
  return out;
}

}  // namespace

TExprPtr Lowerer::tma_descriptor(const ArrayVal& a, const std::vector<int>& order, const sema::Shape& block,
                                 const std::string& padding, std::string* why, bool permuted) {
  auto no = [&](const std::string& reason) -> TExprPtr {
    if (why) *why = reason;
    return nullptr;
  };
  if (!spec_.is_kernel || a.kernel_param.empty()) return no("array is a view or a helper argument: pointer path");
  if (a.int64_index) return no("int64-indexed array (descriptor offsets are int32): pointer path");
  if (block.unknown_rank || block.size() < 2 || block.size() > 5 || (int)block.size() != a.rank)
    return no("descriptors need a tile of rank 2..5 equal to the array rank");
  if (order.size() != block.size()) return no("order= does not name every tile axis");
  if (moves_last_axis(order)) {
    // The permuted view's last stride is not 1: describe the array in memory order, with the
    // block's extents moved to the axes they run along; the load permutes the box
    // (lower_tile_load: tl.permute(desc.load(...), order), Triton's `desc.load(...).T`).
    sema::Shape memory_block(block.size());
    std::vector<int> identity(order.size());
    for (size_t k = 0; k < order.size(); ++k) {
      if (order[k] < 0 || order[k] >= (int)block.size()) return no("order= is not a permutation of the array axes");
      memory_block[order[k]] = block[k];
      identity[k] = (int)k;
    }
    return tma_descriptor(a, identity, memory_block, padding, why, true);
  }
  std::string key = a.kernel_param;
  for (size_t k = 0; k < block.size(); ++k) {
    const sema::Dim& d = block[k];
    if (d.value) {
      long long v = *d.value;
      if (v <= 0 || (v & (v - 1)) != 0) return no("block extent " + std::to_string(v) + " is not a power of two");
    } else {
      if (d.expr.empty()) return no("block extent only known to Triton");
      for (auto& id : identifiers(d.expr)) {
        if (!constexpr_params_.count(id)) return no("block extent '" + d.expr + "' is not a constexpr parameter");
        if (rebound(id))  // descriptors are made at the kernel's top, before the assignment
          return no("block extent '" + d.expr + "' is a constexpr parameter the kernel reassigns");
      }
      // The launcher evaluates the innermost extent: keep it a literal or a bare name.
      if (k + 1 == block.size() && dim_kind(d.expr) != DimKind::Name)
        return no("innermost block extent '" + d.expr + "' is not a single constexpr parameter");
    }
    key += '|';  // appended piece by piece: GCC 12's -Wrestrict misfires on "literal" + string here
    key += d.expr;
  }
  for (int ax : order) {
    key += '|';
    key += std::to_string(ax);
  }
  bool nan = padding == "NAN";
  key += nan ? "|nan" : "|zero";

  auto it = tma_desc_names_.find(key);
  if (it != tma_desc_names_.end()) {
    for (auto& r : tma_reqs_)
      if (r.desc == it->second) r.permuted_only = r.permuted_only && permuted;
    return name(it->second);
  }

  if (tma_flag_.empty()) tma_flag_ = fresh("USE_TMA");
  std::string desc = fresh(a.kernel_param + "_desc");
  std::vector<TExprPtr> shape, strides, blk;
  for (size_t k = 0; k < block.size(); ++k) {
    shape.push_back(a.shape[order[k]]);
    // Triton requires the literal 1 as last stride; the launcher checked stride(-1) == 1.
    strides.push_back(k + 1 == block.size() ? lit_int(1) : a.strides[order[k]]);
    blk.push_back(dim_to_expr(block[k]));
  }
  std::vector<std::pair<std::string, TExprPtr>> kw;
  if (nan) kw.push_back({"padding_option", lit_str("nan")});
  tma_setup_.push_back(TStmt::assign(
      name(desc), tl_call("make_tensor_descriptor", {a.ptr, list(shape), list(strides), list(blk)}, kw)));
  tma_desc_names_[key] = desc;
  TmaRequirement req;
  req.param = a.kernel_param;
  req.inner_block = block.back().expr;
  req.nan_padding = nan;
  req.desc = desc;
  req.permuted_only = permuted;
  tma_reqs_.push_back(req);
  return name(desc);
}

}  // namespace c2t::lower
