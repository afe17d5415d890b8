// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <filesystem>
#include <string>

namespace yolo::cli {

// ONNX Runtime timed by ../shared/bench/ort_peer.js under node, so `bench --peer` can report our
// latency next to the runtime a user would otherwise pick, measured in the same run.
struct PeerResult {
  std::string peer;  // "onnxruntime-node 1.30.0"
  int threads = 0;
  int runs = 0;
  double min_ms = 0, p50_ms = 0, p90_ms = 0, max_ms = 0;
};

class OrtPeer {
 public:
  // Checks that the script exists and node is on PATH; throws std::runtime_error otherwise.
  explicit OrtPeer(std::filesystem::path script);

  // Times MODEL with the given threads; `size` is the input size for models with dynamic axes.
  PeerResult bench(const std::filesystem::path& model, int threads, int runs, int warmup,
                   int size) const;

 private:
  std::filesystem::path script_;
};

}  // namespace yolo::cli
