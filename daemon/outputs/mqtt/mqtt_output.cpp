// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/mqtt/mqtt_output.h"

#include <mosquitto.h>
#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "daemon/base/host_name.h"
#include "daemon/core/events.h"
#include "daemon/core/label_tracker.h"
#include "daemon/outputs/mqtt/mqtt_connection.h"
#include "daemon/outputs/mqtt/mqtt_messages.h"
#include "text/format.h"

namespace yolo::daemon {

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

// The longest the thread sleeps while it has a connection: libmosquitto's keepalive (PINGREQ)
// and its timeout need a call now and then.
constexpr auto kServicePeriod = std::chrono::seconds(1);
// A JSON payload; text that is not valid UTF-8 (a label from a model's metadata) gets U+FFFD
// instead of throwing.
std::string payload_text(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

// Everything the MQTT thread owns: the settings it runs with, the connection and its backoff,
// the debounced labels, the discovery configs it published and the latest stats.
class MqttOutput::Loop {
 public:
  explicit Loop(MqttOutput& owner)
      : owner_(owner),
        options_(owner.options_),
        host_(options_.host.empty() ? host_name() : options_.host),
        client_id_("yolo-edged-" + host_ + "-" + std::to_string(getpid())) {}

  void run() {
    for (;;) {
      take_settings();
      connect_if_due(Clock::now());
      // Before sleeping: the status must not wait for the next wake to tell what happened.
      report();
      wait(Clock::now());
      if (conn_) {
        conn_->service();
        for (const MqttReceived& message : conn_->take_received()) on_message(message);
        check_connection(Clock::now());
      }
      while (std::optional<MqttItem> item = owner_.queue().pop(std::chrono::milliseconds(0))) {
        if (!settings_.mqtt.enabled) continue;
        if (auto* frame = std::get_if<std::shared_ptr<const FrameResult>>(&*item)) {
          on_frame(std::move(*frame), Clock::now());
        } else {
          latest_stats_ = std::move(std::get<json>(*item));
          stats_waiting_ = true;
        }
      }
      on_clock(Clock::now());
      // Closed first, then empty: once closed nothing more comes in.
      if (owner_.queue().closed() && owner_.queue().size() == 0) break;
    }
    close(topics().available());
    report();
  }

 private:
  // --- settings ---

  void take_settings() {
    std::optional<MqttSettings> next = owner_.take_settings();
    if (!next || *next == settings_) return;
    const MqttSettings previous = std::exchange(settings_, std::move(*next));
    const config::MqttConfig& mqtt = settings_.mqtt;
    tracker_.set_hold(std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(mqtt.debounce_s)));
    if (settings_.classes != previous.classes) refresh_watched();
    if (settings_.cameras != previous.cameras) forget_removed_cameras();
    const bool same_broker = previous.mqtt.enabled && broker_of(previous.mqtt) == broker_of(mqtt);
    if (mqtt.enabled && same_broker) {
      // The same connection: follow Home Assistant's status topic, announce what changed, clear
      // the states of the places of a camera removed.
      if (connected_) {
        follow_home_assistant();
        reconcile_discovery(false);
        publish_scene_states();
      }
      return;
    }
    close(MqttTopics{previous.mqtt.prefix}.available());
    backoff_ = options_.retry_min;
    next_attempt_ = Clock::now();
    problem_.clear();
    said_unreachable_ = false;
    if (!mqtt.enabled) {
      // Announced again in full when it is enabled.
      discovery_.clear();
    }
  }

  MqttTopics topics() const { return {settings_.mqtt.prefix}; }

  DiscoverySettings discovery_settings() const {
    return {settings_.mqtt.discovery_prefix, topics(), host_, settings_.mqtt.stats_interval_s};
  }

  // --- the connection ---

  void connect_if_due(Clock::time_point now) {
    if (!settings_.mqtt.enabled || conn_ || now < next_attempt_) return;
    conn_ = std::make_unique<MqttConnection>(broker_of(settings_.mqtt), client_id_,
                                             options_.keepalive_s, published_);
    attempt_started_ = now;
    if (auto problem = conn_->begin(topics().available())) fail(*problem, now);
  }

  void check_connection(Clock::time_point now) {
    if (connected_) {
      if (auto why = conn_->closed()) {
        const bool plain = why->rc == MOSQ_ERR_CONN_LOST;
        fail("unreachable: connection lost" +
                 (plain ? "" : " (" + mqtt_describe(why->rc, why->error) + ")"),
             now);
      }
      return;
    }
    if (auto code = conn_->connack()) {
      if (*code == 0) {
        on_connected();
      } else {
        fail(mqtt_refusal(*code), now);
      }
    } else if (auto why = conn_->closed()) {
      fail(mqtt_problem(why->rc, why->error), now);
    } else if (now - attempt_started_ >= options_.connect_timeout) {
      fail("unreachable: no answer within " + text::duration_text(options_.connect_timeout), now);
    }
  }

  void fail(std::string problem, Clock::time_point now) {
    if (conn_) dropped_ += static_cast<std::int64_t>(conn_->in_flight());
    conn_.reset();
    connected_ = false;
    following_.clear();
    if (!said_unreachable_) {
      said_unreachable_ = true;
      const std::string broker = broker_of(settings_.mqtt).address();
      owner_.events_.emit(config::LogLevel::kWarning, fieldlog::EventKind::kMqttUnreachable,
                          "MQTT broker " + broker + " " + problem + "; retrying, at most every " +
                              text::duration_text(options_.retry_max) + ", until it answers",
                          {{"broker", broker}, {"problem", problem}});
    }
    problem_ = std::move(problem);
    next_attempt_ = now + backoff_;
    backoff_ = std::min<std::chrono::milliseconds>(backoff_ * 2, options_.retry_max);
  }

  void on_connected() {
    connected_ = true;
    problem_.clear();
    said_unreachable_ = false;
    const std::string broker = broker_of(settings_.mqtt).address();
    owner_.events_.emit(config::LogLevel::kInfo, fieldlog::EventKind::kMqttConnected,
                        "MQTT: connected to " + broker +
                            (settings_.mqtt.ca_file.empty() ? "" : " over TLS") +
                            ", publishing on " + settings_.mqtt.prefix + "/",
                        {{"broker", broker}, {"prefix", settings_.mqtt.prefix}});
    backoff_ = options_.retry_min;
    send(topics().available(), kOnline, kAtLeastOnce, true, false);
    conn_->subscribe(topics().all_occupancy());
    follow_home_assistant();
    reconcile_discovery(true);
    publish_states();
    // Retained on the broker already, perhaps, but not known to be: every one goes out again.
    scene_states_.clear();
    publish_scene_states();
    // The first stats go out as soon as there are some.
    stats_sent_ = {};
  }

  // Says "offline" on `available` and waits (bounded) for it and what is still in flight, then
  // disconnects.
  void close(const std::string& available) {
    if (!conn_) return;
    if (connected_) {
      send(available, kOffline, kAtLeastOnce, true, false);
      const auto deadline = Clock::now() + options_.offline_wait;
      while (conn_->in_flight() > 0 && !conn_->closed() && Clock::now() < deadline) {
        pollfd fd{conn_->socket(),
                  static_cast<short>(POLLIN | (conn_->wants_write() ? POLLOUT : 0)), 0};
        poll(&fd, 1, static_cast<int>(milliseconds_until(deadline)));
        conn_->service();
      }
      conn_->disconnect();
      conn_->service();
    }
    dropped_ += static_cast<std::int64_t>(conn_->in_flight());
    conn_.reset();
    connected_ = false;
    following_.clear();
  }

  // Subscribes to Home Assistant's status topic while discovery is on (and only then).
  void follow_home_assistant() {
    const std::string wanted =
        settings_.mqtt.homeassistant ? home_assistant_status_topic(discovery_settings()) : "";
    if (wanted == following_) return;
    if (!following_.empty()) conn_->unsubscribe(following_);
    if (!wanted.empty()) conn_->subscribe(wanted);
    following_ = wanted;
  }

  // Hands a message to the broker. `droppable` messages (events, stats) are dropped and counted
  // while there is no connection or too much is in flight; the others (states, availability,
  // discovery) are sent again in full on every connection.
  bool send(const std::string& topic, std::string_view payload, int qos, bool retain,
            bool droppable) {
    if (!connected_ || (droppable && conn_->in_flight() >= options_.max_in_flight)) {
      if (droppable) ++dropped_;
      return false;
    }
    if (conn_->send(topic, payload, qos, retain)) return true;
    if (droppable) ++dropped_;
    return false;
  }

  // --- what is seen ---

  void on_frame(std::shared_ptr<const FrameResult> frame, Clock::time_point now) {
    if (frame->frameless) {
      on_tracks_ended(*frame);
      return;
    }
    if (!first_frame_at_) first_frame_at_ = now;
    const std::map<std::string, int> counts = label_counts(*frame);
    bool new_labels = false;
    for (const auto& [label, count] : counts) new_labels = seen_.insert(label).second || new_labels;
    const bool new_model = frame->model != model_;
    if (new_model) {
      model_ = frame->model;
      refresh_watched();
    }
    last_index_ = frame->index;
    for (const tracking::ObjectEvent& e : frame->object_events) {
      send(topics().object_event(e.camera, e.kind), payload_text(tracking::to_json(e)),
           kAtLeastOnce, false, true);
    }
    bool new_places = false;
    if (configured(frame->camera)) {
      if (auto& scene = scenes_[frame->camera]; frame->scene != scene) {
        scene = frame->scene;
        new_places = refresh_places();
      }
    }
    if (new_labels || new_model || new_places) reconcile_discovery(false);
    publish_scene_states();
    const std::vector<LabelChange> changes = tracker_.add(frame->camera, counts, now);
    if (!changes.empty()) on_changes(changes, frame.get());
  }

  // No frame came for a while and the tracks ended by time: their events and the places' states.
  void on_tracks_ended(const FrameResult& frame) {
    for (const tracking::ObjectEvent& e : frame.object_events) {
      send(topics().object_event(e.camera, e.kind), payload_text(tracking::to_json(e)),
           kAtLeastOnce, false, true);
    }
    if (configured(frame.camera)) scenes_[frame.camera] = frame.scene;
    publish_scene_states();
  }

  // Whether `camera` is one of the config's: the frames of a camera a reload removed may still
  // be queued, and must not bring its places back.
  bool configured(const std::string& camera) const {
    return std::ranges::find(settings_.cameras, camera) != settings_.cameras.end();
  }

  // The places of every camera's scene; whether they changed.
  bool refresh_places() {
    std::vector<ScenePlace> places;
    for (const auto& [camera, scene] : scenes_) {
      for (ScenePlace& p : scene_places(scene.get())) places.push_back(std::move(p));
    }
    const bool changed = places != places_;
    places_ = std::move(places);
    return changed;
  }

  // A camera a reload removed sends no more frames: its scene goes here, and with it its places'
  // sensors and states (removed as those of a zone a reload removed).
  void forget_removed_cameras() {
    std::erase_if(scenes_, [&](const auto& entry) { return !configured(entry.first); });
    refresh_places();
  }

  void on_changes(const std::vector<LabelChange>& changes, const FrameResult* frame) {
    const json event = event_payload(changes, tracker_.counts(), frame, last_index_,
                                     std::chrono::system_clock::now());
    send(topics().events(), payload_text(event), kAtLeastOnce, false, true);
    for (const LabelChange& c : changes) {
      if ((c.from == 0) != (c.to == 0)) publish_state(c.label);
    }
  }

  // The watched labels by name: detect.classes through the model's names (known from the first
  // frame on).
  void refresh_watched() {
    watched_.clear();
    if (!model_) return;
    for (const int id : settings_.classes) watched_.insert(model_->names.name(id));
  }

  // The labels that get an occupancy topic and sensor: the watched ones, else each one seen.
  std::set<std::string> known_labels() const {
    return settings_.classes.empty() ? seen_ : watched_;
  }

  // Warm: a label has had `hold` to show up since the first frame, so "not seen" now means OFF.
  bool warm(Clock::time_point now) const {
    return first_frame_at_ && now >= *first_frame_at_ + tracker_.hold();
  }

  void publish_state(const std::string& label) {
    const bool present = tracker_.present(label);
    if (!present && !warm_) return;
    send(topics().occupancy(label), present ? kOccupied : kVacant, kAtLeastOnce, true, false);
  }

  // The state of every known label and every label seen now; with `only_vacant` just the OFF
  // ones (when warm: the ON ones went out as they appeared).
  void publish_states(bool only_vacant = false) {
    std::set<std::string> labels = known_labels();
    for (const auto& [label, count] : tracker_.counts()) labels.insert(label);
    for (const auto& label : labels) {
      if (!only_vacant || !tracker_.present(label)) publish_state(label);
    }
  }

  bool segment_present(const std::string& segment) const {
    for (const auto& [label, count] : tracker_.counts()) {
      if (topic_segment(label) == segment) return true;
    }
    return false;
  }

  // An occupancy state left "ON" on the broker (by an earlier run that was killed, or for a label
  // no longer watched) is set "OFF" once it is clear it is not seen; Home Assistant's "online"
  // gets discovery and states again.
  void on_message(const MqttReceived& message) {
    if (!following_.empty() && message.topic == following_) {
      if (message.payload == kOnline) {
        reconcile_discovery(true);
        publish_states();
        scene_states_.clear();
        publish_scene_states();
      }
      return;
    }
    const std::string segment = topics().occupancy_segment(message.topic);
    if (segment.empty() || !message.retained || message.payload != kOccupied) return;
    if (segment_present(segment)) return;
    if (warm_) {
      send(message.topic, kVacant, kAtLeastOnce, true, false);
    } else {
      stale_.insert(segment);
    }
  }

  // Clears the retained topics of `sent` (what was last sent to each) that are not in `wanted`
  // (an empty retained message) and forgets them.
  template <typename Value>
  void clear_unwanted(std::map<std::string, Value>& sent,
                      const std::map<std::string, Value>& wanted) {
    for (auto it = sent.begin(); it != sent.end();) {
      if (wanted.contains(it->first)) {
        ++it;
        continue;
      }
      send(it->first, "", kAtLeastOnce, true, false);
      it = sent.erase(it);
    }
  }

  // Publishes the discovery configs that are missing or changed (all of them with `force`) and
  // removes (empty retained message) those no longer wanted.
  void reconcile_discovery(bool force) {
    if (!connected_) return;
    const std::map<std::string, json> wanted =
        settings_.mqtt.homeassistant
            ? discovery_configs(discovery_settings(), known_labels(), settings_.cameras, places_)
            : std::map<std::string, json>{};
    clear_unwanted(discovery_, wanted);
    for (const auto& [topic, config] : wanted) {
      auto it = discovery_.find(topic);
      if (!force && it != discovery_.end() && it->second == config) continue;
      send(topic, payload_text(config), kAtLeastOnce, true, false);
      discovery_[topic] = config;
    }
  }

  // The zones' and lines' retained states that changed since they were last sent (all of them
  // after a connection); those of a zone or line no longer there are cleared (an empty retained
  // message). Nothing is sent while the scene stays the same.
  void publish_scene_states() {
    if (!connected_) return;
    std::map<std::string, std::pair<const SceneState*, std::uint64_t>> sent;
    for (const auto& [camera, scene] : scenes_) {
      if (scene) sent[camera] = {scene.get(), scene->version};
    }
    if (sent == scenes_sent_ && !scene_states_.empty()) return;
    std::map<std::string, std::string> wanted;
    for (const auto& [camera, scene] : scenes_) {
      if (scene) wanted.merge(scene_states(topics(), *scene));
    }
    clear_unwanted(scene_states_, wanted);
    for (const auto& [topic, payload] : wanted) {
      auto it = scene_states_.find(topic);
      if (it != scene_states_.end() && it->second == payload) continue;
      if (send(topic, payload, kAtLeastOnce, true, false)) scene_states_[topic] = payload;
    }
    scenes_sent_ = std::move(sent);
  }

  // --- time ---

  void on_clock(Clock::time_point now) {
    if (!warm_ && warm(now)) {
      warm_ = true;
      publish_states(true);
      for (const auto& segment : stale_) {
        if (!segment_present(segment)) {
          send(topics().occupancy(segment), kVacant, kAtLeastOnce, true, false);
        }
      }
      stale_.clear();
    }
    if (const std::vector<LabelChange> changes = tracker_.expire_if_stalled(now);
        !changes.empty()) {
      on_changes(changes, nullptr);
    }
    if (connected_ && stats_waiting_ && now >= stats_sent_ + stats_interval()) {
      send(topics().stats(),
           payload_text(stats_payload(latest_stats_, std::chrono::system_clock::now())),
           kAtMostOnce, false, true);
      stats_sent_ = now;
      stats_waiting_ = false;
    }
  }

  Clock::duration stats_interval() const {
    return std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(settings_.mqtt.stats_interval_s));
  }

  static long milliseconds_until(Clock::time_point deadline) {
    const auto left = deadline - Clock::now();
    if (left <= Clock::duration::zero()) return 0;
    return static_cast<long>(std::chrono::ceil<std::chrono::milliseconds>(left).count());
  }

  // Sleeps until something is queued, the socket is ready, or the next thing is due.
  void wait(Clock::time_point now) {
    std::optional<Clock::time_point> due;
    const auto consider = [&](Clock::time_point t) { due = due ? std::min(*due, t) : t; };
    if (settings_.mqtt.enabled && !conn_) consider(next_attempt_);
    if (conn_) consider(now + kServicePeriod);
    if (conn_ && !connected_) consider(attempt_started_ + options_.connect_timeout);
    if (connected_ && stats_waiting_) consider(stats_sent_ + stats_interval());
    if (const auto expiry = tracker_.next_stalled_expiry()) consider(*expiry);
    if (!warm_ && first_frame_at_) consider(*first_frame_at_ + tracker_.hold());

    pollfd fds[2] = {{owner_.wake_fd().fd(), POLLIN, 0}, {-1, 0, 0}};
    if (conn_ && conn_->socket() >= 0) {
      fds[1].fd = conn_->socket();
      fds[1].events = static_cast<short>(POLLIN | (conn_->wants_write() ? POLLOUT : 0));
    }
    poll(fds, 2, due ? static_cast<int>(milliseconds_until(*due)) : -1);
    if (fds[0].revents & POLLIN) owner_.wake_fd().clear();
  }

  void report() {
    MqttSnapshot s;
    s.enabled = settings_.mqtt.enabled;
    s.broker = broker_of(settings_.mqtt).address();
    s.tls = !settings_.mqtt.ca_file.empty();
    s.connected = connected_;
    s.published = published_;
    s.dropped = dropped_ + owner_.queue().dropped();
    s.problem = problem_;
    s.retry_at = next_attempt_;
    owner_.report(std::move(s));
  }

  MqttOutput& owner_;
  const MqttOptions& options_;
  const std::string host_;
  const std::string client_id_;

  MqttSettings settings_;

  // The connection (or the attempt under way), whether the broker accepted it, and the backoff.
  std::unique_ptr<MqttConnection> conn_;
  bool connected_ = false;
  Clock::time_point attempt_started_;
  Clock::time_point next_attempt_;
  std::chrono::milliseconds backoff_ = options_.retry_min;
  // Why it is not connected; empty while connected or before the first attempt ended.
  std::string problem_;
  // Whether the current outage was announced as an event (once, not on every retry).
  bool said_unreachable_ = false;
  // Home Assistant's status topic while subscribed to it.
  std::string following_;
  std::int64_t published_ = 0;
  std::int64_t dropped_ = 0;

  // What is seen: the debounce, every label seen since start, the watched ones by name.
  CameraLabels tracker_{Clock::duration::zero()};
  std::set<std::string> seen_;
  std::set<std::string> watched_;
  std::shared_ptr<const ModelInfo> model_;
  std::int64_t last_index_ = -1;
  std::optional<Clock::time_point> first_frame_at_;
  bool warm_ = false;
  // Occupancy segments the broker holds "ON" for, to set "OFF" once warm unless seen.
  std::set<std::string> stale_;

  // The discovery configs published, by topic.
  std::map<std::string, json> discovery_;

  // Each camera's scene as of its last frame (tracking on), their zones and lines, the retained
  // states sent for them (by topic), and each camera's scene and version they were sent for.
  std::map<std::string, std::shared_ptr<const SceneState>> scenes_;
  std::vector<ScenePlace> places_;
  std::map<std::string, std::string> scene_states_;
  std::map<std::string, std::pair<const SceneState*, std::uint64_t>> scenes_sent_;

  // The daemon's latest status, whether it is newer than the last stats sent, and when that was.
  json latest_stats_;
  bool stats_waiting_ = false;
  Clock::time_point stats_sent_;
};

// The thread's own waits are bounded (offline_wait); the stop limit only catches a host name
// lookup the resolver never returns from.
MqttOutput::MqttOutput(Events& events, MqttOptions options)
    : QueuedOutput("mqtt", options.queue_capacity, options.offline_wait + std::chrono::seconds(2)),
      events_(events),
      options_(std::move(options)) {}

MqttOutput::~MqttOutput() {
  stop_worker();
}

void MqttOutput::configure(const config::Config& config) {
  enabled_ = config.mqtt.enabled;
  std::vector<std::string> cameras;
  for (const config::CameraConfig& camera : config::camera_list(config)) {
    cameras.push_back(camera.name);
  }
  hand_over({config.mqtt, config.detect.classes, std::move(cameras)});
}

void MqttOutput::publish(std::shared_ptr<const FrameResult> result) {
  if (!enabled_ || !result) return;
  push(std::move(result));
}

void MqttOutput::stats(const DaemonStatus& status) {
  if (!enabled_) return;
  push(to_json(status));
}

nlohmann::json MqttOutput::status() const {
  const MqttSnapshot s = snapshot();
  if (!s.enabled) return {{"ok", true}, {"enabled", false}};
  nlohmann::json j = {
      {"ok", s.problem.empty()},  {"enabled", true},          {"broker", s.broker},  {"tls", s.tls},
      {"connected", s.connected}, {"published", s.published}, {"dropped", s.dropped}};
  if (!s.problem.empty()) {
    const auto left = std::chrono::ceil<std::chrono::seconds>(s.retry_at - Clock::now()).count();
    j["warning"] = "MQTT broker " + s.broker + " " + s.problem +
                   (left > 0 ? "; retrying in " + std::to_string(left) + " s" : "; retrying now");
  }
  return j;
}

void MqttOutput::metrics(MetricsSink& sink) const {
  const MqttSnapshot s = snapshot();
  if (s.enabled) {
    sink.set_gauge("yolo_edge_mqtt_connected", "1 while the MQTT broker is connected.", {},
                   s.connected ? 1 : 0);
  }
}

void MqttOutput::run() {
  Loop(*this).run();
}

}  // namespace yolo::daemon
