// SPDX-License-Identifier: Apache-2.0
// MqttOutput against a real broker (daemon/outputs/mqtt/mqtt_output.cpp): the test starts
// /usr/sbin/mosquitto on 127.0.0.1 with a free port and reads what arrives with a subscriber of
// its own (libmosquitto with its thread). Last, the real yolo-edged publishes on the fixture video
// and is killed, and the broker sends its last will.
#include "daemon/outputs/mqtt/mqtt_output.h"

#include <gtest/gtest.h>
#include <mosquitto.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "daemon/base/host_name.h"
#include "daemon/core/events.h"
#include "daemon/core/logger.h"
#include "daemon/outputs/mqtt/mqtt_messages.h"
#include "tests/daemon/daemon_process.h"
#include "tests/daemon/event_recorder.h"
#include "tests/daemon/frame_parts.h"
#include "tests/daemon/wait_status.h"
#include "tests/support/run_process.h"
#include "tests/support/temp_folder.h"

namespace yolo::daemon {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using nlohmann::json;
using test::TempFolder;
using test::wait_status;
using Clock = std::chrono::steady_clock;

// The longest publish() that did not wait on the broker: far below any such wait (the broker is
// paused or down for a second or more here, a connect times out in seconds) and far above a
// thread descheduled for a few milliseconds on a loaded CI machine (6 ms was seen).
constexpr auto kNeverWaited = 100ms;

constexpr const char* kMosquitto = "/usr/sbin/mosquitto";
constexpr const char* kMosquittoPasswd = "/usr/bin/mosquitto_passwd";
constexpr const char* kOpenssl = "/usr/bin/openssl";

// A TCP port on 127.0.0.1 nobody listens on (the kernel's pick, released for the broker).
int free_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof addr;
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), size) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &size) != 0) {
    close(fd);
    throw std::runtime_error("cannot find a free port");
  }
  close(fd);
  return ntohs(addr.sin_port);
}

bool accepts_connections(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
  close(fd);
  return ok;
}

// One mosquitto process on 127.0.0.1:port with a config file the test writes; killed at the end.
class Broker {
 public:
  Broker(const fs::path& folder, int port, std::string extra_config = "")
      : folder_(folder), port_(port), extra_(std::move(extra_config)) {}
  ~Broker() { kill(); }
  Broker(const Broker&) = delete;
  Broker& operator=(const Broker&) = delete;

  // Starts it and waits until it accepts connections.
  void start() {
    const fs::path config = folder_ / "mosquitto.conf";
    std::ofstream(config) << "listener " << port_ << " 127.0.0.1\n"
                          << (extra_.empty() ? "allow_anonymous true\n" : extra_);
    std::vector<std::string> argv = {kMosquitto, "-c", config.string()};
    auto c_argv = test::detail::c_strings(argv);
    test::detail::SpawnActions actions;
    const std::string log = (folder_ / "mosquitto.log").string();
    posix_spawn_file_actions_addopen(actions.get(), STDOUT_FILENO, log.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_addopen(actions.get(), STDERR_FILENO, log.c_str(),
                                     O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (posix_spawn(&pid_, kMosquitto, actions.get(), nullptr, c_argv.data(), environ) != 0) {
      throw std::runtime_error("cannot start mosquitto");
    }
    const auto deadline = Clock::now() + 5s;
    while (!accepts_connections(port_)) {
      if (Clock::now() > deadline) throw std::runtime_error("mosquitto did not start: " + output());
      std::this_thread::sleep_for(10ms);
    }
  }

  // SIGKILL: the broker vanishes without a word, as a crashed or unplugged one does.
  void kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  // SIGSTOP / SIGCONT: a broker that holds the connection open and answers nothing, as an
  // overloaded one does.
  void pause() { ::kill(pid_, SIGSTOP); }
  void resume() { ::kill(pid_, SIGCONT); }

  int port() const { return port_; }
  std::string output() const { return test::detail::slurp(folder_ / "mosquitto.log"); }

 private:
  fs::path folder_;
  int port_;
  std::string extra_;
  pid_t pid_ = -1;
};

struct Message {
  std::string topic;
  std::string payload;
  bool retained = false;
  Clock::time_point at;

  json payload_json() const { return json::parse(payload); }
};

// The test's own MQTT client: subscribes to everything (retained messages included) and keeps
// what arrives; publishes what the test says. libmosquitto with its own thread.
class Subscriber {
 public:
  explicit Subscriber(int port, std::string filter = "#") : filter_(std::move(filter)) {
    static const int initialised = mosquitto_lib_init();
    (void)initialised;
    handle_ = mosquitto_new(nullptr, true, this);
    mosquitto_connect_callback_set(handle_, [](mosquitto* m, void* self, int rc) {
      if (rc == 0) {
        mosquitto_subscribe(m, nullptr, static_cast<Subscriber*>(self)->filter_.c_str(), 1);
      }
    });
    mosquitto_subscribe_callback_set(handle_, [](mosquitto*, void* self, int, int, const int*) {
      auto* s = static_cast<Subscriber*>(self);
      std::lock_guard lock(s->mutex_);
      s->subscribed_ = true;
      s->changed_.notify_all();
    });
    mosquitto_message_callback_set(handle_, [](mosquitto*, void* self, const mosquitto_message* m) {
      auto* s = static_cast<Subscriber*>(self);
      std::string payload;
      if (m->payloadlen > 0) payload.assign(static_cast<const char*>(m->payload), m->payloadlen);
      std::lock_guard lock(s->mutex_);
      s->messages_.push_back({m->topic, std::move(payload), m->retain, Clock::now()});
      s->changed_.notify_all();
    });
    if (mosquitto_connect(handle_, "127.0.0.1", port, 30) != MOSQ_ERR_SUCCESS ||
        mosquitto_loop_start(handle_) != MOSQ_ERR_SUCCESS) {
      throw std::runtime_error("the test's subscriber cannot connect to port " +
                               std::to_string(port));
    }
    std::unique_lock lock(mutex_);
    if (!changed_.wait_for(lock, 5s, [&] { return subscribed_; })) {
      throw std::runtime_error("the test's subscriber did not get its subscription");
    }
  }
  ~Subscriber() {
    mosquitto_disconnect(handle_);
    mosquitto_loop_stop(handle_, false);
    mosquitto_destroy(handle_);
  }
  Subscriber(const Subscriber&) = delete;
  Subscriber& operator=(const Subscriber&) = delete;

  void publish(const std::string& topic, const std::string& payload, bool retain) {
    mosquitto_publish(handle_, nullptr, topic.c_str(), static_cast<int>(payload.size()),
                      payload.data(), 1, retain);
  }

  std::vector<Message> messages() const {
    std::lock_guard lock(mutex_);
    return messages_;
  }
  std::vector<Message> on(const std::string& topic) const {
    std::vector<Message> out;
    for (const auto& m : messages()) {
      if (m.topic == topic) out.push_back(m);
    }
    return out;
  }
  std::size_t count() const {
    std::lock_guard lock(mutex_);
    return messages_.size();
  }

  // The first message from number `from` on that matches, waiting up to `timeout`.
  std::optional<Message> wait_for(const std::function<bool(const Message&)>& match,
                                  std::chrono::milliseconds timeout, std::size_t from = 0) const {
    std::unique_lock lock(mutex_);
    std::optional<Message> found;
    changed_.wait_for(lock, timeout, [&] {
      for (std::size_t i = from; i < messages_.size(); ++i) {
        if (match(messages_[i])) {
          found = messages_[i];
          return true;
        }
      }
      return false;
    });
    return found;
  }
  std::optional<Message> wait_for(const std::string& topic, const std::string& payload,
                                  std::chrono::milliseconds timeout, std::size_t from = 0) const {
    return wait_for([&](const Message& m) { return m.topic == topic && m.payload == payload; },
                    timeout, from);
  }

 private:
  std::string filter_;
  mosquitto* handle_ = nullptr;
  mutable std::mutex mutex_;
  mutable std::condition_variable changed_;
  bool subscribed_ = false;
  std::vector<Message> messages_;
};

std::shared_ptr<const ModelInfo> test_model() {
  return test::model_info("yolo11n_320_fp32", {"person", "bird", "car", "dog"});
}

// The inference thread's part: a frame every 20 ms with the detections the test sets.
class Feeder {
 public:
  explicit Feeder(MqttOutput& publisher) : publisher_(publisher) {
    thread_ = std::thread([this] {
      const auto model = test_model();
      for (std::int64_t index = 0; !stop_; ++index) {
        auto frame = std::make_shared<FrameResult>();
        frame->index = index;
        frame->captured = Clock::now();
        frame->wall = std::chrono::system_clock::now();
        frame->model = model;
        {
          std::lock_guard lock(mutex_);
          frame->detections = detections_;
        }
        const auto before = Clock::now();
        publisher_.publish(std::move(frame));
        const auto took = Clock::now() - before;
        {
          std::lock_guard lock(mutex_);
          longest_publish_ = std::max(longest_publish_, took);
          ++frames_;
        }
        std::this_thread::sleep_for(20ms);
      }
    });
  }
  ~Feeder() {
    stop_ = true;
    thread_.join();
  }

  // What the next frames see: `count` boxes of each class id.
  void see(const std::vector<std::pair<int, int>>& classes) {
    vision::Detections d;
    for (const auto& [id, count] : classes) {
      for (int i = 0; i < count; ++i) {
        d.push_back({id, 0.8f, {10.0f * i, 20, 10.0f * i + 50, 120}});
      }
    }
    std::lock_guard lock(mutex_);
    detections_ = std::move(d);
  }
  std::chrono::nanoseconds longest_publish() const {
    std::lock_guard lock(mutex_);
    return longest_publish_;
  }
  std::int64_t frames() const {
    std::lock_guard lock(mutex_);
    return frames_;
  }

 private:
  MqttOutput& publisher_;
  mutable std::mutex mutex_;
  vision::Detections detections_;
  std::chrono::nanoseconds longest_publish_{0};
  std::int64_t frames_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

MqttOptions quick_options() {
  MqttOptions options;
  options.retry_min = 100ms;
  options.retry_max = 400ms;
  options.connect_timeout = 2s;
  options.offline_wait = 500ms;
  options.host = "test-host";
  return options;
}

config::Config mqtt_config(int port, const std::string& prefix) {
  config::Config c;
  c.mqtt.enabled = true;
  c.mqtt.host = "127.0.0.1";
  c.mqtt.port = port;
  c.mqtt.prefix = prefix;
  c.mqtt.debounce_s = 0.3;
  c.mqtt.stats_interval_s = 0.5;
  return c;
}

bool connected(const json& s) {
  return s.value("connected", false);
}

// A message on cam/events, and one that says no label is seen any more.
bool is_event(const Message& m) {
  return m.topic == "cam/events";
}
bool is_all_gone(const Message& m) {
  return is_event(m) && m.payload_json()["counts"].empty();
}

double seconds_between(const Message& a, const Message& b) {
  return std::chrono::duration<double>(b.at - a.at).count();
}

class MqttPublisherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kMosquitto)) GTEST_SKIP() << kMosquitto << " missing: run scripts/setup.sh";
    port_ = free_port();
    broker_ = std::make_unique<Broker>(folder_.path(), port_);
    events_.add(&event_log_);
  }

  // A publisher configured with `c` and started; it lives as long as the test.
  MqttOutput& start_publisher(const config::Config& c,
                              const MqttOptions& options = quick_options()) {
    publisher_.emplace(events_, options);
    publisher_->configure(c);
    publisher_->start();
    return *publisher_;
  }

  Logger log_{Logger::Sink::kStderr};
  Events events_{log_};
  // The events the daemon's other publishers receive.
  test::EventRecorder event_log_;
  TempFolder folder_;
  int port_ = 0;
  std::unique_ptr<Broker> broker_;
  std::optional<MqttOutput> publisher_;
};

TEST_F(MqttPublisherTest, OffUnlessEnabled) {
  config::Config c = mqtt_config(port_, "off");
  c.mqtt.enabled = false;
  MqttOutput& publisher = start_publisher(c);
  publisher.publish(std::make_shared<FrameResult>());
  EXPECT_EQ(publisher.status(), json::parse(R"({"ok": true, "enabled": false})"));
  EXPECT_TRUE(publisher.stop());
}

TEST_F(MqttPublisherTest, AvailabilityEventsWithDebounceStatsAndOfflineOnStop) {
  broker_->start();
  Subscriber sub(port_);
  MqttOutput& publisher = start_publisher(mqtt_config(port_, "cam"));
  ASSERT_TRUE(sub.wait_for("cam/available", "online", 3s)) << broker_->output();
  ASSERT_TRUE(wait_status(publisher, connected, 2s));

  Feeder feeder(publisher);
  // A person appears: an event at once, occupancy ON (retained).
  feeder.see({{0, 1}});
  const auto appeared = sub.wait_for(is_event, 2s);
  ASSERT_TRUE(appeared);
  json event = appeared->payload_json();
  EXPECT_EQ(event["changes"], json::parse(R"([{"label":"person","from":0,"to":1}])"));
  EXPECT_EQ(event["labels"], json::parse(R"(["person"])"));
  EXPECT_EQ(event["counts"], json::parse(R"({"person":1})"));
  ASSERT_EQ(event["detections"].size(), 1u);
  EXPECT_EQ(event["detections"][0]["label"], "person");
  EXPECT_NEAR(event["detections"][0]["score"].get<double>(), 0.8, 1e-6);
  EXPECT_EQ(event["detections"][0]["box"], json::parse("[0.0, 20.0, 50.0, 120.0]"));
  EXPECT_TRUE(event["time"].get<std::string>().ends_with("Z"));
  EXPECT_GE(event["frame"].get<std::int64_t>(), 0);
  EXPECT_TRUE(sub.wait_for("cam/occupancy/person", "ON", 1s));

  // Two people: the count rises at once.
  std::size_t mark = sub.count();
  feeder.see({{0, 2}});
  const auto two = sub.wait_for(is_event, 1s, mark);
  ASSERT_TRUE(two);
  EXPECT_EQ(two->payload_json()["changes"], json::parse(R"([{"label":"person","from":1,"to":2}])"));

  // The count flickers down for a frame, several times: no event.
  mark = sub.count();
  for (int i = 0; i < 5; ++i) {
    feeder.see({{0, 1}});
    std::this_thread::sleep_for(25ms);
    feeder.see({{0, 2}});
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_FALSE(sub.wait_for(is_event, 300ms, mark))
      << "a count that dips for a frame gave an event";

  // Gone: the event comes a debounce (0.3 s) after the last sighting, then occupancy OFF.
  mark = sub.count();
  feeder.see({});
  const auto seen_last = Clock::now();
  const auto gone = sub.wait_for(is_all_gone, 2s, mark);
  ASSERT_TRUE(gone);
  const double after = std::chrono::duration<double>(gone->at - seen_last).count();
  EXPECT_GE(after, 0.25);
  EXPECT_LT(after, 1.0);
  EXPECT_EQ(gone->payload_json()["changes"],
            json::parse(R"([{"label":"person","from":2,"to":0}])"));
  EXPECT_TRUE(sub.wait_for("cam/occupancy/person", "OFF", 1s, mark));

  // Stats every 0.5 s from the status handed in (here every 100 ms), the subset only.
  mark = sub.count();
  DaemonStatus daemon;
  daemon.host = "h";
  daemon.outputs = {{"x", json{{"ok", true}}}};
  for (int i = 0; i < 16; ++i) {
    daemon.inference.fps = 10 + i;
    publisher.stats(daemon);
    std::this_thread::sleep_for(100ms);
  }
  const std::vector<Message> stats = sub.on("cam/stats");
  ASSERT_GE(stats.size(), 3u);
  EXPECT_LE(stats.size(), 5u);
  for (std::size_t i = 1; i < stats.size(); ++i) {
    EXPECT_NEAR(seconds_between(stats[i - 1], stats[i]), 0.5, 0.2);
  }
  const json last = stats.back().payload_json();
  EXPECT_EQ(last["host"], "h");
  EXPECT_GT(last["fps"].get<int>(), 10);
  EXPECT_FALSE(last.contains("outputs"));
  EXPECT_TRUE(last.contains("time"));

  // Stop: "offline", retained, as the last word.
  mark = sub.count();
  EXPECT_TRUE(publisher.stop());
  EXPECT_TRUE(sub.wait_for("cam/available", "offline", 1s, mark));
  Subscriber late(port_, "cam/available");
  const auto retained = late.wait_for("cam/available", "offline", 1s);
  ASSERT_TRUE(retained);
  EXPECT_TRUE(retained->retained);
  const json status = publisher.status();
  EXPECT_EQ(status["ok"], true);
  EXPECT_GT(status["published"].get<int>(), 5);
  EXPECT_EQ(status["dropped"], 0);
}

TEST_F(MqttPublisherTest, HomeAssistantDiscoveryAndItsRepublishWhenHomeAssistantIsBack) {
  broker_->start();
  Subscriber sub(port_);
  config::Config c = mqtt_config(port_, "cam");
  c.mqtt.homeassistant = true;
  c.detect.classes = {0, 2};
  MqttOutput& publisher = start_publisher(c);
  ASSERT_TRUE(sub.wait_for("cam/available", "online", 3s));
  Feeder feeder(publisher);
  feeder.see({{0, 1}});

  const std::string node = "test-host_cam";
  const std::string config_topics[] = {
      "homeassistant/binary_sensor/" + node + "/person/config",
      "homeassistant/binary_sensor/" + node + "/car/config",
      "homeassistant/sensor/" + node + "/fps/config",
      "homeassistant/sensor/" + node + "/inference_latency/config",
      "homeassistant/sensor/" + node + "/temperature/config",
      "homeassistant/sensor/" + node + "/power/config",
      // The one camera's device.
      "homeassistant/sensor/" + node + "/main_camera_fps/config",
      "homeassistant/sensor/" + node + "/main_detection_fps/config",
      "homeassistant/sensor/" + node + "/main_skipped_fps/config",
      "homeassistant/sensor/" + node + "/main_source/config",
  };
  for (const auto& topic : config_topics) {
    const auto config =
        sub.wait_for([&](const Message& m) { return m.topic == topic && !m.payload.empty(); }, 2s);
    ASSERT_TRUE(config) << topic;
    const json j = config->payload_json();
    EXPECT_EQ(j["availability_topic"], "cam/available");
    EXPECT_EQ(j["device"]["identifiers"],
              json::array({topic.find("/main_") == std::string::npos ? node : node + "_main"}));
  }
  EXPECT_EQ(sub.on("homeassistant/binary_sensor/" + node + "/car/config")
                .back()
                .payload_json()["state_topic"],
            "cam/occupancy/car");
  // The person is ON at once; the car, watched and unseen, OFF once a debounce has passed.
  EXPECT_TRUE(sub.wait_for("cam/occupancy/person", "ON", 1s));
  EXPECT_TRUE(sub.wait_for("cam/occupancy/car", "OFF", 1s));
  // Only the watched labels: a dog (not in detect.classes here) gets no sensor.
  const auto configs_now = [&] {
    std::size_t n = 0;
    for (const auto& m : sub.messages()) n += m.topic.ends_with("/config") ? 1 : 0;
    return n;
  };
  EXPECT_EQ(configs_now(), std::size(config_topics));

  // Home Assistant restarts and says "online": every config again.
  std::size_t mark = sub.count();
  sub.publish("homeassistant/status", "online", false);
  for (const auto& topic : config_topics) {
    EXPECT_TRUE(sub.wait_for([&](const Message& m) { return m.topic == topic; }, 2s, mark))
        << topic << " not republished";
  }

  // Without detect.classes, a label gets its sensor when first seen; the car's goes.
  mark = sub.count();
  c.detect.classes.clear();
  publisher.configure(c);
  const std::string car = "homeassistant/binary_sensor/" + node + "/car/config";
  EXPECT_TRUE(sub.wait_for([&](const Message& m) { return m.topic == car && m.payload.empty(); },
                           2s, mark));
  feeder.see({{1, 1}});
  const std::string bird = "homeassistant/binary_sensor/" + node + "/bird/config";
  EXPECT_TRUE(sub.wait_for([&](const Message& m) { return m.topic == bird; }, 2s, mark));
  EXPECT_TRUE(sub.wait_for("cam/occupancy/bird", "ON", 1s, mark));

  // Discovery off: every config removed (an empty retained message), same connection.
  mark = sub.count();
  c.mqtt.homeassistant = false;
  publisher.configure(c);
  EXPECT_TRUE(sub.wait_for(
      [&](const Message& m) { return m.topic.ends_with("/fps/config") && m.payload.empty(); }, 2s,
      mark));
  EXPECT_FALSE(sub.wait_for("cam/available", "offline", 200ms, mark)) << "it reconnected";
  EXPECT_TRUE(publisher.stop());
}

// The camera `camera` with the line "road" (`cars_in` cars in) and, `with_door`, the zone "door"
// (one person inside, one entered).
std::shared_ptr<const SceneState> tracked_scene(bool with_door, std::int64_t cars_in,
                                                std::uint64_t version,
                                                const std::string& camera = "main") {
  auto scene = std::make_shared<SceneState>();
  scene->camera = camera;
  scene->version = version;
  test::add_line(*scene, "road", {{"car", {cars_in, 0}}});
  if (with_door) test::add_zone(*scene, "door", {{"person", {1, 0}}}, 1);
  return scene;
}

std::shared_ptr<const FrameResult> tracked_frame(std::int64_t index,
                                                 std::shared_ptr<const SceneState> scene,
                                                 std::vector<tracking::ObjectEvent> events = {}) {
  auto frame = std::make_shared<FrameResult>();
  frame->index = index;
  frame->captured = Clock::now();
  frame->wall = std::chrono::system_clock::now();
  frame->model = test_model();
  frame->camera = scene->camera;
  frame->scene = std::move(scene);
  frame->object_events = std::move(events);
  return frame;
}

tracking::ObjectEvent object_event(std::int64_t id, tracking::ObjectEventKind kind,
                                   const std::string& place) {
  tracking::ObjectEvent e;
  e.id = id;
  e.kind = kind;
  e.camera = "main";
  e.place = place;
  e.track_id = 4;
  e.label = kind == tracking::ObjectEventKind::kCross ? "car" : "person";
  e.wall = std::chrono::system_clock::now();
  return e;
}

TEST_F(MqttPublisherTest, TrackedObjectsGetEventsRetainedStatesAndSensorsPerCamera) {
  broker_->start();
  Subscriber sub(port_);
  config::Config c = mqtt_config(port_, "cam");
  c.mqtt.homeassistant = true;
  MqttOutput& publisher = start_publisher(c);
  ASSERT_TRUE(sub.wait_for("cam/available", "online", 3s));
  ASSERT_TRUE(wait_status(publisher, connected, 2s));

  using K = tracking::ObjectEventKind;
  const auto first = tracked_scene(true, 2, 1);
  const std::vector<tracking::ObjectEvent> events = {object_event(11, K::kEnter, "door"),
                                                     object_event(12, K::kCross, "road")};
  publisher.publish(tracked_frame(0, first, events));
  // One message per event, its JSON, on PREFIX/CAMERA/events/KIND.
  const auto enter =
      sub.wait_for([](const Message& m) { return m.topic == "cam/main/events/enter"; }, 2s);
  ASSERT_TRUE(enter);
  EXPECT_EQ(enter->payload_json(), tracking::to_json(events[0]));
  EXPECT_FALSE(enter->retained);
  const auto cross =
      sub.wait_for([](const Message& m) { return m.topic == "cam/main/events/cross"; }, 2s);
  ASSERT_TRUE(cross);
  EXPECT_EQ(cross->payload_json()["line"], "road");
  // Retained states of the zone and the line.
  EXPECT_TRUE(sub.wait_for("cam/main/zones/door/occupancy", "1", 2s));
  EXPECT_TRUE(sub.wait_for("cam/main/zones/door/entries/person", "1", 2s));
  EXPECT_TRUE(sub.wait_for("cam/main/lines/road/in", "2", 2s));
  EXPECT_TRUE(sub.wait_for("cam/main/lines/road/out", "0", 2s));
  // Home Assistant sensors, unique by camera and place.
  const std::string node = "test-host_cam";
  const std::string door_config =
      "homeassistant/sensor/" + node + "/main_zone_door_occupancy/config";
  for (const std::string id :
       {"main_zone_door_occupancy", "main_line_road_in", "main_line_road_out"}) {
    const std::string topic = "homeassistant/sensor/" + node + "/" + id + "/config";
    const auto config =
        sub.wait_for([&](const Message& m) { return m.topic == topic && !m.payload.empty(); }, 2s);
    ASSERT_TRUE(config) << topic;
    EXPECT_EQ(config->payload_json()["unique_id"], node + "_" + id);
  }

  // The same scene on the next frames: no state sent again.
  const auto state_messages = [&] {
    std::size_t n = 0;
    for (const auto& m : sub.messages()) {
      n += m.topic.starts_with("cam/main/zones/") || m.topic.starts_with("cam/main/lines/");
    }
    return n;
  };
  ASSERT_TRUE(sub.wait_for("cam/main/lines/road/in/car", "2", 2s));
  const std::size_t states_before = state_messages();
  for (int i = 1; i <= 5; ++i) publisher.publish(tracked_frame(i, first));
  // A later change shows the frames above were taken (the queue is in order).
  std::size_t mark = sub.count();
  const auto second = tracked_scene(true, 3, 2);
  publisher.publish(tracked_frame(6, second));
  ASSERT_TRUE(sub.wait_for("cam/main/lines/road/in", "3", 2s, mark));
  // Only what changed: the line's total and its car count.
  ASSERT_TRUE(sub.wait_for("cam/main/lines/road/in/car", "3", 2s, mark));
  EXPECT_EQ(state_messages(), states_before + 2);
  // Retained: a subscriber that comes later gets them at once.
  {
    Subscriber late(port_, "cam/main/#");
    const auto held = late.wait_for("cam/main/lines/road/in", "3", 2s);
    ASSERT_TRUE(held);
    EXPECT_TRUE(held->retained);
    EXPECT_TRUE(late.wait_for("cam/main/zones/door/occupancy", "1", 2s));
  }

  // A reload without the zone: its sensor and its states are removed (empty retained).
  mark = sub.count();
  publisher.publish(tracked_frame(7, tracked_scene(false, 3, 3)));
  EXPECT_TRUE(sub.wait_for(door_config, "", 2s, mark));
  EXPECT_TRUE(sub.wait_for("cam/main/zones/door/occupancy", "", 2s, mark));
  EXPECT_TRUE(sub.wait_for("cam/main/zones/door/entries/person", "", 2s, mark));
  EXPECT_TRUE(publisher.stop());
}

TEST_F(MqttPublisherTest, EachCameraIsADeviceAndAReloadRemovesOrAddsOne) {
  broker_->start();
  Subscriber sub(port_);
  config::Config c = mqtt_config(port_, "cam");
  c.mqtt.homeassistant = true;
  c.cameras = {{"door", {}, 0}, {"yard", {}, 0}};
  MqttOutput& publisher = start_publisher(c);
  ASSERT_TRUE(sub.wait_for("cam/available", "online", 3s));
  ASSERT_TRUE(wait_status(publisher, connected, 2s));
  publisher.publish(tracked_frame(0, tracked_scene(true, 2, 1, "door")));
  publisher.publish(tracked_frame(0, tracked_scene(false, 5, 1, "yard")));

  const std::string node = "test-host_cam";
  const auto config_of = [&](const std::string& id, std::size_t from = 0) {
    const std::string topic = "homeassistant/sensor/" + node + "/" + id + "/config";
    return sub.wait_for([&](const Message& m) { return m.topic == topic && !m.payload.empty(); },
                        2s, from);
  };
  for (const std::string camera : {"door", "yard"}) {
    for (const std::string id : {"_camera_fps", "_detection_fps", "_skipped_fps", "_source",
                                 "_line_road_in", "_line_road_out"}) {
      const auto config = config_of(camera + id);
      ASSERT_TRUE(config) << camera + id;
      const json device = config->payload_json()["device"];
      EXPECT_EQ(device["identifiers"], json::array({node + "_" + camera})) << camera + id;
      EXPECT_EQ(device["via_device"], node);
    }
  }
  ASSERT_TRUE(config_of("door_zone_door_occupancy"));
  EXPECT_EQ(config_of("fps")->payload_json()["device"]["identifiers"], json::array({node}));
  ASSERT_TRUE(sub.wait_for("cam/yard/lines/road/in", "5", 2s));
  // The yard's last state (they go out in topic order).
  ASSERT_TRUE(sub.wait_for("cam/yard/lines/road/out/car", "0", 2s));

  // The yard removed: its configs and its places' states are emptied (retained), the door's not.
  std::size_t mark = sub.count();
  c.cameras = {{"door", {}, 0}};
  publisher.configure(c);
  for (const std::string id : {"yard_camera_fps", "yard_detection_fps", "yard_skipped_fps",
                               "yard_source", "yard_line_road_in", "yard_line_road_out"}) {
    EXPECT_TRUE(sub.wait_for("homeassistant/sensor/" + node + "/" + id + "/config", "", 2s, mark))
        << id << " not removed";
  }
  EXPECT_TRUE(sub.wait_for("cam/yard/lines/road/in", "", 2s, mark));
  EXPECT_TRUE(sub.wait_for("cam/yard/lines/road/in/car", "", 2s, mark));
  // A frame of the yard still queued at the reload brings nothing back; the door goes on.
  publisher.publish(tracked_frame(1, tracked_scene(false, 6, 2, "yard")));
  publisher.publish(tracked_frame(1, tracked_scene(true, 3, 2, "door")));
  ASSERT_TRUE(sub.wait_for("cam/door/lines/road/in", "3", 2s, mark));
  const std::vector<Message> since = sub.messages();
  for (std::size_t i = mark; i < since.size(); ++i) {
    if (since[i].topic.find("yard") == std::string::npos) continue;
    EXPECT_TRUE(since[i].payload.empty()) << since[i].topic << ": " << since[i].payload;
  }
  {
    Subscriber late(port_, "homeassistant/#");
    ASSERT_TRUE(late.wait_for(
        [&](const Message& m) { return m.topic.ends_with("/door_source/config"); }, 2s));
    for (const auto& m : late.messages()) {
      EXPECT_EQ(m.topic.find("/yard_"), std::string::npos) << m.topic << " still retained";
    }
  }

  // A camera added gets its device.
  mark = sub.count();
  c.cameras = {{"door", {}, 0}, {"gate", {}, 0}};
  publisher.configure(c);
  const auto gate = config_of("gate_source", mark);
  ASSERT_TRUE(gate);
  EXPECT_EQ(gate->payload_json()["device"]["name"], "test-host gate");
  EXPECT_TRUE(publisher.stop());
}

TEST_F(MqttPublisherTest, ALabelLeftOnByAKilledRunIsSetOffOnceNotSeen) {
  broker_->start();
  Subscriber sub(port_);
  sub.publish("cam/occupancy/dog", "ON", true);
  sub.publish("cam/occupancy/person", "ON", true);
  ASSERT_TRUE(sub.wait_for("cam/occupancy/dog", "ON", 1s));
  MqttOutput& publisher = start_publisher(mqtt_config(port_, "cam"));
  Feeder feeder(publisher);
  feeder.see({{0, 1}});
  const std::size_t mark = sub.count();
  EXPECT_TRUE(sub.wait_for("cam/occupancy/dog", "OFF", 2s, mark));
  EXPECT_FALSE(sub.wait_for("cam/occupancy/person", "OFF", 500ms, mark));
  EXPECT_TRUE(publisher.stop());
}

TEST_F(MqttPublisherTest, ReconfigureReconnectsOnlyWhenTheBrokerSettingsChange) {
  broker_->start();
  Subscriber sub(port_);
  config::Config c = mqtt_config(port_, "cam");
  MqttOutput& publisher = start_publisher(c);
  ASSERT_TRUE(sub.wait_for("cam/available", "online", 3s));

  // The same settings, and a new debounce: the connection stays.
  std::size_t mark = sub.count();
  publisher.configure(c);
  c.mqtt.debounce_s = 1;
  publisher.configure(c);
  EXPECT_FALSE(sub.wait_for("cam/available", "offline", 300ms, mark));

  // A new prefix: offline on the old one, online on the new.
  c.mqtt.prefix = "cam2";
  publisher.configure(c);
  EXPECT_TRUE(sub.wait_for("cam/available", "offline", 2s, mark));
  EXPECT_TRUE(sub.wait_for("cam2/available", "online", 2s, mark));

  // Disabled: offline, then nothing.
  mark = sub.count();
  c.mqtt.enabled = false;
  publisher.configure(c);
  EXPECT_TRUE(sub.wait_for("cam2/available", "offline", 2s, mark));
  EXPECT_TRUE(wait_status(
      publisher, [](const json& s) { return !s["enabled"]; }, 1s));
  publisher.stats(DaemonStatus{});
  EXPECT_FALSE(sub.wait_for([](const Message& m) { return m.topic == "cam2/stats"; }, 300ms, mark));
  EXPECT_TRUE(publisher.stop());
}

TEST_F(MqttPublisherTest, BrokerDownAtStartIsRetriedAndNeverBlocksPublish) {
  MqttOutput& publisher = start_publisher(mqtt_config(port_, "cam"));
  auto feeder = std::make_unique<Feeder>(publisher);
  feeder->see({{0, 1}});
  const auto down = wait_status(
      publisher, [](const json& s) { return s.contains("warning"); }, 2s);
  ASSERT_TRUE(down);
  EXPECT_EQ((*down)["ok"], false);
  EXPECT_EQ((*down)["connected"], false);
  const std::string warning = (*down)["warning"];
  EXPECT_TRUE(warning.starts_with("MQTT broker 127.0.0.1:" + std::to_string(port_) +
                                  " unreachable: connection refused; retrying"))
      << warning;
  std::this_thread::sleep_for(500ms);
  // The events of the person seen while no broker listened are counted as dropped.
  EXPECT_GE(publisher.status()["dropped"].get<int>(), 1);

  broker_->start();
  Subscriber sub(port_);
  ASSERT_TRUE(sub.wait_for("cam/available", "online", 2s)) << publisher.status().dump();
  EXPECT_TRUE(sub.wait_for("cam/occupancy/person", "ON", 1s));
  const auto up = wait_status(publisher, connected, 1s);
  ASSERT_TRUE(up);
  EXPECT_EQ((*up)["ok"], true);
  EXPECT_FALSE(up->contains("warning"));
  // One event for the outage, however many retries, and one when it connected.
  EXPECT_EQ(event_log_.names(), (std::vector<std::string>{"mqtt_unreachable", "mqtt_connected"}));
  EXPECT_GT(feeder->frames(), 30);
  EXPECT_LT(feeder->longest_publish(), kNeverWaited) << "publish() waited";
  feeder.reset();
  EXPECT_TRUE(publisher.stop());
}

TEST_F(MqttPublisherTest, ABrokerKilledWhileRunningShowsInTheStatusAndIsReconnected) {
  broker_->start();
  MqttOutput& publisher = start_publisher(mqtt_config(port_, "cam"));
  ASSERT_TRUE(wait_status(publisher, connected, 3s));
  auto feeder = std::make_unique<Feeder>(publisher);

  broker_->kill();
  const auto lost = wait_status(
      publisher, [](const json& s) { return !s["ok"] && !s["connected"]; }, 2s);
  ASSERT_TRUE(lost) << publisher.status().dump();
  EXPECT_NE((*lost)["warning"].get<std::string>().find("unreachable"), std::string::npos)
      << (*lost)["warning"];
  // Still publishing into the void without waiting.
  feeder->see({{1, 3}});
  std::this_thread::sleep_for(500ms);

  broker_->start();
  Subscriber sub(port_);
  EXPECT_TRUE(sub.wait_for("cam/available", "online", 2s));
  EXPECT_TRUE(wait_status(publisher, connected, 1s));
  EXPECT_EQ(event_log_.names(),
            (std::vector<std::string>{"mqtt_connected", "mqtt_unreachable", "mqtt_connected"}));
  EXPECT_LT(feeder->longest_publish(), kNeverWaited) << "publish() waited";
  feeder.reset();
  EXPECT_TRUE(publisher.stop());
}

TEST_F(MqttPublisherTest, ASlowBrokerCostsEventsNeverInferenceTime) {
  broker_->start();
  Subscriber sub(port_);
  MqttOptions options = quick_options();
  options.max_in_flight = 10;
  config::Config c = mqtt_config(port_, "cam");
  c.mqtt.debounce_s = 0;
  MqttOutput& publisher = start_publisher(c, options);
  ASSERT_TRUE(wait_status(publisher, connected, 3s));
  auto feeder = std::make_unique<Feeder>(publisher);

  // The broker stops answering: a change of count every 40 ms gives more events than may be in
  // flight; the rest are dropped, and publish() still never waits.
  broker_->pause();
  for (int i = 0; i < 25; ++i) {
    feeder->see({{0, 1 + i % 2}});
    std::this_thread::sleep_for(40ms);
  }
  const json held = publisher.status();
  EXPECT_GE(held["dropped"].get<int>(), 5) << held.dump();
  EXPECT_LT(feeder->longest_publish(), kNeverWaited) << "publish() waited";

  // Once it answers again, what was in flight arrives and new events follow.
  const std::size_t mark = sub.count();
  broker_->resume();
  EXPECT_TRUE(sub.wait_for(is_event, 2s, mark));
  EXPECT_TRUE(wait_status(
      publisher, [](const json& s) { return s["ok"] && s["connected"]; }, 1s));
  feeder.reset();
  EXPECT_TRUE(publisher.stop());
}

TEST_F(MqttPublisherTest, LabelsExpireOnTheClockWhenFramesStop) {
  broker_->start();
  Subscriber sub(port_);
  MqttOutput& publisher = start_publisher(mqtt_config(port_, "cam"));
  auto feeder = std::make_unique<Feeder>(publisher);
  feeder->see({{3, 1}});
  ASSERT_TRUE(sub.wait_for("cam/occupancy/dog", "ON", 3s));
  const std::size_t mark = sub.count();
  feeder.reset();
  const auto stopped = Clock::now();
  // No frame says the dog left: it goes once the source counts as stalled (2 s).
  const auto gone = sub.wait_for(is_all_gone, 4s, mark);
  ASSERT_TRUE(gone);
  EXPECT_GE(gone->at - stopped, 1900ms);
  const json event = gone->payload_json();
  EXPECT_EQ(event["changes"], json::parse(R"([{"label":"dog","from":1,"to":0}])"));
  EXPECT_EQ(event["detections"], json::array());
  EXPECT_GT(event["frame"].get<std::int64_t>(), 0) << "the last frame's index";
  EXPECT_TRUE(sub.wait_for("cam/occupancy/dog", "OFF", 1s, mark));
  EXPECT_TRUE(publisher.stop());
}

TEST_F(MqttPublisherTest, UserNameAndPassword) {
  if (!fs::exists(kMosquittoPasswd)) {
    GTEST_SKIP() << kMosquittoPasswd << " missing (Debian package mosquitto): cannot make a "
                 << "password file";
  }
  const fs::path passwords = folder_.path() / "passwords";
  const test::ProcessResult made =
      test::run_process({kMosquittoPasswd, "-b", "-c", passwords.string(), "edge", "s3cret"});
  ASSERT_EQ(made.status, 0) << made.err;
  fs::permissions(folder_.path(), fs::perms::all, fs::perm_options::add);
  fs::permissions(passwords, fs::perms::owner_read | fs::perms::owner_write |
                                 fs::perms::group_read | fs::perms::others_read);
  broker_ = std::make_unique<Broker>(
      folder_.path(), port_, "allow_anonymous false\npassword_file " + passwords.string() + "\n");
  broker_->start();

  config::Config c = mqtt_config(port_, "cam");
  c.mqtt.username = "edge";
  c.mqtt.password = "wrong";
  MqttOutput& publisher = start_publisher(c);
  const auto refused = wait_status(
      publisher, [](const json& s) { return s.contains("warning"); }, 2s);
  ASSERT_TRUE(refused);
  const std::string warning = (*refused)["warning"];
  EXPECT_NE(warning.find("refused the connection: not authorised; check mqtt.username and "
                         "mqtt.password; retrying"),
            std::string::npos)
      << warning;

  c.mqtt.password = "s3cret";
  publisher.configure(c);
  EXPECT_TRUE(wait_status(publisher, connected, 2s)) << publisher.status().dump();
  EXPECT_TRUE(publisher.stop());
}

TEST_F(MqttPublisherTest, AnUnreadableCaFileIsSaidInTheStatus) {
  config::Config c = mqtt_config(port_, "cam");
  c.mqtt.ca_file = folder_.path() / "no-such-ca.pem";
  MqttOutput& publisher = start_publisher(c);
  const auto status = wait_status(
      publisher, [](const json& s) { return s.contains("warning"); }, 2s);
  ASSERT_TRUE(status);
  EXPECT_EQ((*status)["tls"], true);
  EXPECT_NE((*status)["warning"].get<std::string>().find("not tried: cannot read mqtt.ca_file " +
                                                         c.mqtt.ca_file.string() +
                                                         " (No such file or directory)"),
            std::string::npos)
      << (*status)["warning"];
  EXPECT_TRUE(publisher.stop());
}

// Makes a CA (`name`.pem) and, with `server`, a certificate for 127.0.0.1 signed by it
// (server.pem, server.key) in `folder`; false (with the reason in `error`) when openssl fails.
bool make_certificates(const fs::path& folder, const std::string& name, bool server,
                       std::string* error) {
  const std::string dir = folder.string() + "/";
  std::vector<std::vector<std::string>> steps = {
      {kOpenssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
       "-nodes", "-keyout", dir + name + ".key", "-out", dir + name + ".pem", "-days", "2", "-subj",
       "/CN=yolo-edge test " + name}};
  if (server) {
    std::ofstream(folder / "san.ext") << "subjectAltName=IP:127.0.0.1\n";
    steps.push_back({kOpenssl, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
                     "-nodes", "-keyout", dir + "server.key", "-out", dir + "server.csr", "-subj",
                     "/CN=127.0.0.1"});
    steps.push_back({kOpenssl, "x509", "-req", "-in", dir + "server.csr", "-CA",
                     dir + name + ".pem", "-CAkey", dir + name + ".key", "-CAcreateserial", "-out",
                     dir + "server.pem", "-days", "2", "-extfile", dir + "san.ext"});
  }
  for (const auto& step : steps) {
    const test::ProcessResult r = test::run_process(step);
    if (r.status != 0) {
      *error = r.err;
      return false;
    }
  }
  return true;
}

TEST_F(MqttPublisherTest, TlsWithTheBrokersCaAndNotWithAnother) {
  if (!fs::exists(kOpenssl)) GTEST_SKIP() << kOpenssl << " missing: cannot make certificates";
  const fs::path dir = folder_.path();
  std::string error;
  ASSERT_TRUE(make_certificates(dir, "ca", true, &error)) << error;
  ASSERT_TRUE(make_certificates(dir, "other-ca", false, &error)) << error;
  // Run as root, mosquitto reads its key after dropping to its own user.
  fs::permissions(dir / "server.key", fs::perms::owner_read | fs::perms::others_read);
  broker_ = std::make_unique<Broker>(dir, port_,
                                     "allow_anonymous true\ncafile " + (dir / "ca.pem").string() +
                                         "\ncertfile " + (dir / "server.pem").string() +
                                         "\nkeyfile " + (dir / "server.key").string() + "\n");
  broker_->start();

  config::Config c = mqtt_config(port_, "cam");
  c.mqtt.ca_file = dir / "ca.pem";
  MqttOutput& publisher = start_publisher(c);
  const auto up = wait_status(publisher, connected, 3s);
  ASSERT_TRUE(up) << publisher.status().dump() << broker_->output();
  EXPECT_EQ((*up)["tls"], true);

  c.mqtt.ca_file = dir / "other-ca.pem";
  publisher.configure(c);
  const auto refused = wait_status(
      publisher, [](const json& s) { return s.contains("warning"); }, 3s);
  ASSERT_TRUE(refused) << publisher.status().dump();
  EXPECT_NE((*refused)["warning"].get<std::string>().find("127.0.0.1:" + std::to_string(port_) +
                                                          " failed the TLS check: its certificate"),
            std::string::npos)
      << (*refused)["warning"];
  EXPECT_TRUE(publisher.stop());
}

// yolo-edged on the fixture video with MQTT on: online, events and stats arrive; killed, the
// broker says "offline" for it (the last will, retained).
TEST_F(MqttPublisherTest, TheDaemonPublishesAndItsLastWillSaysOfflineWhenKilled) {
  YOLO_REQUIRE_FIXTURES();
  broker_->start();
  Subscriber sub(port_);
  test::DaemonSetup s;
  s.write_config(test::config_text(test::paced_video(), s.logs, "yolo11n_320_fp32") +
                 "mqtt:\n  enabled: true\n  host: 127.0.0.1\n  port: " + std::to_string(port_) +
                 "\n  prefix: edge\n  stats_interval_s: 1\n  debounce_s: 1\n  homeassistant: "
                 "true\n");
  auto daemon = s.start();
  ASSERT_TRUE(sub.wait_for("edge/available", "online", 60s)) << s.daemon_output();
  const auto event = sub.wait_for([](const Message& m) { return m.topic == "edge/events"; }, 30s);
  ASSERT_TRUE(event) << s.daemon_output();
  const json e = event->payload_json();
  EXPECT_FALSE(e["changes"].empty());
  EXPECT_GE(e["frame"].get<std::int64_t>(), 0);
  const auto stats = sub.wait_for(
      [](const Message& m) {
        return m.topic == "edge/stats" && m.payload_json().value("fps", 0.0) > 0;
      },
      10s);
  ASSERT_TRUE(stats) << s.daemon_output();
  const json st = stats->payload_json();
  EXPECT_EQ(st["model"]["name"], "yolo11n_320_fp32");
  EXPECT_EQ(st["host"], host_name());
  const std::string node = topic_segment(host_name() + "_edge");
  EXPECT_TRUE(sub.wait_for(
      [&](const Message& m) { return m.topic == "homeassistant/sensor/" + node + "/fps/config"; },
      5s));

  const std::size_t mark = sub.count();
  daemon->signal(SIGKILL);
  daemon->wait_exit(5s);
  const auto will = sub.wait_for("edge/available", "offline", 5s, mark);
  ASSERT_TRUE(will) << "no last will after SIGKILL";
  Subscriber late(port_, "edge/available");
  const auto retained = late.wait_for("edge/available", "offline", 1s);
  ASSERT_TRUE(retained);
  EXPECT_TRUE(retained->retained);
}

// yolo-edged with two cameras (two clips): each is a Home Assistant device under the daemon's,
// with its figures in the stats; a reload that removes one removes its device's configs and its
// zone's retained states.
TEST_F(MqttPublisherTest, TheDaemonOfTwoCamerasAnnouncesADeviceForEach) {
  YOLO_REQUIRE_FIXTURES();
  broker_->start();
  Subscriber sub(port_);
  test::DaemonSetup s;
  const auto camera = [](const std::string& name, const std::string& clip) {
    return "  - {name: " + name + ", uri: \"" + test::fixture("video/" + clip) +
           "\", loop: true, realtime: true, reconnect_s: 0.5, detect_fps: 2}\n";
  };
  const auto config = [&](bool with_birds) {
    std::string text = test::config_text(test::paced_video(), s.logs, "yolo11n_320_fp32");
    // Cameras instead of the source section.
    text.erase(0, text.find("model:\n"));
    return "cameras:\n" + camera("road", "traffic_720p_30fps.mp4") +
           (with_birds ? camera("birds", "birds_720p_10fps.mp4") : "") + text +
           "tracking:\n  enabled: true\n" +
           (with_birds ? "zones:\n  - {name: perch, camera: birds, points: [[0, 0], [1, 0], [1, "
                         "1], [0, 1]]}\n"
                       : "") +
           "mqtt:\n  enabled: true\n  host: 127.0.0.1\n  port: " + std::to_string(port_) +
           "\n  prefix: edge\n  stats_interval_s: 1\n  homeassistant: true\n";
  };
  s.write_config(config(true));
  auto daemon = s.start();
  ASSERT_TRUE(sub.wait_for("edge/available", "online", 60s)) << s.daemon_output();

  const std::string node = topic_segment(host_name() + "_edge");
  const auto config_topic = [&](const std::string& id) {
    return "homeassistant/sensor/" + node + "/" + id + "/config";
  };
  for (const std::string id : {"road_source", "road_detection_fps", "birds_source",
                               "birds_detection_fps", "birds_zone_perch_occupancy"}) {
    const auto announced = sub.wait_for(
        [&](const Message& m) { return m.topic == config_topic(id) && !m.payload.empty(); }, 30s);
    ASSERT_TRUE(announced) << id << "\n" << s.daemon_output();
    const json device = announced->payload_json()["device"];
    EXPECT_EQ(device["identifiers"],
              json::array({node + (id.starts_with("road") ? "_road" : "_birds")}));
    EXPECT_EQ(device["via_device"], node);
  }
  // Both cameras in the stats, streaming and detected.
  const auto both = sub.wait_for(
      [](const Message& m) {
        if (m.topic != "edge/stats") return false;
        const json cameras = m.payload_json().value("cameras", json::array());
        if (cameras.size() != 2) return false;
        for (const json& c : cameras) {
          if (c["source"]["state"] != "streaming" || c["detection_fps"].get<double>() <= 0) {
            return false;
          }
        }
        return true;
      },
      60s);
  ASSERT_TRUE(both) << s.daemon_output();
  EXPECT_EQ(both->payload_json()["cameras"][0]["name"], "road");
  EXPECT_EQ(both->payload_json()["cameras"][1]["name"], "birds");
  ASSERT_TRUE(sub.wait_for(
      [](const Message& m) {
        return m.topic == "edge/birds/zones/perch/occupancy" && !m.payload.empty();
      },
      30s))
      << s.daemon_output();

  // The birds removed by a reload: their configs and their zone's states emptied, the road kept.
  const std::size_t mark = sub.count();
  s.write_config(config(false));
  daemon->signal(SIGHUP);
  for (const std::string id : {"birds_source", "birds_camera_fps", "birds_detection_fps",
                               "birds_skipped_fps", "birds_zone_perch_occupancy"}) {
    EXPECT_TRUE(sub.wait_for(config_topic(id), "", 30s, mark)) << id << "\n" << s.daemon_output();
  }
  EXPECT_TRUE(sub.wait_for("edge/birds/zones/perch/occupancy", "", 5s, mark));
  EXPECT_FALSE(sub.wait_for(config_topic("road_source"), "", 0s, mark)) << "the road's removed";
  const auto one = sub.wait_for(
      [&](const Message& m) {
        return m.topic == "edge/stats" && m.payload_json()["cameras"].size() == 1;
      },
      10s, mark);
  ASSERT_TRUE(one) << s.daemon_output();
  EXPECT_EQ(one->payload_json()["cameras"][0]["name"], "road");

  daemon->signal(SIGTERM);
  const auto exit = daemon->wait_exit(10s);
  ASSERT_TRUE(exit);
  EXPECT_EQ(*exit, 0) << s.daemon_output();
}

}  // namespace
}  // namespace yolo::daemon
