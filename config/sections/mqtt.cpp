// SPDX-License-Identifier: Apache-2.0
// The mqtt section: detections and status to an MQTT broker.
#include <string>

#include "config/schema_rows.h"
#include "config/sections/sections.h"

namespace yolo::config::section_files {

using namespace rows;

namespace {

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

}  // namespace

SectionSpec mqtt_spec() {
  return {"mqtt", "Detections and status to an MQTT broker, and Home Assistant discovery."};
}

void add_mqtt_fields(std::vector<FieldSpec>& t) {
  const SectionAdder<MqttConfig> add{t, "mqtt", &Config::mqtt};
  using F = FieldType;
  add({.name = "enabled",
       .type = F::kBool,
       .default_value = false,
       .description = "Publish availability, detection events and stats to the broker."},
      &MqttConfig::enabled);
  add({.name = "host",
       .type = F::kString,
       .default_value = text("localhost"),
       .description = "Broker host name or address."},
      &MqttConfig::host);
  add({.name = "port",
       .type = F::kInt,
       .default_value = whole(1883),
       .min = 1,
       .max = 65535,
       .description = "Broker TCP port (8883 is the usual one for TLS)."},
      &MqttConfig::port);
  add({.name = "prefix",
       .type = F::kString,
       .default_value = text("yolo-edge"),
       .description = "Topic prefix: PREFIX/available, PREFIX/events and PREFIX/stats.",
       .rule = topic_prefix},
      &MqttConfig::prefix);
  add({.name = "username",
       .type = F::kString,
       .default_value = text(""),
       .description = "Broker user name; empty connects without one."},
      &MqttConfig::username);
  add({.name = "password",
       .type = F::kString,
       .default_value = text(""),
       .description = "Broker password, sent with mqtt.username."},
      &MqttConfig::password);
  add({.name = "ca_file",
       .type = F::kPath,
       .default_value = text(""),
       .description = "CA certificate (PEM) to connect with TLS and check the broker against; "
                      "empty connects without TLS."},
      &MqttConfig::ca_file);
  add({.name = "stats_interval_s",
       .type = F::kFloat,
       .default_value = 10.0,
       .min = 1,
       .max = 3600,
       .description = "Seconds between two PREFIX/stats messages."},
      &MqttConfig::stats_interval_s);
  add({.name = "debounce_s",
       .type = F::kFloat,
       .default_value = 2.0,
       .min = 0,
       .max = 600,
       .description = "Seconds a label must go unseen before an event says it is gone."},
      &MqttConfig::debounce_s);
  add({.name = "homeassistant",
       .type = F::kBool,
       .default_value = false,
       .description = "Home Assistant MQTT discovery: a device with an occupancy sensor per "
                      "label (detect.classes, else each label once seen) and sensors for FPS, "
                      "latency, temperature and power."},
      &MqttConfig::homeassistant);
  add({.name = "discovery_prefix",
       .type = F::kString,
       .default_value = text("homeassistant"),
       .description = "Home Assistant's discovery prefix (its MQTT integration's setting).",
       .rule = topic_prefix},
      &MqttConfig::discovery_prefix);
}

void check_mqtt(const MqttConfig& m, Problems& problems) {
  if (m.enabled && m.host.empty() && problems.usable("mqtt.host")) {
    problems.add("mqtt.host", problems.written_at("mqtt.host"),
                 "is empty while mqtt.enabled is true: set the broker's host name or address");
  }
  if (!m.password.empty() && m.username.empty() && problems.usable("mqtt.username")) {
    problems.add("mqtt.username", problems.written_at("mqtt.username"),
                 "is empty while mqtt.password is set: the broker takes a password only with a "
                 "user name");
  }
}

void check_mqtt_files(const MqttConfig& m, Problems& problems) {
  if (m.enabled && !m.ca_file.empty() && problems.usable("mqtt.ca_file")) {
    problems.require_file("mqtt.ca_file", m.ca_file, "the broker's CA certificate (PEM)");
  }
}

}  // namespace yolo::config::section_files
