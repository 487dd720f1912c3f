// Reading the CPython reference cases in data/ (written by
// tests/tools/gen_pyvalue_cases.py): one case per line, tab-separated fields,
// each field with \\ \t \n \xHH escapes for bytes outside printable ASCII.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace c2t::pyvalue::test_data {

inline std::string unescape_field(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out.push_back(s[i]);
      continue;
    }
    char c = s[++i];
    if (c == 't') out.push_back('\t');
    else if (c == 'n') out.push_back('\n');
    else if (c == 'x' && i + 2 < s.size()) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

/// Rows of data/<name>, each split on tabs; fields are left escaped (call
/// unescape_field where a field holds text). Fails the test if the file is
/// missing or empty, so a lost data file cannot pass silently.
/// C2T_PYVALUE_DATA=DIR reads DIR/<name> instead (a larger sample made by
/// gen_pyvalue_cases.py --out DIR --scale N).
inline std::vector<std::vector<std::string>> load_cases(const char* name) {
  const char* dir = std::getenv("C2T_PYVALUE_DATA");
  std::filesystem::path p =
      (dir && *dir ? std::filesystem::path(dir) : std::filesystem::path(__FILE__).parent_path() / "data") / name;
  std::ifstream in(p, std::ios::binary);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::vector<std::string> f;
    size_t b = 0;
    for (;;) {
      size_t e = line.find('\t', b);
      f.push_back(line.substr(b, e == std::string::npos ? std::string::npos : e - b));
      if (e == std::string::npos) break;
      b = e + 1;
    }
    rows.push_back(std::move(f));
  }
  EXPECT_FALSE(rows.empty()) << "no cases in " << p;
  return rows;
}

}  // namespace c2t::pyvalue::test_data
