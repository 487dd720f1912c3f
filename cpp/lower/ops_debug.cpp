// Debugging, hints and compile-time metaprogramming (cuTile §3.16-3.17).
#include "lower/op_registry.h"
#include "lower/ops_common.h"

namespace c2t::lower {

namespace {

std::optional<std::string> message(OpCall& c, const std::string& p) {
  if (!c.has(p)) return std::string();
  LVal& m = c.arg(p);
  if (m.info.kind == sema::VKind::None) return std::string();
  if (m.info.cval && m.info.cval->kind == sema::ConstValue::Kind::Str) return m.info.cval->s;
  if (m.ok()) c.L.error(c.at(p), "the message must be a string literal");
  return std::nullopt;
}

}  // namespace

void register_debug_ops(Registry& r) {
  r.add("static_assert", "static", "condition, message=", [](OpCall& c) {
    LVal& cond = c.arg("condition");
    auto msg = message(c, "message");
    if (!cond.ok() || !msg) return LVal{};
    if (cond.info.cval) {
      auto t = cond.info.cval->truthy();
      if (t && !*t) {
        c.L.error(c.node, "ct.static_assert failed" + (msg->empty() ? std::string() : ": " + *msg));
        return LVal{};
      }
      return ops::make_none(nullptr);
    }
    if (cond.info.kind != sema::VKind::Constexpr) {
      c.L.error(c.at("condition"), "ct.static_assert needs a compile-time condition");
      return LVal{};
    }
    std::vector<TExprPtr> args{cond.expr};
    if (!msg->empty()) args.push_back(lit_str(*msg));
    return ops::make_none(tl_call("static_assert", args));
  }, "checked at conversion time, else tl.static_assert");
  r.add("static_eval", "static", "expr", [](OpCall& c) {
    // The converter already evaluates compile-time expressions; a runtime
    // result is the selected dynamic value (cuTile returns such proxies too).
    return c.arg("expr");
  }, "evaluated by the converter");
  r.add("ensure_constant", "static", "value", [](OpCall& c) {
    LVal& v = c.arg("value");
    if (v.ok() && v.info.is_runtime()) {
      c.L.error(c.node, "ct.ensure_constant: the value is not a compile-time constant");
      return LVal{};
    }
    return v;
  }, "checked by the converter");
  r.add("assume_divisible_by", "hint", "x, divisor", [](OpCall& c) {
    LVal& x = c.arg("x");
    auto d = c.L.const_int(c.arg("divisor"), c.at("divisor"), "the divisor");
    if (!x.ok() || !d) return LVal{};
    LVal out = x;
    if (x.info.kind == sema::VKind::Scalar || x.info.kind == sema::VKind::Tile)
      out.expr = tl_call("multiple_of", {x.expr, lit_int(*d)});
    return out;
  }, "tl.multiple_of(x, divisor)");
  // Programmatic dependent launch (PDL): the generated launchers never
  // enable it, so each kernel starts after the previous one on the stream has
  // finished and these are no-ops (cuTile _stub.py: the wait only matters
  // when the launch overlaps the previous grid).
  for (const char* n : {"grid_dependency_control_wait", "grid_dependency_control_launch_dependents"})
    r.add(n, "hint", "", [](OpCall&) { return ops::make_none(nullptr); },
          "no-op: launches without programmatic dependent launch are already stream-ordered");
  r.add("assert_", "debug", "cond, /, message=", [](OpCall& c) {
    LVal& cond = c.arg("cond");
    auto msg = message(c, "message");
    if (!cond.ok() || !msg) return LVal{};
    std::vector<TExprPtr> args{cond.expr};
    if (!msg->empty()) args.push_back(lit_str(*msg));
    // Active only in Triton debug mode (TRITON_DEBUG=1), cuTile checks always.
    c.L.warn(c.node, "ct.assert_ becomes tl.device_assert, which Triton only checks with TRITON_DEBUG=1");
    return ops::make_none(tl_call("device_assert", args));
  }, "tl.device_assert(cond, message) (checked with TRITON_DEBUG=1 only)");
  auto print_like = [](OpCall& c, bool printf_style) {
    std::string prefix;
    size_t first = 0;
    if (printf_style) {
      LVal& f = c.arg("format");
      if (!f.info.cval || f.info.cval->kind != sema::ConstValue::Kind::Str) {
        if (f.ok()) c.L.error(c.at("format"), "ct.printf needs a string literal format");
        return LVal{};
      }
      prefix = f.info.cval->s;
    }
    std::vector<TExprPtr> args{lit_str(prefix)};
    for (size_t k = first; k < c.varargs.size(); ++k) {
      LVal v = c.L.eval(c.varargs[k]);
      if (!v.ok()) return LVal{};
      if (v.info.cval && v.info.cval->kind == sema::ConstValue::Kind::Str) {
        args[0] = lit_str(source(args[0]).size() > 2 ? prefix + " " + v.info.cval->s : v.info.cval->s);
        continue;
      }
      if (!v.expr) { c.L.error(c.varargs[k], "cannot print this value"); return LVal{}; }
      args.push_back(v.expr);
    }
    c.L.warn(c.node, "printing becomes tl.device_print, whose output format differs from cuTile's");
    return ops::make_none(tl_call("device_print", args));
  };
  r.add("printf", "debug", "format, *args", [print_like](OpCall& c) { return print_like(c, true); },
        "tl.device_print(format, *args) (format differs)");
  r.add("print", "debug", "*args, sep=, end=", [print_like](OpCall& c) { return print_like(c, false); },
        "tl.device_print('', *args) (format differs)");
}

}  // namespace c2t::lower
