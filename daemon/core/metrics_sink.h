// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <map>
#include <string>

namespace yolo::daemon {

// Where an output sets the Prometheus series of its own (yolo_edge_<output>_*), so that the
// metrics need not know any output (daemon/outputs/metrics implements it). A name that is not a
// valid metric name, or one already used with another type, throws std::invalid_argument: those
// are mistakes in our code, not in the user's input.
class MetricsSink {
 public:
  // Label name to value. Values may be any text (escaped on rendering; bytes that are not UTF-8
  // become U+FFFD).
  using Labels = std::map<std::string, std::string>;

  // Adds `delta` (>= 0) to the counter `name` (which must end in _total) with `labels`, creating
  // it at 0 first.
  virtual void add_counter(const std::string& name, const std::string& help, const Labels& labels,
                           double delta = 1) = 0;
  // Brings the counter `name` with `labels` up to `total`, a count kept by the output (the HTTP
  // server's failed logins); a lower total changes nothing.
  virtual void follow_counter(const std::string& name, const std::string& help,
                              const Labels& labels, double total) = 0;
  // Sets the gauge `name` with `labels` to `value`.
  virtual void set_gauge(const std::string& name, const std::string& help, const Labels& labels,
                         double value) = 0;

 protected:
  ~MetricsSink() = default;
};

}  // namespace yolo::daemon
