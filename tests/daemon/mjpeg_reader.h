// SPDX-License-Identifier: Apache-2.0
#pragma once

// A viewer of the daemon's MJPEG stream for tests: a real HTTP client on its own thread that
// splits the multipart response into JPEGs, as a browser's <img> does.
#include <httplib.h>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace yolo::test {

class MjpegReader {
 public:
  // Reads up to `want` frames of http://host:port/stream.mjpg, then closes the connection.
  // `authorization`: the Authorization header to send, if any.
  MjpegReader(std::string host, int port, std::size_t want, std::string authorization = "")
      : want_(want) {
    thread_ =
        std::thread([this, host = std::move(host), port, authorization = std::move(authorization)] {
          httplib::Client client(host, port);
          client.set_read_timeout(std::chrono::seconds(2));
          if (!authorization.empty())
            client.set_default_headers({{"Authorization", authorization}});
          auto result = client.Get(
              "/stream.mjpg",
              [this](const httplib::Response& response) {
                std::lock_guard lock(mutex_);
                status_ = response.status;
                content_type_ = response.get_header_value("Content-Type");
                return response.status == 200;
              },
              [this](const char* data, std::size_t size) { return take(data, size); });
          std::lock_guard lock(mutex_);
          if (!result && parts_.size() < want_ && error_.empty()) {
            error_ = "stream ended after " + std::to_string(parts_.size()) + " frames (" +
                     httplib::to_string(result.error()) + ", status " + std::to_string(status_) +
                     ")";
          }
          finished_ = true;
          changed_.notify_all();
        });
  }
  ~MjpegReader() {
    stop_ = true;
    thread_.join();
  }
  MjpegReader(const MjpegReader&) = delete;
  MjpegReader& operator=(const MjpegReader&) = delete;

  // Waits until `want` frames arrived; false when the stream ended or the time ran out.
  bool wait(std::chrono::milliseconds timeout) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, timeout, [&] { return parts_.size() >= want_ || finished_; });
    return parts_.size() >= want_;
  }
  std::vector<std::vector<unsigned char>> parts() const {
    std::lock_guard lock(mutex_);
    return parts_;
  }
  int status() const {
    std::lock_guard lock(mutex_);
    return status_;
  }
  std::string content_type() const {
    std::lock_guard lock(mutex_);
    return content_type_;
  }
  std::string error() const {
    std::lock_guard lock(mutex_);
    return error_;
  }

 private:
  // Appends bytes and cuts out every complete part ("--frame", headers, Content-Length bytes).
  bool take(const char* data, std::size_t size) {
    std::lock_guard lock(mutex_);
    buffer_.append(data, size);
    for (;;) {
      const auto head_end = buffer_.find("\r\n\r\n");
      if (head_end == std::string::npos) break;
      const std::string head = buffer_.substr(0, head_end);
      if (head.rfind("--frame\r\n", 0) != 0) {
        error_ = "a part does not start with the boundary: " + head.substr(0, 40);
        return false;
      }
      const auto at = head.find("Content-Length: ");
      if (at == std::string::npos) {
        error_ = "a part without Content-Length";
        return false;
      }
      const std::size_t length = std::strtoul(head.c_str() + at + 16, nullptr, 10);
      const std::size_t end = head_end + 4 + length + 2;
      if (buffer_.size() < end) break;
      parts_.emplace_back(buffer_.begin() + static_cast<long>(head_end + 4),
                          buffer_.begin() + static_cast<long>(head_end + 4 + length));
      buffer_.erase(0, end);
      changed_.notify_all();
    }
    return !stop_ && parts_.size() < want_;
  }

  const std::size_t want_;
  std::atomic<bool> stop_ = false;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::string buffer_;
  std::vector<std::vector<unsigned char>> parts_;
  int status_ = 0;
  std::string content_type_;
  std::string error_;
  bool finished_ = false;
  std::thread thread_;
};

}  // namespace yolo::test
