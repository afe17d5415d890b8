// SPDX-License-Identifier: Apache-2.0
// Times the vision pipeline's per-frame work and prints milliseconds; not a test. Letterbox of a
// 720p frame into each tensor layout, then decode + NMS for [1, 84, 8400] outputs: a real one (the
// golden yolov8n dog output) and a worst case where every candidate clears the threshold.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <vector>

#include <opencv2/core.hpp>

#include "vision/decode.h"
#include "vision/letterbox.h"

namespace {

void time_letterbox(yolo::vision::TensorLayout layout) {
  cv::Mat frame(720, 1280, CV_8UC3);
  cv::randu(frame, cv::Scalar::all(0), cv::Scalar::all(255));
  yolo::vision::Letterboxer letterbox({640, 640}, layout);
  std::vector<float> floats(letterbox.element_count());
  std::vector<std::uint8_t> bytes(letterbox.element_count());
  const bool is_float = layout != yolo::vision::TensorLayout::kNhwcUint8;
  constexpr int kRuns = 100;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kRuns; ++i) {
    if (is_float)
      letterbox.run(frame, floats);
    else
      letterbox.run(frame, bytes);
  }
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count() /
      kRuns;
  std::printf("letterbox 1280x720 -> 640x640 %s: %.3f ms\n", yolo::vision::layout_name(layout), ms);
}

double time_ms(const std::vector<float>& output, const yolo::vision::DecodeOptions& options,
               std::size_t* kept) {
  const std::vector<std::int64_t> shape = {1, 84, 8400};
  const auto geometry = yolo::vision::LetterboxTransform::compute({768, 576}, {640, 640});
  constexpr int kRuns = 50;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < kRuns; ++i) *kept = postprocess(output, shape, options, geometry).size();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
             .count() /
         kRuns;
}

}  // namespace

int main(int argc, char** argv) {
  const std::filesystem::path golden =
      argc > 1 ? std::filesystem::path(argv[1])
               : std::filesystem::path(YOLO_EDGE_SOURCE_DIR).parent_path() /
                     "shared/fixtures/golden/yolov8n_640_fp32__dog.output0.f32";
  std::vector<float> real(84 * 8400);
  std::ifstream in(golden, std::ios::binary);
  if (!in.read(reinterpret_cast<char*>(real.data()),
               static_cast<std::streamsize>(real.size() * 4))) {
    std::fprintf(stderr, "cannot read %s (a [1,84,8400] float32 file)\n", golden.c_str());
    return 2;
  }
  for (const auto layout :
       {yolo::vision::TensorLayout::kNchwFloat, yolo::vision::TensorLayout::kNhwcFloat,
        yolo::vision::TensorLayout::kNhwcUint8})
    time_letterbox(layout);

  const std::vector<std::int64_t> shape = {1, 84, 8400};
  for (const float conf : {0.25f, 0.001f}) {
    std::printf(
        "real output: %zu candidates above conf %g\n",
        yolo::vision::decode_candidates(real, shape, yolo::vision::DecoderKind::kYolov8, conf)
            .size(),
        conf);
  }
  yolo::vision::DecodeOptions options;
  std::size_t kept = 0;
  double ms = time_ms(real, options, &kept);
  std::printf("real output, conf 0.25: %.3f ms, %zu detections\n", ms, kept);
  options.conf = 0.001f;
  ms = time_ms(real, options, &kept);
  std::printf("real output, conf 0.001: %.3f ms, %zu detections\n", ms, kept);

  // Random boxes and scores: all 8400 candidates pass, spread over 80 classes.
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> pos(0, 640), size(4, 120), score(0.3f, 1.0f);
  std::vector<float> random(84 * 8400, 0.0f);
  for (int i = 0; i < 8400; ++i) {
    random[i] = pos(rng);
    random[8400 + i] = pos(rng);
    random[2 * 8400 + i] = size(rng);
    random[3 * 8400 + i] = size(rng);
    random[(4 + rng() % 80) * 8400 + i] = score(rng);
  }
  options.conf = 0.25f;
  ms = time_ms(random, options, &kept);
  std::printf("8400 candidates all above conf, class-aware: %.3f ms, %zu detections\n", ms, kept);
  options.agnostic = true;
  options.max_detections = 100000;
  ms = time_ms(random, options, &kept);
  std::printf("8400 candidates all above conf, agnostic, no cap: %.3f ms, %zu detections\n", ms,
              kept);
  return 0;
}
