// SPDX-License-Identifier: Apache-2.0
#include "cli/bench/ort_peer.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdio>
#include <memory>
#include <stdexcept>

namespace yolo::cli {

namespace {

// Quotes an argument for /bin/sh.
std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct PipeClose {
  void operator()(FILE* f) const { pclose(f); }
};

}  // namespace

OrtPeer::OrtPeer(std::filesystem::path script) : script_(std::move(script)) {
  if (!std::filesystem::is_regular_file(script_)) {
    throw std::runtime_error("--peer " + script_.string() +
                             ": no such file; install the peer with ../shared/bench/setup.sh DIR, "
                             "which prints the path of ort_peer.js");
  }
  if (std::system("command -v node >/dev/null 2>&1") != 0) {
    throw std::runtime_error("--peer needs node on PATH (Debian package nodejs)");
  }
}

PeerResult OrtPeer::bench(const std::filesystem::path& model, int threads, int runs, int warmup,
                          int size) const {
  const std::string cmd = "node " + shell_quote(script_.string()) + " bench " +
                          shell_quote(model.string()) + " --threads " + std::to_string(threads) +
                          " --runs " + std::to_string(runs) + " --warmup " +
                          std::to_string(warmup) + " --size " + std::to_string(size) + " 2>&1";
  std::unique_ptr<FILE, PipeClose> pipe(popen(cmd.c_str(), "r"));
  if (!pipe) throw std::runtime_error("cannot start the ONNX Runtime peer: " + cmd);
  std::string output;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), pipe.get())) output += buf.data();
  const int status = pclose(pipe.release());
  const auto brace = output.rfind("{\"peer\"");
  if (status != 0 || brace == std::string::npos) {
    throw std::runtime_error("the ONNX Runtime peer failed on " + model.string() + ": " + output);
  }
  const auto j = nlohmann::json::parse(output.substr(brace));
  PeerResult r;
  r.peer = j.at("peer").get<std::string>();
  r.threads = j.at("threads").get<int>();
  r.runs = j.at("runs").get<int>();
  r.min_ms = j.at("min_ms").get<double>();
  r.p50_ms = j.at("p50_ms").get<double>();
  r.p90_ms = j.at("p90_ms").get<double>();
  r.max_ms = j.at("max_ms").get<double>();
  return r;
}

}  // namespace yolo::cli
