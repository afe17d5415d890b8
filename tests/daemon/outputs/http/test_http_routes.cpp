// SPDX-License-Identifier: Apache-2.0
// The route table against what docs/live-view.md documents, and every row of it on a real server:
// the access it needs, 405 for a method it does not answer, 404 for a path it has not.
#include "daemon/outputs/http/http_routes.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <httplib.h>
#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "daemon/outputs/http/http_output.h"
#include "tests/support/temp_folder.h"
#include "tests/support/tree_paths.h"

namespace yolo::daemon {
namespace {

using namespace std::chrono_literals;
using http::Access;

// A route as documented: its methods ("GET", "GET POST") and its path as the table writes it.
struct Documented {
  std::string methods;
  std::string path;
};

// The rows of docs/live-view.md's table of paths ("| `GET /api/events?since=ID&limit=N` | ...",
// "| `GET /api/events/ID/snapshot.jpg`, `crop.jpg`, `clip.avi` | ...", "| `GET, POST /login` |").
std::vector<Documented> documented_routes() {
  std::ifstream in(test::source_dir() / "docs" / "live-view.md");
  std::vector<Documented> out;
  std::string line;
  bool in_table = false;
  const std::regex code("`([^`]+)`");
  while (std::getline(in, line)) {
    if (line.starts_with("| path | what it gives |")) {
      in_table = true;
      continue;
    }
    if (!in_table || line.starts_with("| ---")) continue;
    if (!line.starts_with("|")) break;
    const std::string cell = line.substr(1, line.find('|', 1) - 1);
    std::string methods;
    std::string path;
    for (std::sregex_iterator it(cell.begin(), cell.end(), code), end; it != end; ++it) {
      const std::string text = (*it)[1];
      if (text.find(' ') == std::string::npos) {
        // Another file beside the previous path: `crop.jpg`.
        path = path.substr(0, path.rfind('/') + 1) + text;
      } else {
        methods = text.substr(0, text.rfind(' '));
        path = text.substr(text.rfind(' ') + 1);
        methods = std::regex_replace(methods, std::regex(", "), " ");
        path = path.substr(0, path.find('?'));
        path = std::regex_replace(path, std::regex("/ID/"), "/{id}/");
        path = std::regex_replace(path, std::regex("/NAME/"), "/{camera}/");
      }
      out.push_back({methods, path});
    }
  }
  return out;
}

// A route's path as a client asks it: an event's id 7, the camera main.
std::string asked_path(const http::Route& r) {
  return std::regex_replace(std::regex_replace(std::string(r.path), std::regex("\\{id\\}"), "7"),
                            std::regex("\\{camera\\}"), "main");
}

const http::Route* row(std::string_view path) {
  for (const http::Route& r : http::routes()) {
    if (r.path == path) return &r;
  }
  return nullptr;
}

// Who may ask for each path, as docs/live-view.md says ("Who may watch"): viewing needs a
// credential, the page answers with the login form, the login is open, changing the daemon needs
// control access, and /metrics is also open to http.metrics_allow.
Access documented_access(std::string_view path) {
  static const std::map<std::string_view, Access> kNotView = {
      {"/", Access::kPage},
      {"/index.html", Access::kPage},
      {"/login", Access::kPublic},
      {"/logout", Access::kPublic},
      {"/metrics", Access::kMetrics},
      {"/api/precision", Access::kControl},
      {"/api/reload", Access::kControl},
      {"/api/counts/reset", Access::kControl},
  };
  const auto it = kNotView.find(path);
  return it == kNotView.end() ? Access::kView : it->second;
}

TEST(HttpRoutes, EveryDocumentedRouteIsInTheTableWithItsMethods) {
  const std::vector<Documented> documented = documented_routes();
  ASSERT_GE(documented.size(), 16u) << "the table in docs/live-view.md was not found";
  std::set<std::string> paths;
  for (const Documented& d : documented) {
    paths.insert(d.path);
    const http::Route* r = row(d.path);
    ASSERT_NE(r, nullptr) << d.path << " is documented but not served";
    EXPECT_EQ(r->methods, d.methods) << d.path;
  }
  // And the other way: only the page's second name goes undocumented.
  for (const http::Route& r : http::routes()) {
    if (r.path != "/index.html") {
      EXPECT_TRUE(paths.count(std::string(r.path))) << r.path << " is served but not documented";
    }
  }
}

TEST(HttpRoutes, EachRouteNeedsTheAccessTheDocsSay) {
  for (const http::Route& r : http::routes()) {
    EXPECT_EQ(r.access, documented_access(r.path)) << r.path;
  }
}

TEST(HttpRoutes, EachPathIsWrittenOnceAndAnsweredByItsRow) {
  std::set<std::string_view> paths;
  for (const http::Route& r : http::routes()) {
    EXPECT_TRUE(paths.insert(r.path).second) << r.path << " twice";
    EXPECT_NE(r.handler, nullptr) << r.path;
    const std::string asked = asked_path(r);
    const http::Match match = http::route_of(asked);
    EXPECT_EQ(match.route, &r) << asked;
  }
}

TEST(HttpRoutes, ACameraIsANameOfLettersDigitsAndDashes) {
  const http::Match stream = http::route_of("/cameras/front_door-2/stream.mjpg");
  ASSERT_NE(stream.route, nullptr);
  EXPECT_EQ(stream.camera, "front_door-2");
  EXPECT_EQ(http::route_of("/cameras/yard/snapshot.jpg").camera, "yard");
  for (const char* bad :
       {"/cameras//stream.mjpg", "/cameras/a b/stream.mjpg", "/cameras/../stream.mjpg",
        "/cameras/a/b/stream.mjpg", "/cameras/yard/stream.mjp"}) {
    EXPECT_EQ(http::route_of(bad).route, nullptr) << bad;
  }
}

TEST(HttpRoutes, AnIdIsDigitsOnly) {
  const http::Match clip = http::route_of("/api/events/120/clip.avi");
  ASSERT_NE(clip.route, nullptr);
  EXPECT_EQ(clip.route->path, "/api/events/{id}/clip.avi");
  EXPECT_EQ(clip.id, 120);
  for (const char* path :
       {"/api/events/x/clip.avi", "/api/events//clip.avi", "/api/events/-1/clip.avi",
        "/api/events/1/2/clip.avi", "/api/events/1/clip.avi/", "/api/events/1/clip.avi.x",
        "/api/events/1234567890123456789/clip.avi", "/api/status/", "/API/status"}) {
    EXPECT_EQ(http::route_of(path).route, nullptr) << path;
  }
}

// Every row of the table asked on a real server, by a client without a credential.
class HttpRoutesServed : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { signal(SIGPIPE, SIG_IGN); }

  void start(config::HttpAuth auth) {
    HttpBackend backend;
    backend.status = [] {
      auto status = std::make_shared<DaemonStatus>();
      status->state = DaemonState::kRunning;
      return std::shared_ptr<const DaemonStatus>(std::move(status));
    };
    backend.metrics = [] { return std::string("yolo_edge_up 1\n"); };
    server_ = std::make_unique<HttpOutput>(events_, backend, state_.path());
    config::Config c;
    c.http.listen = "127.0.0.1:0";
    c.http.auth = auth;
    c.http.password = "routes test password";
    c.http.metrics_allow = "10.0.0.0/8";
    server_->configure(c);
    server_->start();
    for (int i = 0; i < 500 && server_->port() == 0; ++i) std::this_thread::sleep_for(10ms);
    ASSERT_GT(server_->port(), 0) << server_->status().dump();
  }

  void TearDown() override {
    if (server_) {
      EXPECT_TRUE(server_->stop());
    }
  }

  httplib::Result ask(const std::string& method, const std::string& path) {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(5s);
    if (method == "GET") return c.Get(path.c_str());
    if (method == "POST") return c.Post(path.c_str(), "{}", "application/json");
    return c.Delete(path.c_str());
  }

  // A path of the row, with an id for its "{id}".
  static std::string path_of(const http::Route& r) { return asked_path(r); }

  Logger log_{Logger::Sink::kStderr, config::LogLevel::kError};
  Events events_{log_};
  test::TempFolder state_;
  std::unique_ptr<HttpOutput> server_;
};

TEST_F(HttpRoutesServed, WithoutACredentialEachRouteAnswersAsItsAccessSays) {
  start(config::HttpAuth::kPassword);
  for (const http::Route& r : http::routes()) {
    const std::string method(r.methods.substr(0, r.methods.find(' ')));
    auto res = ask(method, path_of(r));
    ASSERT_TRUE(res) << method << " " << r.path;
    switch (r.access) {
      case Access::kPublic:
        EXPECT_NE(res->status, 401) << r.path;
        break;
      case Access::kPage:
        EXPECT_EQ(res->status, 401) << r.path;
        EXPECT_EQ(res->get_header_value("Content-Type"), "text/html; charset=utf-8") << r.path;
        break;
      case Access::kView:
      case Access::kControl:
        EXPECT_EQ(res->status, 401) << r.path;
        EXPECT_EQ(res->get_header_value_count("WWW-Authenticate"), 2u) << r.path;
        break;
      case Access::kMetrics:
        EXPECT_EQ(res->status, 401) << r.path;
        EXPECT_NE(res->body.find("http.metrics_allow"), std::string::npos) << r.path;
        break;
    }
  }
}

TEST_F(HttpRoutesServed, ControlWithViewingOpenToAllNeedsAToken) {
  start(config::HttpAuth::kNone);
  for (const http::Route& r : http::routes()) {
    if (r.access != Access::kControl) continue;
    auto res = ask("POST", path_of(r));
    ASSERT_TRUE(res) << r.path;
    EXPECT_EQ(res->status, 403) << r.path;
  }
}

TEST_F(HttpRoutesServed, AWrongMethodIs405WithAllowAndAnUnknownPath404) {
  start(config::HttpAuth::kPassword);
  for (const http::Route& r : http::routes()) {
    std::string allow(r.methods);
    std::replace(allow.begin(), allow.end(), ' ', ',');
    for (const char* method : {"GET", "POST", "DELETE"}) {
      if (http::allows(r, method)) continue;
      auto res = ask(method, path_of(r));
      ASSERT_TRUE(res) << method << " " << r.path;
      EXPECT_EQ(res->status, 405) << method << " " << r.path;
      EXPECT_EQ(res->get_header_value("Allow"), allow) << method << " " << r.path;
    }
  }
  for (const char* path : {"/nothing", "/api", "/api/status/x", "/api/events/7", "/index.htm"}) {
    for (const char* method : {"GET", "POST"}) {
      auto res = ask(method, path);
      ASSERT_TRUE(res) << method << " " << path;
      EXPECT_EQ(res->status, 404) << method << " " << path;
    }
  }
}

}  // namespace
}  // namespace yolo::daemon
