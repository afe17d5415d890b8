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
  const SectionAdder<MqttConfig> add{t, &Config::mqtt};
  add("enabled", &MqttConfig::enabled, false,
      "Publish availability, detection events and stats to the broker.");
  add("host", &MqttConfig::host, "localhost", "Broker host name or address.");
  add("port", &MqttConfig::port, 1883, {.min = 1, .max = 65535},
      "Broker TCP port (8883 is the usual one for TLS).");
  add("prefix", &MqttConfig::prefix, "yolo-edge", {.rule = topic_prefix},
      "Topic prefix: PREFIX/available, PREFIX/events and PREFIX/stats.");
  add("username", &MqttConfig::username, "", "Broker user name; empty connects without one.");
  add("password", &MqttConfig::password, "", "Broker password, sent with mqtt.username.");
  add("ca_file", &MqttConfig::ca_file, "",
      "CA certificate (PEM) to connect with TLS and check the broker against; empty connects "
      "without TLS.");
  add("stats_interval_s", &MqttConfig::stats_interval_s, 10.0, {.min = 1, .max = 3600},
      "Seconds between two PREFIX/stats messages.");
  add("debounce_s", &MqttConfig::debounce_s, 2.0, {.min = 0, .max = 600},
      "Seconds a label must go unseen before an event says it is gone.");
  add("homeassistant", &MqttConfig::homeassistant, false,
      "Home Assistant MQTT discovery: a device with an occupancy sensor per label (detect.classes, "
      "else each label once seen) and sensors for FPS, latency, temperature and power.");
  add("discovery_prefix", &MqttConfig::discovery_prefix, "homeassistant", {.rule = topic_prefix},
      "Home Assistant's discovery prefix (its MQTT integration's setting).");
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
