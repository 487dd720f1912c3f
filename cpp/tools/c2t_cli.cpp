// c2t-cli: a dependency-free command-line driver over the C++ core, for C++
// tests, fuzzing reproduction and benchmarks. Users use the Python
// `cutile2triton` command instead.
//
//   c2t-cli dump [--py 3.11|3.12] [--no-attributes] FILE   AST dump (as ast.dump)
//   c2t-cli check FILE...                                   parse only; print diagnostics
//   c2t-cli roundtrip FILE                                  print the token stream back
//   c2t-cli bench FILE...                                   parse all files, print MB/s
//   c2t-cli bench-convert FILE...                           convert all files C2T_BENCH_PASSES times (default 10), print ms per pass
//   c2t-cli convert FILE                                    converted Triton module to stdout
//   c2t-cli analyze FILE                                    pre-flight report (JSON) to stdout
//
// Exit codes: 0 ok, 1 diagnostics, 2 usage or I/O error.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "driver/convert.h"
#include "syntax/parser.h"
#include "syntax/roundtrip.h"

namespace {

bool read_file(const std::string& path, std::string& out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

int usage() {
  std::cerr << "usage: c2t-cli dump [--py 3.11|3.12] [--no-attributes] FILE\n"
               "       c2t-cli check FILE...\n"
               "       c2t-cli roundtrip FILE\n"
               "       c2t-cli bench FILE...\n"
               "       c2t-cli bench-convert FILE...\n"
               "       c2t-cli convert FILE\n"
               "       c2t-cli analyze FILE\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace c2t::syntax;
  if (argc < 3) return usage();
  std::string cmd = argv[1];
  DumpOptions opts;
  std::vector<std::string> files;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--py" && i + 1 < argc) {
      std::string v = argv[++i];
      if (v.rfind("3.", 0) != 0) return usage();
      opts.python_minor = std::stoi(v.substr(2));
    } else if (a == "--no-attributes") {
      opts.include_attributes = false;
    } else {
      files.push_back(a);
    }
  }
  if (files.empty()) return usage();

  if (cmd == "bench") {
    std::vector<std::string> texts;
    size_t bytes = 0;
    for (auto& f : files) {
      std::string t;
      if (!read_file(f, t)) { std::cerr << f << ": error: cannot read file\n"; return 2; }
      bytes += t.size();
      texts.push_back(std::move(t));
    }
    int failed = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < texts.size(); ++i) failed += parse(texts[i], files[i]).ok() ? 0 : 1;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("files=%zu bytes=%zu seconds=%.4f MB/s=%.2f rejected=%d\n", texts.size(), bytes, s,
                bytes / 1e6 / s, failed);
    return 0;
  }

  if (cmd == "bench-convert") {  // whole pipeline, 10 passes: for perf/profilers
    std::vector<std::string> texts;
    for (auto& f : files) {
      std::string t;
      if (!read_file(f, t)) { std::cerr << f << ": error: cannot read file\n"; return 2; }
      texts.push_back(std::move(t));
    }
    const char* env = std::getenv("C2T_BENCH_PASSES");
    const int passes = env ? std::max(1, std::atoi(env)) : 10;
    int ok = 0;
    auto t0 = std::chrono::steady_clock::now();
    for (int pass = 0; pass < passes; ++pass)
      for (size_t i = 0; i < texts.size(); ++i) ok += c2t::convert_source(texts[i], files[i]).ok ? 1 : 0;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("files=%zu converted=%d ms_per_pass=%.1f\n", texts.size(), ok / passes, s * 1000 / passes);
    return 0;
  }

  if (cmd == "convert" || cmd == "analyze") {
    int rc = 0;
    for (auto& f : files) {
      std::string text;
      if (!read_file(f, text)) { std::cerr << f << ": error: cannot read file\n"; return 2; }
      if (cmd == "analyze") {
        std::cout << c2t::analyze_source(text, f) << "\n";
        continue;
      }
      c2t::ConvertResult r = c2t::convert_source(text, f);
      std::cerr << r.rendered;
      if (r.ok) std::cout << r.code;
      else rc = 1;
    }
    return rc;
  }

  int rc = 0;
  for (auto& f : files) {
    std::string text;
    if (!read_file(f, text)) { std::cerr << f << ": error: cannot read file\n"; return 2; }
    ParseResult r = parse(text, f);
    if (!r.ok()) {
      std::cerr << r.diags.render_all(f, r.source ? r.source->text() : std::string_view(text));
      rc = 1;
      continue;
    }
    if (cmd == "dump") {
      std::cout << dump(r.tree.root, opts) << "\n";
    } else if (cmd == "roundtrip") {
      std::cout << print_tree(r, text);
    } else if (cmd != "check") {
      return usage();
    }
  }
  return rc;
}
