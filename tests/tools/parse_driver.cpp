// Development driver for the parser, independent of the shared dumper:
//   parse_driver dump FILE     -> ast.dump(ast.parse(open(FILE,'rb').read()), include_attributes=True) (3.11 fields)
//   parse_driver batch LIST    -> for each path in LIST: "=== path" then the dump or "ERROR line:col: msg"
//   parse_driver bench FILES.. -> MB/s
// Build: see tests/tools/compare_ast.py (it compiles this file against build/parse).
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "pyvalue/repr.h"
#include "syntax/parser.h"

using namespace c2t::syntax;

static void fmt(const Value& v, std::string& out);

static void fmt_node(const Node* n, std::string& out) {
  out += n->type;
  out += '(';
  bool first = true;
  for (auto& [name, v] : n->fields) {
    if (name == "type_params") continue;  // 3.12 only
    if (v.kind == Value::Kind::Null && !v.is_null_constant) continue;
    if (!first) out += ", ";
    first = false;
    out += name;
    out += '=';
    fmt(v, out);
  }
  if (n->has_pos) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "%slineno=%d, col_offset=%d, end_lineno=%d, end_col_offset=%d",
                  first ? "" : ", ", n->lineno, n->col_offset, n->end_lineno, n->end_col_offset);
    out += buf;
  }
  out += ')';
}

static void fmt(const Value& v, std::string& out) {
  using K = Value::Kind;
  switch (v.kind) {
    case K::Null: out += "None"; break;
    case K::Node: fmt_node(v.node, out); break;
    case K::List:
      out += '[';
      for (size_t i = 0; i < v.items.size(); ++i) {
        if (i) out += ", ";
        fmt(v.items[i], out);
      }
      out += ']';
      break;
    case K::Str: out += c2t::pyvalue::repr_str(v.text); break;
    case K::Bytes: out += c2t::pyvalue::repr_bytes(v.text); break;
    case K::Int: out += v.text; break;
    case K::Float: out += c2t::pyvalue::repr_float(v.number); break;
    case K::Complex: out += c2t::pyvalue::repr_imag(v.number); break;
    case K::True: out += "True"; break;
    case K::False: out += "False"; break;
    case K::Ellipsis: out += "Ellipsis"; break;
  }
}

static bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

static int g_minor = 11;       // --py 3.12: field set of 3.12 (shared dumper)
static bool g_attrs = true;    // --no-attributes
static bool g_official = false;  // use the shared dump() instead of the local formatter

static std::string run(const std::string& path) {
  std::string text;
  if (!read_file(path, text)) return "IOERROR";
  ParseResult r = parse(text, path);
  if (!r.ok()) {
    if (r.diags.items.empty()) return "ERROR 0:0: (no diagnostic)";
    auto& d = r.diags.items.front();
    return "ERROR " + std::to_string(d.line) + ":" + std::to_string(d.col) + ": " + d.message +
           (r.diags.items.size() != 1 ? " [" + std::to_string(r.diags.items.size()) + " diags]" : "");
  }
  if (g_official || g_minor != 11 || !g_attrs) {
    DumpOptions o;
    o.python_minor = g_minor;
    o.include_attributes = g_attrs;
    return dump(r.tree.root, o);
  }
  std::string out;
  fmt_node(r.tree.root, out);
  return out;
}

int main(int argc, char** argv) {
  std::vector<char*> args;
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--py312") g_minor = 12;
    else if (a == "--no-attributes") g_attrs = false;
    else if (a == "--official") g_official = true;
    else args.push_back(argv[i]);
  }
  argc = static_cast<int>(args.size());
  argv = args.data();
  if (argc < 3) return 2;
  std::string cmd = argv[1];
  if (cmd == "dump") {
    std::cout << run(argv[2]) << "\n";
  } else if (cmd == "batch") {
    std::ifstream in(argv[2]);
    std::string path;
    while (std::getline(in, path)) std::cout << "=== " << path << "\n" << run(path) << "\n";
  } else if (cmd == "bench") {
    std::vector<std::string> texts;
    size_t bytes = 0;
    for (int i = 2; i < argc; ++i) {
      std::string t;
      read_file(argv[i], t);
      bytes += t.size();
      texts.push_back(std::move(t));
    }
    auto t0 = std::chrono::steady_clock::now();
    int bad = 0;
    for (auto& t : texts) bad += parse(t).ok() ? 0 : 1;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("files=%zu bytes=%zu seconds=%.3f MB/s=%.2f rejected=%d\n", texts.size(), bytes, s, bytes / 1e6 / s, bad);
  }
  return 0;
}
