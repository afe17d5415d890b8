// SPDX-License-Identifier: Apache-2.0
#include "runtime/engine/memory_plan.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>

#include "runtime/model/model_error.h"
#include "runtime/ops/registry.h"
#include "runtime/xnn/xnn_operator.h"

namespace yolo::runtime {

namespace {

using ops::Layout;
using ops::LayoutRule;

// 4-D float and int8 activations (the int8 ones of lowered QDQ models) may be NHWC.
bool may_be_nhwc(const Graph& graph, int id) {
  if (id < 0) return false;
  const auto& v = graph.value(id);
  return (v.dtype == DType::kFloat32 || v.dtype == DType::kInt8) && v.shape.size() == 4;
}

bool is_constant(const Graph& graph, int id) {
  return id >= 0 && graph.value(id).constant != nullptr;
}

const ops::OpSpec& spec_of(const Graph& graph, const Node& node) {
  const auto* spec = ops::find_op(node.domain, node.op_type);
  if (!spec) graph.fail(node, "has no implementation");
  return *spec;
}

// Adds an internal node `op` reading `input` and returns its new output value.
int add_internal(Graph& graph, std::vector<Node>& nodes, const char* op, int input,
                 const std::string& suffix) {
  const auto& in = graph.value(input);
  Value v;
  v.name = in.name + suffix;
  v.dtype = in.dtype;
  v.shape = in.shape;
  v.has_shape = true;
  const int id = graph.add_value(std::move(v));
  Node node;
  node.name = graph.value(id).name;
  node.domain = "yolo";
  node.op_type = op;
  node.inputs = {input};
  node.outputs = {id};
  nodes.push_back(std::move(node));
  return id;
}

// Phase 1: the layout of every value, with conversions where an op needs the other layout.
std::vector<Layout> assign_layouts(Graph& graph, Layout input_layout, int& conversions) {
  std::vector<Layout> layout(graph.values.size(), Layout::kNchw);
  for (int id : graph.inputs) {
    if (may_be_nhwc(graph, id)) layout[static_cast<std::size_t>(id)] = input_layout;
  }
  std::map<std::pair<int, Layout>, int> converted;
  std::vector<Node> nodes;
  std::vector<Node> source = std::move(graph.nodes);
  graph.nodes.clear();
  for (auto& node : source) {
    const auto rule = spec_of(graph, node).layout_rule(graph, node);
    auto any_nhwc_input = [&] {
      for (int id : node.inputs) {
        if (id >= 0 && !is_constant(graph, id) && may_be_nhwc(graph, id) &&
            layout[static_cast<std::size_t>(id)] == Layout::kNhwc) {
          return true;
        }
      }
      return false;
    };
    Layout chosen = Layout::kNchw;
    switch (rule) {
      case LayoutRule::kNchw:
        break;
      case LayoutRule::kNhwc:
        chosen = Layout::kNhwc;
        break;
      case LayoutRule::kFollow:
      case LayoutRule::kElementwise:
      case LayoutRule::kChannelAxis:
        chosen = any_nhwc_input() ? Layout::kNhwc : Layout::kNchw;
        break;
    }
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      const int id = node.inputs[i];
      if (!may_be_nhwc(graph, id)) continue;
      const bool constant = is_constant(graph, id);
      const Layout have = layout[static_cast<std::size_t>(id)];
      if (chosen == Layout::kNhwc) {
        if (rule == LayoutRule::kNhwc && i != 0) continue;
        if (rule == LayoutRule::kElementwise && constant) continue;
        if (have == Layout::kNhwc) continue;
      } else if (constant || have == Layout::kNchw) {
        continue;
      }
      auto key = std::make_pair(id, chosen);
      auto it = converted.find(key);
      if (it == converted.end()) {
        const int out = add_internal(graph, nodes, chosen == Layout::kNhwc ? "ToNhwc" : "ToNchw",
                                     id, chosen == Layout::kNhwc ? "/nhwc" : "/nchw");
        layout.push_back(chosen);
        ++conversions;
        it = converted.emplace(key, out).first;
      }
      node.inputs[i] = it->second;
    }
    for (int id : node.outputs) {
      if (id >= 0 && chosen == Layout::kNhwc && may_be_nhwc(graph, id)) {
        layout[static_cast<std::size_t>(id)] = Layout::kNhwc;
      }
    }
    nodes.push_back(std::move(node));
  }
  graph.nodes = std::move(nodes);
  graph.topological_sort();
  layout.resize(graph.values.size(), Layout::kNchw);
  return layout;
}

struct Links {
  std::vector<int> parent;
  std::vector<std::int64_t> offset;
  std::vector<bool> placed;  // the link is a placement into a concat, not a view
};

// The value a view chain starts from, and the element offset along it.
std::pair<int, std::int64_t> view_source(const Links& links, int id) {
  std::int64_t offset = 0;
  while (links.parent[static_cast<std::size_t>(id)] >= 0 &&
         !links.placed[static_cast<std::size_t>(id)]) {
    offset += links.offset[static_cast<std::size_t>(id)];
    id = links.parent[static_cast<std::size_t>(id)];
  }
  return {id, offset};
}

// Phase 2: views (channel Split/Slice, Reshape-like aliases) and concat placements.
Links link_values(const Graph& graph, const std::vector<Layout>& layout, int& in_place,
                  int& copied) {
  Links links;
  links.parent.assign(graph.values.size(), -1);
  links.offset.assign(graph.values.size(), 0);
  links.placed.assign(graph.values.size(), false);
  auto layout_of = [&](int id) { return layout[static_cast<std::size_t>(id)]; };
  for (const auto& node : graph.nodes) {
    const bool onnx = node.domain.empty();
    const int in0 = node.input(0);
    if (onnx && (node.op_type == "Split" || node.op_type == "Slice") && in0 >= 0 &&
        layout_of(in0) == Layout::kNhwc && !is_constant(graph, in0)) {
      std::int64_t start = 0;
      if (node.op_type == "Slice") {
        start = ops::slice_range(graph, node).starts[1];
      }
      for (int out : node.outputs) {
        if (out < 0) continue;
        links.parent[static_cast<std::size_t>(out)] = in0;
        links.offset[static_cast<std::size_t>(out)] = start;
        start += graph.value(out).shape[1];
      }
      continue;
    }
    if (ops::is_alias_op(node) && in0 >= 0 && !is_constant(graph, in0) &&
        layout_of(in0) == Layout::kNchw && layout_of(node.outputs[0]) == Layout::kNchw) {
      links.parent[static_cast<std::size_t>(node.outputs[0])] = in0;
      continue;
    }
    if (!(onnx && node.op_type == "Concat") || layout_of(node.outputs[0]) != Layout::kNhwc)
      continue;
    // Channel ranges of the concat's inputs.
    const int y = node.outputs[0];
    const auto& ys = graph.value(y).shape;
    std::vector<std::int64_t> start(node.inputs.size());
    std::vector<std::pair<int, std::int64_t>> source(node.inputs.size());
    std::int64_t offset = 0;
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      start[i] = offset;
      offset += graph.value(node.inputs[i]).shape[1];
      source[i] = view_source(links, node.inputs[i]);
    }
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      const auto [x, off] = source[i];
      const auto& xv = graph.value(x);
      bool ok = !xv.constant && !xv.graph_input && xv.producer >= 0 &&
                links.parent[static_cast<std::size_t>(x)] < 0 && layout_of(x) == Layout::kNhwc &&
                xv.shape[0] == ys[0] && xv.shape[2] == ys[2] && xv.shape[3] == ys[3];
      if (ok) {
        const Node& producer = graph.nodes[static_cast<std::size_t>(xv.producer)];
        ok = spec_of(graph, producer).writes_strided();
      }
      const std::int64_t base = start[i] - off;
      ok = ok && base >= 0 && base + xv.shape[1] <= ys[1];
      // Every input overlapping x's channels must be the matching part of x.
      for (std::size_t j = 0; ok && j < node.inputs.size(); ++j) {
        const std::int64_t end_j = start[j] + graph.value(node.inputs[j]).shape[1];
        const bool overlaps = start[j] < base + xv.shape[1] && end_j > base;
        if (overlaps && (source[j].first != x || source[j].second != start[j] - base)) ok = false;
      }
      if (!ok) continue;
      links.parent[static_cast<std::size_t>(x)] = y;
      links.offset[static_cast<std::size_t>(x)] = base;
      links.placed[static_cast<std::size_t>(x)] = true;
    }
    for (std::size_t i = 0; i < node.inputs.size(); ++i) {
      // In place when the input's chain now ends in this concat at its own channel offset.
      int id = node.inputs[i];
      std::int64_t off = 0;
      while (id != y && links.parent[static_cast<std::size_t>(id)] >= 0) {
        off += links.offset[static_cast<std::size_t>(id)];
        id = links.parent[static_cast<std::size_t>(id)];
      }
      if (id == y && off == start[i])
        ++in_place;
      else
        ++copied;
    }
  }
  return links;
}

std::pair<int, std::int64_t> resolve(const Links& links, int id) {
  std::int64_t offset = 0;
  while (links.parent[static_cast<std::size_t>(id)] >= 0) {
    offset += links.offset[static_cast<std::size_t>(id)];
    id = links.parent[static_cast<std::size_t>(id)];
  }
  return {id, offset};
}

// Whether value id is stored with a pixel stride wider than its channels or at an offset.
bool strided(const Graph& graph, const Links& links, const std::vector<Layout>& layout, int id) {
  if (layout[static_cast<std::size_t>(id)] != Layout::kNhwc || is_constant(graph, id)) return false;
  const int root = resolve(links, id).first;
  return root != id && graph.value(root).shape[1] != graph.value(id).shape[1];
}

}  // namespace

MemoryPlan plan_memory(Graph& graph, Layout input_layout) {
  MemoryPlan plan;
  plan.layout = assign_layouts(graph, input_layout, plan.layout_conversions);
  Links links =
      link_values(graph, plan.layout, plan.concat_inputs_in_place, plan.concat_inputs_copied);

  // Phase 3: dense copies for consumers that cannot read channel slices.
  std::vector<Node> nodes;
  std::vector<Node> source = std::move(graph.nodes);
  graph.nodes.clear();
  std::map<int, int> dense;
  for (auto& node : source) {
    if (!spec_of(graph, node).reads_strided()) {
      for (auto& id : node.inputs) {
        if (id < 0 || !strided(graph, links, plan.layout, id)) continue;
        auto it = dense.find(id);
        if (it == dense.end()) {
          const int out = add_internal(graph, nodes, "Copy", id, "/dense");
          plan.layout.push_back(Layout::kNhwc);
          links.parent.push_back(-1);
          links.offset.push_back(0);
          links.placed.push_back(false);
          it = dense.emplace(id, out).first;
        }
        id = it->second;
      }
    }
    nodes.push_back(std::move(node));
  }
  graph.nodes = std::move(nodes);
  graph.topological_sort();

  // Phase 4: roots, lifetimes, and the arena.
  const std::size_t count = graph.values.size();
  plan.root.assign(count, -1);
  plan.element_offset.assign(count, 0);
  plan.arena_offset.assign(count, -1);
  const int steps = static_cast<int>(graph.nodes.size());
  std::vector<int> first(count, std::numeric_limits<int>::max());
  std::vector<int> last(count, std::numeric_limits<int>::min());
  auto touch = [&](int id, int when) {
    if (id < 0 || is_constant(graph, id)) return;
    const int r = resolve(links, id).first;
    first[static_cast<std::size_t>(r)] = std::min(first[static_cast<std::size_t>(r)], when);
    last[static_cast<std::size_t>(r)] = std::max(last[static_cast<std::size_t>(r)], when);
  };
  // Inputs stay intact for the whole run, so run() can be repeated on the same input.
  for (int id : graph.inputs) {
    touch(id, -1);
    touch(id, steps);
  }
  for (int id : graph.outputs) touch(id, steps);
  for (int n = 0; n < steps; ++n) {
    for (int id : graph.nodes[static_cast<std::size_t>(n)].inputs) touch(id, n);
    for (int id : graph.nodes[static_cast<std::size_t>(n)].outputs) touch(id, n);
  }
  struct Buffer {
    int root;
    std::int64_t bytes;
    int first, last;
    std::int64_t offset = -1;
  };
  std::vector<Buffer> buffers;
  for (std::size_t id = 0; id < count; ++id) {
    const auto& v = graph.values[id];
    if (v.constant) continue;
    const auto [r, off] = resolve(links, static_cast<int>(id));
    plan.root[id] = r;
    plan.element_offset[id] = off;
    if (r != static_cast<int>(id) || first[id] == std::numeric_limits<int>::max()) continue;
    if (!v.has_shape) continue;
    // With the bytes XNNPACK may read past the end, rounded up to cache lines.
    const std::int64_t bytes =
        (element_count(v.shape) * static_cast<std::int64_t>(dtype_size(v.dtype)) +
         static_cast<std::int64_t>(xnn::kExtraInputBytes) + 63) /
        64 * 64;
    buffers.push_back({r, bytes, first[id], last[id]});
    plan.unshared_bytes += bytes;
  }
  std::vector<std::size_t> order(buffers.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return buffers[a].bytes > buffers[b].bytes;
  });
  std::vector<std::size_t> placed;
  for (std::size_t i : order) {
    auto& b = buffers[i];
    std::vector<std::pair<std::int64_t, std::int64_t>> busy;
    for (std::size_t j : placed) {
      const auto& o = buffers[j];
      if (o.first <= b.last && b.first <= o.last) busy.emplace_back(o.offset, o.offset + o.bytes);
    }
    std::sort(busy.begin(), busy.end());
    std::int64_t offset = 0;
    for (const auto& [lo, hi] : busy) {
      if (offset + b.bytes <= lo) break;
      offset = std::max(offset, hi);
    }
    b.offset = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + b.bytes);
    plan.arena_offset[static_cast<std::size_t>(b.root)] = offset;
    placed.push_back(i);
  }
  return plan;
}

ops::ValueView view_of(const Graph& graph, const MemoryPlan& plan, int id, std::uint8_t* arena) {
  ops::ValueView view;
  if (id < 0) return view;
  const auto& v = graph.value(id);
  view.dtype = v.dtype;
  view.shape = v.shape;
  view.physical = v.shape;
  if (v.constant) {
    view.data = const_cast<void*>(v.constant->data());
    view.constant = v.constant.get();
    return view;
  }
  const int root = plan.root[static_cast<std::size_t>(id)];
  const std::int64_t base = plan.arena_offset[static_cast<std::size_t>(root)];
  view.data = arena + base +
              plan.element_offset[static_cast<std::size_t>(id)] *
                  static_cast<std::int64_t>(dtype_size(v.dtype));
  view.layout = plan.layout[static_cast<std::size_t>(id)];
  if (view.layout == ops::Layout::kNhwc) {
    view.physical = {v.shape[0], v.shape[2], v.shape[3], v.shape[1]};
    view.pixel_stride = graph.value(root).shape[1];
  }
  return view;
}

}  // namespace yolo::runtime
