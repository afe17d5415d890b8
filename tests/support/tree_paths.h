// SPDX-License-Identifier: Apache-2.0
#pragma once

// Where the source tree and its build are. Defined in tree_paths.cpp alone, so that only it
// compiles differently in another clone: every other test source is the same wherever the tree
// lies, and a compiler cache (CI's ccache, .ci/run) serves it to the next fresh clone.
#include <filesystem>

namespace yolo::test {

std::filesystem::path source_dir();
std::filesystem::path binary_dir();

}  // namespace yolo::test
