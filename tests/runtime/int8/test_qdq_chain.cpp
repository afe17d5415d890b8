// SPDX-License-Identifier: Apache-2.0
// Element-wise chains as int8 tables (runtime/int8/qdq_chain.h): the table composes a chain exactly
// as the file writes it. On synthetic QDQ graphs in ONNX Runtime's layout the int8 engine must
// equal the fake-quant reference (the engine's FP32 path on the same file) and ONNX Runtime run
// node by node as float ops, within one quantization step on all but rare values: the references
// compute the same float values in another order or with another exp, and a value within a rounding
// error of a half step (a tie) can round the other way. Each test counts those and prints them.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>

#include "runtime/engine/graph.h"
#include "runtime/int8/qdq_chain.h"
#include "runtime/int8/qdq_lowering.h"
#include "runtime/kernels/quantize.h"
#include "runtime/model/onnx_model.h"
#include "tests/runtime/int8/int8_runs.h"
#include "tests/runtime/int8/ort_layout_model.h"
#include "tests/runtime/test_model_builder.h"
#include "tests/support/ort_peer.h"

namespace yolo::runtime {
namespace {

using test::ModelBuilder;

// --- The table itself, on a graph whose int8 input feeds the chain directly. ---

// x (int8) -> DQ(sx) -> Sigmoid -> Q(ss) -> DQ -> Mul(DQ(x), .) -> out, the Q/DQ as given.
struct SiluGraph {
  Graph graph;
  std::vector<std::optional<TensorQuant>> quant;
  std::size_t mul = 0;
};

SiluGraph silu_graph(TensorQuant x, TensorQuant s) {
  ModelBuilder b;
  b.input("x", {1, 4, 2, 2}, onnx::TensorProto::INT8);
  b.floats("sx", {}, {x.scale});
  b.floats("ss", {}, {s.scale});
  auto zero = [&](const std::string& name, int v) {
    auto* t = b.proto().mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT8);
    t->add_int32_data(v);
  };
  zero("zx", x.zero_point);
  zero("zs", s.zero_point);
  b.node("DequantizeLinear", {"x", "sx", "zx"}, {"xf"}, "dq_x");
  b.node("Sigmoid", {"xf"}, {"sig"}, "sigmoid");
  b.node("QuantizeLinear", {"sig", "ss", "zs"}, {"sig_q"}, "q_sig");
  b.node("DequantizeLinear", {"sig_q", "ss", "zs"}, {"sig_f"}, "dq_sig");
  b.node("Mul", {"xf", "sig_f"}, {"out"}, "mul");
  b.output("out");
  SiluGraph g{Graph::from_onnx(b.proto(), "silu"), {}, 0};
  for (auto& v : g.graph.values) {
    if (!v.constant) {
      v.shape = {1, 4, 2, 2};
      v.has_shape = true;
    }
  }
  for (std::size_t n = 0; n < g.graph.nodes.size(); ++n) {
    const std::string& name = g.graph.nodes[n].name;
    g.quant.push_back(name == "dq_x"                        ? std::optional(x)
                      : name == "q_sig" || name == "dq_sig" ? std::optional(s)
                                                            : std::nullopt);
    if (name == "mul") g.mul = n;
  }
  return g;
}

float sigmoid(float x) {
  return 1.0F / (1.0F + std::exp(-x));
}

int quantize(float v, TensorQuant q) {
  return static_cast<int>(std::clamp(
      kernels::round_half_even(v / q.scale) + static_cast<float>(q.zero_point), -128.0F, 127.0F));
}

TEST(QdqChain, SiluTableRoundsTheSigmoidAsTheFileWritesIt) {
  const TensorQuant x{0.05F, -20}, s{0.02F, -128}, y{0.03F, -100};
  const SiluGraph g = silu_graph(x, s);
  std::string why;
  const auto chain = find_chain(g.graph, g.quant, g.mul, why);
  ASSERT_TRUE(chain) << why;
  EXPECT_EQ(chain->name, "SiLU");
  EXPECT_EQ(chain->inner_roundings, 1);
  EXPECT_EQ(chain->source, g.graph.find_value("x"));
  const auto exact = chain_table(g.graph, g.quant, *chain, y, false, why);
  const auto one = chain_table(g.graph, g.quant, *chain, y, true, why);
  ASSERT_TRUE(exact && one) << why;
  int differ = 0;
  for (int q = -128; q <= 127; ++q) {
    const float v = static_cast<float>(q - x.zero_point) * x.scale;
    const int rounded = quantize(sigmoid(v), s);
    const float sig = static_cast<float>(rounded - s.zero_point) * s.scale;
    const auto byte = static_cast<std::uint8_t>(q);
    EXPECT_EQ((*exact)[byte], quantize(v * sig, y)) << "q " << q;
    EXPECT_EQ((*one)[byte], quantize(v * sigmoid(v), y)) << "q " << q;
    differ += (*exact)[byte] != (*one)[byte];
  }
  // A sigmoid step of 0.02 moves x * sigmoid(x) by up to |x| / 100: the two tables differ.
  EXPECT_GT(differ, 20);
}

TEST(QdqChain, TwoInt8InputsAreNoChain) {
  ModelBuilder b;
  b.input("a", {1, 2, 2, 2}, onnx::TensorProto::INT8);
  b.input("b", {1, 2, 2, 2}, onnx::TensorProto::INT8);
  b.floats("s", {}, {0.1F});
  b.node("DequantizeLinear", {"a", "s"}, {"af"}, "dq_a");
  b.node("DequantizeLinear", {"b", "s"}, {"bf"}, "dq_b");
  b.node("Add", {"af", "bf"}, {"out"}, "add");
  b.output("out");
  const Graph graph = Graph::from_onnx(b.proto(), "add");
  std::vector<std::optional<TensorQuant>> quant;
  std::size_t add = 0;
  for (std::size_t n = 0; n < graph.nodes.size(); ++n) {
    const bool dq = graph.nodes[n].op_type == "DequantizeLinear";
    quant.push_back(dq ? std::optional(TensorQuant{0.1F, 0}) : std::nullopt);
    if (graph.nodes[n].op_type == "Add") add = n;
  }
  std::string why;
  EXPECT_FALSE(find_chain(graph, quant, add, why));
  EXPECT_EQ(why, "its inputs come from different int8 tensors");
}

TEST(QdqChain, RequantizationIsDequantizeThenQuantize) {
  const TensorQuant in{0.05F, 3}, out{0.03F, -7};
  const Int8Table table = requantize_table(in, out);
  for (int q = -128; q <= 127; ++q) {
    EXPECT_EQ(table[static_cast<std::uint8_t>(q)],
              quantize(static_cast<float>(q - in.zero_point) * in.scale, out));
  }
}

// --- Whole files in ONNX Runtime's layout, through the engine. ---

// A conv whose output goes through `chain` into the graph output.
struct ChainCase {
  std::string name;
  // Writes the chain on the conv output x; ends with m.output(...).
  std::function<void(OrtLayoutModel& m, const std::string& x)> chain;
  // The last node of the chain (the one whose table the lowering makes) and its plan note.
  std::string last;
  std::string note;
  int inner_roundings = 0;
};

std::vector<ChainCase> chain_cases() {
  return {
      {"silu", [](OrtLayoutModel& m, const std::string& x) { m.silu(x, "act", true); }, "act_silu",
       "int8: SiLU table fused into a QConv", 1},
      {"sigmoid",
       [](OrtLayoutModel& m, const std::string& x) {
         m.b.node("Sigmoid", {x}, {"act_sigmoid"}, "act_sigmoid");
         m.output("act_sigmoid");
       },
       "act_sigmoid", "int8: sigmoid table fused into a QConv", 0},
      {"hardswish",
       [](OrtLayoutModel& m, const std::string& x) {
         m.b.node("HardSwish", {x}, {"act_hardswish"}, "act_hardswish");
         m.output("act_hardswish");
       },
       "act_hardswish", "int8: HardSwish table fused into a QConv", 0},
      {"hardsigmoid_mul",
       [](OrtLayoutModel& m, const std::string& x) {
         auto& h = m.b.node("HardSigmoid", {x}, {"act_hsig"}, "act_hsig");
         ModelBuilder::attr(h, "alpha", 1.0F / 6.0F);
         const std::string hs = m.activation("act_hsig");
         m.b.node("Mul", {x, hs}, {"act_mul"}, "act_mul");
         m.output("act_mul");
       },
       "act_mul", "int8: HardSwish table fused into a QConv", 1},
      {"relu6_hardswish",
       [](OrtLayoutModel& m, const std::string& x) {
         const std::string a = m.op("Add", {x, m.constant("three", 3.0F)}, "act_add");
         m.b.floats("zero", {}, {0.0F});
         m.b.floats("six", {}, {6.0F});
         const std::string c = m.op("Clip", {a, "zero", "six"}, "act_clip");
         m.b.floats("divisor", {}, {6.0F});
         const std::string d = m.op("Div", {c, "divisor"}, "act_div");
         m.b.node("Mul", {x, d}, {"act_mul"}, "act_mul");
         m.output("act_mul");
       },
       "act_mul", "int8: Add -> Clip -> Div -> Mul table fused into a QConv", 3},
      {"leaky_relu",
       [](OrtLayoutModel& m, const std::string& x) {
         auto& l = m.b.node("LeakyRelu", {x}, {"act_leaky"}, "act_leaky");
         ModelBuilder::attr(l, "alpha", 0.1F);
         m.output("act_leaky");
       },
       "act_leaky", "int8: LeakyRelu table fused into a QConv", 0},
  };
}

OrtLayoutFile chain_file(const ChainCase& c) {
  return build_ort_layout("ort_chain_" + c.name + ".onnx", [&](OrtLayoutModel& m) {
    const auto x = m.input("images", {1, 3, 24, 24});
    c.chain(m, m.conv(x, 3, 16, 3, 1, 5, "conv"));
  });
}

// How many output levels the run reached: comparing outputs that are all alike proves nothing.
std::size_t levels(const std::vector<float>& values) {
  return std::set<float>(values.begin(), values.end()).size();
}

// Too many values one step off, or any further, would mean the table is not the file's chain.
void expect_rare_ties(const StepDifferences& d, const std::string& what) {
  std::cout << "[ ties     ] " << what << ": " << d << "\n";
  EXPECT_LE(d.worst, 1.01) << what << ": " << d;
  EXPECT_LE(d.off_by_one * 200, d.values) << what << ": " << d;
}

TEST(QdqChain, OrtLayoutChainsEqualFakeQuant) {
  for (const auto& c : chain_cases()) {
    SCOPED_TRACE(c.name);
    const OrtLayoutFile file = chain_file(c);
    const QdqPlan plan = plan_qdq_model(file.path, InputSize{});
    EXPECT_EQ(plan.stats.conv_act, 1);
    EXPECT_EQ(plan.stats.tables, 0);
    EXPECT_EQ(plan.stats.chains_as_written, c.inner_roundings > 0 ? 1 : 0);
    for (const auto& layer : plan.layers) {
      if (layer.node == c.last) {
        EXPECT_EQ(layer.note, c.note);
      }
      EXPECT_TRUE(layer.int8) << layer.node << ": " << layer.note;
    }
    const Result int8 = run_model(file.path, Precision::kInt8);
    const Result fake = run_model(file.path, Precision::kFp32);
    EXPECT_EQ(int8.layout, InputLayout::kNhwcUint8);
    EXPECT_GT(levels(int8.outputs[0]), 100U);
    expect_rare_ties(step_differences(int8.outputs[0], fake.outputs[0], file.output_scale),
                     c.name + " int8 vs fake-quant");
  }
}

TEST(QdqChain, OrtLayoutChainsEqualOnnxRuntime) {
  if (const auto missing = test::ort_peer_missing(); !missing.empty()) GTEST_SKIP() << missing;
  for (const auto& c : chain_cases()) {
    SCOPED_TRACE(c.name);
    const OrtLayoutFile file = chain_file(c);
    const Result int8 = run_model(file.path, Precision::kInt8);
    const auto ort = test::run_ort_reference(file.path, test_image_nchw(24 * 24), "output");
    ASSERT_TRUE(ort);
    expect_rare_ties(step_differences(int8.outputs[0], *ort, file.output_scale),
                     c.name + " int8 vs ONNX Runtime");
  }
}

// yolo-edge's own files keep the one table from conv output to SiLU output: the same file with
// the quantizer's metadata runs the SiLU unrounded, off the fake-quant reference.
TEST(QdqChain, OwnFilesKeepTheOneTableSilu) {
  auto net = [](OrtLayoutModel& m) {
    const auto x = m.input("images", {1, 3, 24, 24});
    m.silu(m.conv(x, 3, 16, 3, 1, 5, "conv"), "act", true);
  };
  const OrtLayoutFile file = build_ort_layout("ort_chain_own.onnx", net);
  auto own = OnnxModel::load(file.path);
  auto* tag = own.proto().add_metadata_props();
  tag->set_key(kOwnQuantizationKey);
  tag->set_value(R"({"format": "qdq-int8-v1"})");
  const auto own_path = std::filesystem::temp_directory_path() / "yolo_edge_ort_chain_own_tag.onnx";
  {
    std::ofstream out(own_path, std::ios::binary);
    own.proto().SerializeToOstream(&out);
  }
  const Result faithful = run_model(file.path, Precision::kInt8);
  const Result one_table = run_model(own_path, Precision::kInt8);
  const Result fake = run_model(file.path, Precision::kFp32);
  EXPECT_EQ(one_table.stats.int8_convs, 1);
  EXPECT_NE(one_table.log.find("(0 chains with inner roundings, as written)"), std::string::npos)
      << one_table.log;
  EXPECT_NE(faithful.log.find("(1 chains with inner roundings, as written)"), std::string::npos)
      << faithful.log;
  const auto as_written = step_differences(faithful.outputs[0], fake.outputs[0], file.output_scale);
  const auto unrounded = step_differences(one_table.outputs[0], fake.outputs[0], file.output_scale);
  std::cout << "[ ties     ] as written: " << as_written << "; one table: " << unrounded << "\n";
  EXPECT_GT(unrounded.off_by_one + unrounded.beyond_one,
            5 * (as_written.off_by_one + as_written.beyond_one + 1));
}

// A C2f stage as in YOLOv8 / YOLO11 backbones: two stride-2 conv + SiLU, a 1x1 conv + SiLU split
// in two, two residual bottlenecks (two 3x3 conv + SiLU, Add), the four parts concatenated, and a
// 1x1 conv + SiLU: 8 convs, 8 SiLU chains, a split, 2 adds of different tensors, a concat of
// four differently quantized inputs.
OrtLayoutFile backbone_stage() {
  return build_ort_layout("ort_c2f_stage.onnx", [](OrtLayoutModel& m) {
    const auto x = m.input("images", {1, 3, 64, 64});
    const auto stem = m.conv_silu(x, 3, 16, 3, 2, 1, "stem");
    const auto down = m.conv_silu(stem, 16, 32, 3, 2, 2, "down");
    const auto cv1 = m.conv_silu(down, 32, 32, 1, 1, 3, "cv1");
    const auto parts = m.split(cv1, 2, 32, "split");
    std::vector<std::string> cat = parts;
    std::string y = parts[1];
    for (int i = 0; i < 2; ++i) {
      const std::string name = std::string("m").append(std::to_string(i));
      const auto h = m.conv_silu(y, 16, 16, 3, 1, 10 + static_cast<std::uint32_t>(i), name + "a");
      const auto g = m.conv_silu(h, 16, 16, 3, 1, 20 + static_cast<std::uint32_t>(i), name + "b");
      y = m.op("Add", {y, g}, name + "_add");
      cat.push_back(y);
    }
    const auto joined = m.concat(cat, "concat");
    m.silu(m.conv(joined, 64, 32, 1, 1, 4, "cv2"), "cv2", true);
  });
}

TEST(QdqChain, YoloBackboneStageEqualsFakeQuantAndOnnxRuntime) {
  const OrtLayoutFile file = backbone_stage();
  const Result int8 = run_model(file.path, Precision::kInt8);
  const Result fake = run_model(file.path, Precision::kFp32);
  EXPECT_EQ(int8.stats.int8_convs, 8);
  EXPECT_EQ(int8.stats.int8_quantize, 0);
  EXPECT_NE(int8.log.find("8 convs (8 with element-wise tables), 3 tables (8 chains with inner "
                          "roundings, as written), 2 add/mul"),
            std::string::npos)
      << int8.log;
  EXPECT_GT(levels(int8.outputs[0]), 100U);
  // Seven layers deep a tie flipped early moves a few values downstream by a step, rarely more.
  expect_rare_ties(step_differences(int8.outputs[0], fake.outputs[0], file.output_scale),
                   "C2f stage int8 vs fake-quant");
  if (const auto missing = test::ort_peer_missing(); !missing.empty()) GTEST_SKIP() << missing;
  const auto ort = test::run_ort_reference(file.path, test_image_nchw(64 * 64), "output");
  ASSERT_TRUE(ort);
  expect_rare_ties(step_differences(int8.outputs[0], *ort, file.output_scale),
                   "C2f stage int8 vs ONNX Runtime");
}

}  // namespace
}  // namespace yolo::runtime
