// SPDX-License-Identifier: Apache-2.0
// The HTTP server on a real socket with a real client (cpp-httplib's), fed frames the way the
// inference thread feeds it; the daemon's other parts are replaced by what the server asks of
// them (HttpBackend). The whole daemon behind it is tested in test_live_view.cpp.
#include "daemon/outputs/http/http_output.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <httplib.h>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <thread>

#include "daemon/core/event_media.h"
#include "daemon/outputs/http/tls_identity.h"
#include "tests/daemon/mjpeg_reader.h"
#include "tests/support/eventually.h"
#include "tests/support/temp_folder.h"

namespace yolo::daemon {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

using test::eventually;

// The server's settings for a test; the login (http.auth: password) has tests of its own, the
// others run open, as with http.auth: none.
config::Config http_config(const std::string& listen, const std::string& token = "",
                           int max_viewers = 2, double max_fps = 30) {
  config::Config c;
  c.http.listen = listen;
  c.http.auth = config::HttpAuth::kNone;
  c.http.token = token;
  c.http.max_viewers = max_viewers;
  c.http.max_fps = max_fps;
  c.http.jpeg_quality = 80;
  return c;
}

std::shared_ptr<const FrameResult> frame_result(std::int64_t index, bool with_pixels) {
  auto model = std::make_shared<ModelInfo>();
  model->name = "yolo11n_320_fp32";
  model->precision = runtime::Precision::kFp32;
  model->names = vision::ClassNames({"person", "bird"});
  auto r = std::make_shared<FrameResult>();
  r->camera = "main";
  r->index = index;
  r->wall = std::chrono::system_clock::now();
  r->model = model;
  r->detections = {{1, 0.875f, {10.04f, 20.0f, 110.0f, 90.0f}}};
  r->times.inference_ms = 12.5;
  if (with_pixels) {
    cv::Mat image(240, 320, CV_8UC3, cv::Scalar(40, 90, 140));
    cv::circle(image, {static_cast<int>(40 + index % 200), 120}, 30, {255, 255, 255}, -1);
    r->frame = std::make_shared<const cv::Mat>(std::move(image));
  }
  return r;
}

// Publishes frames to `server` at `fps` on its own thread, until stop() or its end.
class Feeder {
 public:
  Feeder(HttpOutput& server, double fps)
      : thread_([this, &server, fps] {
          std::int64_t i = 0;
          while (!stop_) {
            server.publish(frame_result(i++, server.wants_frame(*frame_result(0, false))));
            std::this_thread::sleep_for(std::chrono::duration<double>(1.0 / fps));
          }
        }) {}
  Feeder(const Feeder&) = delete;
  Feeder& operator=(const Feeder&) = delete;
  ~Feeder() { stop(); }

  void stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }

 private:
  std::atomic<bool> stop_ = false;
  std::thread thread_;  // last: it runs once stop_ is made
};

class HttpServerTest : public ::testing::Test {
 protected:
  // The server may close a connection while a client still sends (a body refused at once): the
  // client gets EPIPE, as the daemon's own sockets do, not a process-ending signal.
  static void SetUpTestSuite() { signal(SIGPIPE, SIG_IGN); }

  void start(const config::Config& config, HttpLimits limits = fast_limits()) {
    server_ = std::make_unique<HttpOutput>(events_, backend(), state_.path(), limits);
    server_->configure(config);
    server_->start();
    ASSERT_TRUE(eventually([&] { return server_->port() > 0; })) << server_->status().dump();
  }

  static HttpLimits fast_limits() {
    HttpLimits l;
    l.idle_timeout = 1s;
    l.stream_write_timeout = 1s;
    l.request_deadline = 1500ms;
    l.busy_request_deadline = 1000ms;
    l.viewer_check = 500ms;
    l.bind_retry = 200ms;
    l.snapshot_wait = 1000ms;
    return l;
  }

  HttpBackend backend() {
    HttpBackend b;
    b.status = [this] {
      auto status = std::make_shared<DaemonStatus>();
      status->state = DaemonState::kRunning;
      status->inference.fps = 9.5;
      status->cameras.resize(1);
      status->cameras[0].name = "main";
      status->cameras[0].source.state = source_;
      return std::shared_ptr<const DaemonStatus>(std::move(status));
    };
    b.metrics = [] { return std::string("# TYPE yolo_edge_up gauge\nyolo_edge_up 1\n"); };
    b.control = [this](ControlRequest r, std::chrono::milliseconds) -> std::optional<ControlReply> {
      std::lock_guard lock(mutex_);
      requests_.push_back(r);
      if (r.precision == "int9") {
        return ControlReply{ControlReply::Outcome::kRefused, "model.precision: 'int9'", {}};
      }
      return ControlReply{ControlReply::Outcome::kApplied, "reloaded", {"model.precision"}};
    };
    b.object_events = &object_events_;
    b.reset_counts = [this](std::string camera, std::string place) {
      std::lock_guard lock(mutex_);
      resets_.emplace_back(camera, place);
      return camera == "main" && (place == "door" || place == "yard");
    };
    return b;
  }

  httplib::Client client() {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(5s);
    return c;
  }

  void TearDown() override {
    if (server_) {
      EXPECT_TRUE(server_->stop());
    }
  }

  Logger log_{Logger::Sink::kStderr, config::LogLevel::kError};
  Events events_{log_};
  test::TempFolder state_;
  std::unique_ptr<HttpOutput> server_;
  SourceState source_ = SourceState::kStreaming;
  std::mutex mutex_;
  std::vector<ControlRequest> requests_;
  std::vector<std::pair<std::string, std::string>> resets_;
  EventLog object_events_{1000};
};

TEST(SameSecret, ComparesWholeSecrets) {
  EXPECT_TRUE(same_secret("s3cret-token", "s3cret-token"));
  EXPECT_FALSE(same_secret("s3cret-token", "s3cret-tokeN"));
  EXPECT_FALSE(same_secret("s3cret-token", "s3cret-token2"));
  EXPECT_FALSE(same_secret("s3cret-token", ""));
  EXPECT_TRUE(same_secret("", ""));
}

TEST_F(HttpServerTest, ServesThePageStatusAndMetrics) {
  start(http_config("127.0.0.1:0"));
  auto c = client();
  auto page = c.Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(page->body.find("<title>yolo-edge</title>"), std::string::npos);
  EXPECT_NE(page->body.find("stream.mjpg"), std::string::npos);
  // Self-contained: nothing is fetched from another host.
  EXPECT_EQ(page->body.find("http://"), std::string::npos);
  EXPECT_EQ(page->body.find("https://"), std::string::npos);

  auto status = c.Get("/api/status");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->status, 200);
  EXPECT_EQ(nlohmann::json::parse(status->body)["fps"], 9.5);

  auto metrics = c.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->get_header_value("Content-Type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(metrics->body.find("yolo_edge_up 1"), std::string::npos);
}

TEST_F(HttpServerTest, RefusesWhatItDoesNotServe) {
  start(http_config("127.0.0.1:0"));
  auto c = client();
  auto missing = c.Get("/nothing/here");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_NE(nlohmann::json::parse(missing->body)["error"].get<std::string>().find("/api/status"),
            std::string::npos);
  for (const char* trick : {"/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/api/../../x",
                            "//etc/passwd", "/api/status/../../../etc/shadow"}) {
    auto r = c.Get(trick);
    ASSERT_TRUE(r) << trick;
    EXPECT_EQ(r->status, 404) << trick;
    EXPECT_EQ(r->body.find("root:"), std::string::npos) << trick;
  }
  auto wrong_method = c.Post("/api/status", "{}", "application/json");
  ASSERT_TRUE(wrong_method);
  EXPECT_EQ(wrong_method->status, 405);
  EXPECT_EQ(wrong_method->get_header_value("Allow"), "GET");
  auto get_control = c.Get("/api/precision");
  ASSERT_TRUE(get_control);
  EXPECT_EQ(get_control->status, 405);
}

TEST_F(HttpServerTest, ControlIsOffWithoutAToken) {
  start(http_config("127.0.0.1:0"));
  auto c = client();
  auto r = c.Post("/api/precision", R"({"precision":"int8"})", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  EXPECT_NE(r->body.find("http.token"), std::string::npos);
  EXPECT_TRUE(requests_.empty());
}

TEST_F(HttpServerTest, ControlNeedsTheRightTokenAndGoodJson) {
  start(http_config("127.0.0.1:0", "correct horse battery"));
  auto c = client();
  const auto post = [&](const std::string& path, const std::string& body,
                        const std::string& authorization) {
    httplib::Headers headers;
    if (!authorization.empty()) headers.emplace("Authorization", authorization);
    return c.Post(path.c_str(), headers, body, "application/json");
  };
  auto none = post("/api/precision", R"({"precision":"int8"})", "");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  auto wrong = post("/api/precision", R"({"precision":"int8"})", "Bearer correct horse");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  EXPECT_EQ(wrong->get_header_value("WWW-Authenticate"), "Bearer realm=\"yolo-edge\"");
  auto basic = post("/api/reload", "", "Basic Y29ycmVjdDpob3JzZQ==");
  ASSERT_TRUE(basic);
  EXPECT_EQ(basic->status, 401);
  EXPECT_TRUE(requests_.empty());

  const std::string bearer = "Bearer correct horse battery";
  for (const char* bad : {"{not json", "[1,2]", R"({"precision": 8})", R"({"p":"int8"})"}) {
    auto r = post("/api/precision", bad, bearer);
    ASSERT_TRUE(r) << bad;
    EXPECT_EQ(r->status, 400) << bad;
  }
  EXPECT_TRUE(requests_.empty());

  auto ok = post("/api/precision", R"({"precision":"int8"})", bearer);
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  EXPECT_EQ(nlohmann::json::parse(ok->body)["changed"][0], "model.precision");
  auto refused = post("/api/precision", R"({"precision":"int9"})", bearer);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 422);
  auto reload = post("/api/reload", "", bearer);
  ASSERT_TRUE(reload);
  EXPECT_EQ(reload->status, 200);

  std::lock_guard lock(mutex_);
  ASSERT_EQ(requests_.size(), 3u);
  EXPECT_EQ(requests_[0].kind, ControlRequest::Kind::kPrecision);
  EXPECT_EQ(requests_[0].precision, "int8");
  EXPECT_EQ(requests_[0].origin, "POST /api/precision from 127.0.0.1");
  EXPECT_EQ(requests_[2].kind, ControlRequest::Kind::kReload);
}

TEST_F(HttpServerTest, RefusesOversizedBodiesAndHeaders) {
  start(http_config("127.0.0.1:0", "t0ken"));
  auto c = client();
  httplib::Headers auth = {{"Authorization", "Bearer t0ken"}};
  auto big = c.Post("/api/precision", auth, std::string(1 << 20, 'x'), "application/json");
  // Refused with 413, or the connection dropped while the client was still sending.
  if (big) {
    EXPECT_EQ(big->status, 413);
  }
  httplib::Headers huge = {{"X-Filler", std::string(64 * 1024, 'a')}};
  auto r = c.Get("/api/status", huge);
  if (r) {
    EXPECT_GE(r->status, 400);
  }
  EXPECT_TRUE(requests_.empty());
  // Still answering.
  auto status = c.Get("/api/status");
  ASSERT_TRUE(status);
  EXPECT_EQ(status->status, 200);
}

TEST_F(HttpServerTest, EncodesEachFrameOnceForEveryViewer) {
  start(http_config("127.0.0.1:0", "", 3, 20));
  EXPECT_FALSE(server_->wants_frame(*frame_result(0, false))) << "no viewer, no pixels";
  Feeder feed(*server_, 50);

  std::vector<std::unique_ptr<test::MjpegReader>> viewers;
  for (int i = 0; i < 3; ++i) {
    viewers.push_back(std::make_unique<test::MjpegReader>("127.0.0.1", server_->port(), 10));
  }
  for (auto& v : viewers) ASSERT_TRUE(v->wait(10s)) << v->error();
  feed.stop();

  // Each viewer got real JPEGs of the frame size, annotated.
  for (auto& v : viewers) {
    ASSERT_GE(v->parts().size(), 10u);
    const cv::Mat image = cv::imdecode(v->parts().back(), cv::IMREAD_COLOR);
    ASSERT_FALSE(image.empty());
    EXPECT_EQ(image.cols, 320);
    EXPECT_EQ(image.rows, 240);
  }
  // The viewers saw the same encodings: the bytes of one frame are shared, not made per viewer.
  std::set<std::string> distinct;
  std::size_t received = 0;
  for (auto& v : viewers) {
    for (const auto& part : v->parts()) {
      distinct.insert(std::string(part.begin(), part.end()));
      ++received;
    }
  }
  const auto encoded = server_->status()["frames_encoded"].get<std::uint64_t>();
  EXPECT_LT(distinct.size(), received);
  EXPECT_LE(distinct.size(), encoded);
  // At 50 frames/s in and http.max_fps 20 out, about 20 encodes a second whatever the viewers.
  EXPECT_LE(encoded, 3 * distinct.size() + 20);
  viewers.clear();
  EXPECT_TRUE(eventually([&] { return !server_->wants_frame(*frame_result(0, false)); }, 3000ms))
      << "viewers left, pixels no longer wanted";
}

TEST_F(HttpServerTest, PacesTheStreamToMaxFps) {
  start(http_config("127.0.0.1:0", "", 2, 5));
  Feeder feed(*server_, 40);
  test::MjpegReader viewer("127.0.0.1", server_->port(), 1000);
  std::this_thread::sleep_for(300ms);
  const auto before = server_->status()["frames_encoded"].get<std::uint64_t>();
  std::this_thread::sleep_for(2000ms);
  const auto after = server_->status()["frames_encoded"].get<std::uint64_t>();
  feed.stop();
  // 5 a second over 2 s, give or take the edges.
  EXPECT_GE(after - before, 8u);
  EXPECT_LE(after - before, 12u);
}

TEST_F(HttpServerTest, CapsStreamClientsAndStillAnswersTheApi) {
  start(http_config("127.0.0.1:0", "", 2, 10));
  Feeder feed(*server_, 20);
  test::MjpegReader a("127.0.0.1", server_->port(), 1000);
  test::MjpegReader b("127.0.0.1", server_->port(), 1000);
  ASSERT_TRUE(eventually([&] { return server_->status()["viewers"] == 2; }));
  auto c = client();
  auto third = c.Get("/stream.mjpg");
  ASSERT_TRUE(third);
  EXPECT_EQ(third->status, 503);
  EXPECT_NE(third->body.find("http.max_viewers"), std::string::npos);
  auto events = c.Get("/api/detections");
  ASSERT_TRUE(events);
  EXPECT_EQ(events->status, 503);
  for (int i = 0; i < 20; ++i) {
    auto status = c.Get("/api/status");
    ASSERT_TRUE(status);
    EXPECT_EQ(status->status, 200);
  }
  EXPECT_EQ(server_->status()["refused"], 2);
}

TEST_F(HttpServerTest, AViewerThatVanishesFreesItsPlace) {
  start(http_config("127.0.0.1:0", "", 1, 10));
  Feeder feed(*server_, 20);
  {
    test::MjpegReader gone("127.0.0.1", server_->port(), 2);
    ASSERT_TRUE(gone.wait(5s)) << gone.error();
  }
  EXPECT_TRUE(eventually([&] { return server_->status()["viewers"] == 0; }, 3000ms));
  test::MjpegReader next("127.0.0.1", server_->port(), 2);
  EXPECT_TRUE(next.wait(5s)) << next.error();
}

TEST_F(HttpServerTest, SendsEveryFrameAsAServerSentEvent) {
  start(http_config("127.0.0.1:0"));
  auto c = client();
  std::string received;
  std::thread feed;
  std::atomic<bool> stop = false;
  auto r = c.Get("/api/detections", [&](const char* data, std::size_t size) {
    received.append(data, size);
    if (!feed.joinable()) {
      feed = std::thread([&] {
        for (int i = 100; i < 110 && !stop; ++i) {
          server_->publish(frame_result(i, false));
          std::this_thread::sleep_for(20ms);
        }
      });
    }
    return received.find("\"frame\":109") == std::string::npos;
  });
  stop = true;
  feed.join();
  std::size_t events = 0;
  std::size_t at = 0;
  while ((at = received.find("event: detections\ndata: ", at)) != std::string::npos) {
    at += 24;
    const auto end = received.find("\n\n", at);
    const nlohmann::json e = nlohmann::json::parse(received.substr(at, end - at));
    EXPECT_EQ(e["frame"], 100 + static_cast<int>(events));
    EXPECT_EQ(e["detections"][0]["label"], "bird");
    EXPECT_EQ(e["detections"][0]["score"], 0.875);
    EXPECT_EQ(e["detections"][0]["box"][0], 10.0);
    EXPECT_EQ(e["precision"], "fp32");
    ++events;
  }
  EXPECT_EQ(events, 10u) << received;
  // The stream's ids are the object events' (none here), not frame numbers.
  EXPECT_EQ(received.find("id: "), std::string::npos) << received;
}

TEST_F(HttpServerTest, SnapshotIsTheNextFrameOr503WithTheReason) {
  start(http_config("127.0.0.1:0"));
  auto c = client();
  c.set_read_timeout(10s);
  Feeder feed(*server_, 20);
  auto snap = c.Get("/snapshot.jpg");
  feed.stop();
  ASSERT_TRUE(snap);
  ASSERT_EQ(snap->status, 200);
  EXPECT_EQ(snap->get_header_value("Content-Type"), "image/jpeg");
  EXPECT_FALSE(
      cv::imdecode(std::vector<unsigned char>(snap->body.begin(), snap->body.end()), 1).empty());

  source_ = SourceState::kLost;
  std::this_thread::sleep_for(1100ms);
  auto none = c.Get("/snapshot.jpg");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 503);
  EXPECT_NE(none->body.find("the source is lost"), std::string::npos) << none->body;
}

TEST_F(HttpServerTest, ASnapshotAtAFrameEveryFewSecondsIsServedNotRefused) {
  // A slow device: a result every 1.5 s, slower than the snapshot's own wait (1 s here).
  start(http_config("127.0.0.1:0"));
  auto c = client();
  c.set_read_timeout(20s);
  Feeder feed(*server_, 1 / 1.5);
  // The server has seen the pace (two results) before the first request, as a running daemon has.
  std::this_thread::sleep_for(1700ms);
  for (int i = 0; i < 3; ++i) {
    auto snap = c.Get("/snapshot.jpg");
    ASSERT_TRUE(snap);
    EXPECT_EQ(snap->status, 200) << snap->body;
  }
}

TEST_F(HttpServerTest, MovesToANewAddressAndWaitsForABusyPort) {
  // A port held by someone else: a warning, retried until it is free.
  const int busy = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(busy, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(busy, 1), 0);
  socklen_t size = sizeof addr;
  getsockname(busy, reinterpret_cast<sockaddr*>(&addr), &size);
  const std::string taken = "127.0.0.1:" + std::to_string(ntohs(addr.sin_port));

  server_ = std::make_unique<HttpOutput>(events_, backend(), state_.path(), fast_limits());
  server_->configure(http_config(taken));
  server_->start();
  ASSERT_TRUE(eventually([&] { return server_->status().contains("warning"); }));
  EXPECT_FALSE(server_->status()["ok"].get<bool>());
  EXPECT_NE(server_->status()["warning"].get<std::string>().find(taken), std::string::npos);
  close(busy);
  ASSERT_TRUE(eventually([&] { return server_->port() > 0; }, 3000ms));
  EXPECT_TRUE(server_->status()["ok"].get<bool>());
  const int first = server_->port();

  server_->configure(http_config("127.0.0.1:0"));
  ASSERT_TRUE(eventually([&] { return server_->port() > 0 && server_->port() != first; }));
  auto r = client().Get("/api/status");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);

  server_->configure(http_config(""));
  EXPECT_TRUE(eventually([&] { return server_->port() == 0; }));
}

TEST_F(HttpServerTest, StopsPromptlyWithClientsConnected) {
  start(http_config("127.0.0.1:0", "", 3, 10));
  Feeder feed(*server_, 20);
  test::MjpegReader viewer("127.0.0.1", server_->port(), 100000);
  ASSERT_TRUE(eventually([&] { return server_->status()["viewers"] == 1; }));
  feed.stop();
  const auto t0 = Clock::now();
  EXPECT_TRUE(server_->stop());
  EXPECT_LT(Clock::now() - t0, 2000ms);
}

// A raw TCP connection to the server from a loopback address of its own (127.0.0.X), as another
// host on the network would come.
class RawClient {
 public:
  // `receive_buffer`: a small one (bytes) for a client that will not read.
  RawClient(int port, const std::string& from = "127.0.0.1", int receive_buffer = 0) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (receive_buffer > 0) {
      setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof receive_buffer);
    }
    sockaddr_in local{};
    local.sin_family = AF_INET;
    inet_pton(AF_INET, from.c_str(), &local.sin_addr);
    bind(fd_, reinterpret_cast<sockaddr*>(&local), sizeof local);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0;
    timeval tv{0, 200000};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
  ~RawClient() { close(fd_); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  bool connected() const { return connected_; }
  bool send_text(const std::string& text) {
    return ::send(fd_, text.data(), text.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(text.size());
  }
  // Whether the server has closed the connection (reads its end, waiting up to 200 ms).
  bool closed_by_server() {
    char buffer[4096];
    for (;;) {
      const ssize_t n = recv(fd_, buffer, sizeof buffer, 0);
      if (n == 0) return true;
      if (n < 0) return errno == ECONNRESET;
      answer_.append(buffer, static_cast<std::size_t>(n));
    }
  }
  const std::string& answer() const { return answer_; }

 private:
  int fd_ = -1;
  bool connected_ = false;
  std::string answer_;
};

config::Config login_config(const std::string& password = "") {
  config::Config c = http_config("127.0.0.1:0", "script-token-0123456789", 2, 30);
  c.http.auth = config::HttpAuth::kPassword;
  c.http.password = password;
  return c;
}

// The value of the session cookie a login response sets.
std::string session_of(const httplib::Result& r) {
  const std::string cookie = r->get_header_value("Set-Cookie");
  const std::string name = std::string(HttpAccess::kCookie) + "=";
  if (cookie.rfind(name, 0) != 0) return "";
  return cookie.substr(name.size(), cookie.find(';') - name.size());
}

TEST_F(HttpServerTest, ByDefaultEverythingButTheLoginNeedsACredential) {
  start(login_config());
  // The password was made at first start, in the state folder, for the owner only.
  const auto file = state_.path() / "http-password";
  ASSERT_TRUE(fs::exists(file));
  EXPECT_EQ(fs::status(file).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  auto c = client();
  for (const char* path :
       {"/", "/index.html", "/stream.mjpg", "/snapshot.jpg", "/api/status", "/api/detections"}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 401) << path;
  }
  // A browser asking for the page gets the login form in the 401.
  auto page = c.Get("/");
  EXPECT_NE(page->body.find("<form method=\"post\" action=\"/login\">"), std::string::npos);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  for (const char* path : {"/api/precision", "/api/reload"}) {
    auto r = c.Post(path, R"({"precision":"int8"})", "application/json");
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 401) << path;
  }
  EXPECT_TRUE(requests_.empty());
  // Prometheus on this machine scrapes (http.metrics_allow: 127.0.0.1, ::1).
  auto metrics = c.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  EXPECT_EQ(server_->status()["auth"], "password");
}

TEST_F(HttpServerTest, ALoginOpensASessionThatViewsAndSwitchesUntilLogout) {
  start(login_config("correct horse battery staple"));
  auto c = client();
  auto wrong = c.Post("/login", "password=correct+horse", "application/x-www-form-urlencoded");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 401);
  EXPECT_NE(wrong->body.find("Wrong password"), std::string::npos);
  EXPECT_EQ(session_of(wrong), "");
  EXPECT_EQ(server_->status()["failed_logins"], 1);

  auto login = c.Post("/login", "password=correct+horse+battery+staple",
                      "application/x-www-form-urlencoded");
  ASSERT_TRUE(login);
  EXPECT_EQ(login->status, 303);
  EXPECT_EQ(login->get_header_value("Location"), "/");
  const std::string cookie_line = login->get_header_value("Set-Cookie");
  for (const char* part : {"HttpOnly", "SameSite=Lax", "Path=/", "Max-Age="}) {
    EXPECT_NE(cookie_line.find(part), std::string::npos) << cookie_line;
  }
  EXPECT_EQ(cookie_line.find("Secure"), std::string::npos) << "Secure only over HTTPS";
  const std::string session = session_of(login);
  ASSERT_EQ(session.size(), 64u);
  const httplib::Headers with = {{"Cookie", std::string(HttpAccess::kCookie) + "=" + session}};
  auto status = c.Get("/api/status", with);
  ASSERT_TRUE(status);
  EXPECT_EQ(status->status, 200);
  auto page = c.Get("/", with);
  EXPECT_NE(page->body.find("<title>yolo-edge</title>"), std::string::npos);
  auto switched = c.Post("/api/precision", with, R"({"precision":"int8"})", "application/json");
  ASSERT_TRUE(switched);
  EXPECT_EQ(switched->status, 200);
  // A script: the password or http.token as a bearer token.
  for (const char* secret : {"correct horse battery staple", "script-token-0123456789"}) {
    auto r = c.Get("/api/status", {{"Authorization", std::string("Bearer ") + secret}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << secret;
  }
  // A player (VLC, Home Assistant's MJPEG camera) sends the password as HTTP Basic, any user;
  // a wrong password, or a header that is not Base64 of user:password, is nobody.
  c.set_basic_auth("viewer", "correct horse battery staple");
  EXPECT_EQ(c.Get("/api/status")->status, 200);
  c.set_basic_auth("viewer", "correct horse");
  EXPECT_EQ(c.Get("/api/status")->status, 401);
  c.set_basic_auth("", "");
  for (const char* bad : {"Basic", "Basic !!!!", "Basic Y29ycmVjdA==", "Bearer "}) {
    auto r = c.Get("/api/status", {{"Authorization", bad}});
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 401) << bad;
  }
  auto challenged = c.Get("/stream.mjpg");
  ASSERT_TRUE(challenged);
  EXPECT_EQ(challenged->status, 401);
  EXPECT_EQ(challenged->get_header_value_count("WWW-Authenticate"), 2u);
  // A forged cookie is nobody.
  auto forged = c.Get("/api/status",
                      {{"Cookie", std::string(HttpAccess::kCookie) + "=" + std::string(64, 'a')}});
  EXPECT_EQ(forged->status, 401);

  auto out = c.Post("/logout", with, "", "text/plain");
  ASSERT_TRUE(out);
  EXPECT_EQ(out->status, 303);
  EXPECT_NE(out->get_header_value("Set-Cookie").find("Max-Age=0"), std::string::npos);
  EXPECT_EQ(c.Get("/api/status", with)->status, 401);
}

TEST_F(HttpServerTest, SessionsOutliveARestartButNotANewPassword) {
  start(login_config("first password here"));
  auto login =
      client().Post("/login", "password=first+password+here", "application/x-www-form-urlencoded");
  ASSERT_TRUE(login);
  const httplib::Headers with = {
      {"Cookie", std::string(HttpAccess::kCookie) + "=" + session_of(login)}};
  EXPECT_TRUE(server_->stop());
  start(login_config("first password here"));
  EXPECT_EQ(client().Get("/api/status", with)->status, 200) << "a phone stays logged in";
  EXPECT_TRUE(server_->stop());
  start(login_config("a new password now"));
  EXPECT_EQ(client().Get("/api/status", with)->status, 401) << "a new password ends sessions";
}

TEST_F(HttpServerTest, FailedLoginsAreCountedAndEachNextAttemptWaitsLonger) {
  start(login_config("the right password"));
  auto c = client();
  c.set_read_timeout(30s);
  std::vector<Clock::duration> took;
  for (int i = 0; i < 2; ++i) {
    const auto t0 = Clock::now();
    auto r = c.Post("/login", "password=guess", "application/x-www-form-urlencoded");
    took.push_back(Clock::now() - t0);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 401);
  }
  // No wait before the first failure; then 1 s, then 2 s (the login's own rule, not a speed).
  EXPECT_LT(took[0], 900ms);
  EXPECT_GE(took[1], 900ms);
  EXPECT_EQ(server_->status()["failed_logins"], 2);
  EXPECT_EQ(HttpAccess::login_delay(3), 4s);
  EXPECT_EQ(HttpAccess::login_delay(30), HttpAccess::kMaxLoginDelay);
  // The wait holds no thread: the API answers others meanwhile.
  std::thread slow([&] {
    auto d = client();
    d.set_read_timeout(30s);
    d.Post("/login", "password=guess", "application/x-www-form-urlencoded");
  });
  std::this_thread::sleep_for(200ms);
  const auto t0 = Clock::now();
  auto metrics = client().Get("/metrics");
  EXPECT_LT(Clock::now() - t0, 1000ms);
  EXPECT_EQ(metrics->status, 200);
  slow.join();
  // The right password, typed after the failures, also waits, then works.
  auto right = c.Post("/login", "password=the+right+password", "application/x-www-form-urlencoded");
  ASSERT_TRUE(right);
  EXPECT_EQ(right->status, 303);
}

TEST_F(HttpServerTest, MetricsFromElsewhereNeedTheirAddressAllowedOrABearer) {
  config::Config c = login_config("metrics password 1");
  c.http.metrics_allow = "10.0.0.0/8";
  start(c);
  EXPECT_EQ(client().Get("/metrics")->status, 401);
  auto bearer = client().Get("/metrics", {{"Authorization", "Bearer script-token-0123456789"}});
  EXPECT_EQ(bearer->status, 200);
  c.http.metrics_allow = "127.0.0.0/8";
  server_->configure(c);
  EXPECT_EQ(client().Get("/metrics")->status, 200);
}

TEST_F(HttpServerTest, TlsWithASelfSignedCertificateThatAVerifyingClientAccepts) {
  config::Config c = login_config("tls password 12");
  c.http.tls = true;
  start(c);
  const fs::path cert = state_.path() / "tls" / "cert.pem";
  ASSERT_TRUE(fs::exists(cert));
  ASSERT_TRUE(fs::exists(state_.path() / "tls" / "key.pem"));
  EXPECT_EQ(fs::status(state_.path() / "tls" / "key.pem").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
  const nlohmann::json status = server_->status();
  EXPECT_EQ(status["scheme"], "https");
  EXPECT_EQ(status["tls_fingerprint"].get<std::string>().size(), 32u * 3 - 1);

  httplib::SSLClient tls("127.0.0.1", server_->port());
  tls.set_ca_cert_path(cert.c_str());
  tls.enable_server_certificate_verification(true);
  auto login = tls.Post("/login", "password=tls+password+12", "application/x-www-form-urlencoded");
  ASSERT_TRUE(login) << httplib::to_string(login.error());
  EXPECT_EQ(login->status, 303);
  EXPECT_NE(login->get_header_value("Set-Cookie").find("Secure"), std::string::npos);
  auto api = tls.Get("/api/status", {{"Authorization", "Bearer tls password 12"}});
  ASSERT_TRUE(api);
  EXPECT_EQ(api->status, 200);

  // Plain HTTP to the TLS port gets no answer, and a client that trusts another CA refuses it.
  EXPECT_FALSE(client().Get("/api/status") && client().Get("/api/status")->status == 200);
  httplib::SSLClient strict("127.0.0.1", server_->port());
  strict.set_ca_cert_path("/etc/ssl/certs/ca-certificates.crt");
  strict.enable_server_certificate_verification(true);
  EXPECT_FALSE(strict.Get("/api/status"));

  // The same certificate at the next start, not a new one every time.
  const std::string fingerprint = status["tls_fingerprint"];
  EXPECT_TRUE(server_->stop());
  start(c);
  EXPECT_EQ(server_->status()["tls_fingerprint"], fingerprint);
}

TEST_F(HttpServerTest, TlsWithTheGivenCertificateAndClearErrorsForBadFiles) {
  // A certificate made as an administrator would bring one.
  test::TempFolder pki;
  const TlsIdentity made = self_signed_tls_identity(pki.path(), "camera.example");
  config::Config c = http_config("127.0.0.1:0");
  c.http.tls = true;
  c.http.tls_cert = pki.path() / "cert.pem";
  c.http.tls_key = pki.path() / "key.pem";
  start(c);
  EXPECT_EQ(server_->status()["tls_fingerprint"], made.fingerprint);
  EXPECT_FALSE(fs::exists(state_.path() / "tls")) << "no self-signed one when files are given";
  httplib::SSLClient tls("127.0.0.1", server_->port());
  tls.set_ca_cert_path(c.http.tls_cert.c_str());
  tls.enable_server_certificate_verification(true);
  auto r = tls.Get("/api/status");
  ASSERT_TRUE(r) << httplib::to_string(r.error());
  EXPECT_EQ(r->status, 200);
  EXPECT_TRUE(server_->stop());

  // Not PEM: no server, and the status says which file and what to do.
  std::ofstream(pki.path() / "broken.pem") << "not a certificate\n";
  c.http.tls_cert = pki.path() / "broken.pem";
  server_ = std::make_unique<HttpOutput>(events_, backend(), state_.path(), fast_limits());
  server_->configure(c);
  server_->start();
  ASSERT_TRUE(eventually([&] { return server_->status().contains("warning"); }));
  const std::string warning = server_->status()["warning"];
  EXPECT_NE(warning.find("broken.pem is not a PEM certificate"), std::string::npos) << warning;
  EXPECT_EQ(server_->port(), 0);
}

TEST_F(HttpServerTest, SlowHeadersAndIdleConnectionsAreCutOffWhileTheApiAnswers) {
  start(http_config("127.0.0.1:0"));
  // 40 clients that send a header line every 200 ms (never finishing) and 40 that send nothing.
  std::vector<std::unique_ptr<RawClient>> slow;
  std::vector<std::unique_ptr<RawClient>> idle;
  for (int i = 0; i < 40; ++i) {
    slow.push_back(
        std::make_unique<RawClient>(server_->port(), "127.0.0." + std::to_string(2 + i % 20)));
    idle.push_back(
        std::make_unique<RawClient>(server_->port(), "127.0.1." + std::to_string(2 + i % 20)));
    ASSERT_TRUE(slow.back()->connected() && idle.back()->connected());
    slow.back()->send_text("GET /api/status HTTP/1.1\r\n");
  }
  const auto t0 = Clock::now();
  int answered = 0;
  while (Clock::now() - t0 < 2500ms) {
    for (auto& s : slow) s->send_text("X-Slow: 1\r\n");
    auto r = client().Get("/api/status");
    answered += r && r->status == 200;
    std::this_thread::sleep_for(200ms);
  }
  EXPECT_GE(answered, 10) << "the API must answer beside slow clients";
  // Past the request deadline (1.5 s here) the trickling ones were cut off, however busy they
  // kept their connection; the silent ones went at the idle timeout (1 s here).
  for (auto& s : slow) EXPECT_TRUE(s->closed_by_server());
  for (auto& s : idle) EXPECT_TRUE(s->closed_by_server());
  EXPECT_GE(server_->status()["requests_cut_off"].get<int>(), 40);
  EXPECT_TRUE(eventually([&] { return server_->status()["connections"] == 0; }));
}

TEST_F(HttpServerTest, ConnectionsAreLimitedPerAddressAndInAll) {
  config::Config c = http_config("127.0.0.1:0", "", 16, 30);
  c.http.max_clients_per_address = 4;
  c.http.max_clients = 16;
  // Held connections stay while the test counts them.
  HttpLimits patient = fast_limits();
  patient.idle_timeout = 30s;
  patient.request_deadline = 30s;
  patient.busy_request_deadline = 30s;
  start(c, patient);
  std::vector<std::unique_ptr<RawClient>> held;
  for (int i = 0; i < 6; ++i) {
    held.push_back(std::make_unique<RawClient>(server_->port(), "127.0.0.9"));
  }
  std::this_thread::sleep_for(200ms);
  int refused = 0;
  for (auto& h : held) refused += h->closed_by_server() ? 1 : 0;
  EXPECT_EQ(refused, 2) << "the fifth and sixth from one address";
  EXPECT_EQ(server_->status()["refused_connections"], 2);
  held.clear();
  ASSERT_TRUE(eventually([&] { return server_->status()["connections"] == 0; }));

  // All 16 taken by clients that send nothing (4 addresses of 4): a new client still gets its
  // answer, and the connection that waited longest without a request made room for it.
  for (int a = 10; a < 14; ++a) {
    for (int i = 0; i < 4; ++i) {
      held.push_back(std::make_unique<RawClient>(server_->port(), "127.0.0." + std::to_string(a)));
      std::this_thread::sleep_for(5ms);
    }
  }
  ASSERT_TRUE(eventually([&] { return server_->status()["connections"] == 16; }));
  auto r = client().Get("/api/status");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_TRUE(held.front()->closed_by_server()) << "the oldest idle connection made room";
  EXPECT_FALSE(held.back()->closed_by_server()) << "the newest stayed";
  held.clear();
  ASSERT_TRUE(eventually([&] { return server_->status()["connections"] == 0; }));

  // All 16 being answered (streams, all from here: the per-address limit raised to let them):
  // nothing is cut for a newcomer, who is refused.
  c.http.max_clients_per_address = 16;
  const int before = server_->port();
  server_->configure(c);
  ASSERT_TRUE(eventually([&] { return server_->port() > 0 && server_->port() != before; }));
  Feeder feed(*server_, 20);
  std::vector<std::unique_ptr<test::MjpegReader>> viewers;
  for (int i = 0; i < 16; ++i) {
    viewers.push_back(std::make_unique<test::MjpegReader>("127.0.0.1", server_->port(), 1000000));
  }
  const bool all_in = eventually([&] { return server_->status()["viewers"] == 16; }, 10000ms);
  EXPECT_TRUE(all_in) << server_->status().dump();
  if (all_in) {
    RawClient late(server_->port(), "127.0.0.20");
    std::this_thread::sleep_for(100ms);
    EXPECT_TRUE(late.closed_by_server());
    EXPECT_EQ(server_->status()["viewers"], 16);
  }
}

TEST_F(HttpServerTest, AViewerThatStopsReadingMidStreamIsDropped) {
  start(http_config("127.0.0.1:0", "", 1, 30));
  Feeder feed(*server_, 30);
  {
    // A tiny receive window: the server's writes fill it at once.
    RawClient stuck(server_->port(), "127.0.0.1", 4096);
    stuck.send_text("GET /stream.mjpg HTTP/1.1\r\nHost: x\r\n\r\n");
    ASSERT_TRUE(eventually([&] { return server_->status()["viewers"] == 1; }));
    // It never reads: after the stream's write timeout (1 s here) its place is free.
    EXPECT_TRUE(eventually([&] { return server_->status()["viewers"] == 0; }, 8000ms))
        << server_->status().dump();
  }
  test::MjpegReader next("127.0.0.1", server_->port(), 3);
  EXPECT_TRUE(next.wait(5s)) << next.error();
}

TEST_F(HttpServerTest, MalformedRequestsGetAnErrorAndNothingElse) {
  start(http_config("127.0.0.1:0"));
  for (const std::string& bad :
       {std::string("GARBAGE\r\n\r\n"), std::string("GET\r\n\r\n"),
        std::string("GET /api/status HTTP/9.9\r\n\r\n"),
        "GET /" + std::string(20 * 1024, 'a') + " HTTP/1.1\r\nHost: x\r\n\r\n",
        std::string("GET /api/status HTTP/1.1\r\nHost: x\r\n") +
            "X: " + std::string(30 * 1024, 'b') + "\r\n\r\n"}) {
    RawClient c(server_->port());
    c.send_text(bad);
    EXPECT_TRUE(c.closed_by_server() || eventually([&] { return c.closed_by_server(); }, 3000ms))
        << bad.substr(0, 40);
    const std::string& answer = c.answer();
    EXPECT_TRUE(answer.empty() || answer.rfind("HTTP/1.1 4", 0) == 0 ||
                answer.rfind("HTTP/1.1 5", 0) == 0)
        << bad.substr(0, 40) << " -> " << answer.substr(0, 80);
    EXPECT_EQ(answer.find("\"fps\""), std::string::npos) << "the status went to a bad request";
  }
  EXPECT_EQ(client().Get("/api/status")->status, 200);
}

// Tracked-object events as the inference thread makes them (numbered by the event log).
tracking::ObjectEvent object_event(std::int64_t track, tracking::ObjectEventKind kind,
                                   const std::string& place = "") {
  tracking::ObjectEvent e;
  e.kind = kind;
  e.camera = "main";
  e.place = place;
  e.direction = tracking::Direction::kIn;
  e.track_id = track;
  e.class_id = 0;
  e.label = "person";
  e.box = {10, 20, 60, 120};
  e.score = 0.8f;
  e.best_score = 0.9f;
  e.wall = std::chrono::system_clock::now();
  e.frame_index = 40 + track;
  return e;
}

// `n` events added to `log` (crossings of the line "door"); their ids.
std::vector<std::int64_t> add_events(EventLog& log, int n) {
  std::vector<tracking::ObjectEvent> events;
  for (int i = 0; i < n; ++i) {
    events.push_back(object_event(i + 1, tracking::ObjectEventKind::kCross, "door"));
  }
  log.add(events);
  std::vector<std::int64_t> ids;
  for (const auto& e : events) ids.push_back(e.id);
  return ids;
}

// One camera's zone "yard" and line "door" with some counts.
std::shared_ptr<const SceneState> scene_state(std::uint64_t version = 7) {
  auto s = std::make_shared<SceneState>();
  s->camera = "main";
  config::ZoneConfig yard;
  yard.name = "yard";
  yard.camera = "main";
  yard.points = {{0.1, 0.1}, {0.5, 0.1}, {0.5, 0.5}};
  config::LineConfig door;
  door.name = "door";
  door.camera = "main";
  door.from = {0, 0.5};
  door.to = {1, 0.5};
  s->zones = {yard};
  s->lines = {door};
  tracking::PlaceCounts y;
  y.camera = "main";
  y.name = "yard";
  y.total = {{"bird", {2, 1}}};
  tracking::PlaceCounts d;
  d.camera = "main";
  d.name = "door";
  d.line = true;
  d.total = {{"person", {3, 1}}, {"bird", {1, 0}}};
  d.hours = {{"2026-11-28T08:00+01:00", {{"person", {3, 1}}}}};
  s->counts.places = {y, d};
  s->occupancy = {{"yard", 1}};
  s->version = version;
  return s;
}

std::shared_ptr<const FrameResult> tracked_result(std::int64_t index,
                                                  std::shared_ptr<const SceneState> scene) {
  auto r = std::const_pointer_cast<FrameResult>(frame_result(index, false));
  tracking::Track t;
  t.id = 7;
  t.class_id = 0;
  t.box = {10, 20, 60, 120};
  t.score = 0.8f;
  t.seen = true;
  r->tracks = {t, t};
  r->tracks[1].id = 8;
  r->tracks[1].seen = false;
  r->scene = std::move(scene);
  return r;
}

void write_file(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

// The status code of a request sent byte for byte as given (no client tidies the path).
int raw_status(int port, const std::string& path, std::string* answer = nullptr) {
  RawClient c(port);
  c.send_text("GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
  for (int i = 0; i < 25 && !c.closed_by_server(); ++i) {
  }
  if (answer) *answer = c.answer();
  if (c.answer().rfind("HTTP/1.1 ", 0) != 0) return 0;
  return std::stoi(c.answer().substr(9, 3));
}

TEST_F(HttpServerTest, EventsArePagedOldestFirstSinceAnId) {
  start(http_config("127.0.0.1:0"));
  add_events(object_events_, 250);
  auto c = client();
  const auto page = [&](const std::string& query) {
    auto r = c.Get(("/api/events" + query).c_str());
    EXPECT_TRUE(r && r->status == 200) << query << (r ? r->body : "");
    EXPECT_EQ(r->get_header_value("Content-Type"), "application/json");
    return nlohmann::json::parse(r->body);
  };
  nlohmann::json first = page("");
  ASSERT_EQ(first["events"].size(), 100u) << "100 by default";
  EXPECT_EQ(first["events"][0]["id"], 1);
  EXPECT_EQ(first["events"][99]["id"], 100);
  EXPECT_EQ(first["last_id"], 100);
  EXPECT_TRUE(first["more"].get<bool>());
  const nlohmann::json& e = first["events"][0];
  EXPECT_EQ(e["type"], "cross");
  EXPECT_EQ(e["line"], "door");
  EXPECT_EQ(e["direction"], "in");
  EXPECT_EQ(e["label"], "person");
  EXPECT_EQ(e["track_id"], 1);
  EXPECT_TRUE(e["snapshot"].is_null()) << "no file, no address";
  EXPECT_TRUE(e["clip"].is_null());

  // Following last_id reads every event once, in order.
  std::int64_t since = 0;
  std::vector<std::int64_t> seen;
  for (int pages = 0; pages < 10; ++pages) {
    const nlohmann::json p = page("?since=" + std::to_string(since) + "&limit=70");
    for (const auto& ev : p["events"]) seen.push_back(ev["id"]);
    since = p["last_id"];
    if (!p["more"].get<bool>()) break;
  }
  ASSERT_EQ(seen.size(), 250u);
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], static_cast<int>(i) + 1);

  const nlohmann::json tail = page("?since=240&limit=1000");
  EXPECT_EQ(tail["events"].size(), 10u);
  EXPECT_FALSE(tail["more"].get<bool>());
  const nlohmann::json none = page("?since=250");
  EXPECT_TRUE(none["events"].empty());
  EXPECT_EQ(none["last_id"], 250) << "nothing new: since stays where it was";
  EXPECT_FALSE(none["more"].get<bool>());

  // The snapshot's and clip's addresses once their files are there.
  const EventMedia media = event_media(state_.path(), 3);
  write_file(media.snapshot, "jpeg");
  write_file(media.clip, "avi");
  const nlohmann::json third = page("?since=2&limit=1");
  EXPECT_EQ(third["events"][0]["snapshot"], "/api/events/3/snapshot.jpg");
  EXPECT_TRUE(third["events"][0]["crop"].is_null());
  EXPECT_EQ(third["events"][0]["clip"], "/api/events/3/clip.avi");
}

TEST_F(HttpServerTest, ABadSinceOrLimitIs400SayingWhatToSend) {
  start(http_config("127.0.0.1:0"));
  add_events(object_events_, 3);
  auto c = client();
  for (const char* bad : {"?since=-1", "?since=abc", "?since=1e3", "?since=", "?since=%201",
                          "?since=0x10", "?since=99999999999999999999", "?limit=0", "?limit=1001",
                          "?limit=x", "?limit=-5", "?since=1&limit="}) {
    auto r = c.Get((std::string("/api/events") + bad).c_str());
    ASSERT_TRUE(r) << bad;
    EXPECT_EQ(r->status, 400) << bad << " " << r->body;
    const std::string error = nlohmann::json::parse(r->body)["error"];
    EXPECT_TRUE(error.find("since=") != std::string::npos ||
                error.find("limit=") != std::string::npos)
        << error;
    EXPECT_TRUE(error.find("whole number") != std::string::npos) << error;
  }
  EXPECT_EQ(c.Get("/api/events?since=0&limit=1000")->status, 200);
  EXPECT_EQ(c.Get("/api/events?limit=1")->status, 200);
}

TEST_F(HttpServerTest, ServesAnEventsFilesWithTheirTypeAnd404WhenGone) {
  start(http_config("127.0.0.1:0"));
  add_events(object_events_, 4);
  const EventMedia media = event_media(state_.path(), 3);
  const std::string jpeg = "\xff\xd8 a snapshot \xff\xd9";
  write_file(media.snapshot, jpeg);
  write_file(media.crop, "crop bytes");
  write_file(media.clip, std::string(300 * 1024, 'c'));
  auto c = client();
  auto snap = c.Get("/api/events/3/snapshot.jpg");
  ASSERT_TRUE(snap);
  EXPECT_EQ(snap->status, 200);
  EXPECT_EQ(snap->body, jpeg);
  EXPECT_EQ(snap->get_header_value("Content-Type"), "image/jpeg");
  EXPECT_EQ(snap->get_header_value("Cache-Control").rfind("private, max-age=", 0), 0u)
      << snap->get_header_value("Cache-Control");
  EXPECT_EQ(snap->get_header_value("X-Content-Type-Options"), "nosniff");
  auto crop = c.Get("/api/events/3/crop.jpg");
  ASSERT_TRUE(crop);
  EXPECT_EQ(crop->body, "crop bytes");
  auto clip = c.Get("/api/events/3/clip.avi");
  ASSERT_TRUE(clip);
  EXPECT_EQ(clip->status, 200);
  EXPECT_EQ(clip->get_header_value("Content-Type"), "video/x-msvideo");
  EXPECT_EQ(clip->body.size(), 300u * 1024);

  // No file for that event, or one the budget has removed since.
  auto none = c.Get("/api/events/4/snapshot.jpg");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 404);
  EXPECT_NE(none->body.find("event 4 has no snapshot"), std::string::npos) << none->body;
  fs::remove(media.snapshot);
  auto gone = c.Get("/api/events/3/snapshot.jpg");
  ASSERT_TRUE(gone);
  EXPECT_EQ(gone->status, 404);
  EXPECT_NE(gone->body.find("disk budget"), std::string::npos) << gone->body;
  EXPECT_EQ(c.Post("/api/events/3/clip.avi", "", "text/plain")->status, 405);
}

TEST_F(HttpServerTest, NoPathFromTheClientReachesTheDisk) {
  start(http_config("127.0.0.1:0"));
  add_events(object_events_, 3);
  // Files outside the events folder, and a link in it that points out.
  write_file(state_.path() / "secret.jpg", "SECRET-OUTSIDE");
  write_file(state_.path() / "x", "SECRET-OUTSIDE");
  write_file(event_media_dir(state_.path()) / "x", "SECRET-INSIDE-BUT-NOT-MEDIA");
  const EventMedia linked = event_media(state_.path(), 2);
  fs::create_symlink(state_.path() / "secret.jpg", linked.snapshot);
  for (const std::string path :
       {"/api/events/../x", "/api/events/../secret.jpg", "/api/events/1%2f..",
        "/api/events/1%2f..%2f..%2fsecret.jpg", "/api/events/..%2fsecret.jpg/snapshot.jpg",
        "/api/events/1/../../secret.jpg", "/api/events/x", "/api/events/1/snapshot.jpg/..",
        "/api/events/99999999999999999999/snapshot.jpg",
        "/api/events/123456789012345678901234567890/clip.avi", "/api/events/-1/snapshot.jpg",
        "/api/events/+3/snapshot.jpg", "/api/events/%33/snapshot.jpg", "/api/events//snapshot.jpg",
        "/api/events/3/snapshot.png", "/api/events/3/../secret.jpg",
        "/api/events/2/snapshot.jpg"}) {
    std::string answer;
    const int status = raw_status(server_->port(), path, &answer);
    EXPECT_TRUE(status == 404 || status == 400) << path << " -> " << answer.substr(0, 200);
    EXPECT_EQ(answer.find("SECRET"), std::string::npos) << path;
  }
  // The 404 lists what there is, the events' files among it.
  auto missing = client().Get("/api/events/../x");
  ASSERT_TRUE(missing);
  const std::string error = nlohmann::json::parse(missing->body)["error"];
  for (const char* route : {"/api/events", "/api/events/{id}/snapshot.jpg", "/api/counts",
                            "/api/counts/reset", "/api/status"}) {
    EXPECT_NE(error.find(route), std::string::npos) << route << " in " << error;
  }
}

TEST_F(HttpServerTest, EventsAndTheirFilesNeedTheLogin) {
  start(login_config("events password 1"));
  add_events(object_events_, 2);
  write_file(event_media(state_.path(), 1).snapshot, "jpeg bytes");
  auto c = client();
  for (const char* path :
       {"/api/events", "/api/events/1/snapshot.jpg", "/api/events/1/clip.avi", "/api/counts"}) {
    auto r = c.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 401) << path;
    EXPECT_EQ(r->body.find("jpeg bytes"), std::string::npos);
  }
  EXPECT_EQ(
      c.Get("/api/events/1/snapshot.jpg", {{"Authorization", "Bearer wrong password"}})->status,
      401);
  auto bearer =
      c.Get("/api/events/1/snapshot.jpg", {{"Authorization", "Bearer events password 1"}});
  ASSERT_TRUE(bearer);
  EXPECT_EQ(bearer->status, 200);
  EXPECT_EQ(bearer->body, "jpeg bytes");
  // A browser's session, as the page's <img> sends it.
  auto login = c.Post("/login", "password=events+password+1", "application/x-www-form-urlencoded");
  ASSERT_TRUE(login);
  const httplib::Headers with = {
      {"Cookie", std::string(HttpAccess::kCookie) + "=" + session_of(login)}};
  auto img = c.Get("/api/events/1/snapshot.jpg", with);
  ASSERT_TRUE(img);
  EXPECT_EQ(img->status, 200);
  EXPECT_EQ(c.Get("/api/events?since=0", with)->status, 200);
}

// An event stream's text until `done` says it has enough (or 10 s pass).
std::string read_events(httplib::Client& c, const httplib::Headers& headers,
                        const std::function<bool(const std::string&)>& done,
                        const std::function<void()>& on_start = {}) {
  std::string received;
  bool started = false;
  const auto t0 = Clock::now();
  c.Get("/api/detections", headers, [&](const char* data, std::size_t size) {
    received.append(data, size);
    if (!started && on_start) {
      started = true;
      on_start();
    }
    return !done(received) && Clock::now() - t0 < 10s;
  });
  return received;
}

// The object events in an event stream's text: id line and JSON.
std::vector<std::pair<std::int64_t, nlohmann::json>> object_events_in(const std::string& text) {
  std::vector<std::pair<std::int64_t, nlohmann::json>> out;
  std::size_t at = 0;
  while ((at = text.find("\nevent: object\ndata: ", at)) != std::string::npos) {
    const auto id_at = text.rfind("id: ", at);
    const std::int64_t id = std::stoll(text.substr(id_at + 4, at - id_at - 4));
    at += 21;
    const auto end = text.find("\n\n", at);
    if (end == std::string::npos) break;
    out.emplace_back(id, nlohmann::json::parse(text.substr(at, end - at)));
  }
  return out;
}

TEST_F(HttpServerTest, TheEventStreamCarriesEveryObjectEventWithItsIdTracksAndCounts) {
  config::Config config = http_config("127.0.0.1:0");
  config.events.snapshots = {tracking::ObjectEventKind::kCross};
  start(config);
  add_events(object_events_, 5);  // before the client: not sent to a new one
  auto c = client();
  std::thread feed;
  // 300 events while a single frame is published: events do not ride on frames, and none is
  // dropped however many come between two frames.
  const std::string text = read_events(
      c, {},
      [](const std::string& r) {
        return r.find("id: 305\n") != std::string::npos &&
               r.find("event: counts") != std::string::npos &&
               r.find("\"tracks\"") != std::string::npos;
      },
      [&] {
        feed = std::thread([&] {
          std::this_thread::sleep_for(100ms);
          add_events(object_events_, 300);
          server_->publish(tracked_result(1, scene_state()));
        });
      });
  feed.join();
  const auto events = object_events_in(text);
  ASSERT_EQ(events.size(), 300u) << text.substr(0, 2000);
  for (std::size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(events[i].first, static_cast<std::int64_t>(i) + 6);
    EXPECT_EQ(events[i].second["id"], events[i].first);
  }
  EXPECT_EQ(events[0].second["type"], "cross");
  EXPECT_EQ(events[0].second["line"], "door");
  // Crossings get a snapshot (events.snapshots): linked before it is written.
  EXPECT_EQ(events[0].second["snapshot"], "/api/events/6/snapshot.jpg");
  EXPECT_TRUE(events[0].second["clip"].is_null());

  // The frame's tracks.
  const auto d = text.find("event: detections\ndata: ");
  ASSERT_NE(d, std::string::npos);
  const nlohmann::json frame =
      nlohmann::json::parse(text.substr(d + 24, text.find("\n\n", d) - d - 24));
  ASSERT_EQ(frame["tracks"].size(), 2u);
  EXPECT_EQ(frame["tracks"][0]["id"], 7);
  EXPECT_EQ(frame["tracks"][0]["label"], "person");
  EXPECT_EQ(frame["tracks"][0]["class"], 0);
  EXPECT_EQ(frame["tracks"][0]["seen"], true);
  EXPECT_EQ(frame["tracks"][1]["seen"], false);
  EXPECT_EQ(frame["tracks"][0]["box"], nlohmann::json::array({10.0, 20.0, 60.0, 120.0}));
  // The counts, without the hours.
  const auto k = text.find("event: counts\ndata: ");
  ASSERT_NE(k, std::string::npos);
  const nlohmann::json counts =
      nlohmann::json::parse(text.substr(k + 20, text.find("\n\n", k) - k - 20));
  ASSERT_EQ(counts["places"].size(), 2u);
  EXPECT_EQ(counts["places"][1]["name"], "door");
  EXPECT_EQ(counts["places"][1]["all"]["in"], 4);
  EXPECT_FALSE(counts["places"][1].contains("hours"));
}

TEST_F(HttpServerTest, AClientComingBackWithLastEventIdGetsWhatItMissed) {
  // Room for the clients one after another (a place is free once its connection is closed).
  start(http_config("127.0.0.1:0", "", 8));
  add_events(object_events_, 12);
  auto c = client();
  // Had up to 9: gets 10, 11, 12 from the log at once, without a frame.
  const std::string text = read_events(c, {{"Last-Event-ID", "9"}}, [](const std::string& r) {
    return r.find("id: 12\n") != std::string::npos;
  });
  const auto events = object_events_in(text);
  ASSERT_EQ(events.size(), 3u) << text;
  EXPECT_EQ(events[0].first, 10);
  EXPECT_EQ(events[2].first, 12);

  // An id from before a wiped state folder (larger than any), or not a number: only new ones.
  for (const char* odd : {"999", "abc", "-3", "12/../1"}) {
    std::thread feed;
    const std::string later = read_events(
        c, {{"Last-Event-ID", odd}},
        [](const std::string& r) { return r.find("event: object") != std::string::npos; },
        [&] {
          feed = std::thread([&] {
            std::this_thread::sleep_for(100ms);
            add_events(object_events_, 1);
            server_->publish(frame_result(1, false));
          });
        });
    feed.join();
    const auto got = object_events_in(later);
    ASSERT_EQ(got.size(), 1u) << odd << ": " << later;
    EXPECT_EQ(got[0].first, object_events_.last_id()) << odd;
  }
}

TEST_F(HttpServerTest, CountsGiveEveryPlaceAndSayHoursAreLocal) {
  start(http_config("127.0.0.1:0"));
  auto c = client();
  auto off = c.Get("/api/counts");
  ASSERT_TRUE(off);
  EXPECT_EQ(off->status, 200);
  EXPECT_EQ(nlohmann::json::parse(off->body)["tracking"], false);
  EXPECT_FALSE(nlohmann::json::parse(c.Get("/api/status")->body).contains("tracking"));

  add_events(object_events_, 4);
  server_->publish(tracked_result(1, scene_state()));
  auto r = c.Get("/api/counts");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  const nlohmann::json j = nlohmann::json::parse(r->body);
  EXPECT_EQ(j["tracking"], true);
  EXPECT_EQ(j["camera"], "main");
  EXPECT_NE(j["hours_are"].get<std::string>().find("local time"), std::string::npos);
  ASSERT_EQ(j["places"].size(), 2u);
  const nlohmann::json& yard = j["places"][0];
  EXPECT_EQ(yard["name"], "yard");
  EXPECT_EQ(yard["kind"], "zone");
  EXPECT_EQ(yard["occupancy"], 1);
  EXPECT_EQ(yard["total"]["bird"]["in"], 2);
  const nlohmann::json& door = j["places"][1];
  EXPECT_EQ(door["kind"], "line");
  EXPECT_FALSE(door.contains("occupancy"));
  EXPECT_EQ(door["total"]["person"]["in"], 3);
  EXPECT_EQ(door["all"]["in"], 4);
  EXPECT_EQ(door["all"]["out"], 1);
  EXPECT_EQ(door["hours"]["2026-11-28T08:00+01:00"]["person"]["out"], 1);
  EXPECT_TRUE(door.contains("since"));

  const nlohmann::json status = nlohmann::json::parse(c.Get("/api/status")->body);
  EXPECT_EQ(status["tracking"]["active_tracks"], 2);
  EXPECT_EQ(status["tracking"]["events"], 4);
}

TEST_F(HttpServerTest, ResettingAPlacesCountsNeedsTheTokenAndAKnownPlace) {
  start(http_config("127.0.0.1:0", "reset token 0123"));
  server_->publish(tracked_result(1, scene_state()));
  ASSERT_TRUE(eventually([&] {
    auto r = client().Get("/api/counts");
    return r && nlohmann::json::parse(r->body)["tracking"] == true;
  }));
  auto c = client();
  const auto post = [&](const std::string& body, const std::string& token) {
    httplib::Headers headers;
    if (!token.empty()) headers.emplace("Authorization", "Bearer " + token);
    return c.Post("/api/counts/reset", headers, body, "application/json");
  };
  EXPECT_EQ(post(R"({"place":"door"})", "")->status, 401);
  EXPECT_EQ(post(R"({"place":"door"})", "wrong")->status, 401);
  for (const char* bad : {"{not json", "[]", "{}", R"({"place": 3})", R"({"place": ""})",
                          R"({"place": "door", "camera": 1})"}) {
    auto r = post(bad, "reset token 0123");
    ASSERT_TRUE(r) << bad;
    EXPECT_EQ(r->status, 400) << bad;
  }
  auto unknown = post(R"({"place":"gate"})", "reset token 0123");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  const std::string error = nlohmann::json::parse(unknown->body)["error"];
  EXPECT_NE(error.find("zone yard"), std::string::npos) << error;
  EXPECT_NE(error.find("line door"), std::string::npos) << error;
  EXPECT_EQ(post(R"({"place":"door","camera":"garden"})", "reset token 0123")->status, 404);
  {
    std::lock_guard lock(mutex_);
    EXPECT_TRUE(resets_.empty()) << "refused before reaching the inference thread";
  }
  auto ok = post(R"({"place":"door"})", "reset token 0123");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200) << ok->body;
  EXPECT_EQ(nlohmann::json::parse(ok->body)["place"], "door");
  std::lock_guard lock(mutex_);
  ASSERT_EQ(resets_.size(), 1u);
  EXPECT_EQ(resets_[0], std::make_pair(std::string("main"), std::string("door")));
}

TEST_F(HttpServerTest, ResettingCountsIsOffWithoutAToken) {
  start(http_config("127.0.0.1:0"));
  server_->publish(tracked_result(1, scene_state()));
  auto r = client().Post("/api/counts/reset", R"({"place":"door"})", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  std::lock_guard lock(mutex_);
  EXPECT_TRUE(resets_.empty());
}

}  // namespace
}  // namespace yolo::daemon
