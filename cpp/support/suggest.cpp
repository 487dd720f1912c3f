#include "support/suggest.h"

#include <algorithm>
#include <cctype>

namespace c2t {

namespace {
constexpr size_t kMoveCost = 2, kCaseCost = 1;  // CPython's MOVE_COST and CASE_COST
constexpr size_t kMaxLength = 40;                // CPython's MAX_STRING_SIZE: longer names suggest nothing
}  // namespace

size_t suggestion_cost(std::string_view a, std::string_view b) {
  // Rows i-2, i-1 and i of the table (optimal string alignment distance).
  std::vector<size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j * kMoveCost;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i * kMoveCost;
    for (size_t j = 1; j <= b.size(); ++j) {
      char x = a[i - 1], y = b[j - 1];
      size_t subst = x == y ? 0
                     : std::tolower((unsigned char)x) == std::tolower((unsigned char)y) ? kCaseCost
                                                                                          : kMoveCost;
      cur[j] = std::min({prev[j] + kMoveCost, cur[j - 1] + kMoveCost, prev[j - 1] + subst});
      // Two adjacent letters swapped (laod for load): one move, where CPython counts two substitutions.
      if (i > 1 && j > 1 && x != y && x == b[j - 2] && a[i - 2] == y)
        cur[j] = std::min(cur[j], before[j - 2] + kMoveCost);
    }
    std::swap(before, prev);
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closest_name(std::string_view name, const std::vector<std::string_view>& candidates) {
  std::string_view best;
  size_t best_cost = 0;
  if (name.size() > kMaxLength) return "";  // bounded work per diagnostic, as CPython's
  for (auto c : candidates) {
    if (c == name || c.size() > kMaxLength) continue;
    size_t bound = (c.size() + name.size() + 3) * kMoveCost / 6;
    size_t cost = suggestion_cost(name, c);
    if (cost <= bound && (best.empty() || cost < best_cost)) best = c, best_cost = cost;
  }
  return std::string(best);
}

std::string did_you_mean(std::string_view name, const std::vector<std::string_view>& candidates,
                         std::string_view prefix, std::string_view quote) {
  std::string best = closest_name(name, candidates);
  if (best.empty()) return "";
  return "; did you mean " + std::string(quote) + std::string(prefix) + best + std::string(quote) + "?";
}

}  // namespace c2t
