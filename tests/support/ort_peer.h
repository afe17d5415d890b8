// SPDX-License-Identifier: Apache-2.0
#pragma once

// ONNX Runtime as a reference in tests: ../shared/bench/ort_peer.js run under node, when it was
// installed (../shared/bench/setup.sh DIR). Tests that compare with it skip, saying how to install
// it, when it is not there.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/run_process.h"

namespace yolo::test {

// $YOLO_EDGE_ORT_PEER (the path of ort_peer.js) if set, else setup.sh's default folder.
inline std::filesystem::path ort_peer_script() {
  if (const char* env = std::getenv("YOLO_EDGE_ORT_PEER"); env && *env) return env;
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home ? home : "/root") / ".cache" / "ort-peer" / "ort_peer.js";
}

// Why the peer cannot run here ("" when it can).
inline std::string ort_peer_missing() {
  const auto script = ort_peer_script();
  if (!std::filesystem::is_regular_file(script) ||
      !std::filesystem::is_directory(script.parent_path() / "node_modules" / "onnxruntime-node")) {
    return "ONNX Runtime peer not installed at " + script.string() +
           " (run ../shared/bench/setup.sh DIR and set YOLO_EDGE_ORT_PEER=DIR/ort_peer.js)";
  }
  if (run_process({"sh", "-c", "command -v node"}).status != 0) return "node is not on PATH";
  return "";
}

// ONNX Runtime with graph optimizations off (a QDQ file runs node by node as float ops) on a
// float32 NCHW input; the values of output `output`. Fails the test and returns nothing when the
// peer fails.
inline std::optional<std::vector<float>> run_ort_reference(const std::filesystem::path& model,
                                                           const std::vector<float>& input,
                                                           const std::string& output) {
  const auto stem = std::filesystem::path(model).replace_extension("");
  const std::string input_path = stem.string() + ".input.f32";
  {
    std::ofstream out(input_path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(input.data()),
              static_cast<std::streamsize>(input.size() * sizeof(float)));
  }
  const auto r = run_process({"node", ort_peer_script().string(), "run", model.string(), input_path,
                              stem.string() + ".ort", "--opt", "disabled"});
  std::filesystem::remove(input_path);
  if (r.status != 0) {
    ADD_FAILURE() << "ort_peer.js run failed on " << model << ": " << r.out << r.err;
    return std::nullopt;
  }
  const std::string result_path = stem.string() + ".ort." + output + ".f32";
  std::ifstream in(result_path, std::ios::binary | std::ios::ate);
  std::vector<float> values(static_cast<std::size_t>(in.tellg()) / sizeof(float));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(values.data()),
          static_cast<std::streamsize>(values.size() * sizeof(float)));
  std::filesystem::remove(result_path);
  return values;
}

}  // namespace yolo::test
