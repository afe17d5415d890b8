// SPDX-License-Identifier: Apache-2.0
// yolo-edge compare: how closely model B's detections agree with model A's on the same frames
// (an INT8 model against its FP32 original, say), as COCO mAP with A's detections as the truth.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/common/frame_sources.h"
#include "cli/common/model_options.h"
#include "detector/detector.h"
#include "text/format.h"
#include "vision/capture.h"
#include "vision/metrics.h"

namespace yolo::cli {

namespace {

// Why B's threshold is low, said once for --help and once in the output.
constexpr const char* kPredictionConfWhy =
    "as Ultralytics val does, B's detections are kept down to --pred-conf (0.001 by default) and "
    "with every class scoring above it, not only each box's best, so that AP integrates B's "
    "whole precision-recall curve; A's detections above --conf, best class per box as detect "
    "shows them, are the ground truth; B's per-class counts use --conf too";

// A class whose floor AP50 is under this moves under an invisible change of the input about as
// much as INT8 may move it (0.95 is what `precision: auto` asks of INT8 by default,
// model.auto_min_map50): its AP50 against B measures A's own doubt as much as B.
constexpr double kShakyFloor = 0.95;

constexpr const char* kFloorWhat =
    "A against itself with every pixel moved by an invisible +-1 grey level (--floor)";

struct CompareArgs {
  std::string a;
  std::string b;
  // "" (not given): as the file was made.
  std::string precision_a;
  std::string precision_b;
  std::string images;
  std::string video;
  long frames = 0;
  long skip = 0;
  float conf = 0.25f;
  float pred_conf = vision::kPredictionConf;
  float iou = 0.45f;
  int threads = 1;
  runtime::InputSize imgsz;
  // Model B's, when it differs from A's (--imgsz-b; empty: --imgsz for both).
  std::optional<runtime::InputSize> imgsz_b;
  long min_boxes = vision::kMinJudgedBoxes;
  bool json = false;
  bool floor = false;
};

// One model under comparison and what running it cost.
struct Side {
  std::string option;
  std::string model;
  std::string precision;
  float conf = 0;
  std::unique_ptr<detector::Detector> detector;
  double total_ms = 0;
  double inference_ms = 0;
};

nlohmann::json optional_number(const std::optional<double>& v) {
  return v ? nlohmann::json(text::rounded(*v, 6)) : nlohmann::json(nullptr);
}

// "int8", or "fp32 (dynamic INT8 run as written)" for a file whose chains run as written.
std::string precision_text(const runtime::Engine& engine) {
  std::string text = runtime::precision_name(engine.precision());
  if (engine.stats().int8_chains > 0) text += " (dynamic INT8 run as written)";
  return text;
}

Side load_side(const std::string& option, const std::string& model, const std::string& precision,
               float conf, bool multi_label, const CompareArgs& args,
               const runtime::InputSize& imgsz, bool dither = false) {
  Side side{option, model, precision, conf, nullptr, 0, 0};
  detector::DetectorOptions options;
  options.dither = dither;
  options.model = model;
  options.engine.precision = precision_option(precision);
  options.engine.threads = args.threads;
  options.engine.imgsz = imgsz;
  // A model is judged as its file computes: a dynamic-INT8 file with its activations rounded on
  // every run, not folded into FP32 as detect and the daemon run it for speed.
  options.engine.dynamic_int8 = runtime::DynamicInt8::kAsWritten;
  options.decode.conf = conf;
  options.decode.iou = args.iou;
  options.decode.multi_label = multi_label;
  options.engine.log = [option](const std::string& line) {
    std::fprintf(stderr, "%s: %s\n", option.c_str(), line.c_str());
  };
  try {
    side.detector = std::make_unique<detector::Detector>(options);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    const bool names_the_file = what.find(model) != std::string::npos;
    throw std::runtime_error(option + (names_the_file ? "" : " " + model) + ": " + what);
  }
  side.precision = precision_text(side.detector->engine());
  return side;
}

// The two models must name the same classes, or class ids mean different things.
void check_same_classes(const Side& a, const Side& b) {
  const auto& na = a.detector->names().names();
  const auto& nb = b.detector->names().names();
  if (na.empty() || nb.empty() || na == nb) return;
  if (na.size() != nb.size()) {
    throw std::runtime_error("--a has " + std::to_string(na.size()) + " classes and --b has " +
                             std::to_string(nb.size()) +
                             ": compare needs two models of the same classes");
  }
  for (std::size_t i = 0; i < na.size(); ++i) {
    if (na[i] != nb[i]) {
      throw std::runtime_error("class " + std::to_string(i) + " is '" + na[i] + "' in --a but '" +
                               nb[i] + "' in --b: compare needs two models of the same classes");
    }
  }
}

// "sink 2, clock 1": the classes A detected fewer than r.min_boxes times, with their counts.
std::string too_few_boxes(const vision::Agreement& r, const detector::Detector& names) {
  std::string out;
  for (const auto& c : r.classes) {
    if (!c.has_truth() || c.a_count >= r.min_boxes) continue;
    out += (out.empty() ? "" : ", ") + names.names().name(c.class_id) + " " +
           std::to_string(c.a_count);
  }
  return out;
}

// The floor's AP50 of class `id` (empty when A has no truth of it).
std::optional<double> floor_ap50(const vision::Agreement& floor, int id) {
  for (const auto& c : floor.classes) {
    if (c.class_id == id && c.has_truth()) return c.ap50();
  }
  return std::nullopt;
}

// "train 0.922": the judged classes whose floor AP50 is under kShakyFloor.
std::string shaky_classes(const vision::Agreement& floor, const detector::Detector& names) {
  std::string out;
  for (const auto& c : floor.classes) {
    if (!c.has_truth() || c.a_count < floor.min_boxes || c.ap50() >= kShakyFloor) continue;
    out += (out.empty() ? "" : ", ") + names.names().name(c.class_id) + " " +
           text::format("%.3f", c.ap50());
  }
  return out;
}

void print_text(const CompareArgs& args, const Side& a, const Side& b, long frames,
                const std::string& source, const vision::Agreement& r,
                const std::optional<vision::Agreement>& floor) {
  const double n = static_cast<double>(frames);
  std::printf("A (truth)   %s  %s, detections scoring above %g\n", a.model.c_str(),
              a.precision.c_str(), static_cast<double>(a.conf));
  std::printf("B (tested)  %s  %s, detections scoring above %g\n", b.model.c_str(),
              b.precision.c_str(), static_cast<double>(b.conf));
  std::printf("            (%s)\n", kPredictionConfWhy);
  std::printf("frames      %ld from %s\n", frames, source.c_str());
  std::printf("mAP50       %s over the %d class(es) with >= %ld of A's boxes (--min-boxes)\n",
              text::fixed(r.map50_judged, 4).c_str(), r.judged_classes, r.min_boxes);
  std::printf("box AP50    %s weighted by A's %ld boxes\n", text::fixed(r.box_ap50, 4).c_str(),
              r.truth_boxes);
  std::printf("class mean  %s mAP50 over every class A detected\n",
              text::fixed(r.map50, 4).c_str());
  std::printf(
      "mAP50-95    %s over the classes with >= %ld boxes, %s weighted by boxes, %s class "
      "mean\n",
      text::fixed(r.map50_95_judged, 4).c_str(), r.min_boxes, text::fixed(r.box_ap50_95, 4).c_str(),
      text::fixed(r.map50_95, 4).c_str());
  std::printf("score MAD   %s over %ld matched pairs (same class, IoU >= 0.5)\n",
              text::fixed(r.score_mad, 6).c_str(), r.matched_pairs);
  if (floor) {
    std::printf("floor       mAP50 %s, box AP50 %s, score MAD %s: %s\n",
                text::fixed(floor->map50_judged, 4).c_str(),
                text::fixed(floor->box_ap50, 4).c_str(), text::fixed(floor->score_mad, 6).c_str(),
                kFloorWhat);
  }
  std::printf(
      "latency     A %.1f ms/frame (inference %.1f), B %.1f ms/frame (inference %.1f), %d "
      "thread(s)\n",
      a.total_ms / n, a.inference_ms / n, b.total_ms / n, b.inference_ms / n, args.threads);
  if (!r.map50) std::printf("            A detected nothing, so there is no mAP to report\n");
  if (r.classes.empty()) return;
  const std::string few = too_few_boxes(r, *a.detector);
  if (!few.empty()) {
    std::printf(
        "warning     too few of A's boxes to judge (fewer than %ld): %s; one borderline "
        "call moves such a class's AP by 0.1-1, so read the figures over the classes with "
        "more\n",
        r.min_boxes, few.c_str());
  }
  const std::string shaky = floor ? shaky_classes(*floor, *a.detector) : std::string();
  if (!shaky.empty()) {
    std::printf(
        "warning     A's own detections move under an invisible change of the input: %s (floor "
        "AP50 under %.2f); B's AP50 there measures A's doubt as much as B\n",
        shaky.c_str(), kShakyFloor);
  }

  char b_header[32];
  std::snprintf(b_header, sizeof b_header, "B>%g", static_cast<double>(args.conf));
  std::printf("\n%-16s %6s %8s %8s %7s %8s%s\n", "class", "A", b_header, "matched", "AP50",
              "AP50-95", floor ? "   floor" : "");
  long hidden = 0;
  for (const auto& c : r.classes) {
    // Classes where only B's low-scored boxes appear say nothing a reader can act on.
    if (c.a_count == 0 && c.b_count == 0) {
      ++hidden;
      continue;
    }
    const std::optional<double> ap50 = c.has_truth() ? std::optional(c.ap50()) : std::nullopt;
    const std::optional<double> ap = c.has_truth() ? std::optional(c.ap50_95()) : std::nullopt;
    std::printf("%-16s %6ld %8ld %8ld %7s %8s", a.detector->names().name(c.class_id).c_str(),
                c.a_count, c.b_count, c.matched, text::fixed(ap50, 3).c_str(),
                text::fixed(ap, 3).c_str());
    if (floor) std::printf(" %7s", text::fixed(floor_ap50(*floor, c.class_id), 3).c_str());
    std::printf("\n");
  }
  if (hidden > 0) {
    std::printf(
        "(%ld more class(es) with only B boxes at or below %g not shown; --json lists them)\n",
        hidden, static_cast<double>(args.conf));
  }
}

void print_json(const CompareArgs& args, const Side& a, const Side& b, long frames,
                const std::string& source, const vision::Agreement& r,
                const std::optional<vision::Agreement>& floor) {
  const double n = static_cast<double>(frames);
  auto side_json = [n](const Side& s) {
    return nlohmann::json{{"model", s.model},
                          {"precision", s.precision},
                          {"conf", text::rounded(s.conf, 6)},
                          {"mean_ms", text::rounded(s.total_ms / n, 2)},
                          {"mean_inference_ms", text::rounded(s.inference_ms / n, 2)}};
  };
  nlohmann::json classes = nlohmann::json::array();
  for (const auto& c : r.classes) {
    classes.push_back(
        {{"class", c.class_id},
         {"label", a.detector->names().name(c.class_id)},
         {"a", c.a_count},
         {"b", c.b_count},
         {"matched", c.matched},
         {"ap50", c.has_truth() ? nlohmann::json(text::rounded(c.ap50(), 6)) : nullptr},
         {"ap50_95", c.has_truth() ? nlohmann::json(text::rounded(c.ap50_95(), 6)) : nullptr}});
    if (floor) classes.back()["floor_ap50"] = optional_number(floor_ap50(*floor, c.class_id));
  }
  nlohmann::json out = {{"frames", frames},
                        {"source", source},
                        {"threads", args.threads},
                        {"a", side_json(a)},
                        {"b", side_json(b)},
                        {"count_conf", text::rounded(args.conf, 6)},
                        {"map50", optional_number(r.map50)},
                        {"map50_95", optional_number(r.map50_95)},
                        {"min_boxes", r.min_boxes},
                        {"judged_classes", r.judged_classes},
                        {"map50_judged", optional_number(r.map50_judged)},
                        {"map50_95_judged", optional_number(r.map50_95_judged)},
                        {"box_ap50", optional_number(r.box_ap50)},
                        {"box_ap50_95", optional_number(r.box_ap50_95)},
                        {"truth_boxes", r.truth_boxes},
                        {"too_few_boxes", too_few_boxes(r, *a.detector)},
                        {"score_mad", optional_number(r.score_mad)},
                        {"matched_pairs", r.matched_pairs},
                        {"classes", classes},
                        {"note", kPredictionConfWhy}};
  out["floor"] = nullptr;
  if (floor) {
    out["floor"] = {{"what", kFloorWhat},
                    {"map50_judged", optional_number(floor->map50_judged)},
                    {"map50", optional_number(floor->map50)},
                    {"box_ap50", optional_number(floor->box_ap50)},
                    {"score_mad", optional_number(floor->score_mad)},
                    {"shaky_classes", shaky_classes(*floor, *a.detector)}};
  }
  std::printf("%s\n", out.dump().c_str());
}

int run_compare(const CompareArgs& args) {
  // The images, then the video: given both, they form one set (the photos plus a camera's unseen
  // frames, say) and --skip applies to the video, whose first frames are the ones a calibration
  // would have used.
  auto sources = open_frames(args.images, args.video);
  vision::Frame frame;
  vision::FrameSource& skipped_source = *sources.back();
  for (long skipped = 0; skipped < args.skip; ++skipped) {
    if (!skipped_source.read(frame)) {
      throw std::runtime_error(skipped_source.describe() + ": has only " + std::to_string(skipped) +
                               " frame(s), not more than --skip " + std::to_string(args.skip) +
                               "; lower --skip");
    }
  }

  // Loaded after the skip: imgsz auto plans both for the first compared frame's size (and again
  // for an image of another size).
  std::optional<Side> side_a;
  std::optional<Side> side_b;
  // --floor: A once more, on every frame moved by an invisible step, judged against A as B is.
  std::optional<Side> side_floor;
  vision::AgreementAccumulator agreement(args.conf);
  vision::AgreementAccumulator floor_agreement(args.conf);
  long count = 0;
  std::string described;
  for (auto& source : sources) {
    described += (described.empty() ? "" : " + ") + source->describe();
    while ((args.frames <= 0 || count < args.frames) && source->read(frame)) {
      if (!side_a) {
        const auto for_frame = [&](runtime::InputSize imgsz) {
          if (imgsz.mode != runtime::InputSize::Mode::kAuto) return imgsz;
          return runtime::InputSize::automatic(frame.bgr.rows, frame.bgr.cols);
        };
        side_a = load_side("--a", args.a, args.precision_a, args.conf, false, args,
                           for_frame(args.imgsz));
        side_b = load_side("--b", args.b, args.precision_b, args.pred_conf, true, args,
                           for_frame(args.imgsz_b.value_or(args.imgsz)));
        check_same_classes(*side_a, *side_b);
        if (args.floor) {
          side_floor = load_side("--a (--floor)", args.a, args.precision_a, args.pred_conf, true,
                                 args, for_frame(args.imgsz), true);
        }
      }
      Side& a = *side_a;
      Side& b = *side_b;
      a.detector->adapt_to(frame.bgr.size());
      b.detector->adapt_to(frame.bgr.size());
      detector::DetectTimings ta;
      detector::DetectTimings tb;
      const vision::Detections da = a.detector->detect(frame.bgr, &ta);
      const vision::Detections db = b.detector->detect(frame.bgr, &tb);
      a.total_ms += ta.total();
      a.inference_ms += ta.inference_ms;
      b.total_ms += tb.total();
      b.inference_ms += tb.inference_ms;
      agreement.add(da, db);
      if (side_floor) {
        side_floor->detector->adapt_to(frame.bgr.size());
        floor_agreement.add(da, side_floor->detector->detect(frame.bgr));
      }
      ++count;
    }
  }
  if (count == 0) {
    throw std::runtime_error(
        described + ": gave no frames" +
        (args.skip > 0 ? " after skipping " + std::to_string(args.skip) : std::string()) +
        "; lower --skip");
  }
  if (args.frames > 0 && count < args.frames) {
    std::fprintf(stderr, "yolo-edge compare: the source ended after %ld of the %ld frames asked\n",
                 count, args.frames);
  }

  const vision::Agreement result = agreement.result(args.min_boxes);
  std::optional<vision::Agreement> floor;
  if (side_floor) floor = floor_agreement.result(args.min_boxes);
  if (args.json) {
    print_json(args, *side_a, *side_b, count, described, result, floor);
  } else {
    print_text(args, *side_a, *side_b, count, described, result, floor);
  }
  return kOk;
}

}  // namespace

void register_compare(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  auto* sub = app.add_subcommand(
      "compare",
      "How closely model B's detections agree with model A's (e.g. INT8 against FP32): mAP50, "
      "mAP50-95 and score drift, with A's detections as the ground truth");
  sub->add_option("--a", args->a, "Reference ONNX model: its detections are the ground truth")
      ->required();
  sub->add_option("--b", args->b, "ONNX model under test: its detections are the predictions")
      ->required();
  auto* images = sub->add_option(
      "--images,-i", args->images,
      "A folder of images (or a single image); with --video, one set with its frames");
  auto* video = add_video_option(*sub, args->video);
  sub->add_option("--frames", args->frames, "Compare at most this many frames (0 = all)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--skip", args->skip,
                  "Skip this many frames first (e.g. the ones used for calibration); with both "
                  "--images and --video, of the video")
      ->check(CLI::NonNegativeNumber);
  add_threshold_option(*sub, "--conf", args->conf,
                       "Score threshold of A's detections (the ground truth) and of B's counts");
  add_threshold_option(*sub, "--pred-conf", args->pred_conf,
                       "Score threshold of B's detections for AP; keep it low so AP integrates "
                       "B's whole precision-recall curve (Ultralytics val uses 0.001)");
  add_threshold_option(*sub, "--iou", args->iou, "IoU threshold of the NMS (both models)");
  add_threads_option(*sub, args->threads, "Inference threads (both models)");
  sub->add_option("--precision-a", args->precision_a,
                  "Run model A in fp32 or int8 (default: as the file was made)")
      ->check(CLI::IsMember(precision_choices()));
  sub->add_option("--precision-b", args->precision_b,
                  "Run model B in fp32 or int8 (default: as the file was made)")
      ->check(CLI::IsMember(precision_choices()));
  sub->add_option("--min-boxes", args->min_boxes,
                  "Classes with fewer of A's boxes are too few to judge: left out of the mAP50 "
                  "over judged classes, and warned about")
      ->check(CLI::Range(1L, 1000000000L))
      ->capture_default_str();
  add_imgsz_option(*sub, args->imgsz,
                   "Input size for models exported with dynamic axes (both models): 640, "
                   "HEIGHT,WIDTH or auto (each frame's aspect)");
  auto* imgsz_b = add_imgsz_option(
      *sub, args->imgsz_b.emplace(),
      "Model B's input size when it differs from --imgsz: one dynamic-axes model at auto (B) "
      "against 640 (A), say; boxes are compared in frame pixels",
      "--imgsz-b");
  sub->add_flag("--floor", args->floor,
                "Also judge A against itself with every pixel moved by an invisible +-1 grey "
                "level: how far A's own detections move under a change nobody can see, the "
                "closest B can be judged to A (one more run of A per frame)");
  sub->add_flag("--json", args->json, "Print one JSON object instead of the table");
  sub->footer(std::string("AP is COCO's: per class, IoU 0.50:0.05:0.95, 101 recall points; "
                          "mAP averages it over the classes with at least --min-boxes of A's "
                          "boxes, box AP weighs each class by its boxes, and the class mean "
                          "averages over every class A detected. ") +
              kPredictionConfWhy +
              ". Each file is judged as it computes: a static INT8 file at int8, a dynamic-INT8 "
              "file with its activations rounded on every run as written.\n");
  add_command(app, sub, [args, images, video, imgsz_b] {
    if (images->count() == 0 && video->count() == 0) {
      throw std::runtime_error("give --images or --video");
    }
    if (imgsz_b->count() == 0) args->imgsz_b.reset();
    return run_compare(*args);
  });
}

}  // namespace yolo::cli
