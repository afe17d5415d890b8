// SPDX-License-Identifier: Apache-2.0
#include "daemon/model/reservoir.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <optional>
#include <string_view>
#include <system_error>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "daemon/base/atomic_file.h"

namespace yolo::daemon {

namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::duration_cast;
using std::chrono::milliseconds;

// Fine enough that JPEG artefacts do not move the calibrated ranges.
constexpr int kJpegQuality = 95;
// How often the count of frames seen is saved when nothing else changed.
constexpr auto kIndexSavePeriod = std::chrono::minutes(5);

constexpr const char* kIndexFile = "reservoir.json";

}  // namespace

CalibrationReservoir::CalibrationReservoir(Events& events, fs::path dir, ReservoirOptions options)
    : QueuedOutput("calibration", 2, std::chrono::seconds(2), {}),
      events_(events),
      dir_(std::move(dir)),
      options_(std::move(options)) {}

CalibrationReservoir::~CalibrationReservoir() {
  stop_worker();
}

void CalibrationReservoir::configure(const config::Config& config) {
  hand_over({config.model.calibration_frames, DiskFloor(config.events)});
  // A requantize after drift calibrates on these frames too.
  enabled_ = config.model.quantize == config::Quantize::kAuto ||
             config.checks.drift_action == config::DriftAction::kRequantize;
}

std::int64_t CalibrationReservoir::now_ms() const {
  const auto now = options_.clock ? options_.clock() : std::chrono::system_clock::now();
  return duration_cast<milliseconds>(now.time_since_epoch()).count();
}

fs::path CalibrationReservoir::slot_path(int slot) const {
  char name[32];
  std::snprintf(name, sizeof name, "frame-%04d.jpg", slot);
  return dir_ / name;
}

int CalibrationReservoir::recent_slots(int capacity) const {
  return static_cast<int>(std::floor(capacity * options_.recent_share));
}

std::int64_t CalibrationReservoir::recent_period_ms(int capacity) const {
  return duration_cast<milliseconds>(options_.recent_window).count() /
         std::max(1, recent_slots(capacity));
}

void CalibrationReservoir::load_index() {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) {
    warning_ = "cannot create " + dir_.string() + ": " + ec.message() +
               "; calibration frames are not kept, so quantize: auto cannot work (give the "
               "daemon a writable state directory)";
    return;
  }
  remove_partial_files(dir_);
  int files = 0;
  while (fs::exists(slot_path(files))) ++files;
  // Files the index does not describe (an older daemon's index has no roles) are day frames.
  slots_.assign(static_cast<std::size_t>(files), Slot{});
  seen_ = files;
  std::ifstream in(dir_ / kIndexFile);
  const nlohmann::json index = nlohmann::json::parse(in, nullptr, false);
  if (index.is_discarded() || !index.is_object()) return;
  if (index.contains("seen") && index["seen"].is_number_integer()) {
    seen_ = std::max<std::int64_t>(seen_, index["seen"].get<std::int64_t>());
  }
  if (!index.contains("slots") || !index["slots"].is_array()) return;
  const nlohmann::json& roles = index["slots"];
  std::int64_t newest_recent = 0;
  for (std::size_t i = 0; i < slots_.size() && i < roles.size(); ++i) {
    const nlohmann::json& entry = roles[i];
    if (!entry.is_object()) continue;
    slots_[i].recent = entry.value("role", "") == "recent";
    if (entry.contains("taken_ms") && entry["taken_ms"].is_number_integer()) {
      slots_[i].taken_ms = entry["taken_ms"].get<std::int64_t>();
    }
    if (slots_[i].recent) newest_recent = std::max(newest_recent, slots_[i].taken_ms);
  }
  // The recent frames go on at their pace across a restart, not all at once after it.
  if (newest_recent > 0) recent_due_ms_ = newest_recent + recent_period_ms(capacity());
}

std::string CalibrationReservoir::index_text() const {
  nlohmann::json slots = nlohmann::json::array();
  for (const Slot& slot : slots_) {
    nlohmann::json entry = {{"role", slot.recent ? "recent" : "day"}};
    if (slot.taken_ms > 0) entry["taken_ms"] = slot.taken_ms;
    slots.push_back(std::move(entry));
  }
  return nlohmann::json{{"seen", seen_}, {"frames", slots_.size()}, {"slots", std::move(slots)}}
             .dump() +
         "\n";
}

void CalibrationReservoir::save_index(const std::string& text) {
  write_file_atomically(dir_ / kIndexFile, text);
}

void CalibrationReservoir::start() {
  std::string index;
  {
    std::lock_guard lock(mutex_);
    load_index();
    if (warning_.empty() && trim_to_capacity()) index = index_text();
  }
  if (!index.empty()) {
    try {
      save_index(index);
    } catch (const std::exception&) {
      // Said by the first frame that cannot be kept; the files are right, the roles resaved then.
    }
  }
  QueuedOutput::start();
}

int CalibrationReservoir::recent_count() const {
  return static_cast<int>(std::ranges::count_if(slots_, [](const Slot& s) { return s.recent; }));
}

int CalibrationReservoir::oldest_recent(std::int64_t now) const {
  int oldest = -1;
  std::int64_t oldest_key = std::numeric_limits<std::int64_t>::max();
  for (int i = 0; i < static_cast<int>(slots_.size()); ++i) {
    if (!slots_[i].recent) continue;
    const std::int64_t taken = slots_[i].taken_ms;
    const std::int64_t key = taken > now ? std::numeric_limits<std::int64_t>::min() : taken;
    if (oldest < 0 || key < oldest_key) {
      oldest = i;
      oldest_key = key;
    }
  }
  return oldest;
}

int CalibrationReservoir::nth_day_slot(std::int64_t n) const {
  for (int i = 0; i < static_cast<int>(slots_.size()); ++i) {
    if (!slots_[i].recent && n-- == 0) return i;
  }
  return -1;
}

int CalibrationReservoir::random_day_slot() {
  const std::int64_t days = static_cast<std::int64_t>(slots_.size()) - recent_count();
  if (days <= 0) return -1;
  return nth_day_slot(std::uniform_int_distribution<std::int64_t>(0, days - 1)(random_));
}

void CalibrationReservoir::remove_slot(int slot) {
  const int last = static_cast<int>(slots_.size()) - 1;
  std::error_code ec;
  if (slot != last) {
    fs::rename(slot_path(last), slot_path(slot), ec);
    if (!ec) slots_[static_cast<std::size_t>(slot)] = slots_.back();
  }
  // When the move failed the last frame goes instead: one frame fewer either way.
  if (slot == last || ec) fs::remove(slot_path(last), ec);
  slots_.pop_back();
}

bool CalibrationReservoir::trim_to_capacity() {
  const int capacity = this->capacity();
  const int recent_target = recent_slots(capacity);
  bool trimmed = false;
  while (static_cast<int>(slots_.size()) > capacity) {
    const int slot = recent_count() > recent_target ? oldest_recent(now_ms()) : random_day_slot();
    remove_slot(slot >= 0 ? slot : static_cast<int>(slots_.size()) - 1);
    trimmed = true;
  }
  return trimmed;
}

bool CalibrationReservoir::wants_frame(const FrameResult&) const {
  return enabled_ && Clock::now().time_since_epoch().count() >= next_offer_ns_.load();
}

void CalibrationReservoir::publish(std::shared_ptr<const FrameResult> result) {
  if (!result->frame || !enabled_) return;
  const auto now = Clock::now();
  if (now.time_since_epoch().count() < next_offer_ns_.load()) return;
  next_offer_ns_.store((now + options_.offer_period).time_since_epoch().count());
  push(std::move(result));
}

int CalibrationReservoir::choose_slot(std::int64_t now, bool& recent) {
  recent = false;
  const int capacity = this->capacity();
  const int size = static_cast<int>(slots_.size());
  // An empty slot takes any frame, so the folder is full after `capacity` offers, which
  // quantize: auto waits for. (After the capacity grew, that favours the frames of that moment
  // in the day sample a little.)
  if (size < capacity) return size;
  // The day sample: Algorithm R over every frame offered, at its present size, which the recent
  // frames bring down to its share by taking the place of random day frames (a random part of a
  // uniform sample is a uniform sample).
  const std::int64_t days = size - recent_count();
  if (days > 0) {
    const std::int64_t j = std::uniform_int_distribution<std::int64_t>(0, seen_)(random_);
    if (j < days) return nth_day_slot(j);
  }
  const int recent_target = recent_slots(capacity);
  if (recent_target == 0) return -1;
  const std::int64_t period = recent_period_ms(capacity);
  // A clock set back would otherwise hold the recent frames for as long as it went back.
  recent_due_ms_ = std::min(recent_due_ms_, now + period);
  if (now < recent_due_ms_) return -1;
  // On a schedule, so that a frame taken late (the day sample took the one due) does not push
  // back the ones after it and the recent frames stay within the window; after a gap of more
  // than a period (no frames came) it starts again from now.
  recent_due_ms_ += period;
  if (recent_due_ms_ <= now) recent_due_ms_ = now + period;
  recent = true;
  if (days > capacity - recent_target) return random_day_slot();
  return oldest_recent(now);
}

bool CalibrationReservoir::write_frame(const cv::Mat& frame, int slot) {
  std::string error;
  const std::optional<DiskSpace> disk = disk_space(dir_, error);
  if (!disk) throw std::runtime_error(error);
  std::vector<unsigned char> jpeg;
  cv::imencode(".jpg", frame, jpeg, {cv::IMWRITE_JPEG_QUALITY, kJpegQuality});
  // Nothing is freed first: the new file is written beside the one it replaces, then renamed
  // over it.
  const DiskFloor floor = settings().floor;
  const double need = static_cast<double>(disk->taken(jpeg.size()));
  if (floor.crossed_by(*disk, need)) {
    floor_stopped(floor.why(*disk, need, dir_));
    return false;
  }
  write_file_atomically(slot_path(slot),
                        std::string_view(reinterpret_cast<const char*>(jpeg.data()), jpeg.size()));
  return true;
}

void CalibrationReservoir::floor_stopped(const std::string& why) {
  std::string warning;
  bool say = false;
  {
    std::lock_guard lock(mutex_);
    warning =
        "a calibration frame was not kept: " + why + "; the " + std::to_string(slots_.size()) +
        " kept stay, and collecting resumes when there is room (free some space there, or lower "
        "events.min_free_mb)";
    warning_ = warning;
    say = !floor_said_;
    floor_said_ = true;
  }
  if (say) {
    events_.emit(config::LogLevel::kWarning, fieldlog::EventKind::kCalibrationFrames, warning,
                 {{"folder", dir_.string()}});
  }
}

void CalibrationReservoir::keep(const cv::Mat& frame) {
  const std::int64_t now = now_ms();
  int slot = -1;
  bool recent = false;
  {
    std::lock_guard lock(mutex_);
    trim_to_capacity();
    slot = choose_slot(now, recent);
  }
  // Only this thread changes the slots, so `slot` still names the same file here.
  bool wrote = false;
  std::string failure;
  try {
    wrote = slot >= 0 && write_frame(frame, slot);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  std::string index;
  bool resumed = false;
  {
    std::lock_guard lock(mutex_);
    // Counted once the frame is done with, so that "seen" in the status says so.
    ++seen_;
    if (wrote) {
      const Slot kept{recent, now};
      if (slot == static_cast<int>(slots_.size())) {
        slots_.push_back(kept);
      } else {
        slots_[static_cast<std::size_t>(slot)] = kept;
      }
      resumed = floor_said_;
      floor_said_ = false;
    }
    // Below the floor the warning stays until a frame is written again.
    if (!floor_said_ && failure.empty()) warning_.clear();
    if (failure.empty() && (wrote || Clock::now() - saved_ >= kIndexSavePeriod)) {
      saved_ = Clock::now();
      index = index_text();
    }
  }
  if (!failure.empty()) throw std::runtime_error(failure);
  if (resumed) {
    events_.log().info("calibration frames are kept again in " + dir_.string() +
                       " (there is room above events.min_free_mb)");
  }
  if (!index.empty()) save_index(index);
}

void CalibrationReservoir::run() {
  for (;;) {
    const auto item = queue().pop(std::chrono::seconds(1));
    if (!item) {
      // Nothing on a quiet second, or closed and drained.
      if (queue().closed()) return;
      continue;
    }
    try {
      keep(*(*item)->frame);
    } catch (const std::exception& e) {
      std::string warning = std::string("cannot keep a calibration frame: ") + e.what() +
                            "; quantize: auto cannot work until it can (give the daemon a "
                            "writable state directory)";
      bool changed = false;
      {
        std::lock_guard lock(mutex_);
        changed = warning != warning_;
        warning_ = warning;
      }
      if (changed)
        events_.emit(config::LogLevel::kWarning, fieldlog::EventKind::kCalibrationFrames, warning);
    }
  }
}

int CalibrationReservoir::count() const {
  std::lock_guard lock(mutex_);
  return static_cast<int>(slots_.size());
}

int CalibrationReservoir::capacity() const {
  return settings().frames;
}

nlohmann::json CalibrationReservoir::status() const {
  const std::int64_t now = now_ms();
  const std::int64_t window = duration_cast<milliseconds>(options_.recent_window).count();
  std::lock_guard lock(mutex_);
  const int capacity = this->capacity();
  int recent = 0;
  int stale = 0;
  std::optional<std::int64_t> newest;
  std::optional<std::int64_t> oldest;
  for (const Slot& slot : slots_) {
    if (!slot.recent) continue;
    const std::int64_t age = now - slot.taken_ms;
    // A frame stamped after now (the clock was set back) is of unknown age: not counted recent.
    if (age < 0 || age > window) {
      ++stale;
      continue;
    }
    ++recent;
    newest = std::min(newest.value_or(age), age);
    oldest = std::max(oldest.value_or(age), age);
  }
  const int count = static_cast<int>(slots_.size());
  nlohmann::json j = {{"ok", warning_.empty()},
                      {"collecting", enabled_.load()},
                      {"frames", count},
                      {"capacity", capacity},
                      {"seen", seen_},
                      {"dir", dir_.string()},
                      {"day_frames", count - recent - stale},
                      {"recent_frames", recent},
                      {"stale_recent_frames", stale},
                      {"recent_slots", recent_slots(capacity)},
                      {"recent_window_s", options_.recent_window.count()}};
  if (newest) j["recent_newest_age_s"] = *newest / 1000;
  if (oldest) j["recent_oldest_age_s"] = *oldest / 1000;
  if (!warning_.empty()) j["warning"] = warning_;
  return j;
}

bool CalibrationReservoir::stop() {
  if (!stop_worker()) return false;
  std::string index;
  {
    std::lock_guard lock(mutex_);
    index = index_text();
  }
  try {
    save_index(index);
  } catch (const std::exception&) {
    // The disk went away (or never was); the count of frames seen is only a weight for later
    // sampling, and the roles are saved with every frame written.
  }
  return true;
}

}  // namespace yolo::daemon
