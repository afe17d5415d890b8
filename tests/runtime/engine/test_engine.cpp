// SPDX-License-Identifier: Apache-2.0
// The Engine API on the fixtures: dynamic input axes with imgsz, thread switching, profiling and
// the input/output contract.
#include "runtime/engine/engine.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "runtime/model/model_error.h"
#include "tests/runtime/load_error.h"
#include "tests/support/fixtures.h"

namespace yolo::runtime {
namespace {

namespace fs = std::filesystem;
using test::load_error;

fs::path model_path(const std::string& name) {
  return yolo::test::fixtures_dir() / "models" / name;
}

onnx::ModelProto parse(const fs::path& path) {
  onnx::ModelProto proto;
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(proto.ParseFromIstream(&in));
  return proto;
}

// The fixture with batch, height and width made symbolic, as `export(dynamic=True)` writes them.
fs::path dynamic_copy(const std::string& name, bool keep_metadata) {
  auto proto = parse(model_path(name));
  auto* shape = proto.mutable_graph()
                    ->mutable_input(0)
                    ->mutable_type()
                    ->mutable_tensor_type()
                    ->mutable_shape();
  shape->mutable_dim(0)->set_dim_param("batch");
  shape->mutable_dim(2)->set_dim_param("height");
  shape->mutable_dim(3)->set_dim_param("width");
  if (!keep_metadata) proto.clear_metadata_props();
  const auto path = fs::temp_directory_path() /
                    (std::string("yolo_edge_dynamic_") + (keep_metadata ? "" : "bare_") + name);
  std::ofstream out(path, std::ios::binary);
  proto.SerializeToOstream(&out);
  return path;
}

// A deterministic smooth test image in the engine's layout.
void fill_input(Engine& engine) {
  auto* in = static_cast<float*>(engine.input_data());
  const int w = engine.input_width(), h = engine.input_height();
  ASSERT_EQ(engine.input_layout(), InputLayout::kNhwcFloat);
  for (int y = 0; y < h; ++y) {
    for (int x = 0; x < w; ++x) {
      for (int c = 0; c < 3; ++c) {
        in[(y * w + x) * 3 + c] =
            0.5F + 0.5F * std::sin(0.05F * static_cast<float>(x * (c + 1)) + 0.03F * y);
      }
    }
  }
}

float max_difference(const Tensor& a, const Tensor& b) {
  float worst = 0;
  for (std::int64_t i = 0; i < a.size(); ++i) {
    worst = std::max(worst, std::fabs(a.data_as<float>()[i] - b.data_as<float>()[i]));
  }
  return worst;
}

TEST(Engine, ReportsInputAndOutputContract) {
  YOLO_REQUIRE_FIXTURES();
  auto engine = Engine::load(model_path("yolo11n_320_fp32.onnx"), EngineOptions{});
  EXPECT_EQ(engine->input_layout(), InputLayout::kNhwcFloat);
  EXPECT_EQ(engine->input_width(), 320);
  EXPECT_EQ(engine->input_height(), 320);
  ASSERT_EQ(engine->output_count(), 1U);
  EXPECT_EQ(engine->output_name(0), "output0");
  EXPECT_EQ(engine->output(0).shape(), (Shape{1, 84, 2100}));
  EXPECT_EQ(engine->metadata().names.size(), 80U);
  EXPECT_EQ(engine->threads(), 1);
}

TEST(Engine, DynamicAxesTakeTheSizeFromImgszOrMetadata) {
  YOLO_REQUIRE_FIXTURES();
  auto fixed = Engine::load(model_path("yolo11n_320_fp32.onnx"), EngineOptions{});
  fill_input(*fixed);
  fixed->run();

  EngineOptions options;
  options.imgsz = InputSize::fixed(320, 320);
  auto dynamic = Engine::load(dynamic_copy("yolo11n_320_fp32.onnx", true), options);
  fill_input(*dynamic);
  dynamic->run();
  ASSERT_EQ(dynamic->output(0).shape(), fixed->output(0).shape());
  EXPECT_LE(max_difference(dynamic->output(0), fixed->output(0)), 1e-5F);

  // imgsz 0: the metadata's [320, 320].
  auto from_metadata = Engine::load(dynamic_copy("yolo11n_320_fp32.onnx", true), EngineOptions{});
  EXPECT_EQ(from_metadata->input_width(), 320);

  // Another size: this export computed its head reshapes for 640, so 320 fails at load, naming
  // the node.
  const std::string what = load_error(dynamic_copy("yolov8n_640_fp32.onnx", true), options);
  EXPECT_NE(what.find("Reshape"), std::string::npos) << what;
}

TEST(Engine, DynamicAxesWithoutAnySizeSayToPassImgsz) {
  YOLO_REQUIRE_FIXTURES();
  const std::string what = load_error(dynamic_copy("yolo11n_320_fp32.onnx", false), {});
  EXPECT_NE(what.find("--imgsz"), std::string::npos) << what;
}

TEST(Engine, ImgszDifferentFromAFixedInputIsAnError) {
  YOLO_REQUIRE_FIXTURES();
  EngineOptions options;
  options.imgsz = InputSize::fixed(640, 640);
  const std::string what = load_error(model_path("yolo11n_320_fp32.onnx"), options);
  EXPECT_NE(what.find("fixed at 320x320"), std::string::npos) << what;
}

// The KITTI-like car/person YOLOv8 exported with dynamic axes ([batch, 3, height, width]).
TEST(Engine, DynamicAxesRunAtTheSourceAspectOrAnyMultipleOfTheStride) {
  YOLO_REQUIRE_FIXTURES();
  const fs::path model = model_path("yolov8n_carperson_dynaxes_int8dyn.onnx");
  EngineOptions options;
  options.imgsz = InputSize::automatic(720, 1280);
  auto wide = Engine::load(model, options);
  EXPECT_EQ(wide->input_width(), 640);
  EXPECT_EQ(wide->input_height(), 384);
  // Anchors are made in the graph from the input size: 48x80 + 24x40 + 12x20 cells.
  EXPECT_EQ(wide->output(0).shape(), (Shape{1, 6, 5040}));
  EXPECT_EQ(wide->input_for(InputSize::automatic(1080, 1920)), InputSize::fixed(384, 640));
  EXPECT_EQ(wide->input_for(InputSize::automatic(1280, 720)), InputSize::fixed(640, 384));
  EXPECT_EQ(wide->input_for({}), InputSize::fixed(640, 640));

  options.imgsz = InputSize::fixed(352, 640);
  auto fixed = Engine::load(model, options);
  EXPECT_EQ(fixed->input_height(), 352);
  fixed->run();

  // Auto before any frame: the size it was exported at.
  options.imgsz = InputSize::automatic();
  EXPECT_EQ(Engine::load(model, options)->input_width(), 640);
}

TEST(Engine, ASizeOffTheStrideIsRefusedNamingTheKey) {
  YOLO_REQUIRE_FIXTURES();
  const fs::path model = model_path("yolov8n_carperson_dynaxes_int8dyn.onnx");
  EngineOptions options;
  options.imgsz = InputSize::fixed(400, 640);
  options.imgsz_key = "model.imgsz";
  const std::string what = load_error(model, options);
  for (const char* part : {"model.imgsz 400x640", "400 is not a multiple of its stride 32",
                           "use 384 or 416", model.c_str()}) {
    EXPECT_NE(what.find(part), std::string::npos) << part << " not in: " << what;
  }
}

// The metadata's stride, not 32, when the model records one (a P6 model, stride 64).
TEST(Engine, TheStrideComesFromTheMetadata) {
  YOLO_REQUIRE_FIXTURES();
  auto proto = parse(model_path("yolov8n_carperson_dynaxes_int8dyn.onnx"));
  for (auto& prop : *proto.mutable_metadata_props()) {
    if (prop.key() == "stride") prop.set_value("64");
  }
  const fs::path path = fs::temp_directory_path() / "yolo_edge_stride64.onnx";
  std::ofstream(path, std::ios::binary) << proto.SerializeAsString();
  EngineOptions options;
  options.imgsz = InputSize::fixed(352, 640);
  const std::string what = load_error(path, options);
  EXPECT_NE(what.find("352 is not a multiple of its stride 64"), std::string::npos) << what;
  EXPECT_NE(what.find("--imgsz"), std::string::npos) << what;
  options.imgsz = InputSize::automatic(720, 1280);
  EXPECT_EQ(Engine::load(path, options)->input_height(), 384);  // 360 rounded up to 64 x 6
}

TEST(Engine, AFixedShapeFileKeepsItsShapeForAuto) {
  YOLO_REQUIRE_FIXTURES();
  EngineOptions options;
  options.imgsz = InputSize::automatic(720, 1280);
  auto engine = Engine::load(model_path("yolo11n_320_fp32.onnx"), options);
  EXPECT_EQ(engine->input_width(), 320);
  EXPECT_EQ(engine->input_height(), 320);
  options.imgsz = InputSize::fixed(192, 320);
  const std::string what = load_error(model_path("yolo11n_320_fp32.onnx"), options);
  EXPECT_NE(what.find("fixed at 320x320"), std::string::npos) << what;
  EXPECT_NE(what.find("not 192x320"), std::string::npos) << what;
}

TEST(Engine, ModelFileSaysWhatTheFileIs) {
  YOLO_REQUIRE_FIXTURES();
  const ModelFile dynaxes = read_model_file(model_path("yolov8n_carperson_dynaxes_int8dyn.onnx"));
  EXPECT_EQ(dynaxes.precision, Precision::kFp32);
  EXPECT_EQ(dynaxes.input, (Shape{-1, 3, -1, -1}));
  EXPECT_EQ(dynaxes.input_for(InputSize::automatic(720, 1280), "--imgsz"),
            InputSize::fixed(384, 640));
  const ModelFile fixed = read_model_file(model_path("yolov5n_640_fp16.onnx"));
  EXPECT_EQ(fixed.input, (Shape{1, 3, 640, 640}));
  EXPECT_EQ(fixed.input_for(InputSize::automatic(720, 1280), "--imgsz"),
            InputSize::fixed(640, 640));
  EXPECT_FALSE(is_static_int8_file(model_path("yolov8n_kitti3_int8dyn.onnx")));
  EXPECT_FALSE(is_static_int8_file(model_path("no_such_file.onnx")));
}

// Under QEMU (the arm64 build) these run on yolo11n 320, a quarter of the work: the thread pool
// and the profile's bookkeeping are what they test there, not the model.
const char* emulated_or(const char* model) {
  return yolo::test::kEmulated ? "yolo11n_320_fp32.onnx" : model;
}

TEST(Engine, SetThreadsBetweenRunsKeepsResults) {
  YOLO_REQUIRE_FIXTURES();
  auto engine = Engine::load(model_path(emulated_or("yolo26n_640_fp32.onnx")), EngineOptions{});
  fill_input(*engine);
  engine->run();
  Tensor first(DType::kFloat32, engine->output(0).shape());
  std::memcpy(first.data(), engine->output(0).data(), first.bytes());
  for (int threads : {2, 1, 2}) {
    engine->set_threads(threads);
    EXPECT_EQ(engine->threads(), threads);
    engine->run();
    EXPECT_LE(max_difference(engine->output(0), first), 1e-4F) << threads << " threads";
  }
  EXPECT_THROW(engine->set_threads(0), std::invalid_argument);
}

TEST(Engine, ProfileTimesEveryStep) {
  YOLO_REQUIRE_FIXTURES();
  EngineOptions options;
  options.profile = true;
  auto engine = Engine::load(model_path(emulated_or("yolov8n_640_fp32.onnx")), options);
  fill_input(*engine);
  engine->run();
  engine->run();
  const auto profile = engine->profile();
  ASSERT_EQ(static_cast<int>(profile.size()), engine->stats().steps);
  double total = 0;
  int convs = 0;
  for (const auto& p : profile) {
    EXPECT_EQ(p.calls, 2);
    EXPECT_FALSE(p.node.empty());
    total += p.total_ms;
    convs += p.op == "Conv";
  }
  EXPECT_GT(total, 0.0);
  EXPECT_EQ(convs, yolo::test::kEmulated ? 88 : 64);
}

TEST(Engine, PlanSharesMemoryAndConcatsInPlace) {
  YOLO_REQUIRE_FIXTURES();
  std::vector<std::string> log;
  EngineOptions options;
  options.log = [&](const std::string& line) { log.push_back(line); };
  auto engine = Engine::load(model_path("yolov8n_640_fp32.onnx"), options);
  const auto& stats = engine->stats();
  // Peak arena well below the sum of all activations.
  EXPECT_LT(stats.arena_bytes * 3, stats.unshared_bytes);
  EXPECT_EQ(stats.fused_silu, 57);
  EXPECT_GT(stats.concat_inputs_in_place, 30);
  ASSERT_FALSE(log.empty());
  EXPECT_NE(log.back().find("arena"), std::string::npos) << log.back();
}

TEST(Engine, Int8PrecisionIsRefusedWithAClearMessage) {
  YOLO_REQUIRE_FIXTURES();
  EngineOptions options;
  options.precision = Precision::kInt8;
  EXPECT_THROW(Engine::load(model_path("yolov8n_640_fp32.onnx"), options), ModelError);
}

}  // namespace
}  // namespace yolo::runtime
