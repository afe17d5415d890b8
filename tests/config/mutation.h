// SPDX-License-Identifier: Apache-2.0
#pragma once

// A YAML file with a few random edits (a character changed, a few removed, one inserted), drawn
// from the characters YAML gives meaning to: what the loader's fuzz-style tests feed it.
#include <random>
#include <string>

namespace yolo::test {

inline std::string mutated(std::string text, std::mt19937& random) {
  const std::string alphabet = ":-[]{},#'\"!&*|>%@ \t\n0123456789.eE+~abcxyz";
  const int edits = 1 + static_cast<int>(random() % 4);
  for (int i = 0; i < edits; ++i) {
    const std::size_t at = random() % text.size();
    switch (random() % 3) {
      case 0:
        text[at] = alphabet[random() % alphabet.size()];
        break;
      case 1:
        text.erase(at, 1 + random() % 8);
        break;
      default:
        text.insert(at, 1, alphabet[random() % alphabet.size()]);
        break;
    }
  }
  return text;
}

}  // namespace yolo::test
