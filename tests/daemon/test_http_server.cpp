// SPDX-License-Identifier: Apache-2.0
// The HTTP server on a real socket with a real client (cpp-httplib's), fed frames the way the
// inference thread feeds it; the daemon's other parts are replaced by what the server asks of
// them (HttpBackend). The whole daemon behind it is tested in test_live_view.cpp.
#include "daemon/http_server.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <httplib.h>
#include <atomic>
#include <chrono>
#include <mutex>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <thread>

#include "tests/daemon/mjpeg_reader.h"
#include "tests/support/temp_folder.h"

namespace yolo::daemon {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

template <class F>
bool eventually(F&& condition, std::chrono::milliseconds limit = 5000ms) {
  const auto deadline = Clock::now() + limit;
  while (Clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return condition();
}

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
  model->precision = "fp32";
  model->names = vision::ClassNames({"person", "bird"});
  auto r = std::make_shared<FrameResult>();
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

class HttpServerTest : public ::testing::Test {
 protected:
  // The server may close a connection while a client still sends (a body refused at once): the
  // client gets EPIPE, as the daemon's own sockets do, not a process-ending signal.
  static void SetUpTestSuite() { signal(SIGPIPE, SIG_IGN); }

  void start(const config::Config& config, HttpLimits limits = fast_limits()) {
    server_ = std::make_unique<HttpServer>(events_, backend(), state_.path(), limits);
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
      return std::make_shared<const nlohmann::json>(
          nlohmann::json{{"state", "running"}, {"fps", 9.5}, {"source", {{"state", source_}}}});
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
    return b;
  }

  httplib::Client client() {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(5s);
    return c;
  }

  // Publishes frames at `fps` until `stop` is set.
  std::thread feeder(std::atomic<bool>& stop, double fps = 50) {
    return std::thread([this, &stop, fps] {
      std::int64_t i = 0;
      while (!stop) {
        server_->publish(frame_result(i++, server_->wants_frame()));
        std::this_thread::sleep_for(std::chrono::duration<double>(1.0 / fps));
      }
    });
  }

  void TearDown() override {
    if (server_) {
      EXPECT_TRUE(server_->stop());
    }
  }

  Logger log_{Logger::Sink::kStderr, config::LogLevel::kError};
  Events events_{log_};
  test::TempFolder state_;
  std::unique_ptr<HttpServer> server_;
  std::string source_ = "streaming";
  std::mutex mutex_;
  std::vector<ControlRequest> requests_;
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
  EXPECT_FALSE(server_->wants_frame()) << "no viewer, no pixels";
  std::atomic<bool> stop = false;
  std::thread feed = feeder(stop, 50);

  std::vector<std::unique_ptr<test::MjpegReader>> viewers;
  for (int i = 0; i < 3; ++i) {
    viewers.push_back(std::make_unique<test::MjpegReader>("127.0.0.1", server_->port(), 10));
  }
  for (auto& v : viewers) ASSERT_TRUE(v->wait(10s)) << v->error();
  stop = true;
  feed.join();

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
  EXPECT_TRUE(eventually([&] { return !server_->wants_frame(); }, 3000ms))
      << "viewers left, pixels no longer wanted";
}

TEST_F(HttpServerTest, PacesTheStreamToMaxFps) {
  start(http_config("127.0.0.1:0", "", 2, 5));
  std::atomic<bool> stop = false;
  std::thread feed = feeder(stop, 40);
  test::MjpegReader viewer("127.0.0.1", server_->port(), 1000);
  std::this_thread::sleep_for(300ms);
  const auto before = server_->status()["frames_encoded"].get<std::uint64_t>();
  std::this_thread::sleep_for(2000ms);
  const auto after = server_->status()["frames_encoded"].get<std::uint64_t>();
  stop = true;
  feed.join();
  // 5 a second over 2 s, give or take the edges.
  EXPECT_GE(after - before, 8u);
  EXPECT_LE(after - before, 12u);
}

TEST_F(HttpServerTest, CapsStreamClientsAndStillAnswersTheApi) {
  start(http_config("127.0.0.1:0", "", 2, 10));
  std::atomic<bool> stop = false;
  std::thread feed = feeder(stop, 20);
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
  stop = true;
  feed.join();
}

TEST_F(HttpServerTest, AViewerThatVanishesFreesItsPlace) {
  start(http_config("127.0.0.1:0", "", 1, 10));
  std::atomic<bool> stop = false;
  std::thread feed = feeder(stop, 20);
  {
    test::MjpegReader gone("127.0.0.1", server_->port(), 2);
    ASSERT_TRUE(gone.wait(5s)) << gone.error();
  }
  EXPECT_TRUE(eventually([&] { return server_->status()["viewers"] == 0; }, 3000ms));
  test::MjpegReader next("127.0.0.1", server_->port(), 2);
  EXPECT_TRUE(next.wait(5s)) << next.error();
  stop = true;
  feed.join();
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
    return received.find("id: 109\n") == std::string::npos;
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
}

TEST_F(HttpServerTest, SnapshotIsTheNextFrameOr503WithTheReason) {
  start(http_config("127.0.0.1:0"));
  auto c = client();
  c.set_read_timeout(10s);
  std::atomic<bool> stop = false;
  std::thread feed = feeder(stop, 20);
  auto snap = c.Get("/snapshot.jpg");
  stop = true;
  feed.join();
  ASSERT_TRUE(snap);
  ASSERT_EQ(snap->status, 200);
  EXPECT_EQ(snap->get_header_value("Content-Type"), "image/jpeg");
  EXPECT_FALSE(
      cv::imdecode(std::vector<unsigned char>(snap->body.begin(), snap->body.end()), 1).empty());

  source_ = "lost";
  std::this_thread::sleep_for(1100ms);
  auto none = c.Get("/snapshot.jpg");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 503);
  EXPECT_NE(none->body.find("the source is lost"), std::string::npos) << none->body;
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

  server_ = std::make_unique<HttpServer>(events_, backend(), state_.path(), fast_limits());
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
  std::atomic<bool> stop = false;
  std::thread feed = feeder(stop, 20);
  test::MjpegReader viewer("127.0.0.1", server_->port(), 100000);
  ASSERT_TRUE(eventually([&] { return server_->status()["viewers"] == 1; }));
  stop = true;
  feed.join();
  const auto t0 = Clock::now();
  EXPECT_TRUE(server_->stop());
  EXPECT_LT(Clock::now() - t0, 2000ms);
}

}  // namespace
}  // namespace yolo::daemon
