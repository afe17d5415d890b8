// SPDX-License-Identifier: Apache-2.0
// The optimal assignment (tracking/assignment.cpp) against every permutation of small problems.
#include "tracking/assignment.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

namespace yolo::tracking {
namespace {

// The least total cost by trying every way to pair rows with columns or leave them unmatched
// (an unmatched row costs max_cost, pairs above max_cost are not allowed).
float brute_force(const CostMatrix& m, float max_cost) {
  // Columns plus one "unmatched" column per row, as the solver sees it.
  std::vector<int> cols(static_cast<std::size_t>(m.cols + m.rows));
  std::iota(cols.begin(), cols.end(), 0);
  float best = 1e30f;
  do {
    float total = 0;
    bool ok = true;
    for (int r = 0; r < m.rows && ok; ++r) {
      const int c = cols[static_cast<std::size_t>(r)];
      if (c >= m.cols) {
        total += max_cost;
      } else if (m.at(r, c) > max_cost) {
        ok = false;
      } else {
        total += m.at(r, c);
      }
    }
    if (ok) best = std::min(best, total);
  } while (std::next_permutation(cols.begin(), cols.end()));
  return best;
}

float cost_of(const CostMatrix& m, const std::vector<int>& col_of_row, float max_cost) {
  float total = 0;
  for (int r = 0; r < m.rows; ++r) {
    const int c = col_of_row[static_cast<std::size_t>(r)];
    total += c < 0 ? max_cost : m.at(r, c);
  }
  return total;
}

TEST(Assignment, OptimalOnRandomProblemsOfEveryShape) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(0, 1);
  for (int trial = 0; trial < 300; ++trial) {
    CostMatrix m;
    m.rows = 1 + trial % 4;
    m.cols = 1 + (trial / 4) % 4;
    for (int i = 0; i < m.rows * m.cols; ++i) m.cost.push_back(u(rng));
    const float max_cost = 0.3f + 0.5f * u(rng);
    std::vector<int> row_of_col;
    const std::vector<int> col_of_row = assign(m, max_cost, row_of_col);
    EXPECT_NEAR(cost_of(m, col_of_row, max_cost), brute_force(m, max_cost), 1e-5)
        << m.rows << "x" << m.cols << " trial " << trial;
    // The two views agree and no pair is above the limit.
    for (int r = 0; r < m.rows; ++r) {
      const int c = col_of_row[static_cast<std::size_t>(r)];
      if (c < 0) continue;
      EXPECT_EQ(row_of_col[static_cast<std::size_t>(c)], r);
      EXPECT_LE(m.at(r, c), max_cost);
    }
  }
}

TEST(Assignment, PrefersTheGlobalOptimumToTheGreedyPair) {
  // Greedy takes (0,0)=0.1 and leaves row 1 with 0.9; the optimum pairs crosswise for 0.4.
  CostMatrix m{2, 2, {0.1f, 0.2f, 0.2f, 0.9f}};
  std::vector<int> row_of_col;
  EXPECT_EQ(assign(m, 1.0f, row_of_col), (std::vector<int>{1, 0}));
}

TEST(Assignment, NothingAboveTheLimitIsPaired) {
  CostMatrix m{2, 1, {0.95f, 0.97f}};
  std::vector<int> row_of_col;
  EXPECT_EQ(assign(m, 0.8f, row_of_col), (std::vector<int>{-1, -1}));
  EXPECT_EQ(row_of_col, (std::vector<int>{-1}));
}

TEST(Assignment, EmptyProblems) {
  std::vector<int> row_of_col;
  EXPECT_EQ(assign(CostMatrix{0, 3, {}}, 0.5f, row_of_col).size(), 0u);
  EXPECT_EQ(row_of_col, (std::vector<int>{-1, -1, -1}));
  EXPECT_EQ(assign(CostMatrix{2, 0, {}}, 0.5f, row_of_col), (std::vector<int>{-1, -1}));
}

}  // namespace
}  // namespace yolo::tracking
