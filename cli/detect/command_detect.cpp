// SPDX-License-Identifier: Apache-2.0
// yolo-edge detect: run a model on an image or a video and print (or draw) what it finds.
#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "cli/common/annotated_output.h"
#include "cli/common/frame_sources.h"
#include "cli/common/lint_warnings.h"
#include "cli/common/model_options.h"
#include "detector/detector.h"
#include "text/format.h"
#include "vision/annotate.h"
#include "vision/capture.h"
#include "vision/detection_json.h"

namespace yolo::cli {

namespace {

struct DetectArgs {
  ModelOptions model;
  std::string image;
  std::string video;
  FrameRunOptions run;
  int max_det = 300;
  bool agnostic = false;
  std::string labels;
  std::string out;
  bool json = false;
};

int run_detect(const DetectArgs& args) {
  const bool from_image = !args.image.empty();
  vision::SourceSpec spec;
  spec.uri = from_image ? args.image : args.video;
  if (from_image) {
    const auto kind = vision::classify_source(spec.uri);
    if (kind != vision::SourceKind::kImage && kind != vision::SourceKind::kImageFolder) {
      throw std::runtime_error("--image " + spec.uri +
                               ": not an image file or folder of images; use --video for videos, "
                               "streams and cameras");
    }
  }
  auto source = vision::open_source(spec);

  vision::Frame frame;
  const bool have_frame = source->read(frame);
  detector::DetectorOptions options = args.model.detector_options(
      args.model.model, args.run.threads, have_frame ? frame.bgr : cv::Mat());
  options.labels = args.labels;
  options.decode.conf = args.run.conf;
  options.decode.iou = args.run.iou;
  options.decode.agnostic = args.agnostic;
  options.decode.max_detections = args.max_det;
  detector::Detector detector(options);
  print_lint_warnings(args.model.model, detector.engine().lint_findings());
  std::fprintf(stderr, "running %s at %s, input %dx%d (width x height)\n", args.model.model.c_str(),
               runtime::precision_name(detector.engine().precision()),
               detector.engine().input_width(), detector.engine().input_height());

  const bool single_image =
      from_image && vision::classify_source(spec.uri) == vision::SourceKind::kImage;
  std::optional<AnnotatedOutput> out;
  if (!args.out.empty()) out.emplace(args.out, single_image, source->fps());

  long count = 0;
  double total_ms = 0;
  const auto wanted = [&] { return args.run.wants(count); };
  for (bool next = have_frame; next && wanted(); next = wanted() && source->read(frame)) {
    if (detector.adapt_to(frame.bgr.size())) {
      std::fprintf(stderr, "frame %ld is %dx%d: input %dx%d for its aspect (imgsz auto)\n", count,
                   frame.bgr.cols, frame.bgr.rows, detector.engine().input_width(),
                   detector.engine().input_height());
    }
    detector::DetectTimings t;
    const vision::Detections detections = detector.detect(frame.bgr, &t);
    total_ms += t.total();
    for (const auto& d : detections) {
      if (args.json) {
        nlohmann::json j = {{"frame", count}};
        j.update(vision::detection_json(d, detector.names().name(d.class_id)));
        std::printf("%s\n", j.dump().c_str());
      }
    }
    if (!args.json) {
      std::printf(
          "frame %ld: %zu detections (preprocess %.1f ms, inference %.1f ms, post %.1f ms)\n",
          count, detections.size(), t.preprocess_ms, t.inference_ms, t.postprocess_ms);
      for (const auto& d : detections) {
        std::printf("  %-14s %.3f  [%.1f, %.1f, %.1f, %.1f]\n",
                    detector.names().name(d.class_id).c_str(), d.score, d.box.x1, d.box.y1,
                    d.box.x2, d.box.y2);
      }
    }
    if (out) {
      vision::annotate(frame.bgr, detections, detector.names());
      out->write(frame.bgr);
    }
    ++count;
  }
  if (count == 0) throw std::runtime_error(source->describe() + ": gave no frames");
  std::fprintf(stderr, "%ld frame(s), %.1f ms per frame on average (%d thread(s), %s)\n", count,
               total_ms / static_cast<double>(count), args.run.threads,
               runtime::precision_name(detector.engine().precision()));
  if (args.model.profile) {
    for (const auto& p : detector.engine().profile()) {
      std::fprintf(stderr, "  %-12s %-40s %8.2f ms / %lld\n", p.op.c_str(), p.node.c_str(),
                   p.total_ms, static_cast<long long>(p.calls));
    }
  }
  return kOk;
}

}  // namespace

void register_detect(CLI::App& app) {
  auto args = std::make_shared<DetectArgs>();
  auto* sub = app.add_subcommand("detect", "Detect objects in an image or a video");
  args->model.add_to(*sub);
  auto* image = sub->add_option("--image,-i", args->image, "An image file or a folder of images");
  auto* video = add_video_option(*sub, args->video);
  image->excludes(video);
  video->excludes(image);
  args->run.add_to(*sub, "Score threshold");
  sub->add_option("--max-det", args->max_det, "Keep at most this many detections per frame")
      ->check(CLI::Range(1, 100000))
      ->capture_default_str();
  sub->add_flag("--agnostic", args->agnostic, "Class-agnostic NMS");
  add_labels_option(*sub, args->labels);
  sub->add_option("--out,-o", args->out,
                  "Write the annotated image (.jpg/.png) or video (.mp4/.avi)");
  sub->add_flag("--json", args->json,
                "One JSON object per detection per line: frame, class, label, score, box");
  add_command(app, sub, [args, image, video] {
    if (image->count() == 0 && video->count() == 0) {
      throw std::runtime_error("give --image or --video");
    }
    return run_detect(*args);
  });
}

}  // namespace yolo::cli
