// "Did you mean ...?" for names a diagnostic rejects (a misspelt ct.* operation, keyword argument
// or helper parameter), chosen as CPython 3.12 chooses its NameError / AttributeError hints
// (Python/suggestions.c): so the tool suggests what a Python user's own interpreter would, and
// also for two adjacent letters swapped, the commonest typo, which CPython prices too high.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace c2t {

/// CPython's suggestion distance between `a` and `b` (Python/suggestions.c, levenshtein_distance):
/// an insertion, deletion or substitution costs 2, a substitution that only changes letter case 1;
/// and (not CPython's) a swap of two adjacent letters 2, where CPython counts two substitutions (4).
size_t suggestion_cost(std::string_view a, std::string_view b);

/// The candidate closest to `name` by suggestion_cost, or "" when none is close enough: the cost
/// must be at most (candidate length + name length + 3) * 2 / 6 (CPython's bound), and a tie goes
/// to the earlier candidate. `name` itself is never suggested, and names or candidates over 40
/// characters are not compared (CPython's MAX_STRING_SIZE: the work per diagnostic stays bounded).
std::string closest_name(std::string_view name, const std::vector<std::string_view>& candidates);

/// "; did you mean QUOTE PREFIX best QUOTE?" for closest_name(name, candidates) (e.g. prefix "ct.",
/// quote "'"), or "" when nothing is close: appended to a diagnostic's message.
std::string did_you_mean(std::string_view name, const std::vector<std::string_view>& candidates,
                         std::string_view prefix = "", std::string_view quote = "");

}  // namespace c2t
