// Debugging, hints and compile-time metaprogramming (cuTile §3.16-3.17).
#include "lower/op_registry.h"
#include "lower/ops_common.h"
#include "sema/ast_util.h"

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
  // ct.printf(format, *tiles), ct.print(*values, sep=, end=) and builtin print() in tile code ->
  // tl.device_print(prefix, *values). Triton prints its own prefix ("pid (x, y, z) idx (...)"), then the
  // prefix text, then each value, so the text cannot be interleaved with the values as cuTile does: the
  // prefix is the strings in order, with `{expr}` where an f-string has a runtime value (cuTile's
  // _stub.py print: f-string expressions are tiles; compile-time values are formatted into the text).
  auto print_like = [](OpCall& c, bool printf_style) {
    std::string text;
    std::vector<TExprPtr> values;
    if (printf_style) {
      LVal& f = c.arg("format");
      if (!f.info.cval || f.info.cval->kind != sema::ConstValue::Kind::Str) {
        if (f.ok()) c.L.error(c.at("format"), "ct.printf needs a string literal format");
        return LVal{};
      }
      text = f.info.cval->s;
    }
    std::string sep = " ";
    if (!printf_style && c.has("sep")) {
      LVal& sv = c.arg("sep");
      if (!sv.info.cval || sv.info.cval->kind != sema::ConstValue::Kind::Str) {
        if (sv.ok()) c.L.error(c.at("sep"), "sep must be a string literal");
        return LVal{};
      }
      sep = sv.info.cval->s;
    }
    auto as_text = [](const sema::ConstValue& v) { return v.kind == sema::ConstValue::Kind::Str ? v.s : v.python(); };
    for (size_t k = 0; k < c.varargs.size(); ++k) {
      const syntax::Node* a = c.varargs[k];
      if (!printf_style && k > 0) text += sep;
      if (!printf_style && a->is("JoinedStr")) {
        for (auto* part : sema::nodes_of(a, "values")) {
          if (part->is("Constant")) {
            LVal lit_part = c.L.eval(part);
            if (!lit_part.ok()) return LVal{};
            if (lit_part.info.cval) text += as_text(*lit_part.info.cval);
            continue;
          }
          const syntax::Node* expr = part->child("value");
          LVal v = c.L.eval(expr);
          if (!v.ok()) return LVal{};
          if (v.info.cval) {
            text += as_text(*v.info.cval);
          } else if (v.expr) {
            text += '{';  // (appended piecewise: GCC 12's -Wrestrict misfires on "{" + s + "}")
            text += c.L.source_text(expr, "value", 40);
            text += '}';
            values.push_back(v.expr);
          } else {
            c.L.error(expr, "cannot print this value");
            return LVal{};
          }
        }
        continue;
      }
      LVal v = c.L.eval(a);
      if (!v.ok()) return LVal{};
      if (!printf_style && v.info.cval) {
        text += as_text(*v.info.cval);
        continue;
      }
      if (!v.expr) { c.L.error(a, "cannot print this value"); return LVal{}; }
      values.push_back(v.expr);
    }
    std::vector<TExprPtr> args{lit_str(text)};
    args.insert(args.end(), values.begin(), values.end());
    c.L.warn(c.node, "printing becomes tl.device_print, whose output format differs from cuTile's");
    return ops::make_none(tl_call("device_print", args));
  };
  r.add("printf", "debug", "format, *args", [print_like](OpCall& c) { return print_like(c, true); },
        "tl.device_print(format, *args) (format differs)");
  r.add("print", "debug", "*args, sep=, end=", [print_like](OpCall& c) { return print_like(c, false); },
        "tl.device_print('', *args) (format differs)");
}

}  // namespace c2t::lower
