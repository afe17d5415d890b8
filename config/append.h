// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

namespace yolo::config {

// Appends the pieces in order: one call for a message or a YAML line built of several parts
// (also keeps GCC 12's -Wrestrict false alarm on "x" + string away).
inline void append(std::string& out, std::initializer_list<std::string_view> pieces) {
  for (std::string_view p : pieces) out += p;
}

}  // namespace yolo::config
