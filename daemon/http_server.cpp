// SPDX-License-Identifier: Apache-2.0
#include "daemon/http_server.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <httplib.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <list>
#include <opencv2/imgcodecs.hpp>
#include <thread>
#include <vector>

#include "daemon/utc_time.h"
#include "daemon/web_assets.h"
#include "vision/annotate.h"
#include "vision/rounded.h"

namespace yolo::daemon {

using vision::rounded;

namespace {

using Clock = std::chrono::steady_clock;

// Stream and event-stream handlers look for news this often, so a stop or a vanished client is
// noticed within it.
constexpr auto kPoll = std::chrono::milliseconds(250);
// An event stream with nothing to say sends a comment this often, which also finds clients that
// left.
constexpr auto kEventKeepAlive = std::chrono::seconds(10);
// A snapshot younger than this is served as it is; an older one waits for the next frame.
constexpr auto kSnapshotFresh = std::chrono::seconds(1);
// The encoder runs below inference: under load the stream slows, never the detections.
constexpr int kEncoderNice = 10;

constexpr const char* kJson = "application/json";
constexpr const char* kBoundary = "frame";

// cpp-httplib's connection queue: named worker threads (top -H, the per-thread CPU figures), `base`
// of them always, more while every one is busy, up to `cap`: a worker is held for a whole
// connection, and 0.11 reads headers without an overall deadline, so a few slow clients would
// otherwise hold every worker. Threads beyond `base` end after a while idle.
class WorkerPool : public httplib::TaskQueue {
 public:
  WorkerPool(int base, int cap) : base_(base), cap_(std::max(base, cap)) {
    std::lock_guard lock(mutex_);
    for (int i = 0; i < base_; ++i) spawn();
  }
  ~WorkerPool() override { WorkerPool::shutdown(); }

  void enqueue(std::function<void()> job) override {
    {
      std::lock_guard lock(mutex_);
      jobs_.push_back(std::move(job));
      reap();
      if (idle_ < static_cast<int>(jobs_.size()) && total_ < cap_) spawn();
    }
    ready_.notify_one();
  }

  // Runs what is queued (each job closes its connection at once once the server stopped) and
  // joins the threads.
  void shutdown() override {
    std::list<std::thread> threads;
    {
      std::lock_guard lock(mutex_);
      if (shut_) return;
      shut_ = true;
      threads.swap(threads_);
    }
    ready_.notify_all();
    for (auto& t : threads) t.join();
  }

 private:
  // A surplus worker idle this long ends.
  static constexpr auto kIdleEnd = std::chrono::seconds(10);

  void spawn() {
    ++total_;
    const std::string name = "http-" + std::to_string(next_name_++);
    threads_.emplace_back([this, name] {
      pthread_setname_np(pthread_self(), name.c_str());
      run();
    });
  }

  // Joins the surplus workers that ended (they no longer need the lock to finish).
  void reap() {
    for (const std::thread::id id : ended_) {
      const auto it = std::find_if(threads_.begin(), threads_.end(),
                                   [&](const std::thread& t) { return t.get_id() == id; });
      if (it == threads_.end()) continue;
      it->join();
      threads_.erase(it);
    }
    ended_.clear();
  }

  void run() {
    std::unique_lock lock(mutex_);
    for (;;) {
      ++idle_;
      const bool woken = ready_.wait_for(lock, kIdleEnd, [&] { return shut_ || !jobs_.empty(); });
      --idle_;
      if (jobs_.empty()) {
        if (shut_ || (!woken && total_ > base_)) break;
        continue;
      }
      std::function<void()> job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      job();
      lock.lock();
    }
    --total_;
    if (!shut_) ended_.push_back(std::this_thread::get_id());
  }

  const int base_;
  const int cap_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> jobs_;
  std::list<std::thread> threads_;
  std::vector<std::thread::id> ended_;
  int total_ = 0;
  int idle_ = 0;
  int next_name_ = 0;
  bool shut_ = false;
};

std::string error_json(const std::string& message) {
  return nlohmann::json{{"error", message}}.dump() + "\n";
}

void reply_error(httplib::Response& res, int status, const std::string& message) {
  res.status = status;
  res.set_content(error_json(message), kJson);
}

// "0.0.0.0:8080" -> host and port; the schema has checked the form.
std::pair<std::string, int> split_listen(const std::string& listen) {
  const auto colon = listen.rfind(':');
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return {host, std::stoi(listen.substr(colon + 1))};
}

nlohmann::json detections_json(const FrameResult& r) {
  nlohmann::json list = nlohmann::json::array();
  for (const vision::Detection& d : r.detections) {
    list.push_back(
        {{"label", r.model ? r.model->names.name(d.class_id) : std::to_string(d.class_id)},
         {"class_id", d.class_id},
         {"score", rounded(d.score, 0.001)},
         {"box",
          {rounded(d.box.x1, 0.1), rounded(d.box.y1, 0.1), rounded(d.box.x2, 0.1),
           rounded(d.box.y2, 0.1)}}});
  }
  nlohmann::json j = {{"frame", r.index},
                      {"time", iso8601_utc(r.wall)},
                      {"latency_ms",
                       {{"inference", rounded(r.times.inference_ms, 0.01)},
                        {"end_to_end", rounded(r.times.end_to_end_ms, 0.01)}}},
                      {"detections", std::move(list)}};
  if (r.model) {
    j["model"] = r.model->name;
    j["precision"] = r.model->precision;
  }
  if (r.frame && !r.frame->empty()) j["size"] = {r.frame->cols, r.frame->rows};
  return j;
}

// Holds one of the max_viewers places for as long as a stream lasts.
class ClientPlace {
 public:
  explicit ClientPlace(std::atomic<int>& count) : count_(count) { ++count_; }
  ~ClientPlace() { --count_; }
  ClientPlace(const ClientPlace&) = delete;
  ClientPlace& operator=(const ClientPlace&) = delete;

 private:
  std::atomic<int>& count_;
};

}  // namespace

bool same_secret(std::string_view a, std::string_view b) {
  // Comparing digests makes the time independent of the lengths as well as the bytes.
  unsigned char da[EVP_MAX_MD_SIZE];
  unsigned char db[EVP_MAX_MD_SIZE];
  unsigned int na = 0;
  unsigned int nb = 0;
  if (EVP_Digest(a.data(), a.size(), da, &na, EVP_sha256(), nullptr) != 1 ||
      EVP_Digest(b.data(), b.size(), db, &nb, EVP_sha256(), nullptr) != 1 || na != nb) {
    return false;
  }
  return CRYPTO_memcmp(da, db, na) == 0;
}

// The routes, bound to one server instance.
class HttpServer::Handlers {
 public:
  Handlers(HttpServer& owner, httplib::Server& server) : owner_(owner) {
    server.Get("/", [this](const auto& req, auto& res) { page(req, res); });
    server.Get("/index.html", [this](const auto& req, auto& res) { page(req, res); });
    server.Get("/stream.mjpg", [this](const auto& req, auto& res) { stream(req, res); });
    server.Get("/snapshot.jpg", [this](const auto& req, auto& res) { snapshot(req, res); });
    server.Get("/api/status", [this](const auto& req, auto& res) { status(req, res); });
    server.Get("/api/detections", [this](const auto& req, auto& res) { detections(req, res); });
    server.Get("/metrics", [this](const auto& req, auto& res) { metrics(req, res); });
    server.Post("/api/precision", [this](const auto& req, auto& res) { precision(req, res); });
    server.Post("/api/reload", [this](const auto& req, auto& res) { reload(req, res); });
    for (const char* path : {"/", "/index.html", "/stream.mjpg", "/snapshot.jpg", "/api/status",
                             "/api/detections", "/metrics"}) {
      server.Post(path, [](const auto&, auto& res) { not_allowed(res, "GET"); });
      server.Put(path, [](const auto&, auto& res) { not_allowed(res, "GET"); });
      server.Delete(path, [](const auto&, auto& res) { not_allowed(res, "GET"); });
    }
    for (const char* path : {"/api/precision", "/api/reload"}) {
      server.Get(path, [](const auto&, auto& res) { not_allowed(res, "POST"); });
      server.Put(path, [](const auto&, auto& res) { not_allowed(res, "POST"); });
      server.Delete(path, [](const auto&, auto& res) { not_allowed(res, "POST"); });
    }
  }

 private:
  static void not_allowed(httplib::Response& res, const char* allowed) {
    res.set_header("Allow", allowed);
    reply_error(res, 405, std::string("this address only answers ") + allowed);
  }

  void page(const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-cache");
    res.set_header("Content-Security-Policy",
                   "default-src 'self'; style-src 'self' 'unsafe-inline'; "
                   "script-src 'self' 'unsafe-inline'; img-src 'self' data:");
    res.set_content(std::string(web::index_html()), "text/html; charset=utf-8");
  }

  // A place for a long-lived client, or a 503 saying why there is none.
  std::shared_ptr<ClientPlace> take_place(httplib::Response& res, std::atomic<int>& count) {
    const int cap = owner_.settings().max_viewers;
    if (owner_.viewers_.load() + owner_.event_clients_.load() >= cap) {
      ++owner_.refused_;
      res.set_header("Retry-After", "10");
      reply_error(res, 503,
                  "too many viewers: " + std::to_string(cap) +
                      " streams are open (http.max_viewers); close one or raise the setting");
      return nullptr;
    }
    return std::make_shared<ClientPlace>(count);
  }

  void stream(const httplib::Request&, httplib::Response& res) {
    auto place = take_place(res, owner_.viewers_);
    if (!place) return;
    owner_.wake_.notify_all();
    res.set_header("Cache-Control", "no-store");
    res.set_header("Pragma", "no-cache");
    res.set_content_provider(
        std::string("multipart/x-mixed-replace; boundary=") + kBoundary,
        [this, place, sent = std::uint64_t{0}](std::size_t, httplib::DataSink& sink) mutable {
          const auto frames = owner_.jpegs_.wait_after(sent, kPoll);
          if (frames.empty()) return sink.is_writable() && !owner_.stopped();
          const auto& [number, jpeg] = frames.back();
          sent = number;
          char head[128];
          const int n = std::snprintf(head, sizeof head,
                                      "--%s\r\nContent-Type: image/jpeg\r\nContent-Length: "
                                      "%zu\r\n\r\n",
                                      kBoundary, jpeg->size());
          return sink.write(head, static_cast<std::size_t>(n)) &&
                 sink.write(jpeg->data(), jpeg->size()) && sink.write("\r\n", 2);
        });
  }

  void snapshot(const httplib::Request&, httplib::Response& res) {
    auto [number, jpeg] = owner_.jpegs_.newest();
    const bool fresh = jpeg && Clock::now() - owner_.encoded_at() < kSnapshotFresh;
    if (!fresh) {
      // An old frame is not a snapshot: the next one is, or none.
      jpeg = nullptr;
      ++owner_.snapshot_waiters_;
      const auto deadline = Clock::now() + owner_.limits_.snapshot_wait;
      while (Clock::now() < deadline && !owner_.stopped()) {
        const auto frames = owner_.jpegs_.wait_after(number, kPoll);
        if (!frames.empty()) {
          jpeg = frames.back().second;
          break;
        }
      }
      --owner_.snapshot_waiters_;
    }
    if (!jpeg) {
      std::string why = "no frame in the last " +
                        std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                           owner_.limits_.snapshot_wait)
                                           .count()) +
                        " s";
      if (const auto status = owner_.backend_.status()) {
        const nlohmann::json& source = (*status)["source"];
        why += ": the source is " + source.value("state", std::string("unknown"));
        if (source.contains("last_error")) {
          why += " (" + source["last_error"].get<std::string>() + ")";
        }
      }
      res.set_header("Retry-After", "5");
      reply_error(res, 503, why);
      return;
    }
    res.set_header("Cache-Control", "no-store");
    res.set_content(std::string(*jpeg), "image/jpeg");
  }

  void status(const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-store");
    const auto status = owner_.backend_.status();
    if (!status) {
      reply_error(res, 503, "starting: no status yet");
      return;
    }
    res.set_content(status->dump() + "\n", kJson);
  }

  void detections(const httplib::Request&, httplib::Response& res) {
    auto place = take_place(res, owner_.event_clients_);
    if (!place) return;
    owner_.wake_.notify_all();
    res.set_header("Cache-Control", "no-store");
    res.set_header("X-Accel-Buffering", "no");
    res.set_content_provider("text/event-stream",
                             [this, place, sent = owner_.events_out_.last(), quiet = Clock::now(),
                              hello = true](std::size_t, httplib::DataSink& sink) mutable {
                               if (hello) {
                                 hello = false;
                                 // Browsers reconnect after this many milliseconds when the stream
                                 // breaks.
                                 const std::string retry = "retry: 2000\n\n";
                                 return sink.write(retry.data(), retry.size());
                               }
                               const auto events = owner_.events_out_.wait_after(sent, kPoll);
                               if (events.empty()) {
                                 if (owner_.stopped() || !sink.is_writable()) return false;
                                 if (Clock::now() - quiet < kEventKeepAlive) return true;
                                 quiet = Clock::now();
                                 const std::string ping = ": keep-alive\n\n";
                                 return sink.write(ping.data(), ping.size());
                               }
                               quiet = Clock::now();
                               for (const auto& [number, text] : events) {
                                 sent = number;
                                 if (!sink.write(text->data(), text->size())) return false;
                               }
                               return true;
                             });
  }

  void metrics(const httplib::Request&, httplib::Response& res) {
    res.set_header("Cache-Control", "no-store");
    res.set_content(owner_.backend_.metrics(), "text/plain; version=0.0.4; charset=utf-8");
  }

  // The bearer token check; false (and the reply written) when the request may not change
  // anything.
  bool authorized(const httplib::Request& req, httplib::Response& res) {
    const std::string token = owner_.settings().token;
    if (token.empty()) {
      reply_error(res, 403,
                  "changing the daemon over HTTP is off: set http.token in the config to a long "
                  "random secret and send it as 'Authorization: Bearer <token>'");
      return false;
    }
    const std::string header = req.get_header_value("Authorization");
    constexpr std::string_view kBearer = "Bearer ";
    const bool bearer = header.size() > kBearer.size() && header.starts_with(kBearer);
    if (!bearer || !same_secret(std::string_view(header).substr(kBearer.size()), token)) {
      res.set_header("WWW-Authenticate", "Bearer realm=\"yolo-edge\"");
      reply_error(
          res, 401,
          bearer ? "wrong token (http.token)" : "this needs 'Authorization: Bearer <http.token>'");
      return false;
    }
    return true;
  }

  void control(const httplib::Request& req, httplib::Response& res, ControlRequest request) {
    request.origin = req.method + " " + req.path + " from " + req.remote_addr;
    const auto reply = owner_.backend_.control(std::move(request), owner_.limits_.control_timeout);
    if (!reply) {
      reply_error(res, 504, "the daemon did not answer in time; see its log");
      return;
    }
    const nlohmann::json body = {{"ok", reply->outcome == ControlReply::Outcome::kApplied},
                                 {"message", reply->message},
                                 {"changed", reply->changed}};
    res.status = reply->outcome == ControlReply::Outcome::kApplied   ? 200
                 : reply->outcome == ControlReply::Outcome::kRefused ? 422
                                                                     : 503;
    res.set_content(body.dump() + "\n", kJson);
  }

  void precision(const httplib::Request& req, httplib::Response& res) {
    if (!authorized(req, res)) return;
    const nlohmann::json body = nlohmann::json::parse(req.body, nullptr, false);
    if (body.is_discarded() || !body.is_object()) {
      reply_error(res, 400, "the body must be JSON like {\"precision\": \"int8\"}");
      return;
    }
    const auto it = body.find("precision");
    if (it == body.end() || !it->is_string()) {
      reply_error(res, 400,
                  "missing \"precision\": send {\"precision\": \"fp32\"} or {\"precision\": "
                  "\"int8\"}");
      return;
    }
    control(req, res, {ControlRequest::Kind::kPrecision, it->get<std::string>(), {}});
  }

  void reload(const httplib::Request& req, httplib::Response& res) {
    if (!authorized(req, res)) return;
    control(req, res, {ControlRequest::Kind::kReload, {}, {}});
  }

  HttpServer& owner_;
};

HttpServer::HttpServer(Events& events, HttpBackend backend, HttpLimits limits)
    : events_(events), backend_(std::move(backend)), limits_(limits) {}

HttpServer::~HttpServer() {
  HttpServer::stop();
}

HttpServer::Settings HttpServer::settings() const {
  std::lock_guard lock(mutex_);
  return settings_;
}

bool HttpServer::stopped() const {
  std::lock_guard lock(mutex_);
  return stopping_;
}

Clock::time_point HttpServer::encoded_at() const {
  std::lock_guard lock(mutex_);
  return encoded_at_;
}

void HttpServer::configure(const config::Config& config) {
  std::lock_guard lock(mutex_);
  const bool moved = config.http.listen != settings_.listen;
  settings_ = {config.http.listen, config.http.token, config.http.max_fps, config.http.jpeg_quality,
               config.http.max_viewers};
  if (moved) rebind_ = true;
  wake_.notify_all();
}

void HttpServer::start() {
  listener_.start("http-listen", [this] { listen_loop(); });
  encoder_.start("http-encode", [this] { encode_loop(); });
}

void HttpServer::listen_loop() {
  for (;;) {
    Settings s;
    {
      std::unique_lock lock(mutex_);
      if (stopping_) return;
      rebind_ = false;
      s = settings_;
    }
    port_ = 0;
    if (s.listen.empty()) {
      std::unique_lock lock(mutex_);
      bound_to_.clear();
      warning_.clear();
      wake_.wait(lock, [&] { return stopping_ || rebind_; });
      continue;
    }
    httplib::Server server;
    const int base = s.max_viewers + limits_.spare_workers;
    const int cap = s.max_viewers + limits_.max_workers;
    server.new_task_queue = [base, cap] { return new WorkerPool(base, cap); };
    server.set_read_timeout(
        std::chrono::duration_cast<std::chrono::microseconds>(limits_.read_timeout));
    server.set_write_timeout(
        std::chrono::duration_cast<std::chrono::microseconds>(limits_.write_timeout));
    // One request per connection: an idle kept-alive connection would hold one of the fixed
    // workers.
    server.set_keep_alive_max_count(1);
    server.set_keep_alive_timeout(std::max<time_t>(
        1, std::chrono::duration_cast<std::chrono::seconds>(limits_.read_timeout).count()));
    server.set_payload_max_length(limits_.max_body);
    server.set_default_headers({{"X-Content-Type-Options", "nosniff"}});
    server.set_logger([this](const httplib::Request&, const httplib::Response&) { ++requests_; });
    server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
      if (!res.body.empty()) return;
      if (res.status == 404) {
        reply_error(res, 404,
                    "nothing at " + req.path +
                        "; the page is /, the stream /stream.mjpg, the API /api/status, "
                        "/api/detections, /snapshot.jpg and /metrics");
      } else {
        reply_error(res, res.status,
                    res.status == 413   ? "request body too large"
                    : res.status == 414 ? "request address too long"
                                        : "bad request");
      }
    });
    server.set_exception_handler(
        [this](const httplib::Request& req, httplib::Response& res, std::exception_ptr e) {
          std::string what = "unknown error";
          try {
            std::rethrow_exception(e);
          } catch (const std::exception& ex) {
            what = ex.what();
          } catch (...) {
          }
          events_.log().warning("http: " + req.method + " " + req.path + " failed: " + what);
          reply_error(res, 500, "internal error: " + what);
        });
    Handlers handlers(*this, server);

    const auto [host, port] = split_listen(s.listen);
    const bool bound = port == 0 ? (port_ = server.bind_to_any_port(host)) > 0
                                 : (port_ = port, server.bind_to_port(host, port));
    if (!bound) {
      port_ = 0;
      std::unique_lock lock(mutex_);
      const std::string warning = "cannot listen on " + s.listen +
                                  " (in use by another program, or not an address of this "
                                  "machine); set http.listen, retrying every " +
                                  std::to_string(limits_.bind_retry.count() / 1000) + " s";
      if (warning != warning_) events_.log().warning("http: " + warning);
      warning_ = warning;
      wake_.wait_for(lock, limits_.bind_retry, [&] { return stopping_ || rebind_; });
      continue;
    }
    {
      std::lock_guard lock(mutex_);
      warning_.clear();
      bound_to_ = host + ":" + std::to_string(port_.load());
      jpegs_.reopen();
      events_out_.reopen();
    }
    events_.log().info("http: serving http://" + bound_to_ + "/ (the page), /stream.mjpg, " +
                       "/api/status, /api/detections, /metrics");
    serve(server);
  }
}

void HttpServer::serve(httplib::Server& server) {
  // listen_after_bind() blocks, and a stop() that comes before it has started is lost; so it
  // runs on its own thread and this one stops it, again until it has returned.
  std::atomic<bool> done = false;
  std::thread serving([&] {
    pthread_setname_np(pthread_self(), "http-accept");
    server.listen_after_bind();
    done = true;
  });
  {
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [&] { return stopping_ || rebind_; });
  }
  while (!done) {
    server.stop();
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  serving.join();
}

void HttpServer::publish(std::shared_ptr<const FrameResult> result) {
  if (event_clients_.load() == 0 && !result->frame) return;
  {
    std::lock_guard lock(mutex_);
    latest_ = std::move(result);
  }
  wake_.notify_all();
}

void HttpServer::stats(const nlohmann::json& status) {
  std::string text;
  if (status.contains("model")) {
    std::string precision = status["model"].value("precision", "");
    std::transform(precision.begin(), precision.end(), precision.begin(), ::toupper);
    text = precision + " " + status["model"].value("name", "");
  }
  if (status.contains("threads")) {
    const int n = status["threads"].value("count", 0);
    text += " " + std::to_string(n) + (n == 1 ? " thread" : " threads");
  }
  char fps[32];
  std::snprintf(fps, sizeof fps, " %.1f fps", status.value("fps", 0.0));
  text += fps;
  if (status.contains("temperature_c")) {
    char temp[32];
    std::snprintf(temp, sizeof temp, " %.0f C", status["temperature_c"].get<double>());
    text += temp;
  }
  std::lock_guard lock(mutex_);
  overlay_ = std::move(text);
}

bool HttpServer::wants_frame() const {
  return viewers_.load() > 0 || snapshot_waiters_.load() > 0;
}

std::shared_ptr<const std::string> HttpServer::encode(const FrameResult& result,
                                                      const Settings& s) const {
  cv::Mat image = result.frame->clone();
  if (result.model) vision::annotate(image, result.detections, result.model->names);
  std::string overlay;
  {
    std::lock_guard lock(mutex_);
    overlay = overlay_;
  }
  if (!overlay.empty()) vision::draw_status(image, overlay);
  std::vector<unsigned char> bytes;
  if (!cv::imencode(".jpg", image, bytes, {cv::IMWRITE_JPEG_QUALITY, s.jpeg_quality})) {
    return nullptr;
  }
  return std::make_shared<const std::string>(bytes.begin(), bytes.end());
}

void HttpServer::encode_loop() {
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), kEncoderNice);
  Clock::time_point due{};
  std::deque<Clock::time_point> recent;
  for (;;) {
    std::shared_ptr<const FrameResult> result;
    Settings s;
    {
      std::unique_lock lock(mutex_);
      wake_.wait_for(lock, kPoll, [&] { return stopping_ || latest_; });
      if (stopping_) return;
      result = std::move(latest_);
      latest_.reset();
      s = settings_;
    }
    const auto now = Clock::now();
    while (!recent.empty() && now - recent.front() > std::chrono::seconds(3)) recent.pop_front();
    stream_fps_ = recent.size() < 2 ? 0.0 : static_cast<double>(recent.size()) / 3.0;
    if (!result) continue;
    if (event_clients_.load() > 0) {
      auto text = std::make_shared<const std::string>(
          "id: " + std::to_string(result->index) +
          "\nevent: detections\ndata: " + detections_json(*result).dump() + "\n\n");
      events_out_.push(std::move(text));
    }
    if (!result->frame || result->frame->empty() || !wants_frame()) continue;
    // Paced to max_fps on a schedule, so frames arriving a little faster than it are not halved.
    const auto period =
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(1.0 / s.max_fps));
    if (now < due - period / 10) continue;
    due = now - due > period ? now + period : due + period;
    if (auto jpeg = encode(*result, s)) {
      {
        std::lock_guard lock(mutex_);
        encoded_at_ = Clock::now();
      }
      jpegs_.push(std::move(jpeg));
      ++frames_encoded_;
      recent.push_back(now);
    }
  }
}

nlohmann::json HttpServer::status() const {
  std::lock_guard lock(mutex_);
  nlohmann::json j = {{"ok", warning_.empty()},
                      {"listen", settings_.listen},
                      {"port", port_.load()},
                      {"viewers", viewers_.load()},
                      {"event_clients", event_clients_.load()},
                      {"frames_encoded", frames_encoded_.load()},
                      {"stream_fps", rounded(stream_fps_.load(), 0.1)},
                      {"requests", requests_.load()},
                      {"refused", refused_.load()}};
  if (!warning_.empty()) j["warning"] = warning_;
  return j;
}

bool HttpServer::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && !listener_.running() && !encoder_.running()) return true;
    stopping_ = true;
  }
  wake_.notify_all();
  jpegs_.close();
  events_out_.close();
  const auto budget = limits_.write_timeout + std::chrono::milliseconds(500);
  const bool listener = listener_.stop_within(budget);
  const bool encoder = encoder_.stop_within(budget);
  return listener && encoder;
}

}  // namespace yolo::daemon
