#include "config/suggest.h"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace yolo::config {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // One row of the dynamic-programming table at a time.
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string closest_name(std::string_view word, const std::vector<std::string_view>& candidates) {
  const std::string key = lower(word);
  std::string best;
  std::size_t best_distance = std::string::npos;
  for (std::string_view candidate : candidates) {
    const std::size_t d = edit_distance(key, lower(candidate));
    if (d < best_distance) {
      best_distance = d;
      best = std::string(candidate);
    }
  }
  // A third of the letters wrong is still a typo; more is a different word.
  if (!best.empty() && best_distance <= std::max<std::size_t>(1, key.size() / 3)) return best;
  if (key.size() >= 3) {
    for (std::string_view candidate : candidates) {
      const std::string c = lower(candidate);
      if (c.starts_with(key) || key.starts_with(c)) return std::string(candidate);
    }
  }
  return "";
}

}  // namespace yolo::config
