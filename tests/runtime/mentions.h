// SPDX-License-Identifier: Apache-2.0
#pragma once

// EXPECT_TRUE(mentions(message, {"initializer 'w'", "[2,3]"})): an error message names all it
// should.

#include <gtest/gtest.h>

#include <initializer_list>
#include <string>

namespace yolo::test {

// Success when `text` contains every one of `parts`; the failure names the first one missing and
// shows the text.
inline testing::AssertionResult mentions(const std::string& text,
                                         std::initializer_list<std::string> parts) {
  for (const auto& part : parts) {
    if (text.find(part) == std::string::npos) {
      return testing::AssertionFailure() << "'" << part << "' is not in: " << text;
    }
  }
  return testing::AssertionSuccess();
}

}  // namespace yolo::test
