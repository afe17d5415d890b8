// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/mqtt/mqtt_connection.h"

#include <string>

namespace yolo::daemon {

// libmosquitto's global state, set up once per process on first use and cleaned up at exit.
void use_mosquitto() {
  static const struct Library {
    Library() { mosquitto_lib_init(); }
    ~Library() { mosquitto_lib_cleanup(); }
  } library;
}

// A libmosquitto result as words for the status: "connection refused".
std::string mqtt_describe(int rc, int error) {
  std::string text;
  if (rc == MOSQ_ERR_ERRNO) {
    text = error != 0 ? std::error_code(error, std::generic_category()).message()
                      : "the connection was closed";
  } else if (rc == MOSQ_ERR_EAI) {
    text = "cannot resolve mqtt.host";
  } else {
    text = mosquitto_strerror(rc);
  }
  if (!text.empty() && text.back() == '.') text.pop_back();
  if (!text.empty() && text.front() >= 'A' && text.front() <= 'Z' &&
      !(text.size() > 1 && text[1] >= 'A' && text[1] <= 'Z')) {
    text.front() = static_cast<char>(text.front() - 'A' + 'a');
  }
  return text;
}

// Why a connection attempt failed, as the status says it after "MQTT broker HOST:PORT ".
std::string mqtt_problem(int rc, int error) {
  if (rc == MOSQ_ERR_TLS) {
    return "failed the TLS check: its certificate is not signed by mqtt.ca_file or not issued "
           "for mqtt.host, or the port does not speak TLS";
  }
  return "unreachable: " + mqtt_describe(rc, error);
}

// A CONNACK refusal (MQTT 3.1.1 return codes) as words, with what to check.
std::string mqtt_refusal(int code) {
  switch (code) {
    case 1:
      return "refused the connection: unacceptable protocol version";
    case 2:
      return "refused the connection: client identifier rejected";
    case 3:
      return "refused the connection: server unavailable";
    case 4:
      return "refused the connection: bad user name or password; check mqtt.username and "
             "mqtt.password";
    case 5:
      return "refused the connection: not authorised; check mqtt.username and mqtt.password";
    default:
      return "refused the connection (CONNACK code " + std::to_string(code) + ")";
  }
}

BrokerSettings broker_of(const config::MqttConfig& m) {
  return {m.host, m.port, m.username, m.password, m.ca_file, m.prefix};
}

}  // namespace yolo::daemon
