// SPDX-License-Identifier: Apache-2.0
// Broken model files must give a ModelError with a clear message: never a crash, a hang, or
// std::bad_alloc from absurd dims. Built from the real fixtures.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "runtime/engine/engine.h"
#include "runtime/model/model_error.h"
#include "tests/support/fixtures.h"

namespace yolo::runtime {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kModels{"yolov8n_640_fp32.onnx", "yolov8n_640_int8dyn.onnx",
                                       "yolo11n_320_fp32.onnx", "yolo11n_320_int8dyn.onnx",
                                       "yolo26n_640_fp32.onnx", "yolo26n_640_int8dyn.onnx"};

std::string read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Per process: these tests also run as a sanitized build, beside this one.
fs::path write_temp(const std::string& name, const std::string& bytes) {
  const auto path =
      fs::temp_directory_path() / ("yolo_edge_bad_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

onnx::ModelProto parse(const std::string& model) {
  onnx::ModelProto proto;
  const auto bytes = read_bytes(yolo::test::fixtures_dir() / "models" / model);
  EXPECT_TRUE(proto.ParseFromString(bytes));
  return proto;
}

fs::path save(const std::string& name, const onnx::ModelProto& proto) {
  return write_temp(name, proto.SerializeAsString());
}

// The load's ModelError message, or "" when the load succeeded.
std::string load_message(const fs::path& path) {
  try {
    Engine::load(path, EngineOptions{});
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

TEST(EngineBadModels, EmptyFile) {
  const auto message = load_message(write_temp("empty.onnx", ""));
  EXPECT_NE(message.find("empty"), std::string::npos) << message;
}

TEST(EngineBadModels, MissingFile) {
  const auto message = load_message(fs::temp_directory_path() / "yolo_edge_no_such_model.onnx");
  EXPECT_NE(message.find("not found"), std::string::npos) << message;
}

TEST(EngineBadModels, PngRenamedToOnnx) {
  YOLO_REQUIRE_FIXTURES();
  const auto png =
      read_bytes(yolo::test::fixtures_dir() / "golden" / "yolo11n_320_fp32__dog.input.png");
  const auto message = load_message(write_temp("image.onnx", png));
  EXPECT_FALSE(message.empty());
}

TEST(EngineBadModels, TruncatedCopies) {
  YOLO_REQUIRE_FIXTURES();
  for (const auto& model : kModels) {
    const auto bytes = read_bytes(yolo::test::fixtures_dir() / "models" / model);
    for (double fraction : {0.001, 0.1, 0.5, 0.9, 0.999}) {
      const auto cut = static_cast<std::size_t>(static_cast<double>(bytes.size()) * fraction);
      const auto message = load_message(write_temp("truncated.onnx", bytes.substr(0, cut)));
      EXPECT_NE(message.find("not a valid ONNX model"), std::string::npos)
          << model << " cut at " << cut << ": " << message;
    }
  }
}

TEST(EngineBadModels, MissingInitializer) {
  YOLO_REQUIRE_FIXTURES();
  for (const auto& model : kModels) {
    auto proto = parse(model);
    const std::string name = proto.graph().initializer(0).name();
    proto.mutable_graph()->mutable_initializer()->DeleteSubrange(0, 1);
    const auto message = load_message(save("missing.onnx", proto));
    EXPECT_NE(message.find(name), std::string::npos) << model << ": " << message;
  }
}

TEST(EngineBadModels, ShapeMismatchedInitializers) {
  YOLO_REQUIRE_FIXTURES();
  for (const auto& model : kModels) {
    // Dims that disagree with the stored bytes.
    auto proto = parse(model);
    auto* init = proto.mutable_graph()->mutable_initializer(0);
    if (init->dims_size() == 0)
      init->add_dims(2);
    else
      init->set_dims(0, init->dims(0) + 1);
    auto message = load_message(save("mismatch.onnx", proto));
    EXPECT_NE(message.find(init->name()), std::string::npos) << model << ": " << message;
    // Consistent bytes but a weight the graph cannot use: the conv's weights lose a dim.
    proto = parse(model);
    for (auto& t : *proto.mutable_graph()->mutable_initializer()) {
      if (t.dims_size() == 4 && t.dims(2) * t.dims(3) > 1 && t.has_raw_data()) {
        const auto last = t.dims(3);
        t.set_dims(2, t.dims(2) * last);
        t.mutable_dims()->RemoveLast();
        break;
      }
    }
    message = load_message(save("mismatch2.onnx", proto));
    EXPECT_FALSE(message.empty()) << model;
  }
}

TEST(EngineBadModels, CyclicGraph) {
  YOLO_REQUIRE_FIXTURES();
  for (const auto& model : kModels) {
    auto proto = parse(model);
    auto* graph = proto.mutable_graph();
    // Feed a late node's output back into the first node that reads a computed value.
    const std::string late = graph->node(graph->node_size() - 2).output(0);
    for (auto& node : *graph->mutable_node()) {
      if (node.op_type() == "Conv" || node.op_type() == "ConvInteger") {
        node.set_input(0, late);
        break;
      }
    }
    const auto message = load_message(save("cyclic.onnx", proto));
    EXPECT_NE(message.find("cycle"), std::string::npos) << model << ": " << message;
  }
}

TEST(EngineBadModels, AbsurdInputDims) {
  YOLO_REQUIRE_FIXTURES();
  auto proto = parse("yolo11n_320_fp32.onnx");
  auto* dims = proto.mutable_graph()
                   ->mutable_input(0)
                   ->mutable_type()
                   ->mutable_tensor_type()
                   ->mutable_shape();
  dims->mutable_dim(2)->set_dim_value(1LL << 40);
  const auto message = load_message(save("huge_input.onnx", proto));
  EXPECT_NE(message.find("exceeds"), std::string::npos) << message;
}

// Random byte mutations of every fixture: either the model still loads (and runs), or the load
// throws ModelError. Anything else (another exception, a crash, a hang) fails the test. The
// first 64 KiB hold the graph's nodes and attributes, so half the mutations land there.
TEST(EngineBadModels, MutatedBytes) {
  YOLO_REQUIRE_FIXTURES();
  constexpr int kVariantsPerModel = 40;
  const auto started = std::chrono::steady_clock::now();
  int loaded = 0, rejected = 0;
  for (std::size_t m = 0; m < kModels.size(); ++m) {
    const auto original = read_bytes(yolo::test::fixtures_dir() / "models" / kModels[m]);
    std::mt19937 rng(static_cast<std::uint32_t>(1234 + m));
    for (int variant = 0; variant < kVariantsPerModel; ++variant) {
      std::string bytes = original;
      const std::size_t region =
          variant % 2 == 0 ? std::min<std::size_t>(bytes.size(), 65536) : bytes.size();
      const int flips = 1 + variant % 8;
      for (int f = 0; f < flips; ++f) {
        bytes[rng() % region] = static_cast<char>(rng() & 0xff);
      }
      const auto path = write_temp("mutated.onnx", bytes);
      SCOPED_TRACE(kModels[m] + " variant " + std::to_string(variant));
      try {
        auto engine = Engine::load(path, EngineOptions{});
        ++loaded;
        // Running the small model checks that what loads also runs.
        if (kModels[m].find("320") != std::string::npos) engine->run();
      } catch (const ModelError& e) {
        ++rejected;
        EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
      } catch (const std::exception& e) {
        ADD_FAILURE() << "not a ModelError: " << e.what();
      }
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_GT(rejected, 0);
  EXPECT_EQ(loaded + rejected, static_cast<int>(kModels.size()) * kVariantsPerModel);
  RecordProperty("seconds", std::to_string(seconds));
}

}  // namespace
}  // namespace yolo::runtime
