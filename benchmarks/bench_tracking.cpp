// SPDX-License-Identifier: Apache-2.0
// The tracker's cost per frame and its accuracy on synthetic sequences with known truth
// (tests/tracking/synthetic.h); prints figures, not a test. Cost: a crowd of 10, 50 and 100
// people and cars (and 100 people: one class, one big assignment) at 30 fps for 20 s (20% of boxes
// dropped, jitter, false boxes), each update() timed alone on this thread, the median and the 90th
// percentile over every frame after the first second. Accuracy: MOTA of the street scene at 10, 30
// and a changing frame rate over ten seeds, with the tests' detector and with the harshest one
// (every score drawn afresh from 0.35 to 0.95).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <vector>

#include "tests/tracking/synthetic.h"
#include "tracking/tracker.h"

// Every allocation of the program is counted, to tell how many update() makes.
namespace {
std::size_t allocations = 0;
}  // namespace

void* operator new(std::size_t size) {
  ++allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace {

using namespace yolo;

void time_crowd(int n, float cars) {
  constexpr double kSeconds = 20;
  test::DetectorNoise noise;
  const auto frames = test::generate(test::crowd(n, kSeconds, 7, cars), kSeconds, noise, 7);
  tracking::Tracker tracker(test::default_tracking());
  test::MotCounter mot;
  std::vector<double> us;
  us.reserve(frames.size());
  std::size_t boxes = 0, tracks = 0, allocated = 0, quiet = 0;
  for (const test::SyntheticFrame& f : frames) {
    const std::size_t before = allocations;
    const auto start = std::chrono::steady_clock::now();
    const tracking::TrackUpdate& u =
        tracker.update(f.detections, test::at_seconds(f.t), f.index, test::kSyntheticFrame);
    const auto stop = std::chrono::steady_clock::now();
    const std::size_t made = allocations - before;
    mot.add(f, u.tracks);
    if (f.t < 1) continue;
    us.push_back(std::chrono::duration<double, std::micro>(stop - start).count());
    boxes += f.detections.size();
    tracks += u.tracks.size();
    allocated += made;
    quiet += made == 0 ? 1 : 0;
  }
  std::sort(us.begin(), us.end());
  const auto at = [&](double q) { return us[static_cast<std::size_t>(q * (us.size() - 1))]; };
  std::printf(
      "%3d objects (%2.0f%% cars): %.1f boxes and %.1f tracks a frame; update() median %.1f us, "
      "p90 %.1f us, "
      "max %.1f us over %zu frames; %.2f allocations a frame, none in %.0f%% of frames; MOTA "
      "%.3f\n",
      n, 100 * cars, static_cast<double>(boxes) / us.size(),
      static_cast<double>(tracks) / us.size(), at(0.5), at(0.9), us.back(), us.size(),
      static_cast<double>(allocated) / us.size(), 100.0 * quiet / us.size(), mot.figures().mota());
}

void street_mota(const std::string& detector, test::DetectorNoise noise) {
  for (double fps : {10.0, 30.0, 0.0}) {
    noise.fps = fps > 0 ? fps : 30;
    noise.fps_from = fps > 0 ? std::vector<std::pair<double, double>>{}
                             : std::vector<std::pair<double, double>>{{4.0, 8.0}, {8.0, 20.0}};
    noise.interval_jitter = 0.2;
    test::MotFigures all;
    double worst = 1;
    for (unsigned seed = 1; seed <= 10; ++seed) {
      const test::MotFigures m = test::run_mot(test::generate(test::street(), 12, noise, seed));
      worst = std::min(worst, m.mota());
      all += m;
    }
    std::printf(
        "street, %s, %s: MOTA %.3f (worst seed %.3f; truth boxes %lld, misses %lld, false %lld, "
        "id switches %lld)\n",
        detector.c_str(),
        fps > 0 ? (std::to_string(static_cast<int>(fps)) + " fps").c_str() : "30, 8, 20 fps",
        all.mota(), worst, static_cast<long long>(all.truth), static_cast<long long>(all.misses),
        static_cast<long long>(all.false_positives), static_cast<long long>(all.id_switches));
  }
}

}  // namespace

int main() {
  for (int n : {10, 50, 100}) time_crowd(n, 0.3f);
  // One class: every track and box in one assignment, the costliest case.
  time_crowd(100, 0);
  street_mota("tests' detector", {});
  test::DetectorNoise harsh;
  harsh.base_min = harsh.base_max = 0.65f;
  harsh.score_noise = 0.3f;
  street_mota("scores 0.35-0.95 each frame", harsh);
  return 0;
}
