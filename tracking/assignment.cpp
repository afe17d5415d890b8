// SPDX-License-Identifier: Apache-2.0
#include "tracking/assignment.h"

#include <algorithm>
#include <limits>

namespace yolo::tracking {

std::vector<int> assign(const CostMatrix& costs, float max_cost, std::vector<int>& row_of_col) {
  const int n = costs.rows;
  const int m = costs.cols;
  std::vector<int> col_of_row(static_cast<std::size_t>(n), -1);
  row_of_col.assign(static_cast<std::size_t>(m), -1);
  if (n == 0 || m == 0) return col_of_row;
  // Each row may also take a "stay unmatched" column of its own costing max_cost, so that the
  // optimum never pairs above the limit: a square problem of n rows and m + n columns, solved
  // row by row with the shortest augmenting path (potentials u, v keep reduced costs >= 0).
  const int cols = m + n;
  const auto cost = [&](int r, int c) -> double {
    if (c < m) {
      const float x = costs.at(r, c);
      // Above the limit: never better than staying unmatched.
      return x > max_cost ? static_cast<double>(max_cost) + 1.0 : static_cast<double>(x);
    }
    return c - m == r ? static_cast<double>(max_cost) : std::numeric_limits<double>::infinity();
  };
  constexpr double kInf = std::numeric_limits<double>::infinity();
  std::vector<double> u(static_cast<std::size_t>(n) + 1, 0),
      v(static_cast<std::size_t>(cols) + 1, 0);
  // p[c]: the row (1-based) holding column c (1-based); way[c]: previous column on the path.
  std::vector<int> p(static_cast<std::size_t>(cols) + 1, 0),
      way(static_cast<std::size_t>(cols) + 1, 0);
  std::vector<double> minv(static_cast<std::size_t>(cols) + 1);
  std::vector<char> used(static_cast<std::size_t>(cols) + 1);
  for (int i = 1; i <= n; ++i) {
    p[0] = i;
    int j0 = 0;
    std::fill(minv.begin(), minv.end(), kInf);
    std::fill(used.begin(), used.end(), 0);
    do {
      used[static_cast<std::size_t>(j0)] = 1;
      const int i0 = p[static_cast<std::size_t>(j0)];
      double delta = kInf;
      int j1 = 0;
      for (int j = 1; j <= cols; ++j) {
        if (used[static_cast<std::size_t>(j)]) continue;
        const double cur =
            cost(i0 - 1, j - 1) - u[static_cast<std::size_t>(i0)] - v[static_cast<std::size_t>(j)];
        if (cur < minv[static_cast<std::size_t>(j)]) {
          minv[static_cast<std::size_t>(j)] = cur;
          way[static_cast<std::size_t>(j)] = j0;
        }
        if (minv[static_cast<std::size_t>(j)] < delta) {
          delta = minv[static_cast<std::size_t>(j)];
          j1 = j;
        }
      }
      for (int j = 0; j <= cols; ++j) {
        if (used[static_cast<std::size_t>(j)]) {
          u[static_cast<std::size_t>(p[static_cast<std::size_t>(j)])] += delta;
          v[static_cast<std::size_t>(j)] -= delta;
        } else {
          minv[static_cast<std::size_t>(j)] -= delta;
        }
      }
      j0 = j1;
    } while (p[static_cast<std::size_t>(j0)] != 0);
    do {
      const int j1 = way[static_cast<std::size_t>(j0)];
      p[static_cast<std::size_t>(j0)] = p[static_cast<std::size_t>(j1)];
      j0 = j1;
    } while (j0 != 0);
  }
  for (int j = 1; j <= m; ++j) {
    const int r = p[static_cast<std::size_t>(j)] - 1;
    if (r < 0 || costs.at(r, j - 1) > max_cost) continue;
    col_of_row[static_cast<std::size_t>(r)] = j - 1;
    row_of_col[static_cast<std::size_t>(j - 1)] = r;
  }
  return col_of_row;
}

}  // namespace yolo::tracking
