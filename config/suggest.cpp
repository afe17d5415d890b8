// SPDX-License-Identifier: Apache-2.0
#include "config/suggest.h"
#include "text/format.h"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace yolo::config {

std::string to_lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string join_names(const std::vector<std::string_view>& names) {
  return text::joined(names);
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: Levenshtein plus the swap of two neighbours ("modle" -> "model")
  // as one edit, the most common typo. Three rows of the table are enough.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), row(b.size() + 1);
  std::iota(previous.begin(), previous.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      row[j] = std::min({previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        row[j] = std::min(row[j], before[j - 2] + 1);
      }
    }
    std::swap(before, previous);
    std::swap(previous, row);
  }
  return previous[b.size()];
}

std::string closest_name(std::string_view word, const std::vector<std::string_view>& candidates) {
  const std::string key = to_lower(word);
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (std::string_view candidate : candidates) {
    const std::size_t d = edit_distance(key, to_lower(candidate));
    if (d < best_distance) {
      best_distance = d;
      best = std::string(candidate);
    }
  }
  // A third of the letters wrong is still a typo; more is a different word.
  if (!best.empty() && best_distance <= std::max<std::size_t>(1, key.size() / 3)) return best;
  if (key.size() >= 3) {
    for (std::string_view candidate : candidates) {
      const std::string c = to_lower(candidate);
      if (c.starts_with(key) || key.starts_with(c)) return std::string(candidate);
    }
  }
  return "";
}

}  // namespace yolo::config
