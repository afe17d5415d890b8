// SPDX-License-Identifier: Apache-2.0
#pragma once

// Writing model files: the output checks made before any time is spent, and the atomic write.

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <string>

namespace yolo::runtime {

// Removes a file on destruction unless released.
class TempFile {
 public:
  explicit TempFile(std::filesystem::path path) : path_(std::move(path)) {}
  ~TempFile();
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::filesystem::path& path() const { return path_; }
  void release() { path_.clear(); }

 private:
  std::filesystem::path path_;
};

// A hidden name beside `out`, distinct per process and call: ".<name>.<tag>.<pid>.<n>".
std::filesystem::path unique_sibling(const std::filesystem::path& out, const std::string& tag);

// Serializes `model` to `path`; throws QuantizeError when it cannot.
void save_model(const onnx::ModelProto& model, const std::filesystem::path& path);

// Refuses an output path whose folder is missing or not writable (checked by creating and
// removing a file there), before any time is spent calibrating. `option` names the path in the
// message ("--out", "--report").
void check_writable(const std::filesystem::path& out, const std::string& option = "--out");

// Serializes to a temporary file beside `out`, then renames it over `out`: a reader never sees a
// half-written model, and a failure leaves no file behind.
void write_model_atomically(const onnx::ModelProto& model, const std::filesystem::path& out);

}  // namespace yolo::runtime
