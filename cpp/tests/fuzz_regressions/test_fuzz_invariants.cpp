// Replays the fuzz seeds and our own kernels through the fuzz harnesses'
// invariants (cpp/fuzz/invariants.h), so that CI checks them with the normal
// compiler and sanitizer builds, without clang or libFuzzer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz/invariants.h"

namespace fs = std::filesystem;

namespace {

const fs::path kRepo = fs::path(__FILE__).parent_path().parent_path().parent_path().parent_path();

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<fs::path> files_in(const fs::path& dir, const std::string& ext = "") {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) return out;
  for (auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && (ext.empty() || e.path().extension() == ext)) out.push_back(e.path());
  return out;
}

}  // namespace

TEST(FuzzInvariants, HoldOnEverySeed) {
  auto seeds = files_in(kRepo / "cpp/fuzz/seeds");
  ASSERT_GE(seeds.size(), 30u) << "seed directory lost?";
  for (auto& f : seeds) {
    std::string bytes = read_bytes(f);
    EXPECT_EQ(c2t::fuzz::parse_invariants(bytes), "") << f;
    EXPECT_EQ(c2t::fuzz::convert_invariants(bytes, c2t::fuzz::fuzz_convert_options(bytes.size())), "") << f;
  }
}

// The examples and golden op tests are real kernels: conversion succeeds, so
// these cover the "output parses" and determinism invariants.
TEST(FuzzInvariants, HoldOnExamplesAndGoldenKernels) {
  auto files = files_in(kRepo / "examples", ".py");
  auto golden = files_in(kRepo / "cpp/tests/golden/ops", ".py");
  files.insert(files.end(), golden.begin(), golden.end());
  ASSERT_GE(files.size(), 10u);
  for (auto& f : files) {
    std::string bytes = read_bytes(f);
    EXPECT_EQ(c2t::fuzz::parse_invariants(bytes), "") << f;
    for (bool wide : {false, true}) {
      c2t::ConvertOptions opts;
      opts.int64_indexing = wide;
      EXPECT_EQ(c2t::fuzz::convert_invariants(bytes, opts), "") << f;
    }
  }
}

// The checks themselves: a checker that accepts everything would let every
// invariant above pass silently.
TEST(FuzzInvariants, CheckersRejectBadInput) {
  using c2t::fuzz::JsonChecker;
  using c2t::fuzz::valid_utf8;
  EXPECT_TRUE(JsonChecker(R"({"a": [1, -2.5e3, true, null, "x\n\u00e9"], "b": {}})").valid());
  for (const char* bad : {"", "{", R"({"a" 1})", "[1,]", "\"\x01\"", "01", "[1] x", "\"\xff\""})
    EXPECT_FALSE(JsonChecker(bad).valid()) << bad;
  EXPECT_TRUE(valid_utf8("a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"));
  for (const char* bad : {"\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xff", "\xe2\x82"})
    EXPECT_FALSE(valid_utf8(bad)) << bad;
  // A cookie is only looked for on lines 1 and 2 (PEP 263).
  using c2t::fuzz::detail::may_have_coding_cookie;
  EXPECT_TRUE(may_have_coding_cookie("# -*- coding: latin-1 -*-\n"));
  EXPECT_TRUE(may_have_coding_cookie("#!/usr/bin/python\r# vim: set fileencoding=utf-8 :\n"));
  EXPECT_FALSE(may_have_coding_cookie("x = 1\ny = 2\n# coding: latin-1\n"));
}
