// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace yolo::config {

// Helpers for naming things in messages to users.

// ASCII lower case.
std::string to_lower(std::string_view s);

// "a, b, c".
std::string join_names(const std::vector<std::string_view>& names);

// Edit distance: insertions, deletions, substitutions and swaps of two neighbouring letters each
// count one (optimal string alignment); case-sensitive.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate a user most likely meant when writing `word`, for "did you mean" hints: the
// closest by edit distance (ignoring case) if the typo is small for its length, else one that
// starts with `word` or that `word` starts with; "" when none is plausible.
std::string closest_name(std::string_view word, const std::vector<std::string_view>& candidates);

}  // namespace yolo::config
