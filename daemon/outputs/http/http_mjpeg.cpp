// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/http/http_mjpeg.h"

#include <microhttpd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <opencv2/imgcodecs.hpp>
#include <vector>

#include "daemon/core/annotated_frame.h"

namespace yolo::daemon::http {

namespace {

// A snapshot younger than this is served as it is; an older one waits for the next frame.
constexpr auto kSnapshotFresh = std::chrono::seconds(1);
// The stream's rate is counted over this long.
constexpr auto kRateWindow = std::chrono::seconds(3);
constexpr const char* kBoundary = "frame";

}  // namespace

MjpegStream::MjpegStream(std::string camera, WaitingExchanges& waiting, const HttpLimits& limits,
                         std::function<std::shared_ptr<const DaemonStatus>()> status)
    : camera_(std::move(camera)), waiting_(waiting), limits_(limits), status_(std::move(status)) {}

void MjpegStream::arrived(const FrameResult& result) {
  if (result.frameless) return;
  const auto now = Clock::now();
  const std::int64_t previous = last_result_ns_.exchange(now.time_since_epoch().count());
  if (previous != 0) {
    const double gap = std::chrono::duration<double, std::milli>(
                           now - Clock::time_point(Clock::duration(previous)))
                           .count();
    const double mean = result_interval_ms_.load();
    result_interval_ms_ = mean == 0 ? gap : (mean * 3 + gap) / 4;
  }
  latest_index_ = result.index;
}

void MjpegStream::set_overlay(std::string text) {
  std::lock_guard lock(mutex_);
  overlay_ = std::move(text);
}

Clock::time_point MjpegStream::encoded_at() const {
  std::lock_guard lock(mutex_);
  return encoded_at_;
}

void MjpegStream::take(const std::shared_ptr<const FrameResult>& result,
                       const config::HttpConfig& http) {
  const auto now = Clock::now();
  while (!recent_.empty() && now - recent_.front() > kRateWindow) recent_.pop_front();
  fps_ = recent_.size() < 2 ? 0.0
                            : static_cast<double>(recent_.size()) /
                                  std::chrono::duration<double>(kRateWindow).count();
  if (!result || !result->frame || result->frame->empty() || !watched()) return;
  // Paced to max_fps on a schedule, so frames arriving a little faster than it are not halved.
  const auto period = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(1.0 / http.max_fps));
  if (now < due_ - period / 10) return;
  due_ = now - due_ > period ? now + period : due_ + period;
  auto jpeg = encode(*result, http.jpeg_quality);
  if (!jpeg) return;
  {
    std::lock_guard lock(mutex_);
    encoded_at_ = Clock::now();
  }
  encoded_index_ = result->index;
  jpegs_.push(std::move(jpeg));
  waiting_.resume(kOnFrame);
  ++frames_encoded_;
  recent_.push_back(now);
}

std::shared_ptr<const std::string> MjpegStream::encode(const FrameResult& result,
                                                       int quality) const {
  cv::Mat image = result.frame->clone();
  std::string overlay;
  {
    std::lock_guard lock(mutex_);
    overlay = overlay_;
  }
  draw_result(image, result, overlay);
  std::vector<unsigned char> bytes;
  if (!cv::imencode(".jpg", image, bytes, {cv::IMWRITE_JPEG_QUALITY, quality})) return nullptr;
  return std::make_shared<const std::string>(bytes.begin(), bytes.end());
}

int MjpegStream::serve(const std::shared_ptr<Exchange>& ex) {
  ex->place = std::make_shared<ClientPlace>(viewers_);
  return queue_stream(ex->connection,
                      (std::string("multipart/x-mixed-replace; boundary=") + kBoundary).c_str(),
                      {{"Pragma", "no-cache"}}, limits_.stream_write_timeout,
                      [this, ex](char* buffer, std::size_t max) { return body(ex, buffer, max); });
}

long MjpegStream::body(const std::shared_ptr<Exchange>& ex, char* buffer, std::size_t max) {
  if (ex->at >= ex->head.size() + (ex->item ? ex->item->size() : 0) + ex->tail.size()) {
    // The last part went out whole: the next frame, or a wait for one.
    const auto lock = waiting_.lock();
    if (waiting_.closing(lock)) return kEndOfStream;
    const auto [number, jpeg] = jpegs_.newest();
    const auto now = Clock::now();
    // Without a new frame for a while (a lost camera), the last one again: a connection that
    // only waits is not watched, so a viewer that left would keep its place; a write finds it.
    const bool repeat = jpeg && number == ex->sent && now >= ex->until && ex->until != kNever;
    if (!jpeg || (number <= ex->sent && !repeat)) {
      waiting_.suspend(lock, ex, kOnFrame, now + limits_.viewer_check);
      return 0;
    }
    ex->until = kNever;
    ex->sent = number;
    char head[128];
    std::snprintf(head, sizeof head,
                  "--%s\r\nContent-Type: image/jpeg\r\nContent-Length: %zu\r\n\r\n", kBoundary,
                  jpeg->size());
    ex->head = head;
    ex->item = jpeg;
    ex->tail = "\r\n";
    ex->at = 0;
  }
  // Copies from head, frame and tail, in order, as far as `max` goes.
  std::size_t written = 0;
  const std::string_view pieces[] = {ex->head, *ex->item, ex->tail};
  std::size_t offset = ex->at;
  for (const std::string_view piece : pieces) {
    if (offset >= piece.size()) {
      offset -= piece.size();
      continue;
    }
    const std::size_t n = std::min(piece.size() - offset, max - written);
    std::memcpy(buffer + written, piece.data() + offset, n);
    written += n;
    offset = 0;
    if (written == max) break;
  }
  ex->at += written;
  return static_cast<long>(written);
}

int MjpegStream::serve_snapshot(const std::shared_ptr<Exchange>& ex) {
  MHD_Connection* c = ex->connection;
  auto [number, jpeg] = jpegs_.newest();
  if (ex->deadline == kNever) {
    // The first look: a frame of the newest result is served (at one frame a minute it may be
    // a minute old and still the latest), else the next one is waited for, up to
    // snapshot_wait or a few intervals between results when they come slower than that.
    // Results that stopped coming (a lost camera) make the newest an old one, though.
    const auto pace = std::chrono::milliseconds(std::llround(3 * result_interval_ms_.load()));
    const auto since_result =
        Clock::now() - Clock::time_point(Clock::duration(last_result_ns_.load()));
    const bool newest = encoded_index_.load() == latest_index_.load() &&
                        since_result < std::max<Clock::duration>(kSnapshotFresh, pace);
    if (jpeg && (newest || Clock::now() - encoded_at() < kSnapshotFresh)) {
      return queue(c, 200, *jpeg, "image/jpeg", {{"Cache-Control", "no-store"}});
    }
    ex->after = number;
    ex->asked = Clock::now();
    ex->deadline = Clock::now() + std::max<Clock::duration>(limits_.snapshot_wait, pace);
    ++snapshot_waiters_;
  } else if (jpeg && number > ex->after) {
    --snapshot_waiters_;
    return queue(c, 200, *jpeg, "image/jpeg", {{"Cache-Control", "no-store"}});
  }
  if (Clock::now() < ex->deadline && waiting_.suspend(ex, kOnFrame, ex->deadline)) return MHD_YES;
  --snapshot_waiters_;
  std::string why = "no frame in the last " +
                    std::to_string(static_cast<long>(std::lround(
                        std::chrono::duration<double>(Clock::now() - ex->asked).count()))) +
                    " s";
  if (const auto status = status_()) {
    for (const CameraStatus& camera : status->cameras) {
      if (camera.name != camera_) continue;
      why += ": the source is " + std::string(state_name(camera.source.state));
      if (!camera.source.last_error.empty()) why += " (" + camera.source.last_error + ")";
    }
  }
  return queue_error(c, 503, why, {{"Retry-After", "5"}});
}

}  // namespace yolo::daemon::http
