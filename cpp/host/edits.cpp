#include "host/edits.h"

#include <algorithm>

namespace c2t::host {

namespace {
// Order of application: by start; at the same start, a pure insertion goes
// before the replacement that starts there (otherwise it would be skipped).
bool before(const Edit& a, const Edit& b) {
  if (a.begin != b.begin) return a.begin < b.begin;
  return a.begin == a.end && b.begin != b.end;
}
}  // namespace

bool EditList::add(size_t begin, size_t end, std::string text) {
  for (auto& e : edits_) {
    bool insertion = begin == end || e.begin == e.end;
    if (insertion ? (begin > e.begin && begin < e.end) || (e.begin > begin && e.begin < end)
                  : begin < e.end && e.begin < end)
      return false;
  }
  edits_.push_back({begin, end, std::move(text)});
  return true;
}

std::string EditList::take_range(std::string_view text, size_t begin, size_t end) {
  // Moves (not copies) the edits out: host_expr calls this once per rewritten
  // expression, so copying every edit's text each time was quadratic.
  std::vector<Edit> inside;
  auto keep = edits_.begin();
  for (auto it = edits_.begin(); it != edits_.end(); ++it) {
    if (it->begin >= begin && it->end <= end && !(it->begin == it->end && (it->begin == begin || it->begin == end))) {
      inside.push_back(std::move(*it));
    } else {
      if (keep != it) *keep = std::move(*it);
      ++keep;
    }
  }
  edits_.erase(keep, edits_.end());
  std::stable_sort(inside.begin(), inside.end(), before);
  std::string out;
  size_t pos = begin;
  for (auto& e : inside) {
    out.append(text.substr(pos, e.begin - pos));
    out += e.text;
    pos = e.end;
  }
  out.append(text.substr(pos, end - pos));
  return out;
}

std::string EditList::apply(std::string_view text) const {
  std::vector<Edit> sorted = edits_;
  std::stable_sort(sorted.begin(), sorted.end(), before);
  std::string out;
  size_t pos = 0;
  for (auto& e : sorted) {
    if (e.begin < pos) continue;  // defensive: overlapping edits are rejected by add()
    out.append(text.substr(pos, e.begin - pos));
    out += e.text;
    pos = e.end;
  }
  out.append(text.substr(pos));
  return out;
}

}  // namespace c2t::host
