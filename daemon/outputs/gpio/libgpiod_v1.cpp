// SPDX-License-Identifier: Apache-2.0
// The libgpiod v1 API (1.x: Debian bookworm, Raspberry Pi OS bookworm).
#include <gpiod.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <string>

#include "daemon/outputs/gpio/libgpiod.h"

namespace yolo::daemon::gpio {

namespace {

int request_flags(bool active_low, Bias bias) {
  int flags = active_low ? GPIOD_LINE_REQUEST_FLAG_ACTIVE_LOW : 0;
  switch (bias) {
    case Bias::kAsIs:
      break;
    case Bias::kDisabled:
      flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_DISABLE;
      break;
    case Bias::kPullUp:
      flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_UP;
      break;
    case Bias::kPullDown:
      flags |= GPIOD_LINE_REQUEST_FLAG_BIAS_PULL_DOWN;
      break;
  }
  return flags;
}

// The open chip, shared by the chip object and every line requested from it: closing the chip
// releases its lines in v1.
struct ChipHandle {
  explicit ChipHandle(gpiod_chip* c) : chip(c) {}
  ~ChipHandle() { gpiod_chip_close(chip); }
  ChipHandle(const ChipHandle&) = delete;
  ChipHandle& operator=(const ChipHandle&) = delete;
  gpiod_chip* chip;
};

class V1Output : public OutputLine {
 public:
  V1Output(std::shared_ptr<ChipHandle> chip, gpiod_line* line, const ChipInfo& info)
      : chip_(std::move(chip)), line_(line), info_(info) {}
  ~V1Output() override {
    gpiod_line_set_value(line_, 0);
    gpiod_line_release(line_);
  }
  void set(bool active) override {
    if (gpiod_line_set_value(line_, active ? 1 : 0) < 0) {
      throw call_error(info_, gpiod_line_offset(line_), "setting");
    }
  }

 private:
  std::shared_ptr<ChipHandle> chip_;
  gpiod_line* line_;
  ChipInfo info_;
};

class V1Input : public InputLine {
 public:
  V1Input(std::shared_ptr<ChipHandle> chip, gpiod_line* line, const ChipInfo& info, bool edges)
      : chip_(std::move(chip)), line_(line), info_(info), edges_(edges) {}
  ~V1Input() override { gpiod_line_release(line_); }
  bool get() override {
    const int v = gpiod_line_get_value(line_);
    if (v < 0) throw call_error(info_, gpiod_line_offset(line_), "reading");
    return v == 1;
  }
  std::optional<Edge> read_edge(std::chrono::milliseconds timeout) override {
    if (!edges_) return std::nullopt;
    const timespec wait{static_cast<time_t>(timeout.count() / 1000),
                        static_cast<long>(timeout.count() % 1000) * 1'000'000};
    const int ready = gpiod_line_event_wait(line_, &wait);
    if (ready < 0) throw call_error(info_, gpiod_line_offset(line_), "waiting for an edge on");
    if (ready == 0) return std::nullopt;
    gpiod_line_event event{};
    if (gpiod_line_event_read(line_, &event) < 0) {
      throw call_error(info_, gpiod_line_offset(line_), "reading an edge of");
    }
    return Edge{event.event_type == GPIOD_LINE_EVENT_RISING_EDGE,
                std::chrono::seconds(event.ts.tv_sec) + std::chrono::nanoseconds(event.ts.tv_nsec)};
  }
  int event_fd() const override { return edges_ ? gpiod_line_event_get_fd(line_) : -1; }

 private:
  std::shared_ptr<ChipHandle> chip_;
  gpiod_line* line_;
  ChipInfo info_;
  bool edges_;
};

class V1Chip : public Chip {
 public:
  V1Chip(std::shared_ptr<ChipHandle> handle, ChipInfo info)
      : handle_(std::move(handle)), info_(std::move(info)) {}

  const ChipInfo& info() const override { return info_; }

  std::unique_ptr<OutputLine> request_output(const OutputRequest& r) override {
    gpiod_line* line = line_at(r.offset);
    const gpiod_line_request_config config{r.consumer.c_str(), GPIOD_LINE_REQUEST_DIRECTION_OUTPUT,
                                           request_flags(r.active_low, Bias::kAsIs)};
    if (gpiod_line_request(line, &config, r.initial ? 1 : 0) < 0) throw failed(line, r.offset);
    return std::make_unique<V1Output>(handle_, line, info_);
  }

  std::unique_ptr<InputLine> request_input(const InputRequest& r) override {
    gpiod_line* line = line_at(r.offset);
    const gpiod_line_request_config config{
        r.consumer.c_str(),
        r.edges ? GPIOD_LINE_REQUEST_EVENT_BOTH_EDGES : GPIOD_LINE_REQUEST_DIRECTION_INPUT,
        request_flags(r.active_low, r.bias)};
    if (gpiod_line_request(line, &config, 0) < 0) throw failed(line, r.offset);
    return std::make_unique<V1Input>(handle_, line, info_, r.edges);
  }

 private:
  gpiod_line* line_at(unsigned offset) {
    check_offset(info_, offset);
    gpiod_line* line = gpiod_chip_get_line(handle_->chip, offset);
    if (!line) throw request_error(errno, info_, offset, "");
    return line;
  }

  // The request's error, naming who holds the line when it is busy.
  GpioError failed(gpiod_line* line, unsigned offset) {
    const int err = errno;
    std::string holder;
    if (err == EBUSY && gpiod_line_update(line) == 0 && gpiod_line_consumer(line)) {
      holder = gpiod_line_consumer(line);
    }
    return request_error(err, info_, offset, holder);
  }

  std::shared_ptr<ChipHandle> handle_;
  ChipInfo info_;
};

class V1Backend : public Backend {
 public:
  std::string name() const override {
    return std::string("libgpiod ") + gpiod_version_string() + " (v1 API)";
  }

  std::shared_ptr<Chip> open(const std::filesystem::path& device) override {
    gpiod_chip* chip = gpiod_chip_open(device.c_str());
    if (!chip) throw open_error(errno, device);
    auto handle = std::make_shared<ChipHandle>(chip);
    return std::make_shared<V1Chip>(handle, ChipInfo{gpiod_chip_name(chip), gpiod_chip_label(chip),
                                                     device, gpiod_chip_num_lines(chip)});
  }

  std::vector<std::filesystem::path> devices() const override { return gpiochip_devices(); }
};

}  // namespace

std::unique_ptr<Backend> libgpiod_backend() {
  return std::make_unique<V1Backend>();
}

}  // namespace yolo::daemon::gpio
