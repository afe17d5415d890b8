// SPDX-License-Identifier: Apache-2.0
#include "runtime/model/onnx_model.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "runtime/model/model_error.h"
#include "tests/runtime/mentions.h"

namespace yolo::runtime {
namespace {

namespace fs = std::filesystem;
using test::mentions;

class OnnxModelLoad : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("yolo_onnx_model_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  fs::path write(const std::string& bytes) {
    const fs::path file = dir_ / "model.onnx";
    std::ofstream out(file, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return file;
  }

  // One Relu from x to y: the smallest model load accepts.
  static onnx::ModelProto minimal() {
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.add_opset_import()->set_version(17);
    auto* graph = model.mutable_graph();
    graph->add_input()->set_name("x");
    graph->add_output()->set_name("y");
    auto* node = graph->add_node();
    node->set_op_type("Relu");
    // Built from a char: add_input("x") trips a GCC 12 -Wrestrict false positive.
    node->add_input(std::string(1, 'x'));
    node->add_output(std::string(1, 'y'));
    return model;
  }

  // The error message for loading `model`, which must fail.
  std::string load_error(const onnx::ModelProto& model) {
    const fs::path file = write(model.SerializeAsString());
    try {
      OnnxModel::load(file);
    } catch (const ModelError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(file.string()), std::string::npos) << message;
      return message;
    }
    ADD_FAILURE() << "loaded without an error";
    return {};
  }

  fs::path dir_;
};

TEST_F(OnnxModelLoad, MinimalModelLoads) {
  const auto model = OnnxModel::load(write(minimal().SerializeAsString()));
  EXPECT_EQ(model.proto().graph().node_size(), 1);
  EXPECT_EQ(model.file_size(), fs::file_size(dir_ / "model.onnx"));
}

// A change that makes the minimal model invalid, and what the error must say.
struct BrokenModel {
  const char* what;
  void (*change)(onnx::ModelProto&);
  std::string says;
};

TEST_F(OnnxModelLoad, ModelsLackingWhatLoadNeedsSayWhatIsWrong) {
  const BrokenModel cases[] = {
      {"ir_version missing", [](onnx::ModelProto& m) { m.set_ir_version(0); }, "ir_version 0"},
      {"ir_version absurd", [](onnx::ModelProto& m) { m.set_ir_version(123456789); },
       "ir_version 123456789"},
      {"no opset import", [](onnx::ModelProto& m) { m.clear_opset_import(); }, "opset"},
      {"no nodes", [](onnx::ModelProto& m) { m.mutable_graph()->clear_node(); }, "no ONNX graph"},
      {"no graph", [](onnx::ModelProto& m) { m.clear_graph(); }, "no ONNX graph"},
      {"no outputs", [](onnx::ModelProto& m) { m.mutable_graph()->clear_output(); },
       "no inputs or no outputs"},
  };
  for (const BrokenModel& c : cases) {
    auto model = minimal();
    c.change(model);
    EXPECT_TRUE(mentions(load_error(model), {c.says})) << c.what;
  }
}

TEST_F(OnnxModelLoad, NotAFileOrNotProtobuf) {
  EXPECT_THROW(OnnxModel::load(dir_), ModelError);
  EXPECT_THROW(OnnxModel::load(dir_ / "absent.onnx"), ModelError);
  EXPECT_THROW(OnnxModel::load(write("")), ModelError);
  EXPECT_THROW(OnnxModel::load(write("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff")), ModelError);
  const std::string whole = minimal().SerializeAsString();
  EXPECT_THROW(OnnxModel::load(write(whole.substr(0, whole.size() - 1))), ModelError);
}

}  // namespace
}  // namespace yolo::runtime
