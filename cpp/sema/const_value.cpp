#include "sema/const_value.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "pyvalue/repr.h"
#include "sema/ast_util.h"
#include "sema/dtype.h"

namespace c2t::sema {

std::string python_float(double v) {
  if (std::isnan(v)) return "float('nan')";
  if (std::isinf(v)) return v > 0 ? "float('inf')" : "float('-inf')";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, r.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::optional<bool> ConstValue::truthy() const {
  switch (kind) {
    case Kind::None: return false;
    case Kind::Bool: return b;
    case Kind::Int: return i != 0;
    case Kind::Float: return f != 0;
    case Kind::Str: return !s.empty();
    case Kind::Tuple: return !items.empty();
    default: return true;  // dtypes, enum members, references are objects
  }
}

bool ConstValue::operator==(const ConstValue& o) const {
  if (is_number() && o.is_number()) {
    if (kind == Kind::Float || o.kind == Kind::Float) return as_double() == o.as_double();
    long long x = kind == Kind::Int ? i : (long long)b, y = o.kind == Kind::Int ? o.i : (long long)o.b;
    return x == y;
  }
  if (kind != o.kind) return false;
  switch (kind) {
    case Kind::None: return true;
    case Kind::Tuple: return items == o.items;
    default: return s == o.s;
  }
}

std::string ConstValue::python() const {
  switch (kind) {
    case Kind::None: return "None";
    case Kind::Bool: return b ? "True" : "False";
    case Kind::Int: return std::to_string(i);
    case Kind::Float: return python_float(f);
    case Kind::Str:  // as CPython's repr: control characters escaped (a raw NUL would not compile)
      return pyvalue::repr_str(s);
    case Kind::Tuple: {
      std::string out = "(";
      for (size_t k = 0; k < items.size(); ++k) out += (k ? ", " : "") + items[k].python();
      if (items.size() == 1) out += ",";
      return out + ")";
    }
    case Kind::DType: {
      auto* d = find_dtype(s);
      return d && !d->triton.empty() ? std::string(d->triton) : "<dtype " + s + ">";
    }
    default: return "<" + s + ">";
  }
}

namespace {

bool checked(long long a, long long b, char op, long long& out) {
  switch (op) {
    case '+': return !__builtin_add_overflow(a, b, &out);
    case '-': return !__builtin_sub_overflow(a, b, &out);
    case '*': return !__builtin_mul_overflow(a, b, &out);
  }
  return false;
}

long long floordiv(long long a, long long b) {
  long long q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

}  // namespace

std::optional<ConstValue> const_binop(std::string_view op, const ConstValue& a, const ConstValue& b) {
  using K = ConstValue::Kind;
  if (op == "Add" && a.kind == K::Tuple && b.kind == K::Tuple) {
    auto r = a;
    r.items.insert(r.items.end(), b.items.begin(), b.items.end());
    return r;
  }
  if (op == "Add" && a.kind == K::Str && b.kind == K::Str) return ConstValue::str(a.s + b.s);
  if (!a.is_number() || !b.is_number()) return std::nullopt;
  bool ints = a.kind != K::Float && b.kind != K::Float;
  if (ints) {
    long long x = a.kind == K::Int ? a.i : a.b, y = b.kind == K::Int ? b.i : b.b, r = 0;
    if (op == "Add" && checked(x, y, '+', r)) return ConstValue::integer(r);
    if (op == "Sub" && checked(x, y, '-', r)) return ConstValue::integer(r);
    if (op == "Mult" && checked(x, y, '*', r)) return ConstValue::integer(r);
    if (op == "FloorDiv" && y != 0) return ConstValue::integer(floordiv(x, y));
    if (op == "Mod" && y != 0) return ConstValue::integer(x - floordiv(x, y) * y);
    if (op == "Div" && y != 0) return ConstValue::real(double(x) / double(y));
    if (op == "Pow" && y >= 0) {
      long long acc = 1;
      for (long long k = 0; k < y; ++k)
        if (!checked(acc, x, '*', acc)) return std::nullopt;
      return ConstValue::integer(acc);
    }
    if (op == "Pow" && y < 0) return ConstValue::real(std::pow(double(x), double(y)));
    if (op == "LShift" && y >= 0 && y < 63) return ConstValue::integer(x << y);
    if (op == "RShift" && y >= 0) return ConstValue::integer(y >= 63 ? (x < 0 ? -1 : 0) : x >> y);
    if (op == "BitAnd") return ConstValue::integer(x & y);
    if (op == "BitOr") return ConstValue::integer(x | y);
    if (op == "BitXor") return ConstValue::integer(x ^ y);
    return std::nullopt;
  }
  double x = a.as_double(), y = b.as_double();
  if (op == "Add") return ConstValue::real(x + y);
  if (op == "Sub") return ConstValue::real(x - y);
  if (op == "Mult") return ConstValue::real(x * y);
  if (op == "Div" && y != 0) return ConstValue::real(x / y);
  if (op == "FloorDiv" && y != 0) return ConstValue::real(std::floor(x / y));
  if (op == "Mod" && y != 0) {
    double r = std::fmod(x, y);
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return ConstValue::real(r);
  }
  if (op == "Pow") return ConstValue::real(std::pow(x, y));
  return std::nullopt;
}

std::optional<bool> const_compare(std::string_view op, const ConstValue& a, const ConstValue& b) {
  if (op == "Eq" || op == "Is") return a == b;
  if (op == "NotEq" || op == "IsNot") return !(a == b);
  if (op == "In" || op == "NotIn") {
    if (b.kind != ConstValue::Kind::Tuple) return std::nullopt;
    bool found = false;
    for (auto& it : b.items) found = found || it == a;
    return op == "In" ? found : !found;
  }
  if (!a.is_number() || !b.is_number()) return std::nullopt;
  double x = a.as_double(), y = b.as_double();
  if (a.kind != ConstValue::Kind::Float && b.kind != ConstValue::Kind::Float) {
    long long p = a.kind == ConstValue::Kind::Int ? a.i : a.b, q = b.kind == ConstValue::Kind::Int ? b.i : b.b;
    if (op == "Lt") return p < q;
    if (op == "LtE") return p <= q;
    if (op == "Gt") return p > q;
    if (op == "GtE") return p >= q;
  }
  if (op == "Lt") return x < y;
  if (op == "LtE") return x <= y;
  if (op == "Gt") return x > y;
  if (op == "GtE") return x >= y;
  return std::nullopt;
}

namespace {

std::optional<ConstValue> literal(const syntax::Node* e) {
  auto* v = e->get("value");
  if (!v) return std::nullopt;
  using VK = syntax::Value::Kind;
  switch (v->kind) {
    case VK::Null: return ConstValue::none();
    case VK::True: return ConstValue::boolean(true);
    case VK::False: return ConstValue::boolean(false);
    case VK::Int: {
      long long out = 0;
      auto& t = v->text;
      auto r = std::from_chars(t.data(), t.data() + t.size(), out);
      if (r.ec != std::errc() || r.ptr != t.data() + t.size()) return std::nullopt;  // beyond int64
      return ConstValue::integer(out);
    }
    case VK::Float: return ConstValue::real(v->number);
    case VK::Str: return ConstValue::str(v->text);
    default: return std::nullopt;
  }
}

std::optional<ConstValue> math_call(std::string_view fn, const std::vector<ConstValue>& a) {
  auto num1 = [&](auto f) -> std::optional<ConstValue> {
    if (a.size() != 1 || !a[0].is_number()) return std::nullopt;
    return ConstValue::real(f(a[0].as_double()));
  };
  if (fn == "log" && a.size() == 2 && a[0].is_number() && a[1].is_number())
    return ConstValue::real(std::log(a[0].as_double()) / std::log(a[1].as_double()));
  if (fn == "log") return num1([](double x) { return std::log(x); });
  if (fn == "log2") return num1([](double x) { return std::log2(x); });
  if (fn == "log10") return num1([](double x) { return std::log10(x); });
  if (fn == "exp") return num1([](double x) { return std::exp(x); });
  if (fn == "sqrt") return num1([](double x) { return std::sqrt(x); });
  if ((fn == "ceil" || fn == "floor") && a.size() == 1 && a[0].is_number()) {
    double x = a[0].as_double();
    double r = fn == "ceil" ? std::ceil(x) : std::floor(x);
    if (std::fabs(r) > 9e18) return std::nullopt;
    return ConstValue::integer((long long)r);
  }
  return std::nullopt;
}

}  // namespace

std::optional<ConstValue> const_eval(const syntax::Node* e, const ConstResolver& resolve) {
  if (!e) return std::nullopt;
  if (e->is("Constant")) return literal(e);
  if (e->is("Name") || e->is("Attribute")) return resolve(e);
  if (e->is("Tuple")) {
    std::vector<ConstValue> items;
    for (auto* x : nodes_of(e, "elts")) {
      auto v = const_eval(x, resolve);
      if (!v) return std::nullopt;
      items.push_back(*v);
    }
    return ConstValue::tuple(std::move(items));
  }
  if (e->is("UnaryOp")) {
    auto v = const_eval(e->child("operand"), resolve);
    if (!v) return std::nullopt;
    auto op = e->child("op")->type;
    if (op == "Not") { auto t = v->truthy(); if (!t) return std::nullopt; return ConstValue::boolean(!*t); }
    if (op == "USub") {
      if (v->kind == ConstValue::Kind::Float) return ConstValue::real(-v->f);
      if (v->kind == ConstValue::Kind::Int && v->i != std::numeric_limits<long long>::min()) return ConstValue::integer(-v->i);
      if (v->kind == ConstValue::Kind::Bool) return ConstValue::integer(-(long long)v->b);
    }
    if (op == "UAdd" && v->is_number()) return v;
    if (op == "Invert" && v->kind == ConstValue::Kind::Int) return ConstValue::integer(~v->i);
    return std::nullopt;
  }
  if (e->is("BinOp")) {
    auto a = const_eval(e->child("left"), resolve);
    if (!a) return std::nullopt;
    auto b = const_eval(e->child("right"), resolve);
    if (!b) return std::nullopt;
    return const_binop(e->child("op")->type, *a, *b);
  }
  if (e->is("BoolOp")) {
    bool is_and = e->child("op")->is("And");
    std::optional<ConstValue> last;
    for (auto* x : nodes_of(e, "values")) {
      last = const_eval(x, resolve);
      if (!last) return std::nullopt;
      auto t = last->truthy();
      if (!t) return std::nullopt;
      if (is_and ? !*t : *t) return last;
    }
    return last;
  }
  if (e->is("Compare")) {
    auto left = const_eval(e->child("left"), resolve);
    if (!left) return std::nullopt;
    auto ops = nodes_of(e, "ops");
    auto rights = nodes_of(e, "comparators");
    for (size_t k = 0; k < ops.size() && k < rights.size(); ++k) {
      auto r = const_eval(rights[k], resolve);
      if (!r) return std::nullopt;
      auto res = const_compare(ops[k]->type, *left, *r);
      if (!res) return std::nullopt;
      if (!*res) return ConstValue::boolean(false);
      left = r;
    }
    return ConstValue::boolean(true);
  }
  if (e->is("IfExp")) {
    auto c = const_eval(e->child("test"), resolve);
    if (!c) return std::nullopt;
    auto t = c->truthy();
    if (!t) return std::nullopt;
    return const_eval(*t ? e->child("body") : e->child("orelse"), resolve);
  }
  if (e->is("Subscript")) {
    auto base = const_eval(e->child("value"), resolve);
    auto idx = const_eval(e->child("slice"), resolve);
    if (!base || !idx || base->kind != ConstValue::Kind::Tuple || idx->kind != ConstValue::Kind::Int) return std::nullopt;
    long long n = (long long)base->items.size(), k = idx->i < 0 ? idx->i + n : idx->i;
    if (k < 0 || k >= n) return std::nullopt;
    return base->items[k];
  }
  if (e->is("Call")) {
    if (!nodes_of(e, "keywords").empty()) return std::nullopt;
    std::vector<ConstValue> args;
    for (auto* a : nodes_of(e, "args")) {
      if (a->is("Starred")) return std::nullopt;
      auto v = const_eval(a, resolve);
      if (!v) return std::nullopt;
      args.push_back(*v);
    }
    auto fn = e->child("func");
    // Calls of the math module: the resolver tells us whether `fn` names math.<f>.
    if (fn->is("Attribute")) {
      auto base = fn->child("value");
      auto r = resolve(base);
      if (r && r->kind == ConstValue::Kind::CtRef && r->s == "<module math>")
        return math_call(fn->str("attr"), args);
      return std::nullopt;
    }
    auto name = name_id(fn);
    if (name == "float" && args.size() == 1) {
      if (args[0].is_number()) return ConstValue::real(args[0].as_double());
      if (args[0].kind == ConstValue::Kind::Str) {
        auto& s = args[0].s;
        if (s == "inf" || s == "+inf" || s == "infinity") return ConstValue::real(std::numeric_limits<double>::infinity());
        if (s == "-inf" || s == "-infinity") return ConstValue::real(-std::numeric_limits<double>::infinity());
        if (s == "nan") return ConstValue::real(std::numeric_limits<double>::quiet_NaN());
      }
      return std::nullopt;
    }
    if (name == "int" && args.size() == 1 && args[0].is_number()) {
      double d = args[0].as_double();
      if (std::fabs(d) > 9e18) return std::nullopt;
      return ConstValue::integer(args[0].kind == ConstValue::Kind::Int ? args[0].i : (long long)std::trunc(d));
    }
    if (name == "bool" && args.size() == 1) { auto t = args[0].truthy(); if (t) return ConstValue::boolean(*t); }
    if (name == "abs" && args.size() == 1 && args[0].is_number()) {
      if (args[0].kind == ConstValue::Kind::Float) return ConstValue::real(std::fabs(args[0].f));
      if (args[0].kind == ConstValue::Kind::Int && args[0].i != std::numeric_limits<long long>::min())
        return ConstValue::integer(args[0].i < 0 ? -args[0].i : args[0].i);
    }
    if ((name == "min" || name == "max") && args.size() >= 2) {
      ConstValue best = args[0];
      for (size_t k = 1; k < args.size(); ++k) {
        auto lt = const_compare("Lt", args[k], best);
        if (!lt) return std::nullopt;
        if (name == "min" ? *lt : !*lt && !(args[k] == best)) best = args[k];
      }
      return best;
    }
    if (name == "len" && args.size() == 1 && args[0].kind == ConstValue::Kind::Tuple)
      return ConstValue::integer((long long)args[0].items.size());
  }
  return std::nullopt;
}

}  // namespace c2t::sema
