// A minimal streaming JSON writer (no dependencies) for the analysis report.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

namespace c2t {

class JsonWriter {
 public:
  JsonWriter& begin_object() { sep(); out_ += '{'; first_.push_back(true); return *this; }
  JsonWriter& end_object() { out_ += '}'; first_.pop_back(); return *this; }
  JsonWriter& begin_array() { sep(); out_ += '['; first_.push_back(true); return *this; }
  JsonWriter& end_array() { out_ += ']'; first_.pop_back(); return *this; }
  JsonWriter& key(const std::string& k) {
    sep();
    str(k);
    out_ += ':';
    after_key_ = true;
    return *this;
  }
  JsonWriter& value(const std::string& s) { sep(); str(s); return *this; }
  JsonWriter& value(const char* s) { return value(std::string(s)); }
  JsonWriter& value(int v) { sep(); out_ += std::to_string(v); return *this; }
  JsonWriter& value(bool v) { sep(); out_ += v ? "true" : "false"; return *this; }
  const std::string& str() const { return out_; }

 private:
  void sep() {
    if (after_key_) { after_key_ = false; return; }
    if (!first_.empty()) {
      if (!first_.back()) out_ += ',';
      first_.back() = false;
    }
  }
  void str(const std::string& s) {
    out_ += '"';
    for (unsigned char c : s) {
      switch (c) {
        case '"': out_ += "\\\""; break;
        case '\\': out_ += "\\\\"; break;
        case '\n': out_ += "\\n"; break;
        case '\r': out_ += "\\r"; break;
        case '\t': out_ += "\\t"; break;
        default:
          if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out_ += buf;
          } else {
            out_ += (char)c;
          }
      }
    }
    out_ += '"';
  }
  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace c2t
