// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <string>
#include <vector>

namespace yolo::runtime {

// What an ONNX file says about itself: the ModelProto header fields and the metadata_props that
// Ultralytics exports write (their values are Python literals: "{0: 'person', ...}", "[640, 640]").
struct ModelMetadata {
  // ModelProto.producer_name / producer_version ("pytorch", "onnxruntime.quant", ...).
  std::string producer, producer_version;
  // Ultralytics metadata_props; empty when absent. task: "detect", "segment", "pose", ...
  std::string description, author, version, license, task;
  // Class names by index, from "names" ("{0: 'person', 1: 'bicycle'}" or "['person', ...]").
  std::vector<std::string> names;
  // "[640, 640]" -> {640, 640} (height, width); a single number n -> {n, n}; empty if absent.
  std::vector<int> imgsz;
  // Largest feature-map stride; 0 if absent.
  int stride = 0;
  // "end2end": "True" for NMS-free exports whose output is [1, K, 6].
  bool end2end = false;
  // Opset of the default (ai.onnx) domain; 0 if the model imports none.
  int opset = 0;
  // Every metadata_props entry, verbatim.
  std::map<std::string, std::string> raw;
};

// Throws ModelError naming the metadata key whose value does not parse, e.g. names that is not a
// dict or list of strings, or imgsz that is not a list of positive integers.
ModelMetadata read_metadata(const onnx::ModelProto& model);
// The same for tools that describe a broken model rather than run it: a malformed entry is kept
// in raw only, its field stays at the default, and the error message is appended to `problems`.
ModelMetadata read_metadata(const onnx::ModelProto& model, std::vector<std::string>& problems);

// Parsers for the Python literals above, exposed for their tests; `key` only names the value in
// error messages.
std::vector<std::string> parse_names(const std::string& key, const std::string& text);
std::vector<int> parse_int_list(const std::string& key, const std::string& text);
int parse_int(const std::string& key, const std::string& text);
bool parse_bool(const std::string& key, const std::string& text);

}  // namespace yolo::runtime
