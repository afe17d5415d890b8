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
// augmenting paths as Jonker and Volgenant solve it, O(n^3)), where leaving a row unmatched costs
// `max_cost` and a pair costlier than that is never chosen. Keeps its buffers from one problem to
// the next: the tracker solves a few small problems a frame without allocating.
class Assigner {
 public:
  void solve(const CostMatrix& costs, float max_cost);
  // Each row's column, -1 for none (sized rows); each column's row, -1 for none (sized cols).
  const std::vector<int>& col_of_row() const { return col_of_row_; }
  const std::vector<int>& row_of_col() const { return row_of_col_; }

 private:
  std::vector<int> col_of_row_;
  std::vector<int> row_of_col_;
  std::vector<double> u_, v_, min_reduced_;
  std::vector<int> row_at_, previous_;
  std::vector<char> visited_;
};

// One problem with fresh buffers: returns each row's column (-1 for none) and sets `row_of_col`.
std::vector<int> assign(const CostMatrix& costs, float max_cost, std::vector<int>& row_of_col);

}  // namespace yolo::tracking
