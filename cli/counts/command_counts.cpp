// SPDX-License-Identifier: Apache-2.0
// yolo-edge counts: a running yolo-edged's zone and line counts (GET /api/counts), and a place's
// counts started again (POST /api/counts/reset), through the daemon's own API, found and
// logged in to from its config file as the page would be.
#include <httplib.h>

#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "config/config_loader.h"
#include "config/credential.h"
#include "config/listen_address.h"

namespace yolo::cli {

namespace {

struct CountsArgs {
  std::string config = "/etc/yolo-edge/yolo-edge.yaml";
  std::string url;
  std::string token;
  std::string state_dir;
  std::string reset;
  std::string camera = "main";
  bool json = false;
};

// A bad setting or answer: the message says what and what to do; exit status 2.
struct CountsError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The daemon's address from http.listen: a wildcard host is reached on this machine's loopback.
std::string daemon_url(const config::Config& c, const std::string& file) {
  const std::string& listen = c.http.listen;
  if (listen.empty()) {
    throw CountsError(file + " sets http.listen to \"\": yolo-edged serves no API. Set it (e.g. " +
                      "127.0.0.1:8080), reload the daemon, or give --url");
  }
  auto [host, port] = config::listen_address(listen);
  if (port == 0) {
    throw CountsError(file + " sets http.listen to port 0 (a free port, named in the daemon's " +
                      "log): give --url http://HOST:PORT");
  }
  if (host == "0.0.0.0" || host.empty()) host = "127.0.0.1";
  if (host == "::") host = "::1";
  if (host.find(':') != std::string::npos) host = "[" + host + "]";
  return std::string(c.http.tls ? "https" : "http") + "://" + host + ":" + std::to_string(port);
}

// What the API takes as a bearer: --token, http.token, http.password, else the password the
// daemon made in its state folder.
std::string bearer(const CountsArgs& args, const config::Config& c) {
  if (!args.token.empty()) return args.token;
  if (!c.http.token.empty()) return c.http.token;
  if (c.http.auth == config::HttpAuth::kNone) return "";
  if (!c.http.password.empty()) return c.http.password;
  const std::filesystem::path dir = config::state_dir(args.state_dir);
  if (auto made = config::read_credential(dir)) return *made;
  throw CountsError("no password to log in with: " + args.config +
                    " sets no http.password nor http.token, and " +
                    config::credential_file(dir).string() +
                    " cannot be read (run as root or the yolo-edge user, or give --token)");
}

std::string said_by(const httplib::Result& r) {
  const nlohmann::json body = nlohmann::json::parse(r->body, nullptr, false);
  if (body.is_object() && body.contains("error") && body["error"].is_string()) {
    return body["error"].get<std::string>();
  }
  return r->body;
}

// The answer's body, or an error naming the status and what the daemon said.
std::string expect_ok(const httplib::Result& r, const std::string& what, const std::string& url) {
  if (!r) {
    throw std::runtime_error("cannot reach yolo-edged at " + url + " (" +
                             httplib::to_string(r.error()) +
                             "): is it running (systemctl status yolo-edged)?");
  }
  if (r->status == 401) {
    throw CountsError(what + ": the daemon refused the login (401): give --token, or check " +
                      "http.password and http.token");
  }
  if (r->status == 403) {
    throw CountsError(what + ": refused (403: " + said_by(r) + "); set http.token and give it " +
                      "with --token");
  }
  if (r->status != 200) {
    throw CountsError(what + ": " + std::to_string(r->status) + " " + said_by(r));
  }
  return r->body;
}

void print_counts(const nlohmann::json& counts) {
  if (!counts.value("tracking", true)) {
    std::printf("tracking is off (tracking.enabled): nothing is counted\n");
    return;
  }
  const auto& places = counts["places"];
  if (places.empty()) {
    std::printf("camera %s has no zone and no line\n", counts.value("camera", "?").c_str());
    return;
  }
  for (const auto& p : places) {
    const bool line = p.value("kind", "") == "line";
    const char* in = line ? "in" : "entered";
    const char* out = line ? "out" : "left";
    std::printf("%s %s (camera %s)", p.value("kind", "").c_str(), p.value("name", "").c_str(),
                counts.value("camera", "?").c_str());
    if (p.contains("since")) std::printf(", since %s", p["since"].get<std::string>().c_str());
    if (p.contains("occupancy")) std::printf(", %d inside now", p["occupancy"].get<int>());
    std::printf(": %lld %s, %lld %s\n", p["all"]["in"].get<long long>(), in,
                p["all"]["out"].get<long long>(), out);
    for (const auto& [label, t] : p["total"].items()) {
      std::printf("  %-16s %6lld %s %6lld %s\n", label.c_str(), t["in"].get<long long>(), in,
                  t["out"].get<long long>(), out);
    }
  }
}

int run_counts(const CountsArgs& args) {
  config::LoadOptions options;
  options.check_files = false;
  const config::Config c = config::load_config(args.config, options);
  const std::string url = args.url.empty() ? daemon_url(c, args.config) : args.url;
  httplib::Client client(url);
  client.set_connection_timeout(5);
  client.set_read_timeout(10);
  // The daemon's own certificate is self-signed (docs/live-view.md); the address came from its
  // config, on this machine, or from the user.
  client.enable_server_certificate_verification(false);
  httplib::Headers headers;
  if (const std::string token = bearer(args, c); !token.empty()) {
    headers.emplace("Authorization", "Bearer " + token);
  }
  try {
    if (!args.reset.empty()) {
      const nlohmann::json body = {{"place", args.reset}, {"camera", args.camera}};
      expect_ok(client.Post("/api/counts/reset", headers, body.dump(), "application/json"),
                "resetting " + args.reset, url);
      std::printf("the counts of %s (camera %s) start again from now\n", args.reset.c_str(),
                  args.camera.c_str());
      return kOk;
    }
    const nlohmann::json counts =
        nlohmann::json::parse(expect_ok(client.Get("/api/counts", headers), "counts", url));
    if (args.json) {
      std::cout << counts.dump(2) << "\n";
    } else {
      print_counts(counts);
    }
  } catch (const CountsError& e) {
    std::fprintf(stderr, "yolo-edge counts: %s\n", e.what());
    return kBadInput;
  } catch (const std::runtime_error& e) {
    std::fprintf(stderr, "yolo-edge counts: %s\n", e.what());
    return kFailed;
  }
  return kOk;
}

}  // namespace

void register_counts(CLI::App& app) {
  auto args = std::make_shared<CountsArgs>();
  auto* sub = app.add_subcommand(
      "counts", "Show a running yolo-edged's zone and line counts, or start a place's again");
  sub->add_option("--config", args->config,
                  "The daemon's config file: where its API listens and how to log in")
      ->capture_default_str();
  sub->add_option("--url", args->url, "The daemon's address instead, e.g. http://pi.local:8080");
  sub->add_option("--token", args->token,
                  "Log in with this (the password or http.token) instead of the config's");
  sub->add_option("--state-dir", args->state_dir,
                  "Where yolo-edged keeps the password it made (default: its state folder)");
  sub->add_option("--reset", args->reset, "Start this zone's or line's counts again from now");
  sub->add_option("--camera", args->camera, "The camera of --reset's place")->capture_default_str();
  sub->add_flag("--json", args->json, "Print /api/counts as JSON (local hours included)");
  add_command(app, sub, [args] { return run_counts(*args); });
}

}  // namespace yolo::cli
