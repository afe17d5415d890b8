// SPDX-License-Identifier: Apache-2.0
// plan_model(): which model runs for a config, what must be made first and what precision auto
// measures (daemon/model/model_plan.cpp). The files are answered from memory.
#include "daemon/model/model_plan.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "runtime/model/model_error.h"

namespace yolo::daemon {
namespace {

namespace fs = std::filesystem;
using config::Precision;
using runtime::InputSize;

const fs::path kModel = "/models/yolov8n.onnx";
const fs::path kInt8Dir = "/var/lib/yolo-edge/int8";
// The name quantize: auto gives kModel's INT8 file while its contents hash to 0xabc.
const fs::path kMade = kInt8Dir / "yolov8n-0000000000000abc.int8.onnx";

// Model files as the planner asks about them, from memory.
class FakeFiles : public ModelFiles {
 public:
  std::map<fs::path, runtime::ModelFile> models;
  std::map<fs::path, std::uint64_t> hashes;
  // Files that exist besides the models.
  std::set<fs::path> others;

  const runtime::ModelFile& model_file(const fs::path& path) override { return models.at(path); }
  std::uint64_t content_hash(const fs::path& path) override { return hashes.at(path); }
  bool exists(const fs::path& path) const override {
    return models.contains(path) || others.contains(path);
  }
};

// kModel as an FP32 file with a fixed 640x640 input, hashing to 0xabc.
FakeFiles fp32_model() {
  FakeFiles files;
  files.models[kModel] = {kModel, runtime::Precision::kFp32, {1, 3, 640, 640}, {}};
  files.hashes[kModel] = 0xabc;
  return files;
}

// kModel exported with dynamic axes at 640, stride 32.
FakeFiles dynamic_model() {
  FakeFiles files = fp32_model();
  runtime::ModelFile& file = files.models[kModel];
  file.input = {1, 3, -1, -1};
  file.metadata.imgsz = {640, 640};
  file.metadata.stride = 32;
  return files;
}

config::ModelConfig model_config(Precision precision,
                                 config::Quantize quantize = config::Quantize::kOff) {
  config::ModelConfig m;
  m.path = kModel;
  m.precision = precision;
  m.quantize = quantize;
  return m;
}

// A target at the model's own size unless `imgsz` says otherwise.
ModelTarget target(const fs::path& file, Precision precision, InputSize imgsz = InputSize{}) {
  return {file, precision, imgsz, {}, config::Decoder::kAuto};
}

TEST(ModelPlan, PrecisionFileRunsWhatTheFileIs) {
  FakeFiles files = fp32_model();
  Plan p = plan_model(model_config(Precision::kFile), {kInt8Dir, {}, {}}, files);
  EXPECT_EQ(p.fp32, target(kModel, Precision::kFp32));
  EXPECT_EQ(p.run, p.fp32);
  EXPECT_TRUE(p.make.empty());
  EXPECT_FALSE(p.candidate);

  // A static INT8 file runs int8, and is still the FP32 model's file.
  files.models[kModel].precision = runtime::Precision::kInt8;
  p = plan_model(model_config(Precision::kFile), {kInt8Dir, {}, {}}, files);
  EXPECT_EQ(p.run, target(kModel, Precision::kInt8));
  EXPECT_EQ(p.fp32, target(kModel, Precision::kFp32));
}

TEST(ModelPlan, PrecisionFp32RunsFp32EvenFromAStaticInt8File) {
  FakeFiles files = fp32_model();
  files.models[kModel].precision = runtime::Precision::kInt8;
  const Plan p = plan_model(model_config(Precision::kFp32), {kInt8Dir, {}, {}}, files);
  EXPECT_EQ(p.run, target(kModel, Precision::kFp32));
  EXPECT_TRUE(p.make.empty());
  EXPECT_FALSE(p.candidate);
}

TEST(ModelPlan, PrecisionInt8RunsTheInt8PathOrAStaticInt8ModelPath) {
  FakeFiles files = fp32_model();
  config::ModelConfig m = model_config(Precision::kInt8);
  m.int8_path = "/models/yolov8n.int8.onnx";
  files.others.insert(m.int8_path);
  Plan p = plan_model(m, {kInt8Dir, {}, {}}, files);
  EXPECT_EQ(p.run, target(m.int8_path, Precision::kInt8));
  EXPECT_EQ(p.fp32, target(kModel, Precision::kFp32));
  EXPECT_TRUE(p.make.empty());
  EXPECT_FALSE(p.candidate);

  // Without model.int8_path, a static INT8 model.path is its own INT8 model.
  files.models[kModel].precision = runtime::Precision::kInt8;
  p = plan_model(model_config(Precision::kInt8), {kInt8Dir, {}, {}}, files);
  EXPECT_EQ(p.run, target(kModel, Precision::kInt8));
  EXPECT_TRUE(p.make.empty());
}

TEST(ModelPlan, QuantizeAutoMakesTheInt8FileFirstAndRunsFp32Meanwhile) {
  FakeFiles files = fp32_model();
  const config::ModelConfig m = model_config(Precision::kInt8, config::Quantize::kAuto);
  Plan p = plan_model(m, {kInt8Dir, {}, {}}, files);
  EXPECT_EQ(p.make, kMade);
  EXPECT_EQ(p.run, target(kModel, Precision::kFp32));
  EXPECT_FALSE(p.candidate);

  // Once made, it runs.
  files.others.insert(p.make);
  const fs::path made = p.make;
  p = plan_model(m, {kInt8Dir, {}, {}}, files);
  EXPECT_TRUE(p.make.empty());
  EXPECT_EQ(p.run, target(made, Precision::kInt8));
}

TEST(ModelPlan, QuantizeAutoWritesTheInt8PathWhenOneIsGiven) {
  FakeFiles files = fp32_model();
  config::ModelConfig m = model_config(Precision::kInt8, config::Quantize::kAuto);
  m.int8_path = "/models/mine.int8.onnx";
  const Plan p = plan_model(m, {kInt8Dir, {}, {}}, files);
  EXPECT_EQ(p.make, m.int8_path);
  EXPECT_EQ(p.run, target(kModel, Precision::kFp32));
}

TEST(ModelPlan, AnEditedModelFileGetsANewMadeName) {
  FakeFiles files = fp32_model();
  files.models[kModel].input = {1, 3, 384, 640};
  config::ModelConfig m = model_config(Precision::kInt8, config::Quantize::kAuto);
  m.imgsz = InputSize::fixed(384, 640);
  const fs::path before = kInt8Dir / "yolov8n-0000000000000abc-384x640.int8.onnx";
  EXPECT_EQ(made_int8_path(m, InputSize::fixed(384, 640), kInt8Dir, files), before);
  files.others.insert(before);
  EXPECT_TRUE(plan_model(m, {kInt8Dir, {}, {}}, files).make.empty());

  // The same name with other contents: the INT8 file made from the old ones no longer fits.
  files.hashes[kModel] = 0xdef;
  const Plan p = plan_model(m, {kInt8Dir, {}, {}}, files);
  EXPECT_EQ(p.make, kInt8Dir / "yolov8n-0000000000000def-384x640.int8.onnx");
  EXPECT_EQ(p.run, target(kModel, Precision::kFp32, InputSize::fixed(384, 640)));
  // The model's own size adds nothing to the name.
  EXPECT_EQ(made_int8_path(m, InputSize{}, kInt8Dir, files),
            kInt8Dir / "yolov8n-0000000000000def.int8.onnx");
  // A square one adds one number.
  EXPECT_EQ(made_int8_path(m, InputSize::fixed(320, 320), kInt8Dir, files),
            kInt8Dir / "yolov8n-0000000000000def-320.int8.onnx");
}

TEST(ModelPlan, PrecisionAutoMeasuresTheInt8FileAndRunsItOnceChosen) {
  FakeFiles files = fp32_model();
  const config::ModelConfig m = model_config(Precision::kAuto, config::Quantize::kAuto);
  Plan p = plan_model(m, {kInt8Dir, {}, {}}, files);
  EXPECT_FALSE(p.make.empty());
  EXPECT_FALSE(p.candidate);
  EXPECT_EQ(p.run, p.fp32);

  files.others.insert(p.make);
  const ModelTarget int8 = target(p.make, Precision::kInt8);
  p = plan_model(m, {kInt8Dir, {}, {}}, files);
  EXPECT_TRUE(p.make.empty());
  EXPECT_EQ(p.candidate, int8);
  EXPECT_EQ(p.run, p.fp32);

  p = plan_model(m, {kInt8Dir, {}, ModelPair{p.fp32, int8}}, files);
  EXPECT_EQ(p.run, int8);
  EXPECT_EQ(p.candidate, int8);

  // A choice made for other models does not hold for these.
  ModelPair other{p.fp32, int8};
  other.int8.file = "/models/other.int8.onnx";
  p = plan_model(m, {kInt8Dir, {}, other}, files);
  EXPECT_EQ(p.run, p.fp32);
}

TEST(ModelPlan, ImgszAutoSizesADynamicModelForTheCameraOnceItsFirstFrameIsKnown) {
  FakeFiles files = dynamic_model();
  config::ModelConfig m = model_config(Precision::kInt8, config::Quantize::kAuto);
  m.imgsz = InputSize::automatic();
  EXPECT_EQ(input_size(m, {}, files), InputSize::fixed(640, 640));
  Plan p = plan_model(m, {kInt8Dir, {}, {}}, files);
  EXPECT_EQ(p.run, target(kModel, Precision::kFp32, InputSize::fixed(640, 640)));
  EXPECT_EQ(p.make, kInt8Dir / "yolov8n-0000000000000abc-640.int8.onnx");

  // 1280x720 frames: 384x640, and an INT8 file of its own.
  p = plan_model(m, {kInt8Dir, cv::Size(1280, 720), {}}, files);
  EXPECT_EQ(p.run, target(kModel, Precision::kFp32, InputSize::fixed(384, 640)));
  EXPECT_EQ(p.make, kInt8Dir / "yolov8n-0000000000000abc-384x640.int8.onnx");

  // The model's own size asks the file nothing.
  m.imgsz = InputSize{};
  EXPECT_EQ(input_size(m, cv::Size(1280, 720), files), InputSize{});
}

TEST(ModelPlan, AnImgszTheModelCannotTakeThrows) {
  FakeFiles files = dynamic_model();
  config::ModelConfig m = model_config(Precision::kFile);
  m.imgsz = InputSize::fixed(350, 640);
  EXPECT_THROW(plan_model(m, {kInt8Dir, {}, {}}, files), runtime::ModelError);
}

TEST(ModelPlan, DescribeNamesTheFilePrecisionAndAFixedSize) {
  EXPECT_EQ(describe(target(kModel, Precision::kInt8, InputSize::fixed(384, 640))),
            "yolov8n.onnx (int8, 384x640)");
  EXPECT_EQ(describe(target(kModel, Precision::kFp32, InputSize{})), "yolov8n.onnx (fp32)");
}

}  // namespace
}  // namespace yolo::daemon
