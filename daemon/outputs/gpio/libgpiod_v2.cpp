// SPDX-License-Identifier: Apache-2.0
// The libgpiod v2 API (2.x: Debian trixie, Raspberry Pi OS trixie).
#include <gpiod.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "daemon/outputs/gpio/libgpiod.h"

namespace yolo::daemon::gpio {

namespace {

// Each libgpiod object freed by its own function.
template <class T, void (*Free)(T*)>
struct Deleter {
  void operator()(T* p) const { Free(p); }
};
template <class T, void (*Free)(T*)>
using Owned = std::unique_ptr<T, Deleter<T, Free>>;

using ChipPtr = Owned<gpiod_chip, gpiod_chip_close>;
using ChipInfoPtr = Owned<gpiod_chip_info, gpiod_chip_info_free>;
using LineInfoPtr = Owned<gpiod_line_info, gpiod_line_info_free>;
using SettingsPtr = Owned<gpiod_line_settings, gpiod_line_settings_free>;
using LineConfigPtr = Owned<gpiod_line_config, gpiod_line_config_free>;
using RequestConfigPtr = Owned<gpiod_request_config, gpiod_request_config_free>;
using RequestPtr = Owned<gpiod_line_request, gpiod_line_request_release>;
using EventBufferPtr = Owned<gpiod_edge_event_buffer, gpiod_edge_event_buffer_free>;

gpiod_line_bias bias_of(Bias bias) {
  switch (bias) {
    case Bias::kAsIs:
      return GPIOD_LINE_BIAS_AS_IS;
    case Bias::kDisabled:
      return GPIOD_LINE_BIAS_DISABLED;
    case Bias::kPullUp:
      return GPIOD_LINE_BIAS_PULL_UP;
    case Bias::kPullDown:
      return GPIOD_LINE_BIAS_PULL_DOWN;
  }
  return GPIOD_LINE_BIAS_AS_IS;
}

gpiod_line_value value_of(bool active) {
  return active ? GPIOD_LINE_VALUE_ACTIVE : GPIOD_LINE_VALUE_INACTIVE;
}

class V2Output : public OutputLine {
 public:
  V2Output(RequestPtr request, unsigned offset, const ChipInfo& info)
      : request_(std::move(request)), offset_(offset), info_(info) {}
  ~V2Output() override {
    gpiod_line_request_set_value(request_.get(), offset_, GPIOD_LINE_VALUE_INACTIVE);
  }
  void set(bool active) override {
    if (gpiod_line_request_set_value(request_.get(), offset_, value_of(active)) < 0) {
      throw call_error(info_, offset_, "setting");
    }
  }

 private:
  RequestPtr request_;
  unsigned offset_;
  ChipInfo info_;
};

class V2Input : public InputLine {
 public:
  V2Input(RequestPtr request, unsigned offset, const ChipInfo& info, bool edges)
      : request_(std::move(request)),
        offset_(offset),
        info_(info),
        edges_(edges),
        buffer_(gpiod_edge_event_buffer_new(1)) {
    if (!buffer_) throw call_error(info_, offset_, "making an edge buffer for");
  }
  bool get() override {
    const gpiod_line_value v = gpiod_line_request_get_value(request_.get(), offset_);
    if (v == GPIOD_LINE_VALUE_ERROR) throw call_error(info_, offset_, "reading");
    return v == GPIOD_LINE_VALUE_ACTIVE;
  }
  std::optional<Edge> read_edge(std::chrono::milliseconds timeout) override {
    if (!edges_) return std::nullopt;
    const int ready = gpiod_line_request_wait_edge_events(
        request_.get(), std::chrono::nanoseconds(timeout).count());
    if (ready < 0) throw call_error(info_, offset_, "waiting for an edge on");
    if (ready == 0) return std::nullopt;
    if (gpiod_line_request_read_edge_events(request_.get(), buffer_.get(), 1) < 1) {
      throw call_error(info_, offset_, "reading an edge of");
    }
    gpiod_edge_event* event = gpiod_edge_event_buffer_get_event(buffer_.get(), 0);
    return Edge{gpiod_edge_event_get_event_type(event) == GPIOD_EDGE_EVENT_RISING_EDGE,
                std::chrono::nanoseconds(gpiod_edge_event_get_timestamp_ns(event))};
  }
  int event_fd() const override { return edges_ ? gpiod_line_request_get_fd(request_.get()) : -1; }

 private:
  RequestPtr request_;
  unsigned offset_;
  ChipInfo info_;
  bool edges_;
  EventBufferPtr buffer_;
};

class V2Chip : public Chip {
 public:
  V2Chip(ChipPtr chip, ChipInfo info) : chip_(std::move(chip)), info_(std::move(info)) {}

  const ChipInfo& info() const override { return info_; }

  std::unique_ptr<OutputLine> request_output(const OutputRequest& r) override {
    SettingsPtr settings = new_settings(r.offset);
    gpiod_line_settings_set_direction(settings.get(), GPIOD_LINE_DIRECTION_OUTPUT);
    gpiod_line_settings_set_active_low(settings.get(), r.active_low);
    gpiod_line_settings_set_output_value(settings.get(), value_of(r.initial));
    return std::make_unique<V2Output>(request(settings.get(), r.offset, r.consumer), r.offset,
                                      info_);
  }

  std::unique_ptr<InputLine> request_input(const InputRequest& r) override {
    SettingsPtr settings = new_settings(r.offset);
    gpiod_line_settings_set_direction(settings.get(), GPIOD_LINE_DIRECTION_INPUT);
    gpiod_line_settings_set_active_low(settings.get(), r.active_low);
    gpiod_line_settings_set_bias(settings.get(), bias_of(r.bias));
    if (r.edges) gpiod_line_settings_set_edge_detection(settings.get(), GPIOD_LINE_EDGE_BOTH);
    return std::make_unique<V2Input>(request(settings.get(), r.offset, r.consumer), r.offset, info_,
                                     r.edges);
  }

 private:
  SettingsPtr new_settings(unsigned offset) {
    check_offset(info_, offset);
    SettingsPtr settings(gpiod_line_settings_new());
    if (!settings) throw call_error(info_, offset, "preparing");
    return settings;
  }

  RequestPtr request(gpiod_line_settings* settings, unsigned offset, const std::string& consumer) {
    LineConfigPtr line_config(gpiod_line_config_new());
    RequestConfigPtr request_config(gpiod_request_config_new());
    if (!line_config || !request_config) throw call_error(info_, offset, "preparing");
    if (gpiod_line_config_add_line_settings(line_config.get(), &offset, 1, settings) < 0) {
      throw request_error(errno, info_, offset, "");
    }
    gpiod_request_config_set_consumer(request_config.get(), consumer.c_str());
    RequestPtr request(
        gpiod_chip_request_lines(chip_.get(), request_config.get(), line_config.get()));
    if (!request) {
      const int err = errno;
      throw request_error(err, info_, offset, err == EBUSY ? holder(offset) : "");
    }
    return request;
  }

  std::string holder(unsigned offset) {
    LineInfoPtr info(gpiod_chip_get_line_info(chip_.get(), offset));
    const char* consumer = info ? gpiod_line_info_get_consumer(info.get()) : nullptr;
    return consumer ? consumer : "";
  }

  ChipPtr chip_;
  ChipInfo info_;
};

class V2Backend : public Backend {
 public:
  std::string name() const override {
    return std::string("libgpiod ") + gpiod_api_version() + " (v2 API)";
  }

  std::shared_ptr<Chip> open(const std::filesystem::path& device) override {
    ChipPtr chip(gpiod_chip_open(device.c_str()));
    if (!chip) throw open_error(errno, device);
    ChipInfoPtr info(gpiod_chip_get_info(chip.get()));
    if (!info) throw open_error(errno, device);
    ChipInfo described{gpiod_chip_info_get_name(info.get()), gpiod_chip_info_get_label(info.get()),
                       device, static_cast<unsigned>(gpiod_chip_info_get_num_lines(info.get()))};
    return std::make_shared<V2Chip>(std::move(chip), std::move(described));
  }

  std::vector<std::filesystem::path> devices() const override { return gpiochip_devices(); }
};

}  // namespace

std::unique_ptr<Backend> libgpiod_backend() {
  return std::make_unique<V2Backend>();
}

}  // namespace yolo::daemon::gpio
