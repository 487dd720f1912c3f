// A strict JSON syntax checker (RFC 8259) for the fuzz harnesses: the
// analysis report is read by json.loads in the Python layer, so malformed
// output (an unescaped control byte, invalid UTF-8 in a name) is a bug.
#pragma once

#include <cctype>
#include <string_view>

#include "fuzz/fuzz_check.h"

namespace c2t::fuzz {

class JsonChecker {
 public:
  explicit JsonChecker(std::string_view s) : s_(s) {}
  /// True iff the whole text is one JSON value (whitespace around allowed).
  bool valid() {
    if (!valid_utf8(s_)) return false;
    ws();
    if (!value(0)) return false;
    ws();
    return i_ == s_.size();
  }

 private:
  bool value(int depth) {
    if (depth > 200 || i_ >= s_.size()) return false;
    char c = s_[i_];
    if (c == '{') return container(depth, '}', true);
    if (c == '[') return container(depth, ']', false);
    if (c == '"') return string();
    if (c == '-' || (c >= '0' && c <= '9')) return number();
    for (std::string_view lit : {"true", "false", "null"})
      if (s_.substr(i_, lit.size()) == lit) { i_ += lit.size(); return true; }
    return false;
  }
  bool container(int depth, char close, bool object) {
    ++i_;
    ws();
    if (eat(close)) return true;
    for (;;) {
      if (object) {
        ws();
        if (!string()) return false;
        ws();
        if (!eat(':')) return false;
      }
      ws();
      if (!value(depth + 1)) return false;
      ws();
      if (eat(close)) return true;
      if (!eat(',')) return false;
    }
  }
  bool string() {
    if (!eat('"')) return false;
    while (i_ < s_.size()) {
      unsigned char c = static_cast<unsigned char>(s_[i_++]);
      if (c == '"') return true;
      if (c < 0x20) return false;
      if (c != '\\') continue;
      if (i_ >= s_.size()) return false;
      char e = s_[i_++];
      if (e == 'u') {
        for (int k = 0; k < 4; ++k, ++i_)
          if (i_ >= s_.size() || !std::isxdigit(static_cast<unsigned char>(s_[i_]))) return false;
      } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
        return false;
      }
    }
    return false;
  }
  bool number() {
    eat('-');
    if (eat('0')) {
    } else if (!digits()) {
      return false;
    }
    if (eat('.') && !digits()) return false;
    if (eat('e') || eat('E')) {
      if (!eat('+')) eat('-');
      if (!digits()) return false;
    }
    return true;
  }
  bool digits() {
    size_t b = i_;
    while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
    return i_ > b;
  }
  bool eat(char c) {
    if (i_ < s_.size() && s_[i_] == c) { ++i_; return true; }
    return false;
  }
  void ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
  }
  std::string_view s_;
  size_t i_ = 0;
};

}  // namespace c2t::fuzz
