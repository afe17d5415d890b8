// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "config/config.h"
#include "daemon/core/events.h"
#include "daemon/model/quantize_job.h"
#include "daemon/model/reservoir.h"
#include "runtime/engine/input_size.h"

namespace yolo::daemon {

// quantize: auto, making the INT8 file: waits for the calibration reservoir to fill, quantizes in
// a low-priority child process (QuantizeJob), and says how far it got. A failure is not tried
// again until a reload. Driven by the model manager's thread, one step() a tick; its status is
// read from any thread.
class Int8Maker {
 public:
  // Where INT8 stands for the status line.
  enum class State {
    // The config asks for no INT8 model.
    kNotWanted,
    // The INT8 file exists: nothing to make.
    kRunning,
    kCollecting,
    kQuantizing,
    kFailed,
  };

  // `cli`: the yolo-edge binary that quantizes.
  Int8Maker(Events& events, CalibrationReservoir& reservoir, std::filesystem::path cli);

  // One step towards the file `make` for `model`: collects, starts the quantization, follows it
  // and says when it ended. `imgsz`: the input size the model runs at, which the calibration
  // frames are letterboxed to. `generation` counts the reloads: a failure waits for the next.
  void step(const config::ModelConfig& model, const std::filesystem::path& make,
            const runtime::InputSize& imgsz, std::uint64_t generation);
  // Nothing to make any more: ends a quantization under way, and says so.
  void drop();
  // Ends a quantization under way without a word: the daemon stops.
  void stop();
  void set(State state, std::string progress = "", std::string error = "");

  // One phrase for the status line while INT8 is wanted but not made yet, else "".
  std::string pending_summary() const;

 private:
  // Follows the job under way to its end.
  void follow(const config::ModelConfig& model, const std::filesystem::path& make,
              std::uint64_t generation);
  // Starts the job once the reservoir holds enough frames.
  void start(const config::ModelConfig& model, const std::filesystem::path& make,
             const runtime::InputSize& imgsz, std::uint64_t generation);
  // Records a failure for `make`, says it and waits for a reload.
  void fail(const std::filesystem::path& make, std::uint64_t generation, const std::string& why,
            const std::string& message, nlohmann::json fields);

  Events& events_;
  CalibrationReservoir& reservoir_;
  const std::filesystem::path cli_;

  // Owned by the calling thread.
  std::unique_ptr<QuantizeJob> job_;
  std::optional<std::pair<std::filesystem::path, std::uint64_t>> failed_;

  // Status.
  mutable std::mutex mutex_;
  State state_ = State::kNotWanted;
  std::string progress_;
  std::string error_;
};

}  // namespace yolo::daemon
