// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "daemon/base/worker.h"
#include "runtime/engine/input_size.h"

namespace yolo::daemon {

// One `yolo-edge quantize` run in a child process, for quantize: auto. A child rather than a
// thread: it runs at a lower priority than inference, its peak memory (calibration holds hundreds
// of MB of activations) is not the daemon's, and stopping the daemon can end it at once. Its
// stderr is read line by line for progress.
class QuantizeJob {
 public:
  // The child's nice value. Not SCHED_IDLE: that gets only the time nothing else wants, and on a
  // device whose cores inference and capture keep busy it starved (1.5 % of a core, minutes per
  // frame of progress). Nice 10 still leaves inference about 90 % of a core they share, and
  // bounds the quantizer's time: it gets at least about a tenth of one.
  static constexpr int kQuantizeNice = 10;

  struct Request {
    std::filesystem::path cli;  // the yolo-edge binary
    std::filesystem::path model;
    std::filesystem::path calibration;  // a folder of images
    std::filesystem::path out;
    std::filesystem::path report;
    int frames = 64;
    // The input size to calibrate at; kModel for the model's own.
    runtime::InputSize imgsz;
  };

  // Starts the child; throws std::runtime_error when it cannot be started.
  explicit QuantizeJob(const Request& request);
  // Ends the child if it still runs.
  ~QuantizeJob();
  QuantizeJob(const QuantizeJob&) = delete;
  QuantizeJob& operator=(const QuantizeJob&) = delete;

  bool finished() const { return finished_.load(); }
  // Exit status 0 (valid once finished()).
  bool succeeded() const;
  // The child's last line of output ("calibrated 48 frame(s)").
  std::string progress() const;
  // What went wrong: the exit status or signal and the last lines it printed.
  std::string failure() const;
  double elapsed_s() const;
  const Request& request() const { return request_; }
  // SIGTERM, then SIGKILL if it has not ended within `grace`; returns once it is reaped. The
  // default fits in the daemon's 5 s to stop.
  void cancel(std::chrono::milliseconds grace = std::chrono::milliseconds(500));

 private:
  void read_output(int fd);
  void send_signal(int number);

  Request request_;
  pid_t pid_ = -1;
  std::chrono::steady_clock::time_point started_;
  Worker reader_;
  std::atomic<bool> finished_{false};
  mutable std::mutex mutex_;
  std::vector<std::string> tail_;
  int wait_status_ = 0;
  bool reaped_ = false;
};

}  // namespace yolo::daemon
