// SPDX-License-Identifier: Apache-2.0
#include "runtime/quantize/model_file.h"

#include <gtest/gtest.h>

#include "tests/runtime/quantize/quantizer_models.h"

namespace yolo::runtime {
namespace {

using namespace quantize_test;

TEST(WriteModelAtomically, ReplacesTheFileAndLeavesNoTemporaries) {
  TempFolder folder("atomic");
  const fs::path out = folder.path() / "m.onnx";
  std::ofstream(out) << "old";
  ModelBuilder b = tiny_model();
  write_model_atomically(b.proto(), out);
  EXPECT_EQ(folder.files(), std::vector<std::string>{"m.onnx"});
  EXPECT_NO_THROW(OnnxModel::load(out));
  EXPECT_THROW(write_model_atomically(b.proto(), folder.path() / "missing" / "m.onnx"),
               QuantizeError);
  EXPECT_EQ(folder.files(), std::vector<std::string>{"m.onnx"});
}

}  // namespace
}  // namespace yolo::runtime
