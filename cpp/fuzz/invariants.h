// The invariants the fuzz harnesses check, shared with the GoogleTest replay of
// the seeds and regression inputs (cpp/tests/fuzz_regressions/), so that CI
// checks them with gcc too. Each function returns "" when every invariant
// holds, else a description of the first broken one.
//
// parse_invariants (what parser.h, roundtrip.h and dump.cpp promise):
//  - a rejected input has exactly one error diagnostic; rendered
//    diagnostics are valid UTF-8 (parse_dump returns them as str);
//  - an accepted input reprints byte for byte (print_tree == input) with no
//    span problem, unless it may have a coding cookie (then the decoded text
//    is not the input bytes);
//  - dump() of an accepted tree fails only where CPython's ast.dump fails too
//    (int over 4300 digits, recursion) or, for the 3.11 field set, on a
//    3.12-only construct.
// convert_invariants (what driver/convert.h promises):
//  - ok == false => empty code and an error diagnostic (a module without
//    cuda.tile gets the host-only rewrite and is ok unless that fails);
//  - ok == true => no error diagnostic, and the code parses (Triton kernels
//    are Python: unparsable output is a miscompile) to the same text: the
//    code is UTF-8 (the Python layer writes it so), so a coding cookie that
//    decodes it differently (a kept `latin-1` cookie) changes its meaning;
//  - code and rendered diagnostics are valid UTF-8 (the extension returns
//    them as str: anything else raises UnicodeDecodeError in Python);
//  - deterministic: a second conversion gives identical results;
//  - analyze_source returns well-formed JSON.
#pragma once

#include <string>
#include <string_view>

#include "driver/convert.h"
#include "fuzz/fuzz_json.h"
#include "pyvalue/source_decode.h"
#include "syntax/parser.h"
#include "syntax/roundtrip.h"

namespace c2t::fuzz {

namespace detail {

inline bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// PEP 263 allows a cookie on line 1 or 2 only. This errs on the side of
// "has a cookie" (any `coding:`/`coding=` there), which only skips a check.
inline bool may_have_coding_cookie(std::string_view bytes) {
  size_t line_begin = 0;
  for (int line = 0; line < 2 && line_begin < bytes.size(); ++line) {
    size_t e = bytes.find_first_of("\r\n", line_begin);
    std::string_view l = bytes.substr(line_begin, e == std::string_view::npos ? std::string_view::npos : e - line_begin);
    for (size_t p = l.find("coding"); p != std::string_view::npos; p = l.find("coding", p + 1))
      if (p + 6 < l.size() && (l[p + 6] == ':' || l[p + 6] == '=')) return true;
    if (e == std::string_view::npos) break;
    line_begin = e + 1;
  }
  return false;
}

// The dump failures CPython's ast.dump has as well, in any version.
inline bool cpython_dump_error(std::string_view out) {
  return starts_with(out, "error: Exceeds the limit (4300 digits)") || out == "error: tree too deep to dump";
}

inline std::string dump_invariants(const syntax::Node* root) {
  for (bool attrs : {true, false}) {
    std::string d12 = syntax::dump(root, {12, attrs});
    bool failed12 = starts_with(d12, "error:");
    // The parser accepts the 3.12 grammar: the 3.12 field set represents all of it.
    if (failed12 && !cpython_dump_error(d12)) return "dump (3.12) of an accepted tree failed: " + d12;
    if (!failed12 && !starts_with(d12, "Module(")) return "dump (3.12) does not start with Module(: " + d12.substr(0, 200);
    std::string d11 = syntax::dump(root, {11, attrs});
    if (starts_with(d11, "error:")) {
      if (!cpython_dump_error(d11) && d11.find("does not exist in Python 3.11") == std::string::npos)
        return "dump (3.11) of an accepted tree failed: " + d11;
    } else if (failed12) {
      return "dump succeeds for 3.11 but fails for 3.12: " + d12;  // 3.12 fails only where 3.11 does
    }
  }
  return "";
}

}  // namespace detail

inline std::string parse_invariants(std::string_view bytes) {
  syntax::ParseResult r = syntax::parse(bytes, "fuzz.py");
  // Rendering runs on every error a user sees: it must survive any position.
  std::string rendered = r.diags.render_all("fuzz.py", r.source ? r.source->text() : bytes);
  if (!valid_utf8(rendered)) return "rendered diagnostics are not valid UTF-8:\n" + rendered;
  if (!r.ok()) {
    int errors = 0;
    for (auto& d : r.diags.items) errors += d.severity == Severity::Error;
    return errors == 1 ? "" : "a rejected input has " + std::to_string(errors) + " error diagnostics:\n" + rendered;
  }
  if (!r.source) return "accepted input without a Source";
  if (std::string e = detail::dump_invariants(r.tree.root); !e.empty()) return e;

  std::string problems;
  std::string printed = syntax::print_tree(r, bytes, &problems);
  // Without a cookie, decoding only strips a BOM and translates newlines, both
  // undone by print_tree; other bytes are kept as they are.
  if (detail::may_have_coding_cookie(bytes)) return "";
  if (!problems.empty()) return "print_tree reported span problems:\n" + problems;
  if (printed != bytes) {
    size_t i = 0;
    while (i < printed.size() && i < bytes.size() && printed[i] == bytes[i]) ++i;
    return "print_tree differs from the input at byte " + std::to_string(i) + "; printed:\n" + printed;
  }
  return "";
}

inline std::string convert_invariants(std::string_view bytes, const ConvertOptions& opts) {
  ConvertResult a = convert_source(bytes, "fuzz.py", opts);
  if (!valid_utf8(a.rendered)) return "rendered diagnostics are not valid UTF-8:\n" + a.rendered;
  if (!a.ok) {
    if (!a.code.empty()) return "ok == false but code is not empty:\n" + a.code;
    if (!a.diags.has_errors()) return "ok == false without an error diagnostic:\n" + a.rendered;
  } else {
    if (a.diags.has_errors()) return "ok == true with an error diagnostic:\n" + a.rendered;
    if (!valid_utf8(a.code)) return "the converted code is not valid UTF-8:\n" + a.code;
    syntax::ParseResult out = syntax::parse(a.code, "converted.py");
    if (!out.ok()) return "the converted code does not parse:\n" + out.diags.render_all("converted.py", a.code) + "--- code:\n" + a.code;
    std::string_view code = a.code;
    if (detail::starts_with(code, "\xEF\xBB\xBF")) code.remove_prefix(3);
    if (out.source->text() != pyvalue::translate_newlines(code))
      return "the converted code's coding cookie decodes it to another text:\n" + a.code;
  }
  ConvertResult b = convert_source(bytes, "fuzz.py", opts);
  if (a.ok != b.ok || a.is_cutile != b.is_cutile) return "conversion is not deterministic (ok/is_cutile)";
  if (a.code != b.code) return "conversion is not deterministic (code):\n" + a.code + "--- second:\n" + b.code;
  if (a.rendered != b.rendered) return "conversion is not deterministic (diagnostics):\n" + a.rendered + "--- second:\n" + b.rendered;

  std::string json = analyze_source(bytes, "fuzz.py", opts);
  if (!JsonChecker(json).valid()) return "analyze_source returned malformed JSON:\n" + json;
  return "";
}

/// The options fuzz_convert uses for an input: taken from its length, not its
/// bytes, so that seeds stay plain source files while both index widths and a
/// narrow line width get covered.
inline ConvertOptions fuzz_convert_options(size_t size) {
  ConvertOptions opts;
  opts.int64_indexing = size % 2 == 1;
  if (size % 4 >= 2) opts.max_line = 40;
  return opts;
}

}  // namespace c2t::fuzz
