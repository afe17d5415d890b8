// SPDX-License-Identifier: Apache-2.0
// The optimal assignment (tracking/assignment.cpp) against an exhaustive search of small problems.
#include "tracking/assignment.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace yolo::tracking {
namespace {

// The least total cost over every way to pair rows with columns or leave them unmatched (an
// unmatched row costs max_cost, pairs above max_cost are not allowed): each row in turn, over
// every set of columns already taken.
float exhaustive(const CostMatrix& m, float max_cost) {
  const std::size_t sets = std::size_t{1} << m.cols;
  std::vector<float> best(sets, 1e30f), next(sets);
  best[0] = 0;
  for (int r = 0; r < m.rows; ++r) {
    std::fill(next.begin(), next.end(), 1e30f);
    for (std::size_t taken = 0; taken < sets; ++taken) {
      if (best[taken] >= 1e30f) continue;
      next[taken] = std::min(next[taken], best[taken] + max_cost);
      for (int c = 0; c < m.cols; ++c) {
        const std::size_t bit = std::size_t{1} << c;
        if ((taken & bit) || m.at(r, c) > max_cost) continue;
        next[taken | bit] = std::min(next[taken | bit], best[taken] + m.at(r, c));
      }
    }
    best.swap(next);
  }
  return *std::min_element(best.begin(), best.end());
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
  // One solver for every problem: what it keeps from a bigger one must not leak into the next.
  Assigner solver;
  for (int trial = 0; trial < 2000; ++trial) {
    CostMatrix m;
    m.rows = 1 + trial % 7;
    m.cols = 1 + (trial / 7) % 7;
    // Some problems with many equal costs (IoU 0 is common), as the tracker's are.
    const bool coarse = trial % 3 == 0;
    for (int i = 0; i < m.rows * m.cols; ++i) {
      m.cost.push_back(coarse ? std::round(u(rng) * 4) / 4 : u(rng));
    }
    const float max_cost = 0.3f + 0.5f * u(rng);
    solver.solve(m, max_cost);
    const std::vector<int>& col_of_row = solver.col_of_row();
    const std::vector<int>& row_of_col = solver.row_of_col();
    ASSERT_EQ(col_of_row.size(), static_cast<std::size_t>(m.rows));
    ASSERT_EQ(row_of_col.size(), static_cast<std::size_t>(m.cols));
    EXPECT_NEAR(cost_of(m, col_of_row, max_cost), exhaustive(m, max_cost), 1e-5)
        << m.rows << "x" << m.cols << " trial " << trial;
    // The two views agree and no pair is above the limit.
    for (int r = 0; r < m.rows; ++r) {
      const int c = col_of_row[static_cast<std::size_t>(r)];
      if (c < 0) continue;
      EXPECT_EQ(row_of_col[static_cast<std::size_t>(c)], r);
      EXPECT_LE(m.at(r, c), max_cost);
    }
    for (int c = 0; c < m.cols; ++c) {
      const int r = row_of_col[static_cast<std::size_t>(c)];
      if (r >= 0) {
        EXPECT_EQ(col_of_row[static_cast<std::size_t>(r)], c);
      }
    }
  }
}

TEST(Assignment, APairCostingExactlyTheLimitIsPaired) {
  // IoU exactly at match_iou matches: cost 1 - IoU equal to the limit.
  CostMatrix m{1, 2, {0.8f, 0.9f}};
  std::vector<int> row_of_col;
  EXPECT_EQ(assign(m, 0.8f, row_of_col), (std::vector<int>{0}));
  EXPECT_EQ(row_of_col, (std::vector<int>{0, -1}));
}

TEST(Assignment, MoreRowsThanColumns) {
  // Three tracks, two detections: the two best-fitting tracks take them.
  CostMatrix m{3, 2, {0.9f, 0.9f, 0.1f, 0.6f, 0.5f, 0.2f}};
  std::vector<int> row_of_col;
  EXPECT_EQ(assign(m, 0.8f, row_of_col), (std::vector<int>{-1, 0, 1}));
  EXPECT_EQ(row_of_col, (std::vector<int>{1, 2}));
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
