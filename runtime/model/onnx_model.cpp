// SPDX-License-Identifier: Apache-2.0
#include "runtime/model/onnx_model.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>

#include <fstream>
#include <limits>
#include <string>
#include <system_error>

#include "runtime/model/model_error.h"

namespace yolo::runtime {

namespace fs = std::filesystem;

// IR versions go up by one every ONNX release or two (ONNX 1.17 writes 10); a far larger value
// is garbage that happened to parse.
constexpr std::int64_t kMaxIrVersion = 100;

OnnxModel OnnxModel::load(const fs::path& path) {
  const std::string where = path.string();
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    throw ModelError(where + ": model file not found; check the path");
  }
  if (fs::is_directory(status)) {
    throw ModelError(where + ": is a directory, not an ONNX model file");
  }
  if (!fs::is_regular_file(status)) {
    throw ModelError(where + ": not a regular file; give the path of an .onnx file");
  }
  OnnxModel model;
  model.path_ = path;
  model.file_size_ = fs::file_size(path, ec);
  if (ec) throw ModelError(where + ": cannot read the file size: " + ec.message());
  if (model.file_size_ == 0) {
    throw ModelError(where + ": the file is empty (0 bytes); re-export or re-copy the model");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(where + ": cannot open for reading (check permissions)");

  google::protobuf::io::IstreamInputStream raw(&in);
  google::protobuf::io::CodedInputStream coded(&raw);
  // Models with their weights inline exceed protobuf's 64 MiB default limit only when large;
  // allow up to 2 GiB, ONNX's own limit for a single file.
  coded.SetTotalBytesLimit(std::numeric_limits<int>::max());
  model.proto_ = std::make_unique<onnx::ModelProto>();
  if (!model.proto_->ParseFromCodedStream(&coded) || !coded.ConsumedEntireMessage()) {
    throw ModelError(where +
                     ": not a valid ONNX model (the protobuf does not parse: the file is cut "
                     "short, corrupt, or not ONNX); re-export or re-copy it");
  }
  // Protobuf accepts many byte strings (a text file, a cut at a field boundary) as some message;
  // a real ONNX file always has an IR version, an opset and a graph of nodes.
  const auto& proto = *model.proto_;
  if (proto.ir_version() <= 0 || proto.ir_version() > kMaxIrVersion) {
    throw ModelError(where + ": not an ONNX model (ir_version " +
                     std::to_string(proto.ir_version()) + " is not an ONNX IR version 1.." +
                     std::to_string(kMaxIrVersion) + "); the file is corrupt or not ONNX");
  }
  if (!proto.has_graph() || proto.graph().node_size() == 0) {
    throw ModelError(where + ": parses as protobuf but holds no ONNX graph; is it an ONNX model?");
  }
  if (proto.opset_import_size() == 0) {
    throw ModelError(where +
                     ": the model imports no opset (opset_import is empty): the file is cut short "
                     "or was written by a broken exporter; re-export it");
  }
  if (model.proto_->graph().input_size() == 0 || model.proto_->graph().output_size() == 0) {
    throw ModelError(where + ": the ONNX graph declares no inputs or no outputs");
  }
  return model;
}

}  // namespace yolo::runtime
