// SPDX-License-Identifier: Apache-2.0
#include "tracking/assignment.h"

#include <algorithm>
#include <limits>

namespace yolo::tracking {

// Leaving a row unmatched costs max_cost, so the total is n * max_cost plus, per pair, its cost
// minus max_cost: only pairs cheaper than the limit help, and capping every cost at max_cost
// changes no optimum. With capped costs a full matching of the shorter side is optimal, so the
// solver pairs every row of the shorter side (rows or columns: transposed when there are more
// rows) and pairs over the limit are then dropped. That is a k x K problem (k <= K), not the
// n x (n + m) one of a column per "unmatched" choice.
void Assigner::solve(const CostMatrix& costs, float max_cost) {
  const int n = costs.rows;
  const int m = costs.cols;
  col_of_row_.assign(static_cast<std::size_t>(n), -1);
  row_of_col_.assign(static_cast<std::size_t>(m), -1);
  if (n == 0 || m == 0) return;
  const bool transposed = n > m;
  const int k = transposed ? m : n;  // rows of the solved problem
  const int wide = transposed ? n : m;
  const auto capped = [&](int r, int c) {
    return static_cast<double>(std::min(transposed ? costs.at(c, r) : costs.at(r, c), max_cost));
  };
  constexpr double kInf = std::numeric_limits<double>::infinity();
  const auto k1 = static_cast<std::size_t>(k) + 1;
  const auto w1 = static_cast<std::size_t>(wide) + 1;
  // Shortest augmenting paths with potentials u (rows) and v (columns) keeping reduced costs
  // non-negative; 1-based, column 0 stands for the row being added. row_at_[c]: the row holding
  // column c (0: free); previous_[c]: the column before c on the path.
  u_.assign(k1, 0);
  v_.assign(w1, 0);
  row_at_.assign(w1, 0);
  previous_.assign(w1, 0);
  min_reduced_.resize(w1);
  visited_.resize(w1);
  for (int i = 1; i <= k; ++i) {
    row_at_[0] = i;
    std::size_t col = 0;
    std::fill(min_reduced_.begin(), min_reduced_.end(), kInf);
    std::fill(visited_.begin(), visited_.end(), 0);
    do {
      visited_[col] = 1;
      const int row = row_at_[col];
      double delta = kInf;
      std::size_t next = 0;
      for (std::size_t j = 1; j < w1; ++j) {
        if (visited_[j]) continue;
        const double reduced =
            capped(row - 1, static_cast<int>(j) - 1) - u_[static_cast<std::size_t>(row)] - v_[j];
        if (reduced < min_reduced_[j]) {
          min_reduced_[j] = reduced;
          previous_[j] = static_cast<int>(col);
        }
        if (min_reduced_[j] < delta) {
          delta = min_reduced_[j];
          next = j;
        }
      }
      for (std::size_t j = 0; j < w1; ++j) {
        if (visited_[j]) {
          u_[static_cast<std::size_t>(row_at_[j])] += delta;
          v_[j] -= delta;
        } else {
          min_reduced_[j] -= delta;
        }
      }
      col = next;
    } while (row_at_[col] != 0);
    // Flip the path: each column on it goes to the row that reached it.
    while (col != 0) {
      const auto before = static_cast<std::size_t>(previous_[col]);
      row_at_[col] = row_at_[before];
      col = before;
    }
  }
  for (int j = 1; j <= wide; ++j) {
    const int i = row_at_[static_cast<std::size_t>(j)];
    if (i == 0) continue;
    const int r = transposed ? j - 1 : i - 1;
    const int c = transposed ? i - 1 : j - 1;
    if (costs.at(r, c) > max_cost) continue;
    col_of_row_[static_cast<std::size_t>(r)] = c;
    row_of_col_[static_cast<std::size_t>(c)] = r;
  }
}

std::vector<int> assign(const CostMatrix& costs, float max_cost, std::vector<int>& row_of_col) {
  Assigner solver;
  solver.solve(costs, max_cost);
  row_of_col = solver.row_of_col();
  return solver.col_of_row();
}

}  // namespace yolo::tracking
