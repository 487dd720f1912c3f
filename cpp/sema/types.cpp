#include "sema/types.h"

namespace c2t::sema {

std::string DType::triton() const {
  if (!alias.empty()) return alias;
  switch (kind) {
    case Kind::Concrete: {
      auto* d = find_dtype(name);
      return d ? std::string(d->triton) : "";
    }
    case Kind::Symbolic: return texpr;
    case Kind::Select: {
      auto a = then_->triton(), b = else_->triton();
      if (a.empty() || b.empty()) return "";
      if (a == b) return a;
      return "(" + a + " if " + texpr + " else " + b + ")";
    }
    default: return "";
  }
}

bool DType::may_be_fp8() const {
  switch (kind) {
    case Kind::Concrete: return name == "float8_e4m3fn" || name == "float8_e5m2";
    case Kind::Select: return then_->may_be_fp8() || else_->may_be_fp8();
    default: return true;
  }
}

bool DType::may_be_tf32() const {
  if (kind == Kind::Select) return then_->may_be_tf32() || else_->may_be_tf32();
  return is("tfloat32");
}

bool DType::same(const DType& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
    case Kind::Concrete: return name == o.name;
    case Kind::Symbolic: return texpr == o.texpr;
    case Kind::Select: return texpr == o.texpr && then_->same(*o.then_) && else_->same(*o.else_);
    default: return false;
  }
}

std::optional<bool> DType::is_float() const {
  if (kind == Kind::Concrete) return sema::is_float(find_dtype(name));
  if (kind == Kind::Select) {
    auto a = then_->is_float(), b = else_->is_float();
    if (a && b && *a == *b) return a;
  }
  return std::nullopt;
}

std::optional<bool> DType::is_int() const {
  if (kind == Kind::Concrete) return sema::is_int(find_dtype(name));
  if (kind == Kind::Select) {
    auto a = then_->is_int(), b = else_->is_int();
    if (a && b && *a == *b) return a;
  }
  return std::nullopt;
}

std::optional<Shape> broadcast_shapes(const Shape& a, const Shape& b) {
  if (a.unknown_rank || b.unknown_rank) return Shape::unknown();
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t k = 0; k < n; ++k) {
    const Dim* x = k + a.size() >= n ? &a[k + a.size() - n] : nullptr;
    const Dim* y = k + b.size() >= n ? &b[k + b.size() - n] : nullptr;
    if (!x) { out[k] = *y; continue; }
    if (!y) { out[k] = *x; continue; }
    if (x->is_one()) { out[k] = *y; continue; }
    if (y->is_one()) { out[k] = *x; continue; }
    if (x->value && y->value && *x->value != *y->value) return std::nullopt;
    // An extent known only through its value (empty text): the other one, which a valid program has
    // equal, unless that one may be 1; then neither, and the result's own extent is read back.
    if (x->expr.empty() || y->expr.empty()) {
      const Dim& other = x->expr.empty() ? *y : *x;
      out[k] = other.maybe_one ? Dim{} : other;
      continue;
    }
    // An extent that may be 1 yields to one that is not; of two such extents the larger one is the
    // broadcast's (equal or one of them 1, in a valid program): Python's max, of constexprs in Triton.
    if (x->maybe_one && y->maybe_one && !x->same(*y)) {
      out[k] = Dim::sym("max(" + x->expr + ", " + y->expr + ")");
      out[k].maybe_one = true;
      continue;
    }
    if (x->maybe_one != y->maybe_one) { out[k] = x->maybe_one ? *y : *x; continue; }
    // Symbolic dims: a valid cuTile program has equal extents here.
    out[k] = *x;
  }
  return out;
}

bool broadcasts_to(const Shape& from, const Shape& to) {
  if (from.unknown_rank || to.unknown_rank) return !to.unknown_rank || from.unknown_rank;
  if (from.size() > to.size()) return false;
  for (size_t k = 0; k < from.size(); ++k) {
    const Dim& f = from[from.size() - 1 - k];
    const Dim& t = to[to.size() - 1 - k];
    if (f.is_one() || !f.value || !t.value) continue;
    if (*f.value != *t.value) return false;
  }
  return true;
}

const char* describe_kind(VKind k) {
  switch (k) {
    case VKind::Unknown: return "a value of unknown kind";
    case VKind::None: return "None";
    case VKind::Constexpr: return "a compile-time constant";
    case VKind::Scalar: return "a scalar";
    case VKind::Tile: return "a tile";
    case VKind::Array: return "an array";
    case VKind::ArrayList: return "a list of arrays";
    case VKind::DTypeV: return "a dtype";
    case VKind::Tuple: return "a tuple";
    case VKind::Enum: return "an enum member";
    case VKind::CtFunc: return "a cuTile function";
    case VKind::Method: return "a method";
    case VKind::Module: return "a module";
    case VKind::Function: return "a function";
    case VKind::Builtin: return "a builtin";
    case VKind::Slice: return "a ct.Slice";
    case VKind::RawMemory: return "an array's raw memory";
    case VKind::TiledView: return "a tiled view";
  }
  return "a value";
}

}  // namespace c2t::sema
