// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "daemon/core/queued_output.h"

namespace yolo::daemon {

class Events;

// How the MQTT publisher runs; fixed bounds, which tests shorten. Taken at construction.
struct MqttOptions {
  // Reconnect backoff: the first retry after retry_min, doubling up to retry_max; a connection
  // resets it.
  std::chrono::milliseconds retry_min{1000};
  std::chrono::milliseconds retry_max{30'000};
  // A connection attempt (TCP, TLS, CONNACK) still unanswered after this is abandoned and retried.
  std::chrono::milliseconds connect_timeout{10'000};
  // MQTT keepalive: the broker sends the last will this long (x1.5) after the device vanished
  // without closing its connection (power cut, network gone).
  int keepalive_s = 30;
  // Results and stats waiting for the MQTT thread; beyond this the oldest are dropped (counted).
  std::size_t queue_capacity = 256;
  // Events and stats handed to the broker and not yet taken by it; beyond this new ones are
  // dropped (counted): a slow broker costs messages, never memory or inference time.
  std::size_t max_in_flight = 100;
  // How long a clean stop (or a reload that changes the broker) waits for "offline" to get out.
  std::chrono::milliseconds offline_wait{1000};
  // The device's name in the client id and Home Assistant discovery; empty means host_name().
  std::string host;
};

// What configure() hands the MQTT thread: mqtt.*, the watched class ids (detect.classes) and the
// cameras' names (each a Home Assistant device).
struct MqttSettings {
  config::MqttConfig mqtt;
  std::vector<int> classes;
  std::vector<std::string> cameras;

  bool operator==(const MqttSettings&) const = default;
};

// What the MQTT thread reports of itself; MqttOutput::status() words it.
struct MqttSnapshot {
  bool enabled = false;
  std::string broker;
  bool tls = false;
  bool connected = false;
  std::int64_t published = 0;
  std::int64_t dropped = 0;
  // Why it is not connected, and when it tries again; empty while all is well.
  std::string problem;
  std::chrono::steady_clock::time_point retry_at;
};

// A processed frame, or the daemon's status for PREFIX/stats.
using MqttItem = std::variant<std::shared_ptr<const FrameResult>, nlohmann::json>;

// Detections and status to an MQTT broker (libmosquitto), and Home Assistant discovery; off
// unless mqtt.enabled. Topics and payloads are in daemon/outputs/mqtt/mqtt_messages.h. One thread
// of its own owns the connection (libmosquitto without its thread: this thread polls the socket
// beside its wake descriptor), the debounce and the reconnect backoff, so publish() and stats()
// only queue: a broker that is down or slow never stalls inference, and the status says when it is
// unreachable.
class MqttOutput : public QueuedOutput<MqttItem, MqttSettings, MqttSnapshot> {
 public:
  // `events` gets "mqtt_connected" and "mqtt_unreachable" (once per outage, not per retry).
  explicit MqttOutput(Events& events, MqttOptions options = {});
  ~MqttOutput() override;

  // Takes mqtt.*, detect.classes (the watched labels) and the cameras. A change of the broker
  // (host, port, credentials, CA file, prefix) reconnects, saying "offline" on the old one first;
  // disabling disconnects the same way; the debounce, stats interval, discovery, watched labels
  // and cameras apply on the same connection (a camera removed loses its Home Assistant device
  // and its zones' and lines' states, a camera added gets its device); unchanged settings do
  // nothing.
  void configure(const config::Config& config) override;
  void publish(std::shared_ptr<const FrameResult> result) override;
  void stats(const DaemonStatus& status) override;
  // {"ok", "enabled"} and, when enabled, "broker", "tls", "connected", "published" (messages
  // the broker took), "dropped" (events and stats not sent: broker away or slow, or the thread
  // behind) and "warning" while it is not connected.
  nlohmann::json status() const override;
  // yolo_edge_mqtt_connected while enabled.
  void metrics(MetricsSink& sink) const override;
  // stop(): says "offline" (waiting up to MqttOptions::offline_wait), disconnects and joins the
  // thread.

 private:
  // The connection and everything the thread owns (mqtt_output.cpp).
  class Loop;

  void run() override;

  Events& events_;
  const MqttOptions options_;
  // Read by publish() and stats() so that nothing is queued while MQTT is off.
  std::atomic<bool> enabled_{false};
};

}  // namespace yolo::daemon
