// SPDX-License-Identifier: Apache-2.0
// Motion-gated detection against whole-frame detection (issue 42's goals), on one thread:
// 1. a still scene: one frame of CLIP repeated for STILL_S seconds, then the clip moving on, at
//    DETECT_FPS: the CPU the gate spends on the still part (motion + its whole-frame passes)
//    against detecting every frame whole, and how long after the clip moves on the gate first
//    detects something in a motion crop;
// 2. the clip as it is: how many of the TRUTH model's vehicles (whole frames, detections above
//    0.25 as `yolo-edge compare` takes them) the model finds whole-frame and through motion crops,
//    and the CPU of each.
// A benchmark, not a test: it prints figures.
//   bench_motion MODEL TRUTH_MODEL CLIP [DETECT_FPS=5] [STILL_S=60] [FULL_FRAME_S=10]
#include <time.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/videoio.hpp>

#include "detector/detector.h"
#include "detector/motion_gate.h"
#include "vision/metrics.h"

namespace {

using namespace yolo;
using Clock = std::chrono::steady_clock;

// The COCO vehicles: car, motorcycle, bus, truck.
const std::set<int> kVehicles = {2, 3, 5, 7};

double thread_cpu_ms() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) / 1e6;
}

detector::Detector load(const std::string& model) {
  detector::DetectorOptions options;
  options.model = model;
  options.decode.conf = 0.25f;
  detector::Detector d(options);
  d.engine().set_threads(1);
  return d;
}

// The clip's frames at `fps` (every n-th frame of its own rate).
std::vector<cv::Mat> frames_at(const std::string& clip, double fps) {
  cv::VideoCapture cap(clip);
  if (!cap.isOpened()) throw std::runtime_error("cannot open " + clip);
  const double own = cap.get(cv::CAP_PROP_FPS);
  const int step = std::max(1, static_cast<int>(std::lround(own / fps)));
  std::vector<cv::Mat> out;
  cv::Mat f;
  for (int i = 0; cap.read(f); ++i) {
    if (i % step == 0) out.push_back(f.clone());
  }
  return out;
}

vision::Detections vehicles(const vision::Detections& all) {
  vision::Detections out;
  for (const auto& d : all)
    if (kVehicles.contains(d.class_id)) out.push_back(d);
  return out;
}

struct Run {
  double cpu_ms = 0;
  long runs = 0;
  long frames = 0;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr,
                 "usage: bench_motion MODEL TRUTH_MODEL CLIP [DETECT_FPS=5] [STILL_S=60] "
                 "[FULL_FRAME_S=10]\n");
    return 2;
  }
  const double fps = argc > 4 ? std::atof(argv[4]) : 5;
  const double still_s = argc > 5 ? std::atof(argv[5]) : 60;
  detector::MotionGateSettings settings;
  settings.full_frame_s = argc > 6 ? std::atof(argv[6]) : 10;
  // Optional: THRESHOLD LEARNING_RATE MAX_REGIONS, the config's motion keys.
  if (argc > 7) settings.motion.threshold = std::atoi(argv[7]);
  if (argc > 8) settings.motion.learning_rate = std::atof(argv[8]);
  if (argc > 9) settings.regions.max_regions = std::atoi(argv[9]);
  try {
    detector::Detector model = load(argv[1]);
    detector::Detector truth = load(argv[2]);
    const std::vector<cv::Mat> clip = frames_at(argv[3], fps);
    const cv::Size input(model.engine().input_width(), model.engine().input_height());
    const vision::NmsOptions nms;
    const auto run = [&](const cv::Mat& image, detector::DetectTimings* t) {
      return model.detect(image, t);
    };
    const auto period =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1 / fps));
    std::printf(
        "model %s, truth %s, %s: %zu frames at %.1f fps, full-frame pass every %.0f s, "
        "one thread\n",
        argv[1], argv[2], argv[3], clip.size(), fps, settings.full_frame_s);

    // 1. The still scene, then the clip moving on.
    const int still_frames = static_cast<int>(std::lround(still_s * fps));
    Run whole, gated;
    detector::MotionGate gate(settings);
    Clock::time_point t{};
    std::optional<int> first_found;
    for (int i = 0;; ++i, t += period) {
      // The clip moves on from the frame that stood still.
      const std::size_t moving = static_cast<std::size_t>(std::max(0, i - still_frames + 1));
      if (moving >= clip.size()) break;
      const cv::Mat& frame = clip[moving];
      if (i < still_frames) {
        double c0 = thread_cpu_ms();
        model.detect(frame);
        whole.cpu_ms += thread_cpu_ms() - c0;
        c0 = thread_cpu_ms();
        const detector::GatedDetections g = gate.detect(frame, t, input, nms, run);
        gated.cpu_ms += thread_cpu_ms() - c0;
        gated.runs += g.runs;
        ++whole.frames;
        ++gated.frames;
        continue;
      }
      const detector::GatedDetections g = gate.detect(frame, t, input, nms, run);
      if (!first_found && g.pass == detector::Pass::kRegions) {
        // Something found in a crop: a detection inside one of this frame's crops.
        for (const auto& d : g.detections) {
          for (const cv::Rect& r : g.regions) {
            if (d.box.x1 >= r.x && d.box.x2 <= r.x + r.width && d.box.y1 >= r.y &&
                d.box.y2 <= r.y + r.height)
              first_found = i - still_frames;
          }
        }
      }
      if (first_found || i - still_frames > 5 * fps) break;
    }
    std::printf(
        "\n1. still scene (%d frames): whole-frame %.2f ms/frame, motion-gated %.2f ms/frame "
        "(%ld model runs): %.1f %%\n",
        still_frames, whole.cpu_ms / whole.frames, gated.cpu_ms / gated.frames, gated.runs,
        100 * gated.cpu_ms / whole.cpu_ms);
    if (first_found) {
      std::printf(
          "   moving again: first detection in a motion crop at moving frame %d, %.2f s "
          "after the first moving frame\n",
          *first_found + 1, *first_found / fps);
    } else {
      std::printf("   moving again: nothing detected in a motion crop within 5 s\n");
    }

    // 2. Vehicles of the truth found, whole-frame and motion-gated, over the clip.
    vision::AgreementAccumulator whole_agree, gated_agree;
    Run w, g;
    detector::MotionGate gate2(settings);
    // Frames per pass kind (whole, regions, still).
    std::array<long, 3> passes{};
    t = {};
    for (const cv::Mat& frame : clip) {
      const vision::Detections truth_v = vehicles(truth.detect(frame));
      double c0 = thread_cpu_ms();
      const vision::Detections wd = model.detect(frame);
      w.cpu_ms += thread_cpu_ms() - c0;
      c0 = thread_cpu_ms();
      const detector::GatedDetections gd = gate2.detect(frame, t, input, nms, run);
      g.cpu_ms += thread_cpu_ms() - c0;
      g.runs += gd.runs;
      ++passes[static_cast<int>(gd.pass)];
      if (std::getenv("BENCH_MOTION_VERBOSE"))
        std::printf("   frame: %s, %zu motion boxes, %.3f moved, %zu crops\n",
                    detector::pass_name(gd.pass), gd.motion.boxes.size(), gd.motion.moved_fraction,
                    gd.regions.size());
      whole_agree.add(truth_v, vehicles(wd));
      gated_agree.add(truth_v, vehicles(gd.detections));
      t += period;
    }
    const auto found = [](const vision::Agreement& a) {
      long matched = 0;
      for (const auto& c : a.classes) matched += c.matched;
      return matched;
    };
    const vision::Agreement wa = whole_agree.result(), ga = gated_agree.result();
    std::printf("\n2. the clip (%zu frames): %ld vehicles by the truth\n", clip.size(),
                wa.truth_boxes);
    std::printf("   whole-frame:   %ld found (%.1f %%), box AP50 %.3f, %.2f ms/frame\n", found(wa),
                100.0 * found(wa) / wa.truth_boxes, wa.box_ap50.value_or(0),
                w.cpu_ms / clip.size());
    std::printf(
        "   motion-gated:  %ld found (%.1f %%), box AP50 %.3f, %.2f ms/frame (%.2f model "
        "runs/frame): %.2fx the CPU\n",
        found(ga), 100.0 * found(ga) / ga.truth_boxes, ga.box_ap50.value_or(0),
        g.cpu_ms / clip.size(), static_cast<double>(g.runs) / clip.size(), g.cpu_ms / w.cpu_ms);
    std::printf("   passes: %ld whole, %ld regions, %ld still\n", passes[0], passes[1], passes[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_motion: %s\n", e.what());
    return 1;
  }
  return 0;
}
