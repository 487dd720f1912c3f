// The nanobind extension `cutile2triton._core`: the only bridge between the
// C++ core and Python. Functions take source as bytes (the file's raw
// content) and return plain Python values; they release the GIL while the
// C++ core runs so that callers may convert files on several threads.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <tuple>

#include "driver/convert.h"
#include "driver/operations.h"
#include "syntax/parser.h"
#include "syntax/roundtrip.h"

namespace nb = nanobind;
using namespace c2t;

namespace {

std::string_view as_view(const nb::bytes& b) { return {b.c_str(), b.size()}; }

std::string render_diags(const syntax::ParseResult& r, std::string_view filename, std::string_view raw) {
  return r.diags.render_all(filename, r.source ? r.source->text() : raw);
}

// (ok, dump text, rendered diagnostics)
std::tuple<bool, std::string, std::string> parse_dump(nb::bytes source, std::string filename, int python_minor,
                                                      bool include_attributes) {
  std::string raw(as_view(source));
  nb::gil_scoped_release release;
  syntax::ParseResult r = syntax::parse(raw, filename);
  if (!r.ok()) return {false, "", render_diags(r, filename, raw)};
  syntax::DumpOptions opts;
  opts.python_minor = python_minor;
  opts.include_attributes = include_attributes;
  return {true, syntax::dump(r.tree.root, opts), ""};
}

// (ok, rendered diagnostics): syntax check only, no dump text built.
std::tuple<bool, std::string> check(nb::bytes source, std::string filename) {
  std::string raw(as_view(source));
  nb::gil_scoped_release release;
  syntax::ParseResult r = syntax::parse(raw, filename);
  return {r.ok(), r.ok() ? std::string() : render_diags(r, filename, raw)};
}

// (ok, reprinted text, span problems, rendered diagnostics)
std::tuple<bool, nb::bytes, std::string, std::string> roundtrip(nb::bytes source, std::string filename) {
  std::string raw(as_view(source));
  std::string text, problems, diags;
  bool ok;
  {
    nb::gil_scoped_release release;
    syntax::ParseResult r = syntax::parse(raw, filename);
    ok = r.ok();
    if (ok) text = syntax::print_tree(r, raw, &problems);
    else diags = render_diags(r, filename, raw);
  }
  return {ok, nb::bytes(text.data(), text.size()), problems, diags};
}

// Parses every source; returns the number rejected. For benchmarks: the
// whole loop runs in C++ without the GIL.
int parse_many(nb::list sources) {
  std::vector<std::string> texts;
  for (auto item : sources) texts.emplace_back(as_view(nb::cast<nb::bytes>(item)));
  nb::gil_scoped_release release;
  int rejected = 0;
  for (auto& t : texts) rejected += syntax::parse(t, "<bench>").ok() ? 0 : 1;
  return rejected;
}

using DiagTuple = std::tuple<std::string, int, int, std::string>;  // severity, line, 1-based char col, message

using KernelParams = std::vector<std::pair<std::string, std::vector<std::string>>>;

// (ok, code, [(severity, line, col, message)], rendered diagnostics, is_cutile, [(kernel, [param])])
std::tuple<bool, std::string, std::vector<DiagTuple>, std::string, bool, KernelParams> convert(
    nb::bytes source, std::string filename, bool int64_indexing, std::map<std::string, int> array_ranks) {
  std::string raw(as_view(source));
  ConvertOptions opts;
  opts.int64_indexing = int64_indexing;
  opts.array_ranks = std::move(array_ranks);
  ConvertResult r;
  {
    nb::gil_scoped_release release;
    r = convert_source(raw, filename, opts);
  }
  std::vector<DiagTuple> diags;
  for (const Diagnostic& d : r.diags.items) {
    const char* sev = d.severity == Severity::Error ? "error" : d.severity == Severity::Warning ? "warning" : "note";
    diags.emplace_back(sev, d.line, display_column(r.source_text, d.line, d.col), d.message);
  }
  return {r.ok, r.code, diags, r.rendered, r.is_cutile, r.kernel_params};
}

std::string analyze(nb::bytes source, std::string filename, bool int64_indexing, std::map<std::string, int> array_ranks) {
  std::string raw(as_view(source));
  ConvertOptions opts;
  opts.int64_indexing = int64_indexing;
  opts.array_ranks = std::move(array_ranks);
  nb::gil_scoped_release release;
  return analyze_source(raw, filename, opts);
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "C++ core of cutile2triton (parser, analysis, lowering, emission).";
  m.def("parse_dump", &parse_dump, nb::arg("source"), nb::arg("filename"), nb::arg("python_minor"),
        nb::arg("include_attributes") = true,
        "Parse `source` (bytes) and return (ok, ast.dump text, diagnostics text).");
  m.def("check", &check, nb::arg("source"), nb::arg("filename"),
        "Parse `source` (bytes) only: (ok, diagnostics text).");
  m.def("roundtrip", &roundtrip, nb::arg("source"), nb::arg("filename"),
        "Parse and reprint losslessly: (ok, text bytes, span problems, diagnostics).");
  m.def("convert_source", &convert, nb::arg("source"), nb::arg("filename"), nb::arg("int64_indexing") = false,
        nb::arg("array_ranks") = std::map<std::string, int>{},
        "Convert a cuTile module: (ok, code, [(severity, line, col, message)], rendered, is_cutile, "
        "[(kernel, [parameter names])]).");
  m.def("analyze_source", &analyze, nb::arg("source"), nb::arg("filename"), nb::arg("int64_indexing") = false,
        nb::arg("array_ranks") = std::map<std::string, int>{},
        "Pre-flight analysis report of a cuTile module as JSON text.");
  m.def("version", []() { return std::string(kVersion); }, "Version of the C++ core.");
  m.def(
      "operations",
      []() {
        std::vector<std::tuple<std::string, std::string, std::string, std::string, std::string>> out;
        for (auto& o : supported_operations()) out.emplace_back(o.name, o.family, o.signature, o.call, o.triton);
        return out;
      },
      "The supported cuTile operations from the converter's registry: [(name, family, signature, call, triton)].");
  m.def("parse_many", &parse_many, nb::arg("sources"), "Parse a list of bytes; return how many were rejected.");
}
