// SPDX-License-Identifier: Apache-2.0
// yolo-edge track: the daemon's tracker, zones and lines offline on a video or a camera, so a line
// can be drawn, checked on a recorded clip and then put in the daemon's config.
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "cli/commands.h"
#include "cli/common/annotated_output.h"
#include "cli/common/frame_sources.h"
#include "cli/common/model_options.h"
#include "config/config_loader.h"
#include "detector/detector.h"
#include "detector/model_names.h"
#include "tracking/draw.h"
#include "tracking/scene.h"
#include "tracking/tracker.h"
#include "vision/annotate.h"
#include "vision/capture.h"

namespace yolo::cli {

namespace {

struct TrackArgs {
  ModelOptions model;
  std::string video;
  std::string config;
  std::string camera;
  FrameRunOptions run;
  std::string labels;
  std::string out;
  bool json = false;
};

// The tracking, zones and lines to run: the config file's (any yolo-edge config: the daemon's, or
// one with only these sections), else the defaults with no zone and no line.
config::Config read_config(const TrackArgs& args) {
  if (args.config.empty()) return config::Config();
  config::LoadOptions options;
  // Only the sections track reads matter; the daemon's own files (a source, a state folder) need
  // not exist here. The class names are the model's that runs.
  options.check_files = false;
  const std::filesystem::path model = args.model.model;
  options.class_names = [model](const std::filesystem::path& config_model) {
    return detector::model_class_names(model.empty() ? config_model : model);
  };
  return config::load_config(args.config, options);
}

std::string counts_text(const tracking::Counts& counts) {
  std::string out;
  for (const tracking::PlaceCounts& place : counts.places) {
    tracking::Tally sum;
    std::string by_class;
    for (const auto& [label, tally] : place.total) {
      sum.in += tally.in;
      sum.out += tally.out;
      by_class += "    " + label + ": " + std::to_string(tally.in) + " / " +
                  std::to_string(tally.out) + "\n";
    }
    out += (place.line ? "line " : "zone ") + place.name + ": " +
           (place.line ? "in " : "entered ") + std::to_string(sum.in) +
           (place.line ? ", out " : ", left ") + std::to_string(sum.out) + "\n" + by_class;
  }
  return out;
}

int run_track(const TrackArgs& args) {
  const config::Config cfg = read_config(args);
  const std::string model = !args.model.model.empty() ? args.model.model : cfg.model.path.string();
  if (model.empty()) {
    throw std::runtime_error("give --model, or a --config whose model.path names one");
  }
  vision::SourceSpec spec;
  spec.uri = args.video;
  auto source = vision::open_source(spec);

  vision::Frame frame;
  const bool have_frame = source->read(frame);
  detector::DetectorOptions options =
      args.model.detector_options(model, args.run.threads, have_frame ? frame.bgr : cv::Mat());
  options.labels = args.labels.empty() ? cfg.model.labels : std::filesystem::path(args.labels);
  // The tracker also takes boxes under --conf (down to tracking.low_score), as the daemon does, to
  // keep tracks through dips in confidence.
  options.decode.conf = std::min(args.run.conf, static_cast<float>(cfg.tracking.low_score));
  options.decode.iou = args.run.iou;
  detector::Detector detector(options);
  std::fprintf(stderr, "running %s at %s, input %dx%d (width x height) on %s\n", model.c_str(),
               runtime::precision_name(detector.engine().precision()),
               detector.engine().input_width(), detector.engine().input_height(),
               source->describe().c_str());

  const std::string camera = args.camera.empty() ? std::string(config::kMainCamera) : args.camera;
  tracking::Tracker tracker(cfg.tracking);
  tracking::Scene scene(camera);
  scene.configure(cfg.zones, cfg.lines, detector.names());
  std::vector<config::ZoneConfig> zones;
  std::vector<config::LineConfig> lines;
  for (const auto& z : cfg.zones) {
    if (z.camera == camera) zones.push_back(z);
  }
  for (const auto& l : cfg.lines) {
    if (l.camera == camera) lines.push_back(l);
  }
  std::optional<AnnotatedOutput> out;
  if (!args.out.empty()) out.emplace(args.out, false, source->fps());

  // A file's frames are timed by their place in it, so a run gives the same tracks however fast
  // it decodes; a live source's by when they came.
  const bool timed_by_index = !source->is_live() && source->fps() > 0;
  const auto start = std::chrono::steady_clock::now();
  const auto wall_start = std::chrono::system_clock::now();
  long count = 0;
  std::map<tracking::ObjectEventKind, long> kinds;
  const auto wanted = [&] { return args.run.wants(count); };
  for (bool next = have_frame; next && wanted(); next = wanted() && source->read(frame)) {
    detector.adapt_to(frame.bgr.size());
    const vision::Detections all = detector.detect(frame.bgr);
    const auto offset = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(static_cast<double>(count) / source->fps()));
    const tracking::SteadyTime when = timed_by_index ? start + offset : frame.timestamp;
    const auto wall =
        timed_by_index
            ? wall_start + std::chrono::duration_cast<std::chrono::system_clock::duration>(offset)
            : std::chrono::system_clock::now();
    const tracking::TrackUpdate& update = tracker.update(all, when, count, frame.bgr.size());
    std::vector<tracking::ObjectEvent> events =
        scene.update(update, frame.bgr.size(), wall, when, count);
    for (tracking::ObjectEvent& e : events) {
      ++kinds[e.kind];
      if (args.json) {
        std::printf("%s\n", tracking::to_json(e).dump().c_str());
        continue;
      }
      std::string where = e.place;
      if (e.kind == tracking::ObjectEventKind::kCross) {
        where += " " + std::string(tracking::direction_name(e.direction));
      }
      std::printf("frame %ld: %-6s %-10s #%lld %s %.2f\n", count,
                  std::string(tracking::event_kind_name(e.kind)).c_str(), where.c_str(),
                  static_cast<long long>(e.track_id), e.label.c_str(), e.best_score);
    }
    if (out) {
      vision::Detections shown;
      for (const auto& d : all) {
        if (d.score > args.run.conf) shown.push_back(d);
      }
      vision::annotate(frame.bgr, shown, detector.names());
      std::map<std::string, int, std::less<>> occupancy;
      for (const auto& z : zones) occupancy[z.name] = scene.occupancy(z.name);
      tracking::draw_scene(frame.bgr, {.tracks = update.tracks,
                                       .zones = zones,
                                       .lines = lines,
                                       .counts = scene.counts(),
                                       .occupancy = occupancy,
                                       .names = detector.names()});
      out->write(frame.bgr);
    }
    ++count;
  }
  if (count == 0) throw std::runtime_error(source->describe() + ": gave no frames");
  // Tracks still alive at the end are not ended: a clip that stops mid-scene has no `end` events
  // for them, as a camera would have none yet.
  const tracking::Counts counts = scene.counts();
  if (args.json) {
    std::printf("%s\n",
                nlohmann::json({{"type", "counts"}, {"frames", count}, {"counts", to_json(counts)}})
                    .dump()
                    .c_str());
  } else {
    std::printf("%ld frame(s); counts:\n%s", count,
                counts.places.empty() ? "  (no zones or lines: give --config with some)\n"
                                      : counts_text(counts).c_str());
  }
  std::string summary;
  for (const auto& [kind, n] : kinds) {
    summary += (summary.empty() ? "" : ", ") + std::to_string(n) + " " +
               std::string(tracking::event_kind_name(kind));
  }
  std::fprintf(stderr, "%ld frame(s), events: %s\n", count,
               summary.empty() ? "none" : summary.c_str());
  return kOk;
}

}  // namespace

void register_track(CLI::App& app) {
  auto args = std::make_shared<TrackArgs>();
  auto* sub = app.add_subcommand(
      "track",
      "Track objects through a video or camera and count them in zones and across lines, as "
      "yolo-edged does");
  args->model.add_to(*sub);
  add_video_option(*sub, args->video)->required();
  sub->add_option("--config,-c", args->config,
                  "A yolo-edge config with the tracking, zones and lines sections (the daemon's "
                  "file will do; its model.path is used when --model is not given)");
  sub->add_option("--camera", args->camera,
                  "Whose zones and lines to use (their camera: key); default main");
  args->run.add_to(*sub, "Score threshold of the boxes shown");
  add_labels_option(*sub, args->labels);
  sub->add_option("--out,-o", args->out,
                  "Write the video with boxes, track ids, trails, zones and lines (.mp4/.avi)");
  sub->add_flag("--json", args->json,
                "One JSON object per event per line, then one with the counts");
  add_command(app, sub, [args] { return run_track(*args); });
}

}  // namespace yolo::cli
