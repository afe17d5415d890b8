// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <filesystem>
#include <memory>

namespace yolo::runtime {

// An ONNX file parsed into its protobuf classes, with the checks every reader of it needs done
// once: the file exists, is a regular non-empty file, parses completely and has a graph.
class OnnxModel {
 public:
  // Throws ModelError naming the file and what is wrong with it.
  static OnnxModel load(const std::filesystem::path& path);

  const onnx::ModelProto& proto() const { return *proto_; }
  onnx::ModelProto& proto() { return *proto_; }
  const std::filesystem::path& path() const { return path_; }
  std::uintmax_t file_size() const { return file_size_; }

 private:
  std::unique_ptr<onnx::ModelProto> proto_;
  std::filesystem::path path_;
  std::uintmax_t file_size_ = 0;
};

}  // namespace yolo::runtime
