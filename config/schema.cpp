// SPDX-License-Identifier: Apache-2.0
#include "config/schema.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <type_traits>

#include "config/address_list.h"
#include "config/append.h"
#include "config/http_url.h"
#include "config/schema_rows.h"
#include "config/sections/sections.h"
#include "config/suggest.h"

namespace yolo::config {

namespace {

using namespace rows;

// The member every GPIO record has first: which line.
FieldSpec line_member(std::string_view record, std::string_view description) {
  return {.section = record,
          .name = "line",
          .type = FieldType::kInt,
          .default_value = whole(0),
          .min = 0,
          .max = 1023,
          .description = description,
          .required = true};
}

FieldSpec chip_member(std::string_view record) {
  return {.section = record,
          .name = "chip",
          .type = FieldType::kString,
          .default_value = text(""),
          .description = "Chip of this line (name, path or label); empty uses gpio.chip."};
}

std::string require_text(const Value& v) {
  return std::get<std::string>(v).empty() ? "is empty: set a value" : "";
}

// model.imgsz beyond its range: each side a multiple of 32, the largest YOLO stride (a model
// with a larger one says so when it loads).
std::string image_size_rule(const Value& v) {
  const auto side = [](std::int64_t n) -> std::string {
    if (n % 32 == 0) return "";
    const std::int64_t down = std::max<std::int64_t>(32, n / 32 * 32);
    return std::to_string(n) + " is not a multiple of 32 (the largest YOLO stride): use " +
           std::to_string(down) + " or " + std::to_string(down + 32);
  };
  if (const auto* n = std::get_if<std::int64_t>(&v)) {
    const std::string problem = side(*n);
    return problem.empty() ? "" : problem + ", 0 for the model's own size, or auto";
  }
  if (const auto* list = std::get_if<std::vector<std::int64_t>>(&v)) {
    for (const std::int64_t n : *list) {
      if (n == 0)
        return "[height, width] needs two sizes: 0 alone (not in a list) is the model's own";
      if (std::string problem = side(n); !problem.empty()) return problem;
    }
  }
  return "";
}

// HOST:PORT, HOST may be a name, an IPv4 address or a bracketed IPv6 address; "" turns it off.
std::string host_and_port(const Value& v) {
  const std::string& s = std::get<std::string>(v);
  if (s.empty()) return "";
  const std::string hint = "'" + s +
                           "' is not HOST:PORT: use e.g. 127.0.0.1:8080 (this machine only), "
                           "0.0.0.0:8080 (every interface), or \"\" to turn HTTP off";
  const std::size_t colon = s.rfind(':');
  if (colon == std::string::npos || colon == 0) return hint;
  const std::string host = s.substr(0, colon);
  if (host.front() == '[' ? host.back() != ']' : host.find(':') != std::string::npos) return hint;
  int port = 0;
  const char* first = s.data() + colon + 1;
  const char* last = s.data() + s.size();
  const auto [end, ec] = std::from_chars(first, last, port);
  if (ec != std::errc() || end != last || first == last || port < 0 || port > 65535) {
    return "port in '" + s + "' must be a number from 0 to 65535, e.g. " + host + ":8080";
  }
  return "";
}

std::string password_length(const Value& v) {
  const std::string& s = std::get<std::string>(v);
  if (!s.empty() && s.size() < 8) {
    return "is " + std::to_string(s.size()) +
           " characters: use at least 8 (or leave it empty to have one made)";
  }
  return "";
}

std::string address_list(const Value& v) {
  std::string error;
  return parse_address_list(std::get<std::string>(v), &error) ? "" : error;
}

std::string topic_prefix(const Value& v) {
  const std::string& s = std::get<std::string>(v);
  if (s.empty()) return "is empty: set a topic prefix such as yolo-edge";
  if (s.find_first_of("+#") != std::string::npos) {
    return "'" + s + "' contains an MQTT wildcard (+ or #): use a plain topic such as yolo-edge";
  }
  if (s.front() == '/' || s.back() == '/') {
    return "'" + s + "' starts or ends with '/': write it without, e.g. home/yolo-edge";
  }
  return "";
}

// An http:// or https:// URL; "" turns the output off.
std::string http_url(const Value& v) {
  const std::string& s = std::get<std::string>(v);
  std::string error;
  if (s.empty() || parse_http_url(s, &error)) return "";
  return error;
}

// The sections whose rows live in config/sections/, in the order the file and --describe show
// them.
constexpr section_files::SectionRows kOwnFileSections[] = {
    {section_files::tracking_spec, section_files::add_tracking_fields},
    {section_files::zones_spec, section_files::add_zones_fields},
    {section_files::lines_spec, section_files::add_lines_fields},
    {section_files::events_spec, section_files::add_events_fields},
};

std::vector<SectionSpec> build_sections() {
  std::vector<SectionSpec> out = {
      {"source", "Where frames come from."},
      {"model", "Which network runs, at which precision."},
      {"detect", "Which detections are kept."},
      {"threads", "How many inference threads, fixed or chosen by measuring."},
      {"telemetry", "Device sensors: temperature, clock, throttling, power."},
      {"logging", "Field logs (one JSON line per interval, rotated by size) and daemon messages."},
      {"http", "The live view in a browser, the status API and Prometheus metrics."},
      {"mqtt", "Detections and status to an MQTT broker, and Home Assistant discovery."},
      {"gpio",
       "GPIO lines (libgpiod): outputs driven by detections, a status LED and a precision "
       "button; docs/gpio.md shows the wiring."},
      {"webhook",
       "Each debounced detection event (a label appears, changes count, is gone) POSTed as JSON "
       "to a URL; docs/webhook.md shows the body."},
  };
  for (const section_files::SectionRows& own : kOwnFileSections) out.push_back(own.spec());
  out.push_back({"config", "How the daemon follows this file."});
  return out;
}

std::vector<FieldSpec> build_fields() {
  std::vector<FieldSpec> t;
  const auto add = [&t](FieldSpec field, auto section, auto member) {
    bind(field, section, member);
    t.push_back(std::move(field));
  };
  using F = FieldType;
  using C = Config;

  // source
  add({.section = "source",
       .name = "uri",
       .type = F::kString,
       .default_value = text("/dev/video0"),
       .description = "Camera or stream: /dev/videoN or N (V4L2), a GStreamer pipeline (with '!'), "
                      "rtsp:// or http(s):// URL, a video, an image or a folder of images.",
       .rule = require_text},
      &C::source, &SourceConfig::uri);
  add({.section = "source",
       .name = "loop",
       .type = F::kBool,
       .default_value = false,
       .description = "Start a video file or image folder again when it ends."},
      &C::source, &SourceConfig::loop);
  add({.section = "source",
       .name = "realtime",
       .type = F::kBool,
       .default_value = true,
       .description = "Pace a video file or image folder at its own frame rate, as a camera "
                      "would, instead of as fast as it decodes."},
      &C::source, &SourceConfig::realtime);
  add({.section = "source",
       .name = "width",
       .type = F::kInt,
       .default_value = whole(0),
       .min = 0,
       .max = 7680,
       .description = "Capture width in pixels to ask the camera for; 0 keeps the source's own."},
      &C::source, &SourceConfig::width);
  add({.section = "source",
       .name = "height",
       .type = F::kInt,
       .default_value = whole(0),
       .min = 0,
       .max = 4320,
       .description = "Capture height in pixels to ask the camera for; 0 keeps the source's own."},
      &C::source, &SourceConfig::height);
  add({.section = "source",
       .name = "fps",
       .type = F::kFloat,
       .default_value = 0.0,
       .min = 0,
       .max = 240,
       .description = "Frames per second to ask the camera for; 0 keeps the source's own."},
      &C::source, &SourceConfig::fps);
  add({.section = "source",
       .name = "reconnect_s",
       .type = F::kFloat,
       .default_value = 2.0,
       .min = 0.1,
       .max = 3600,
       .description = "Seconds to wait before reopening a source that failed (camera unplugged, "
                      "stream dropped)."},
      &C::source, &SourceConfig::reconnect_s);

  // model
  add({.section = "model",
       .name = "path",
       .type = F::kPath,
       .default_value = text(""),
       .description = "ONNX model to run, e.g. yolov8n.onnx: FP32, an FP16 export (computed in "
                      "FP32), dynamic INT8 (run at FP32 speed) or static INT8 (QDQ); must be set "
                      "before the daemon starts."},
      &C::model, &ModelConfig::path);
  add({.section = "model",
       .name = "int8_path",
       .type = F::kPath,
       .default_value = text(""),
       .description = "Static INT8 (QDQ) ONNX model run when precision is int8 (yolo-edge "
                      "quantize makes one); not needed when model.path is one already; with "
                      "quantize: auto it is made from model.path when missing, in the daemon's "
                      "state directory when this is empty."},
      &C::model, &ModelConfig::int8_path);
  add({.section = "model",
       .name = "precision",
       .type = F::kEnum,
       .default_value = text(precision_name(Precision::kFile)),
       .choices = {kPrecisionNames.begin(), kPrecisionNames.end()},
       .description = "Precision to run at: file runs model.path as it was made (int8 for a "
                      "static INT8 file, fp32 for the others); fp32 runs model.path in FP32 (a "
                      "static INT8 file's Q/DQ computed in float); int8 runs model.int8_path, or "
                      "model.path when it is static INT8; auto times both on the camera's own "
                      "frames at start (and after a model change) and runs INT8 only where it is "
                      "faster and agrees with FP32 (see model.auto_min_map50)."},
      &C::model, &ModelConfig::precision);
  add({.section = "model",
       .name = "quantize",
       .type = F::kEnum,
       .default_value = text("off"),
       .choices = {"off", "auto"},
       .description =
           "auto: when int8 or auto is asked for and model.int8_path is unset or missing, "
           "quantize model.path in the background from the camera's own frames (the "
           "stream keeps running at fp32 meanwhile), then switch; off: never."},
      &C::model, &ModelConfig::quantize);
  add({.section = "model",
       .name = "calibration_frames",
       .type = F::kInt,
       .default_value = whole(64),
       .min = 8,
       .max = 1024,
       .description = "Frames of the camera's own that quantize: auto calibrates on: the daemon "
                      "keeps this many in its state directory, one a second at most, sampled "
                      "evenly over everything it has seen, and across restarts."},
      &C::model, &ModelConfig::calibration_frames);
  add({.section = "model",
       .name = "auto_min_map50",
       .type = F::kFloat,
       .default_value = 0.95,
       .min = 0,
       .max = 1,
       .description = "precision: auto runs INT8 only when its detections agree with FP32's on "
                      "the trial frames at least this well (FP32 as the truth, as yolo-edge "
                      "compare measures it: the mAP50 over the classes with at least 10 FP32 "
                      "boxes, or the box-weighted AP50 when no class has that many)."},
      &C::model, &ModelConfig::auto_min_map50);
  add({.section = "model",
       .name = "imgsz",
       .type = F::kImageSize,
       .default_value = whole(0),
       .min = 0,
       .max = 4096,
       .description = "Network input size for models exported with dynamic axes: 640 (square), "
                      "[height, width] such as [384, 640], or auto: the source's aspect with the "
                      "long side as exported, each side rounded up to a multiple of the stride "
                      "(384x640 for a 16:9 camera at 640, no grey bars to compute); 0 takes the "
                      "model's own size. A fixed-shape model keeps its shape with auto.",
       .rule = image_size_rule},
      &C::model, &ModelConfig::imgsz);
  add({.section = "model",
       .name = "labels",
       .type = F::kPath,
       .default_value = text(""),
       .description = "Class names file, one per line, for models without names metadata; empty "
                      "shows class numbers."},
      &C::model, &ModelConfig::labels);
  add({.section = "model",
       .name = "decoder",
       .type = F::kEnum,
       .default_value = text("auto"),
       .choices = {"auto", "yolov8", "end2end", "yolov5"},
       .description = "Output layout: auto (from the model), yolov8 [1,4+nc,N], end2end [1,K,6], "
                      "yolov5 [1,N,5+nc]."},
      &C::model, &ModelConfig::decoder);

  // detect
  add({.section = "detect",
       .name = "conf",
       .type = F::kFloat,
       .default_value = 0.25,
       .min = 0,
       .max = 1,
       .description = "Lowest score a detection needs to be reported."},
      &C::detect, &DetectConfig::conf);
  add({.section = "detect",
       .name = "iou",
       .type = F::kFloat,
       .default_value = 0.45,
       .min = 0,
       .max = 1,
       .description = "Overlap (IoU) above which non-maximum suppression drops the lower-scoring "
                      "box."},
      &C::detect, &DetectConfig::iou);
  add({.section = "detect",
       .name = "classes",
       .type = F::kIntList,
       .default_value = none(),
       .min = 0,
       .max = 65535,
       .description = "Class ids to report, e.g. [0, 2] for COCO person and car; empty reports "
                      "every class."},
      &C::detect, &DetectConfig::classes);
  add({.section = "detect",
       .name = "max_detections",
       .type = F::kInt,
       .default_value = whole(300),
       .min = 1,
       .max = 10000,
       .description = "Most detections kept per frame, highest scores first."},
      &C::detect, &DetectConfig::max_detections);
  add({.section = "detect",
       .name = "agnostic_nms",
       .type = F::kBool,
       .default_value = false,
       .description = "Suppress overlapping boxes across classes too, not only within a class."},
      &C::detect, &DetectConfig::agnostic_nms);

  // threads
  add({.section = "threads",
       .name = "mode",
       .type = F::kEnum,
       .default_value = text("adaptive"),
       .choices = {kThreadModeNames.begin(), kThreadModeNames.end()},
       .description = "fixed: threads.count; adaptive: the fastest count measured; efficiency: "
                      "the fewest within threads.margin of it."},
      &C::threads, &ThreadsConfig::mode);
  add({.section = "threads",
       .name = "count",
       .type = F::kInt,
       .default_value = whole(0),
       .min = 0,
       .max = 256,
       .description = "Inference threads in fixed mode; 0 means one per CPU core."},
      &C::threads, &ThreadsConfig::count);
  add({.section = "threads",
       .name = "max",
       .type = F::kInt,
       .default_value = whole(0),
       .min = 0,
       .max = 256,
       .description = "Most threads the adaptive and efficiency modes try; 0 means one per CPU "
                      "core."},
      &C::threads, &ThreadsConfig::max);
  add({.section = "threads",
       .name = "margin",
       .type = F::kFloat,
       .default_value = 0.1,
       .min = 0,
       .max = 1,
       .description = "Efficiency mode: latency a thread count may lose to the fastest, as a "
                      "fraction (0.1 = 10%)."},
      &C::threads, &ThreadsConfig::margin);

  // telemetry
  add({.section = "telemetry",
       .name = "interval_s",
       .type = F::kFloat,
       .default_value = 1.0,
       .min = 0.1,
       .max = 60,
       .description = "Seconds between two sensor samples."},
      &C::telemetry, &TelemetryConfig::interval_s);
  add({.section = "telemetry",
       .name = "sysfs_root",
       .type = F::kPath,
       .default_value = text("/sys"),
       .description = "Folder read in place of /sys (thermal, cpufreq, hwmon, powercap); tests "
                      "point it at a fake tree.",
       .rule = require_text},
      &C::telemetry, &TelemetryConfig::sysfs_root);

  // logging
  add({.section = "logging",
       .name = "dir",
       .type = F::kPath,
       .default_value = text("/var/log/yolo-edge"),
       .description = "Folder of the field logs (JSON lines); created if missing.",
       .rule = require_text},
      &C::logging, &LoggingConfig::dir);
  add({.section = "logging",
       .name = "interval_s",
       .type = F::kFloat,
       .default_value = 10.0,
       .min = 1,
       .max = 86400,
       .description = "Seconds between two field-log lines."},
      &C::logging, &LoggingConfig::interval_s);
  add({.section = "logging",
       .name = "max_bytes",
       .type = F::kInt,
       .default_value = whole(10 * 1024 * 1024),
       .min = 4096,
       .max = 1099511627776.0,
       .description = "Size in bytes at which the field log is rotated."},
      &C::logging, &LoggingConfig::max_bytes);
  add({.section = "logging",
       .name = "max_files",
       .type = F::kInt,
       .default_value = whole(5),
       .min = 1,
       .max = 1000,
       .description = "Rotated field logs kept besides the current one."},
      &C::logging, &LoggingConfig::max_files);
  add({.section = "logging",
       .name = "level",
       .type = F::kEnum,
       .default_value = text("info"),
       .choices = {"debug", "info", "warning", "error"},
       .description = "Least important daemon message written to the journal."},
      &C::logging, &LoggingConfig::level);

  // http
  add({.section = "http",
       .name = "listen",
       .type = F::kString,
       .default_value = text("0.0.0.0:8080"),
       .description = "HOST:PORT of the page, the MJPEG stream, the API and /metrics: "
                      "0.0.0.0:8080 serves every device on the network (behind a login, "
                      "http.auth), 127.0.0.1:8080 this machine only, port 0 a free port (named "
                      "in the log), empty turns HTTP off.",
       .rule = host_and_port},
      &C::http, &HttpConfig::listen);
  add({.section = "http",
       .name = "auth",
       .type = F::kEnum,
       .default_value = text("password"),
       .choices = {"password", "none"},
       .description = "password: the page, stream, snapshot, events and API need a login (a "
                      "session cookie) or 'Authorization: Bearer <password>'; none: anyone who "
                      "can reach http.listen watches (only on a network you trust)."},
      &C::http, &HttpConfig::auth);
  add({.section = "http",
       .name = "password",
       .type = F::kString,
       .default_value = text(""),
       .description = "The live view's password; empty: one made at first start and kept in the "
                      "state folder (sudo yolo-edge config --show-credential prints it).",
       .rule = password_length},
      &C::http, &HttpConfig::password);
  add({.section = "http",
       .name = "token",
       .type = F::kString,
       .default_value = text(""),
       .description = "Another bearer token for scripts: it may view and POST /api/precision "
                      "and /api/reload. With auth: none it alone allows those POSTs (empty: "
                      "off)."},
      &C::http, &HttpConfig::token);
  add({.section = "http",
       .name = "metrics_allow",
       .type = F::kString,
       .default_value = text("127.0.0.1, ::1"),
       .description = "Addresses or networks (comma-separated, e.g. \"127.0.0.1, "
                      "192.168.1.0/24\") whose Prometheus may scrape /metrics without a login; "
                      "others send the password or token as a bearer token.",
       .rule = address_list},
      &C::http, &HttpConfig::metrics_allow);
  add({.section = "http",
       .name = "tls",
       .type = F::kBool,
       .default_value = false,
       .description = "Serve HTTPS: the password and the stream cross the network encrypted. "
                      "Without tls_cert and tls_key a self-signed certificate is made in the "
                      "state folder at first start (its fingerprint is logged)."},
      &C::http, &HttpConfig::tls);
  add({.section = "http",
       .name = "tls_cert",
       .type = F::kPath,
       .default_value = text(""),
       .description = "The server certificate (PEM, with its chain) for tls: true; empty: the "
                      "self-signed one."},
      &C::http, &HttpConfig::tls_cert);
  add({.section = "http",
       .name = "tls_key",
       .type = F::kPath,
       .default_value = text(""),
       .description = "The certificate's private key (PEM), readable by the daemon's user."},
      &C::http, &HttpConfig::tls_key);
  add({.section = "http",
       .name = "max_fps",
       .type = F::kFloat,
       .default_value = 5.0,
       .min = 0.1,
       .max = 60,
       .description = "Most annotated frames per second encoded for the stream and the snapshot "
                      "(once per frame for every viewer)."},
      &C::http, &HttpConfig::max_fps);
  add({.section = "http",
       .name = "jpeg_quality",
       .type = F::kInt,
       .default_value = whole(80),
       .min = 1,
       .max = 100,
       .description = "JPEG quality of the annotated stream, 1 (smallest) to 100 (best)."},
      &C::http, &HttpConfig::jpeg_quality);
  add({.section = "http",
       .name = "max_viewers",
       .type = F::kInt,
       .default_value = whole(4),
       .min = 1,
       .max = 64,
       .description = "Most MJPEG and event-stream clients at once; more get 503, so the page, "
                      "the API and /metrics always answer."},
      &C::http, &HttpConfig::max_viewers);
  add({.section = "http",
       .name = "max_clients",
       .type = F::kInt,
       .default_value = whole(256),
       .min = 16,
       .max = 65536,
       .description = "Most connections at once from everyone. When all are taken, the one "
                      "slowest to send its request (a slow client) makes room for a new one; "
                      "when all are being answered, new ones are refused. A waiting connection "
                      "costs 10-20 KiB, not a thread: 256 of them about 5 MB."},
      &C::http, &HttpConfig::max_clients);
  add({.section = "http",
       .name = "max_clients_per_address",
       .type = F::kInt,
       .default_value = whole(32),
       .min = 2,
       .max = 65536,
       .description = "Most connections at once from one address (a browser opens a few; a "
                      "reverse proxy may need more), so one host cannot take them all."},
      &C::http, &HttpConfig::max_clients_per_address);

  // mqtt
  add({.section = "mqtt",
       .name = "enabled",
       .type = F::kBool,
       .default_value = false,
       .description = "Publish availability, detection events and stats to the broker."},
      &C::mqtt, &MqttConfig::enabled);
  add({.section = "mqtt",
       .name = "host",
       .type = F::kString,
       .default_value = text("localhost"),
       .description = "Broker host name or address."},
      &C::mqtt, &MqttConfig::host);
  add({.section = "mqtt",
       .name = "port",
       .type = F::kInt,
       .default_value = whole(1883),
       .min = 1,
       .max = 65535,
       .description = "Broker TCP port (8883 is the usual one for TLS)."},
      &C::mqtt, &MqttConfig::port);
  add({.section = "mqtt",
       .name = "prefix",
       .type = F::kString,
       .default_value = text("yolo-edge"),
       .description = "Topic prefix: PREFIX/available, PREFIX/events and PREFIX/stats.",
       .rule = topic_prefix},
      &C::mqtt, &MqttConfig::prefix);
  add({.section = "mqtt",
       .name = "username",
       .type = F::kString,
       .default_value = text(""),
       .description = "Broker user name; empty connects without one."},
      &C::mqtt, &MqttConfig::username);
  add({.section = "mqtt",
       .name = "password",
       .type = F::kString,
       .default_value = text(""),
       .description = "Broker password, sent with mqtt.username."},
      &C::mqtt, &MqttConfig::password);
  add({.section = "mqtt",
       .name = "ca_file",
       .type = F::kPath,
       .default_value = text(""),
       .description = "CA certificate (PEM) to connect with TLS and check the broker against; "
                      "empty connects without TLS."},
      &C::mqtt, &MqttConfig::ca_file);
  add({.section = "mqtt",
       .name = "stats_interval_s",
       .type = F::kFloat,
       .default_value = 10.0,
       .min = 1,
       .max = 3600,
       .description = "Seconds between two PREFIX/stats messages."},
      &C::mqtt, &MqttConfig::stats_interval_s);
  add({.section = "mqtt",
       .name = "debounce_s",
       .type = F::kFloat,
       .default_value = 2.0,
       .min = 0,
       .max = 600,
       .description = "Seconds a label must go unseen before an event says it is gone."},
      &C::mqtt, &MqttConfig::debounce_s);
  add({.section = "mqtt",
       .name = "homeassistant",
       .type = F::kBool,
       .default_value = false,
       .description = "Home Assistant MQTT discovery: a device with an occupancy sensor per "
                      "label (detect.classes, else each label once seen) and sensors for FPS, "
                      "latency, temperature and power."},
      &C::mqtt, &MqttConfig::homeassistant);
  add({.section = "mqtt",
       .name = "discovery_prefix",
       .type = F::kString,
       .default_value = text("homeassistant"),
       .description = "Home Assistant's discovery prefix (its MQTT integration's setting).",
       .rule = topic_prefix},
      &C::mqtt, &MqttConfig::discovery_prefix);

  // gpio
  add({.section = "gpio",
       .name = "chip",
       .type = F::kString,
       .default_value = text("gpiochip0"),
       .description = "Chip of every line that names none: a name (gpiochip0), a path "
                      "(/dev/gpiochip0) or a label (pinctrl-bcm2711 on a Pi 4, pinctrl-rp1 on a "
                      "Pi 5).",
       .rule = require_text},
      &C::gpio, &GpioConfig::chip);
  FieldSpec alerts{
      .section = "gpio",
      .name = "alerts",
      .type = F::kRecordList,
      .default_value = no_records(),
      .description =
          "Output lines that go active while one of their classes is detected (a "
          "buzzer, a relay, an LED), e.g. [{line: 17, classes: [0], hold_ms: 3000}].",
      .members = {
          line_member("gpio.alerts", "Line offset on the chip (on a Pi: the BCM GPIO number)."),
          chip_member("gpio.alerts"),
          {.section = "gpio.alerts",
           .name = "classes",
           .type = F::kIntList,
           .default_value = none(),
           .min = 0,
           .max = 65535,
           .description = "Class ids that set it off, e.g. [0] for COCO person; empty means any "
                          "class."},
          {.section = "gpio.alerts",
           .name = "min_score",
           .type = F::kFloat,
           .default_value = 0.5,
           .min = 0,
           .max = 1,
           .description = "Lowest score that counts as a sighting."},
          {.section = "gpio.alerts",
           .name = "consecutive_frames",
           .type = F::kInt,
           .default_value = whole(1),
           .min = 1,
           .max = 1000,
           .description = "Frames in a row with a sighting before the line goes active."},
          {.section = "gpio.alerts",
           .name = "hold_ms",
           .type = F::kInt,
           .default_value = whole(2000),
           .min = 0,
           .max = 3600000,
           .description = "Milliseconds the line stays active after the last sighting, so it "
                          "does not flicker."},
          {.section = "gpio.alerts",
           .name = "active_low",
           .type = F::kBool,
           .default_value = false,
           .description = "Active means the line is low (relay boards that switch on low)."},
          {.section = "gpio.alerts",
           .name = "zone",
           .type = F::kString,
           .default_value = text(""),
           .description = "A zone's name (zones[].name): the line is active while a tracked "
                          "object is in that zone (the zone's classes count; classes and "
                          "min_score here do not); empty: by detections."},
      }};
  bind_records(alerts, &C::gpio, &GpioConfig::alerts, &GpioAlertConfig::line,
               &GpioAlertConfig::chip, &GpioAlertConfig::classes, &GpioAlertConfig::min_score,
               &GpioAlertConfig::consecutive_frames, &GpioAlertConfig::hold_ms,
               &GpioAlertConfig::active_low, &GpioAlertConfig::zone);
  t.push_back(std::move(alerts));
  FieldSpec led{
      .section = "gpio",
      .name = "status_led",
      .type = F::kRecord,
      .default_value = no_records(),
      .description =
          "A line with an LED: it blinks once a second while frames are "
          "processed, stays on while the camera is lost and blinks fast "
          "when an error needs attention; e.g. {line: 27}, null for none.",
      .members = {
          line_member("gpio.status_led", "Line offset on the chip."),
          chip_member("gpio.status_led"),
          {.section = "gpio.status_led",
           .name = "active_low",
           .type = F::kBool,
           .default_value = false,
           .description = "Lit means the line is low (an LED wired from 3V3 to the line)."},
      }};
  bind_records(led, &C::gpio, &GpioConfig::status_led, &GpioLedConfig::line, &GpioLedConfig::chip,
               &GpioLedConfig::active_low);
  t.push_back(std::move(led));
  FieldSpec button{
      .section = "gpio",
      .name = "precision_button",
      .type = F::kRecord,
      .default_value = no_records(),
      .description =
          "An input line with a push button: a press switches model.precision "
          "between fp32 and int8, as a reload would; e.g. {line: 22}, null for none.",
      .members = {
          line_member("gpio.precision_button", "Line offset on the chip."),
          chip_member("gpio.precision_button"),
          {.section = "gpio.precision_button",
           .name = "active_low",
           .type = F::kBool,
           .default_value = true,
           .description = "Pressed reads low: a button from the line to ground, with a pull-up "
                          "(the usual wiring)."},
          {.section = "gpio.precision_button",
           .name = "bias",
           .type = F::kEnum,
           .default_value = text("pull-up"),
           .choices = {"pull-up", "pull-down", "disabled", "as-is"},
           .description = "The line's pull resistor: pull-up for a button to ground, pull-down "
                          "for a button to 3V3, disabled for an external resistor, as-is "
                          "leaves it to the device tree."},
          {.section = "gpio.precision_button",
           .name = "debounce_ms",
           .type = F::kInt,
           .default_value = whole(50),
           .min = 1,
           .max = 1000,
           .description = "Milliseconds the button must read the same before a change counts "
                          "(contacts bounce)."},
      }};
  bind_records(button, &C::gpio, &GpioConfig::precision_button, &GpioButtonConfig::line,
               &GpioButtonConfig::chip, &GpioButtonConfig::active_low, &GpioButtonConfig::bias,
               &GpioButtonConfig::debounce_ms);
  t.push_back(std::move(button));

  // config
  // webhook
  add({.section = "webhook",
       .name = "url",
       .type = F::kString,
       .default_value = text(""),
       .description = "Where events are POSTed: http:// or https:// (checked against the system's "
                      "CA certificates); empty turns the webhook off.",
       .rule = http_url},
      &C::webhook, &WebhookConfig::url);
  add({.section = "webhook",
       .name = "timeout_s",
       .type = F::kFloat,
       .default_value = 5.0,
       .min = 0.1,
       .max = 60,
       .description = "Seconds to connect, and to send or wait for the answer, before an attempt "
                      "counts as failed."},
      &C::webhook, &WebhookConfig::timeout_s);
  add({.section = "webhook",
       .name = "retries",
       .type = F::kInt,
       .default_value = whole(3),
       .min = 0,
       .max = 10,
       .description = "Attempts after a failed one (no answer, or a status of 408, 429 or 5xx) "
                      "before the event is given up and counted failed."},
      &C::webhook, &WebhookConfig::retries);
  add({.section = "webhook",
       .name = "backoff_s",
       .type = F::kFloat,
       .default_value = 1.0,
       .min = 0,
       .max = 300,
       .description = "Seconds before the first retry, doubling with each further one."},
      &C::webhook, &WebhookConfig::backoff_s);
  add({.section = "webhook",
       .name = "queue",
       .type = F::kInt,
       .default_value = whole(100),
       .min = 1,
       .max = 10000,
       .description = "Events waiting to be sent; beyond this the oldest are dropped and counted."},
      &C::webhook, &WebhookConfig::queue);
  add({.section = "webhook",
       .name = "debounce_s",
       .type = F::kFloat,
       .default_value = 2.0,
       .min = 0,
       .max = 600,
       .description = "Seconds a label must go unseen before an event says it is gone (as "
                      "mqtt.debounce_s)."},
      &C::webhook, &WebhookConfig::debounce_s);

  add({.section = "config",
       .name = "watch",
       .type = F::kBool,
       .default_value = false,
       .description = "Reload when this file changes, as on SIGHUP or systemctl reload."},
      &C::file, &FileConfig::watch);
  for (const section_files::SectionRows& own : kOwnFileSections) own.add_fields(t);
  return t;
}

std::string format_number(double v) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, end);
  // Keep floats recognisable as floats in the YAML ("1.0", not "1").
  if (s.find_first_of(".ein") == std::string::npos) s += ".0";
  return s;
}

std::string format_bound(const FieldSpec& field, double v) {
  if (field.type != FieldType::kFloat) return std::to_string(static_cast<std::int64_t>(v));
  char buf[64];
  // Whole numbers in full ("1000000", not the shortest form "1e+06"): people read these.
  const bool whole_number = v == std::trunc(v) && std::abs(v) < 1e15;
  const auto [end, ec] = whole_number
                             ? std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed)
                             : std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, end);
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string member_names(const FieldSpec& field) {
  std::string out;
  for (const FieldSpec& m : field.members) append(out, {out.empty() ? "" : ", ", m.name});
  return out;
}

// A record as a YAML flow mapping, members in table order.
std::string format_record(const FieldSpec& field, const Record& record) {
  std::string out = "{";
  for (const FieldSpec& m : field.members) {
    const auto it = record.values.find(m.name);
    if (it == record.values.end()) continue;
    append(out, {out.size() > 1 ? ", " : "", m.name, ": ", format_field(m, it->second)});
  }
  return out + "}";
}

}  // namespace

std::string FieldSpec::path() const {
  if (name.empty()) return std::string(section);
  return std::string(section) + "." + std::string(name);
}

std::string FieldSpec::accepts() const {
  const std::string range = " from " + format_bound(*this, min) + " to " + format_bound(*this, max);
  switch (type) {
    case FieldType::kBool:
      return "true or false";
    case FieldType::kInt:
      return "whole number" + range;
    case FieldType::kFloat:
      return "number" + range;
    case FieldType::kString:
      return "text";
    case FieldType::kPath:
      return "path";
    case FieldType::kEnum:
      return "one of " + join_names(choices);
    case FieldType::kIntList:
      return "list of whole numbers" + range;
    case FieldType::kRecord:
      return "mapping {" + member_names(*this) + "} or null";
    case FieldType::kRecordList:
      return "list of mappings {" + member_names(*this) + "}";
    case FieldType::kImageSize:
      return "0, a size or [height, width]" + range + ", or auto";
    case FieldType::kPoint:
      return "a point [x, y], each" + range;
    case FieldType::kPointList:
      return "list of points [[x, y], ...], each number" + range;
    case FieldType::kNameList:
      return choices.empty() ? "list of names" : "list of names from " + join_names(choices);
  }
  return "";
}

const std::vector<SectionSpec>& sections() {
  static const std::vector<SectionSpec> table = build_sections();
  return table;
}

const std::vector<FieldSpec>& fields() {
  static const std::vector<FieldSpec> table = build_fields();
  return table;
}

const FieldSpec* find_field(std::string_view path) {
  for (const FieldSpec& f : fields()) {
    if (f.path() == path) return &f;
  }
  return nullptr;
}

const FieldSpec* find_member(const FieldSpec& field, std::string_view name) {
  for (const FieldSpec& m : field.members) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

std::string check_number(const FieldSpec& field, double v) {
  if (v >= field.min && v <= field.max) return "";
  const bool real = field.type == FieldType::kFloat;
  std::string out = format_bound(field, v);
  out += " is out of range: use ";
  out += real ? "a number" : field.type == FieldType::kInt ? "a whole number" : "whole numbers";
  append(out, {" from ", format_bound(field, field.min), " to ", format_bound(field, field.max)});
  return out;
}

static std::string check_point(const FieldSpec& field, const std::vector<double>& point) {
  if (point.size() != 2) {
    return "a point is two numbers [x, y], got " + std::to_string(point.size());
  }
  for (const double v : point) {
    if (v < field.min || v > field.max) {
      return format_number(v) + " is outside the frame: x and y are fractions of the frame, " +
             format_bound(field, field.min) + " to " + format_bound(field, field.max);
    }
  }
  return "";
}

std::string check_value(const FieldSpec& field, const Value& value) {
  std::string problem;
  switch (field.type) {
    case FieldType::kInt:
      problem = check_number(field, static_cast<double>(std::get<std::int64_t>(value)));
      break;
    case FieldType::kFloat:
      problem = check_number(field, std::get<double>(value));
      break;
    case FieldType::kEnum: {
      const std::string& name = std::get<std::string>(value);
      if (std::find(field.choices.begin(), field.choices.end(), name) == field.choices.end()) {
        problem = "'" + name + "' is not allowed: use one of " + join_names(field.choices);
        if (const std::string near = closest_name(name, field.choices); !near.empty()) {
          problem += " (did you mean '" + near + "'?)";
        }
      }
      break;
    }
    case FieldType::kIntList: {
      const auto& items = std::get<std::vector<std::int64_t>>(value);
      for (std::size_t i = 0; i < items.size() && problem.empty(); ++i) {
        if (const std::string p = check_number(field, static_cast<double>(items[i])); !p.empty()) {
          problem = "item " + std::to_string(i) + ": " + p;
        }
      }
      break;
    }
    case FieldType::kRecord:
    case FieldType::kRecordList: {
      const auto& records = std::get<std::vector<Record>>(value);
      if (field.type == FieldType::kRecord && records.size() > 1) return "is more than one mapping";
      for (std::size_t i = 0; i < records.size() && problem.empty(); ++i) {
        for (const auto& [name, member_value] : records[i].values) {
          const FieldSpec* member = find_member(field, name);
          const std::string p = member ? check_value(*member, member_value) : "is not a key";
          if (p.empty()) continue;
          problem = (field.type == FieldType::kRecordList ? "item " + std::to_string(i) + " " : "");
          append(problem, {name, ": ", p});
          break;
        }
      }
      break;
    }
    case FieldType::kImageSize:
      if (const auto* n = std::get_if<std::int64_t>(&value)) {
        problem = check_number(field, static_cast<double>(*n));
      } else if (const auto* list = std::get_if<std::vector<std::int64_t>>(&value)) {
        if (list->size() != 2) {
          problem = "a list needs two sizes, [height, width] such as [384, 640]; got " +
                    std::to_string(list->size());
        }
        for (std::size_t i = 0; i < list->size() && problem.empty(); ++i) {
          problem = check_number(field, static_cast<double>((*list)[i]));
        }
      } else if (const auto* name = std::get_if<std::string>(&value); !name || *name != "auto") {
        problem = "'" + (name ? *name : std::string()) +
                  "' is not a size: use a number such as 640, [height, width] such as "
                  "[384, 640], or auto";
      }
      break;
    case FieldType::kPoint:
      problem = check_point(field, std::get<std::vector<double>>(value));
      break;
    case FieldType::kPointList: {
      const auto& points = std::get<std::vector<std::vector<double>>>(value);
      for (std::size_t i = 0; i < points.size() && problem.empty(); ++i) {
        if (const std::string p = check_point(field, points[i]); !p.empty()) {
          problem = "point " + std::to_string(i) + ": " + p;
        }
      }
      break;
    }
    case FieldType::kNameList: {
      if (field.choices.empty()) break;
      for (const std::string& name : std::get<std::vector<std::string>>(value)) {
        if (std::find(field.choices.begin(), field.choices.end(), name) != field.choices.end()) {
          continue;
        }
        problem = "'" + name + "' is not allowed: use names from " + join_names(field.choices);
        if (const std::string near = closest_name(name, field.choices); !near.empty()) {
          problem += " (did you mean '" + near + "'?)";
        }
        break;
      }
      break;
    }
    case FieldType::kBool:
    case FieldType::kString:
    case FieldType::kPath:
      break;
  }
  if (problem.empty() && field.rule) problem = field.rule(value);
  return problem;
}

std::optional<Value> parse_image_size(std::string_view text) {
  const auto trim = [](std::string_view t) {
    while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
    while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
    return t;
  };
  const auto whole = [](std::string_view t) -> std::optional<std::int64_t> {
    std::int64_t n = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size()) return std::nullopt;
    return n;
  };
  text = trim(text);
  if (text == "auto") return Value(std::string("auto"));
  const bool bracketed = text.starts_with('[') && text.ends_with(']');
  if (bracketed) text = trim(text.substr(1, text.size() - 2));
  const std::size_t comma = text.find(',');
  if (comma == std::string_view::npos) {
    const auto n = whole(text);
    if (!n) return std::nullopt;
    if (bracketed) return Value(std::vector<std::int64_t>{*n});
    return Value(*n);
  }
  std::vector<std::int64_t> sides;
  for (std::string_view rest = text;;) {
    const std::size_t at = rest.find(',');
    const auto n = whole(trim(rest.substr(0, at)));
    if (!n) return std::nullopt;
    sides.push_back(*n);
    if (at == std::string_view::npos) break;
    rest = rest.substr(at + 1);
  }
  return Value(std::move(sides));
}

runtime::InputSize to_image_size(const Value& value) {
  if (const auto* n = std::get_if<std::int64_t>(&value)) {
    if (*n == 0) return {};
    return runtime::InputSize::fixed(static_cast<int>(*n), static_cast<int>(*n));
  }
  if (const auto* list = std::get_if<std::vector<std::int64_t>>(&value);
      list && list->size() == 2) {
    return runtime::InputSize::fixed(static_cast<int>((*list)[0]), static_cast<int>((*list)[1]));
  }
  if (const auto* name = std::get_if<std::string>(&value); name && *name == "auto") {
    return runtime::InputSize::automatic();
  }
  throw std::invalid_argument("unchecked model.imgsz value stored");
}

std::string format_value(const Value& value) {
  struct Formatter {
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(std::int64_t v) const { return std::to_string(v); }
    std::string operator()(double v) const { return format_number(v); }
    std::string operator()(const std::string& v) const { return quoted(v); }
    std::string operator()(const std::vector<std::int64_t>& v) const {
      std::string out = "[";
      for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + std::to_string(v[i]);
      return out + "]";
    }
    std::string operator()(const std::vector<double>& v) const {
      std::string out = "[";
      for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + format_number(v[i]);
      return out + "]";
    }
    std::string operator()(const std::vector<std::vector<double>>& v) const {
      std::string out = "[";
      for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + (*this)(v[i]);
      return out + "]";
    }
    std::string operator()(const std::vector<std::string>& v) const {
      std::string out = "[";
      for (std::size_t i = 0; i < v.size(); ++i) {
        // Plain words stay plain, as enum names are written; anything else is quoted.
        const bool plain = !v[i].empty() && std::all_of(v[i].begin(), v[i].end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
        });
        out += (i ? ", " : "") + (plain ? v[i] : quoted(v[i]));
      }
      return out + "]";
    }
    std::string operator()(const std::vector<Record>& v) const {
      std::string out = "[";
      for (std::size_t i = 0; i < v.size(); ++i) {
        out += i ? ", {" : "{";
        bool first = true;
        for (const auto& [name, member] : v[i].values) {
          append(out, {first ? "" : ", ", name, ": ", format_value(member)});
          first = false;
        }
        out += "}";
      }
      return out + "]";
    }
  };
  return std::visit(Formatter{}, value);
}

std::string format_field(const FieldSpec& field, const Value& value) {
  switch (field.type) {
    case FieldType::kEnum:
      // Enum names are plain words; quotes would only hide that they are names, not free text.
      return std::get<std::string>(value);
    case FieldType::kImageSize:
      if (const auto* name = std::get_if<std::string>(&value)) return *name;
      return format_value(value);
    case FieldType::kRecord: {
      const auto& records = std::get<std::vector<Record>>(value);
      return records.empty() ? "null" : format_record(field, records.front());
    }
    case FieldType::kRecordList: {
      std::string out = "[";
      for (const Record& r : std::get<std::vector<Record>>(value)) {
        append(out, {out.size() > 1 ? ", " : "", format_record(field, r)});
      }
      return out + "]";
    }
    default:
      return format_value(value);
  }
}

}  // namespace yolo::config
