// SPDX-License-Identifier: Apache-2.0
// Our detections against ONNX Runtime's on the same letterboxed photos, model file as written (an
// FP16 export included: ONNX Runtime takes its float16 input, we compute in FP32). Prints each of
// ONNX Runtime's detections beside ours (class, IoU, score difference) and the summary the FP16
// goal reads: every detection matched with the same class, IoU >= 0.9 and score within 0.02. A
// benchmark, not a test: it needs node and the peer (../shared/bench/setup.sh DIR).
//   ort_agreement MODEL PEER_DIR IMAGE...
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>

#include "detector/detector.h"

namespace {

namespace fs = std::filesystem;
using namespace yolo;

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// ONNX Runtime's first output for `input` (float32 NCHW at height x width), and its shape.
std::pair<std::vector<float>, runtime::Shape> ort_output(const fs::path& model,
                                                         const fs::path& peer_dir,
                                                         const std::vector<float>& input,
                                                         int height, int width) {
  const fs::path work = fs::temp_directory_path() / ("ort_agreement_" + std::to_string(getpid()));
  fs::create_directories(work);
  const fs::path in = work / "input.f32";
  std::ofstream(in, std::ios::binary)
      .write(reinterpret_cast<const char*>(input.data()),
             static_cast<std::streamsize>(input.size() * sizeof(float)));
  const std::string cmd = "NODE_PATH=" + quoted((peer_dir / "node_modules").string()) + " node " +
                          quoted(YOLO_EDGE_SOURCE_DIR "/benchmarks/ort_run.js") + " " +
                          quoted(model.string()) + " " + quoted(in.string()) + " " +
                          std::to_string(height) + " " + std::to_string(width) + " " +
                          quoted((work / "out").string());
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  if (!pipe) throw std::runtime_error("cannot run " + cmd);
  std::string text;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe.get())) text += buffer.data();
  const auto brace = text.rfind("{\"peer\"");
  if (brace == std::string::npos) throw std::runtime_error("ONNX Runtime failed: " + text);
  const auto j = nlohmann::json::parse(text.substr(brace));
  const auto& first = j.at("outputs").begin().value();
  const runtime::Shape shape = first.at("dims").get<runtime::Shape>();
  std::ifstream file(first.at("file").get<std::string>(), std::ios::binary);
  std::vector<float> values(static_cast<std::size_t>(runtime::element_count(shape)));
  file.read(reinterpret_cast<char*>(values.data()),
            static_cast<std::streamsize>(values.size() * sizeof(float)));
  fs::remove_all(work);
  return {values, shape};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: ort_agreement MODEL PEER_DIR IMAGE...\n");
    return 2;
  }
  const fs::path model = argv[1];
  const fs::path peer_dir = argv[2];
  detector::DetectorOptions options;
  options.model = model;
  detector::Detector ours(options);
  const int width = ours.engine().input_width();
  const int height = ours.engine().input_height();
  vision::Letterboxer nchw(cv::Size(width, height), vision::TensorLayout::kNchwFloat);
  vision::DecodeOptions decode;
  decode.kind = ours.decoder();
  decode.end2end = ours.engine().metadata().end2end;

  int matched = 0, total = 0, extra = 0;
  float worst_iou = 1.0F, worst_score = 0.0F;
  std::printf("%-12s %-14s %7s %7s %7s %7s\n", "image", "class", "ORT", "ours", "|d|", "IoU");
  for (int i = 3; i < argc; ++i) {
    const cv::Mat frame = cv::imread(argv[i], cv::IMREAD_COLOR);
    if (frame.empty()) {
      std::fprintf(stderr, "%s: not an image\n", argv[i]);
      return 2;
    }
    std::vector<float> input(nchw.element_count());
    const vision::LetterboxTransform transform = nchw.run(frame, std::span(input));
    const auto [values, shape] = ort_output(model, peer_dir, input, height, width);
    const vision::Detections theirs = vision::postprocess(values, shape, decode, transform);
    const vision::Detections mine = ours.detect(frame);
    std::vector<bool> used(mine.size(), false);
    const std::string name = fs::path(argv[i]).stem().string();
    for (const auto& t : theirs) {
      ++total;
      int best = -1;
      float best_iou = 0;
      for (std::size_t k = 0; k < mine.size(); ++k) {
        if (used[k] || mine[k].class_id != t.class_id) continue;
        const float v = vision::iou(t.box, mine[k].box);
        if (v > best_iou) best_iou = v, best = static_cast<int>(k);
      }
      const std::string label = ours.names().name(t.class_id);
      if (best < 0) {
        std::printf("%-12s %-14s %7.3f %7s %7s %7s  not found by ours\n", name.c_str(),
                    label.c_str(), t.score, "-", "-", "-");
        worst_iou = 0;
        continue;
      }
      used[static_cast<std::size_t>(best)] = true;
      const float d = std::fabs(t.score - mine[static_cast<std::size_t>(best)].score);
      std::printf("%-12s %-14s %7.3f %7.3f %7.3f %7.3f\n", name.c_str(), label.c_str(), t.score,
                  mine[static_cast<std::size_t>(best)].score, d, best_iou);
      worst_iou = std::min(worst_iou, best_iou);
      worst_score = std::max(worst_score, d);
      if (best_iou >= 0.9F && d <= 0.02F) ++matched;
    }
    for (std::size_t k = 0; k < mine.size(); ++k) {
      if (used[k]) continue;
      ++extra;
      std::printf("%-12s %-14s %7s %7.3f %7s %7s  not found by ONNX Runtime\n", name.c_str(),
                  ours.names().name(mine[k].class_id).c_str(), "-", mine[k].score, "-", "-");
    }
  }
  std::printf(
      "\n%d of %d ONNX Runtime detections matched (same class, IoU >= 0.9, score within 0.02); "
      "%d of ours unmatched; worst IoU %.3f, largest score difference %.4f\n",
      matched, total, extra, static_cast<double>(worst_iou), static_cast<double>(worst_score));
  return matched == total && extra == 0 ? 0 : 1;
}
