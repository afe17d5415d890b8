// SPDX-License-Identifier: Apache-2.0
// WebhookOutput against a real receiver (daemon/outputs/webhook/webhook_output.cpp): an
// httplib::Server on 127.0.0.1 with a port the kernel picks, answering as each test scripts it
// (200, 500, never). Last, the real yolo-edged on the fixture video posts to it.
#include "daemon/outputs/webhook/webhook_output.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "config/http_url.h"
#include "config/schema.h"
#include "daemon/base/host_name.h"
#include "daemon/core/logger.h"
#include "tests/daemon/daemon_process.h"
#include "tests/daemon/frame_parts.h"
#include "tests/daemon/wait_status.h"

namespace yolo::daemon {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;
using test::wait_status;
using Clock = std::chrono::steady_clock;

// The longest publish() that did not wait on the receiver: far below the receiver's seconds of
// silence here, far above a thread descheduled on a loaded machine.
constexpr auto kNeverWaited = 100ms;

// One request the receiver got.
struct Request {
  Clock::time_point at;
  std::string target;
  std::string content_type;
  json body;
};

// An HTTP receiver on 127.0.0.1: answers each request with the next scripted status (200 once
// the script is used up), or holds it until release() when hanging.
class Receiver {
 public:
  Receiver() {
    server_.Post(".*", [this](const httplib::Request& req, httplib::Response& res) {
      int status = 200;
      {
        std::unique_lock lock(mutex_);
        requests_.push_back({Clock::now(), req.target, req.get_header_value("Content-Type"),
                             json::parse(req.body, nullptr, false)});
        changed_.notify_all();
        changed_.wait(lock, [&] { return !hanging_; });
        if (!script_.empty()) {
          status = script_.front();
          script_.pop_front();
        }
      }
      res.status = status;
      res.set_content("{}", "application/json");
    });
    // Listening once bound: a request before the thread accepts waits in the backlog.
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~Receiver() {
    release();
    server_.stop();
    thread_.join();
  }

  std::string url(const std::string& path = "/hook") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }
  void answer(std::vector<int> statuses) {
    std::lock_guard lock(mutex_);
    script_.assign(statuses.begin(), statuses.end());
  }
  void hang() {
    std::lock_guard lock(mutex_);
    hanging_ = true;
  }
  void release() {
    {
      std::lock_guard lock(mutex_);
      hanging_ = false;
    }
    changed_.notify_all();
  }
  // Waits until at least `count` requests came; all of them.
  std::vector<Request> wait_for(std::size_t count, std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, timeout, [&] { return requests_.size() >= count; });
    return {requests_.begin(), requests_.end()};
  }
  std::size_t count() const {
    std::lock_guard lock(mutex_);
    return requests_.size();
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Request> requests_;
  std::deque<int> script_;
  bool hanging_ = false;
};

// A TCP port on 127.0.0.1 nobody listens on (the kernel's pick, released at once).
int dead_port() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t length = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &length);
  close(fd);
  return ntohs(addr.sin_port);
}

WebhookOptions quick_options() {
  WebhookOptions options;
  options.host = "test-host";
  options.backoff_max = 2s;
  return options;
}

config::Config webhook_config(const std::string& url) {
  config::Config c;
  c.webhook.url = url;
  c.webhook.timeout_s = 2;
  c.webhook.retries = 2;
  c.webhook.backoff_s = 0.1;
  c.webhook.debounce_s = 0;
  return c;
}

std::shared_ptr<const ModelInfo> test_model() {
  return test::model_info("yolo11n_320_fp32", {"person", "bird", "car"});
}

// One frame with `count` boxes of class `id`.
std::shared_ptr<const FrameResult> frame(std::int64_t index, int id, int count) {
  auto f = std::make_shared<FrameResult>();
  f->index = index;
  f->wall = std::chrono::system_clock::now();
  f->model = test_model();
  for (int i = 0; i < count; ++i) f->detections.push_back({id, 0.8f, {10.0f * i, 20, 60, 120}});
  return f;
}

// publish(), timed.
Clock::duration timed_publish(WebhookOutput& w, std::shared_ptr<const FrameResult> f) {
  const auto before = Clock::now();
  w.publish(std::move(f));
  return Clock::now() - before;
}

class WebhookTest : public ::testing::Test {
 protected:
  // An output configured with `c` and started; it lives as long as the test.
  WebhookOutput& start(const config::Config& c) {
    output_.emplace(events_, quick_options());
    output_->configure(c);
    output_->start();
    return *output_;
  }

  // An output posting to `receiver`, which holds every request until released; its first event
  // (frame 0, a person appeared) is already sent and held, so what follows queues.
  WebhookOutput& start_held(Receiver& receiver, int queue, double timeout_s) {
    receiver.hang();
    config::Config c = webhook_config(receiver.url());
    c.webhook.queue = queue;
    c.webhook.timeout_s = timeout_s;
    WebhookOutput& w = start(c);
    w.publish(frame(0, 0, 1));
    EXPECT_EQ(receiver.wait_for(1, 2s).size(), 1u);
    return w;
  }

  Logger log_{Logger::Sink::kStderr};
  Events events_{log_};
  std::optional<WebhookOutput> output_;
};

TEST_F(WebhookTest, OffWithoutAUrl) {
  WebhookOutput& w = start(webhook_config(""));
  w.publish(frame(0, 0, 1));
  EXPECT_EQ(w.status(), json::parse(R"({"ok": true, "enabled": false})"));
  EXPECT_TRUE(w.stop());
}

TEST_F(WebhookTest, EachDebouncedEventArrivesAsItsJson) {
  Receiver receiver;
  config::Config c = webhook_config(receiver.url("/hook?token=secret"));
  c.webhook.debounce_s = 0.3;
  WebhookOutput& w = start(c);
  w.publish(frame(1, 0, 1));
  // A second person: a change at once (counts rise without waiting).
  w.publish(frame(2, 0, 2));
  // One frame without the second: held by the debounce, no event.
  w.publish(frame(3, 0, 1));
  std::vector<Request> got = receiver.wait_for(2, 3s);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].target, "/hook?token=secret");
  EXPECT_EQ(got[0].content_type, "application/json");
  const json& appeared = got[0].body;
  EXPECT_EQ(appeared["event"], "appeared");
  EXPECT_EQ(appeared["label"], "person");
  EXPECT_EQ(appeared["count"], 1);
  EXPECT_EQ(appeared["previous"], 0);
  EXPECT_EQ(appeared["host"], "test-host");
  EXPECT_EQ(appeared["frame"], 1);
  EXPECT_EQ(appeared["model"], "yolo11n_320_fp32");
  EXPECT_TRUE(appeared["time"].get<std::string>().ends_with("Z")) << appeared["time"];
  ASSERT_EQ(appeared["detections"].size(), 1u);
  EXPECT_EQ(appeared["detections"][0],
            json::parse(R"({"class_id": 0, "label": "person", "score": 0.8,
                            "box": [0.0, 20.0, 60.0, 120.0]})"));
  EXPECT_EQ(got[1].body["event"], "changed");
  EXPECT_EQ(got[1].body["count"], 2);
  EXPECT_EQ(got[1].body["previous"], 1);
  EXPECT_EQ(got[1].body["detections"].size(), 2u);

  // No frames: the source stalled, and the person is gone on the clock (2 s, then the hold).
  got = receiver.wait_for(3, 5s);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[2].body["event"], "gone");
  EXPECT_EQ(got[2].body["count"], 0);
  EXPECT_EQ(got[2].body["previous"], 2);
  EXPECT_EQ(got[2].body["frame"], 3);
  EXPECT_TRUE(got[2].body["detections"].empty());

  const auto status = wait_status(
      w, [](const json& s) { return s["sent"] == 3; }, 2s);
  ASSERT_TRUE(status) << w.status();
  EXPECT_EQ((*status)["url"], receiver.url("")) << "without its path and query (the token)";
  EXPECT_TRUE((*status)["ok"]);
  EXPECT_EQ((*status)["failed"], 0);
  EXPECT_EQ((*status)["dropped"], 0);
  EXPECT_TRUE(w.stop());
}

// A frame with no boxes and the tracked-object events of `kinds` (a person 5 on camera main).
std::shared_ptr<const FrameResult> frame_with_events(std::int64_t index,
                                                     std::vector<tracking::ObjectEventKind> kinds) {
  auto f = std::make_shared<FrameResult>();
  f->index = index;
  f->wall = std::chrono::system_clock::now();
  f->model = test_model();
  std::int64_t id = 100;
  for (const auto kind : kinds) {
    tracking::ObjectEvent e;
    e.id = ++id;
    e.kind = kind;
    e.camera = "main";
    e.place = kind == tracking::ObjectEventKind::kCross ? "road" : "door";
    e.direction = tracking::Direction::kIn;
    e.track_id = 5;
    e.label = "person";
    e.box = {10, 20, 60, 120};
    e.score = 0.8f;
    e.wall = f->wall;
    e.frame_index = index;
    f->object_events.push_back(e);
  }
  return f;
}

TEST_F(WebhookTest, ObjectEventsOfTheKindsEventsWebhookNamesArePostedOneEach) {
  Receiver receiver;
  config::Config c = webhook_config(receiver.url());
  c.events.webhook = {tracking::ObjectEventKind::kCross, tracking::ObjectEventKind::kLoiter};
  WebhookOutput& w = start(c);
  using K = tracking::ObjectEventKind;
  const auto f = frame_with_events(7, {K::kNew, K::kEnter, K::kCross, K::kLoiter, K::kEnd});
  w.publish(f);
  std::vector<Request> got = receiver.wait_for(2, 3s);
  ASSERT_EQ(got.size(), 2u);
  // The envelope, then the event's own JSON (tracking::to_json), whole.
  for (std::size_t i = 0; i < 2; ++i) {
    const json& body = got[i].body;
    EXPECT_EQ(body["event"], "object");
    EXPECT_EQ(body["host"], "test-host");
    EXPECT_EQ(body["model"], "yolo11n_320_fp32");
    const json event = tracking::to_json(f->object_events[i == 0 ? 2 : 3]);
    for (const auto& [key, value] : event.items()) EXPECT_EQ(body[key], value) << key;
  }
  EXPECT_EQ(got[0].body["type"], "cross");
  EXPECT_EQ(got[0].body["line"], "road");
  EXPECT_EQ(got[0].body["direction"], "in");
  EXPECT_EQ(got[0].body["camera"], "main");
  EXPECT_EQ(got[1].body["type"], "loiter");
  EXPECT_EQ(got[1].body["zone"], "door");

  // A reload that names no kind: object events stop; the label events go on.
  c.events.webhook.clear();
  w.configure(c);
  w.publish(frame_with_events(8, {K::kCross}));
  w.publish(frame(9, 2, 1));
  got = receiver.wait_for(3, 3s);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[2].body["event"], "appeared");
  EXPECT_EQ(got[2].body["label"], "car");
  EXPECT_TRUE(wait_status(
      w, [](const json& s) { return s["sent"] == 3; }, 2s))
      << w.status();
  EXPECT_EQ(receiver.count(), 3u);
  EXPECT_TRUE(w.stop());
}

TEST_F(WebhookTest, A500IsRetriedAndThe200CountsSent) {
  Receiver receiver;
  receiver.answer({500, 200});
  WebhookOutput& w = start(webhook_config(receiver.url()));
  w.publish(frame(1, 1, 1));
  const std::vector<Request> got = receiver.wait_for(2, 3s);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0].body, got[1].body);
  EXPECT_GE(got[1].at - got[0].at, 100ms) << "retried after webhook.backoff_s";
  const auto status = wait_status(
      w, [](const json& s) { return s["sent"] == 1; }, 2s);
  ASSERT_TRUE(status) << w.status();
  EXPECT_TRUE((*status)["ok"]) << "an event that got through clears the warning";
  EXPECT_EQ((*status)["failed"], 0);
  EXPECT_TRUE(w.stop());
}

TEST_F(WebhookTest, RetriesBackOffDoublingThenTheEventCountsFailed) {
  Receiver receiver;
  receiver.answer({503, 503, 503, 503});
  config::Config c = webhook_config(receiver.url());
  c.webhook.backoff_s = 0.2;
  WebhookOutput& w = start(c);
  w.publish(frame(1, 1, 1));
  const std::vector<Request> got = receiver.wait_for(3, 3s);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_GE(got[1].at - got[0].at, 200ms);
  EXPECT_GE(got[2].at - got[1].at, 400ms) << "the backoff doubles";
  const auto status = wait_status(
      w, [](const json& s) { return s["failed"] == 1; }, 2s);
  ASSERT_TRUE(status) << w.status();
  EXPECT_FALSE((*status)["ok"]);
  EXPECT_EQ((*status)["last_error"]["message"], "answered 503");
  EXPECT_NE((*status)["warning"].get<std::string>().find("answered 503"), std::string::npos);
  std::this_thread::sleep_for(500ms);
  EXPECT_EQ(receiver.count(), 3u) << "1 attempt + webhook.retries, no more";
  EXPECT_TRUE(w.stop());
}

TEST_F(WebhookTest, AClientErrorIsNotRetried) {
  Receiver receiver;
  receiver.answer({404});
  WebhookOutput& w = start(webhook_config(receiver.url()));
  w.publish(frame(1, 1, 1));
  ASSERT_TRUE(wait_status(
      w, [](const json& s) { return s["failed"] == 1; }, 3s))
      << w.status();
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(receiver.count(), 1u);
  EXPECT_TRUE(w.stop());
}

TEST_F(WebhookTest, ADeadReceiverIsRetriedThenCountedFailedWithoutStallingPublish) {
  const std::string url = "http://127.0.0.1:" + std::to_string(dead_port()) + "/hook";
  WebhookOutput& w = start(webhook_config(url));
  const auto started = Clock::now();
  Clock::duration longest{};
  for (int i = 0; i < 4; ++i) {
    longest = std::max(longest, timed_publish(w, frame(i, 0, (i + 1) % 2)));
  }
  const auto status = wait_status(
      w, [](const json& s) { return s["failed"] == 4; }, 5s);
  ASSERT_TRUE(status) << w.status();
  // Each event: an attempt, 0.1 s, an attempt, 0.2 s, an attempt.
  EXPECT_GE(Clock::now() - started, 4 * 300ms);
  EXPECT_LT(longest, kNeverWaited);
  EXPECT_FALSE((*status)["ok"]);
  EXPECT_NE((*status)["warning"].get<std::string>().find("unreachable"), std::string::npos)
      << (*status)["warning"];
  EXPECT_TRUE(w.stop());
}

TEST_F(WebhookTest, AFullQueueDropsTheOldestAndCountsThem) {
  Receiver receiver;
  // Appeared (sent, held by the receiver), then four more events (a count that rises is news at
  // once): two fit the queue.
  WebhookOutput& w = start_held(receiver, 2, 10);
  Clock::duration longest{};
  for (int i = 1; i <= 4; ++i) longest = std::max(longest, timed_publish(w, frame(i, 0, i + 1)));
  EXPECT_LT(longest, kNeverWaited);
  const auto full = wait_status(
      w, [](const json& s) { return s["dropped"] == 2; }, 2s);
  ASSERT_TRUE(full) << w.status();
  EXPECT_EQ((*full)["queued"], 2);
  receiver.release();
  const std::vector<Request> got = receiver.wait_for(3, 3s);
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[1].body["frame"], 3) << "the oldest two (frames 1 and 2) were dropped";
  EXPECT_EQ(got[2].body["frame"], 4);
  ASSERT_TRUE(wait_status(
      w, [](const json& s) { return s["sent"] == 3; }, 2s))
      << w.status();
  EXPECT_TRUE(w.stop());
}

TEST_F(WebhookTest, StopWithAHungReceiverEndsWithinItsLimit) {
  Receiver receiver;
  WebhookOutput& w = start_held(receiver, 100, 30);
  w.publish(frame(1, 0, 0));
  const auto before = Clock::now();
  EXPECT_TRUE(w.stop());
  EXPECT_LT(Clock::now() - before, 500ms) << "the request in flight is cut, not waited for";
  const json s = w.status();
  EXPECT_EQ(s["sent"], 0);
  EXPECT_EQ(s["dropped"], 2) << s << ": the one cut and the one still queued";
}

TEST(WebhookConfig, TheUrlRowSaysWhatIsWrongAndWhatToWrite) {
  const config::FieldSpec* url = config::find_field("webhook.url");
  ASSERT_NE(url, nullptr);
  EXPECT_EQ(config::check_value(*url, std::string("")), "");
  EXPECT_EQ(config::check_value(*url, std::string("https://example.com/hook?k=v")), "");
  EXPECT_EQ(config::check_value(*url, std::string("http://[::1]:8080/hook")), "");
  const std::string ftp = config::check_value(*url, std::string("ftp://example.com/hook"));
  EXPECT_NE(ftp.find("'ftp://example.com/hook' is not an http:// or https:// URL"),
            std::string::npos)
      << ftp;
  EXPECT_NE(ftp.find("write e.g. https://"), std::string::npos) << ftp;
  EXPECT_NE(
      config::check_value(*url, std::string("https://me:pw@example.com/")).find("credentials"),
      std::string::npos);
  EXPECT_NE(config::check_value(*url, std::string("http://host:99999/")).find("1 to 65535"),
            std::string::npos);
  EXPECT_NE(config::check_value(*url, std::string("http:///hook")).find("no host"),
            std::string::npos);

  const auto parsed = config::parse_http_url("https://[::1]:8443/a?b=c#frag", nullptr);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(*parsed, (config::HttpUrl{true, "::1", 8443, "/a?b=c"}));
  EXPECT_EQ(parsed->origin(), "https://[::1]:8443");
  EXPECT_EQ(config::parse_http_url("http://example.com", nullptr)->target, "/");
  EXPECT_EQ(config::parse_http_url("http://example.com", nullptr)->port, 80);

  const config::FieldSpec* retries = config::find_field("webhook.retries");
  ASSERT_NE(retries, nullptr);
  EXPECT_NE(config::check_value(*retries, std::int64_t{11}), "");
  const config::Config defaults;
  EXPECT_EQ(defaults.webhook.url, "");
  EXPECT_EQ(defaults.webhook.queue, 100);
}

// yolo-edged on the fixture video with webhook.url set: the receiver gets the events.
TEST_F(WebhookTest, TheDaemonPostsEventsToTheReceiver) {
  YOLO_REQUIRE_FIXTURES();
  Receiver receiver;
  test::DaemonSetup s;
  s.write_config(test::config_text(test::paced_video(), s.logs, "yolo11n_320_fp32") +
                 "webhook:\n  url: " + receiver.url() + "\n  debounce_s: 1\n");
  auto daemon = s.start();
  const std::vector<Request> got = receiver.wait_for(1, 60s);
  ASSERT_FALSE(got.empty()) << s.daemon_output();
  const json& e = got[0].body;
  EXPECT_EQ(e["event"], "appeared");
  EXPECT_EQ(e["host"], host_name());
  EXPECT_EQ(e["model"], "yolo11n_320_fp32");
  EXPECT_GE(e["frame"].get<std::int64_t>(), 0);
  EXPECT_FALSE(e["detections"].empty());
  EXPECT_EQ(e["detections"][0]["label"], e["label"]);
}

}  // namespace
}  // namespace yolo::daemon
