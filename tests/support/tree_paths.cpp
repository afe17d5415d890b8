// SPDX-License-Identifier: Apache-2.0
#include "tests/support/tree_paths.h"

namespace yolo::test {

std::filesystem::path source_dir() {
  return YOLO_EDGE_SOURCE_DIR;
}

std::filesystem::path binary_dir() {
  return YOLO_EDGE_BINARY_DIR;
}

}  // namespace yolo::test
