// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <vector>

namespace yolo::tracking {

// Costs of pairing each row (a track) with each column (a detection), row-major.
struct CostMatrix {
  int rows = 0;
  int cols = 0;
  std::vector<float> cost;

  float at(int r, int c) const { return cost[static_cast<std::size_t>(r * cols + c)]; }
};

// The pairing of rows with columns of least total cost (a linear sum assignment, by shortest
// augmenting paths: Jonker and Volgenant's method), keeping only pairs that cost at most
// `max_cost`; `row_of_col` is resized to cols and holds each column's row, -1 for none. Returns the
// row -> column assignment, -1 for an unmatched row. Pairs costlier than max_cost are never
// chosen in place of leaving both unmatched.
std::vector<int> assign(const CostMatrix& costs, float max_cost, std::vector<int>& row_of_col);

}  // namespace yolo::tracking
