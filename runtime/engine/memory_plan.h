// SPDX-License-Identifier: Apache-2.0
#pragma once

// Layout and memory planning for a graph whose shapes are known and whose rewrites are done:
// picks NHWC for 4-D float activations (inserting layout conversions where an op needs NCHW),
// makes channel Split/Slice outputs views and lets producers write straight into a channel
// Concat's buffer, and packs every buffer into one arena where tensors whose lifetimes do not
// overlap share memory.

#include <cstdint>
#include <vector>

#include "runtime/engine/graph.h"
#include "runtime/ops/op.h"

namespace yolo::runtime {

struct MemoryPlan {
  // Per value (indexed like Graph::values).
  std::vector<ops::Layout> layout;
  // The value owning the buffer this value lives in (itself for a buffer's owner; -1 for
  // constants).
  std::vector<int> root;
  // Elements from the root's first element to this value's (a channel offset for NHWC views).
  std::vector<std::int64_t> element_offset;
  // Per root: its byte offset in the arena (-1 for values that are not roots).
  std::vector<std::int64_t> arena_offset;
  // Bytes of the arena, and of all buffers if none shared memory (for reports and tests).
  std::int64_t arena_bytes = 0;
  std::int64_t unshared_bytes = 0;
  // How many channel-Concat inputs are written in place, and how many need a copy.
  int concat_inputs_in_place = 0;
  int concat_inputs_copied = 0;
  int layout_conversions = 0;
};

// Plans `graph`, inserting the internal ToNchw/ToNhwc/Copy nodes it needs (nodes stay
// topologically sorted). 4-D float graph inputs get `input_layout`.
MemoryPlan plan_memory(Graph& graph, ops::Layout input_layout);

// The view of value `id` under `plan` with the arena at `arena` (constants point at their
// tensor).
ops::ValueView view_of(const Graph& graph, const MemoryPlan& plan, int id, std::uint8_t* arena);

}  // namespace yolo::runtime
