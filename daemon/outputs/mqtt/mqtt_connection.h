// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <mosquitto.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "config/config.h"
#include "daemon/outputs/mqtt/mqtt_messages.h"

namespace yolo::daemon {

// One libmosquitto client without its thread, for MqttOutput's own: the connection, what went
// wrong in words a user can act on, and the settings a change of which reconnects.

// QoS 1 (at least once) for events, occupancy, availability and discovery; QoS 0 is enough for
// stats, which the next one replaces.
inline constexpr int kAtLeastOnce = 1;
inline constexpr int kAtMostOnce = 0;

// A libmosquitto result code and the errno that came with it.
struct MqttFailure {
  int rc = MOSQ_ERR_SUCCESS;
  int error = 0;
};

// libmosquitto's global state, set up once per process on first use and cleaned up at exit.
void use_mosquitto();

// A libmosquitto result as words for the status: "connection refused".
std::string mqtt_describe(int rc, int error);

// Why a connection attempt failed, as the status says it after "MQTT broker HOST:PORT ".
std::string mqtt_problem(int rc, int error);

// A CONNACK refusal (MQTT 3.1.1 return codes) as words, with what to check.
std::string mqtt_refusal(int code);

// What the connection depends on: a change reconnects.
struct BrokerSettings {
  std::string host;
  int port = 0;
  std::string username;
  std::string password;
  std::filesystem::path ca_file;
  std::string prefix;

  bool operator==(const BrokerSettings&) const = default;
  std::string address() const { return host + ":" + std::to_string(port); }
};

BrokerSettings broker_of(const config::MqttConfig& m);

// A message from a subscription.
struct MqttReceived {
  std::string topic;
  std::string payload;
  bool retained = false;
};

struct MosquittoDeleter {
  void operator()(mosquitto* handle) const { mosquitto_destroy(handle); }
};

// One connection attempt and, once the broker accepted it, the connection: a libmosquitto handle
// used without its thread. Its callbacks only record what happened; the MQTT thread acts on it
// after each service().
class MqttConnection {
 public:
  // `published` counts the messages the broker took (QoS 1 acknowledged, QoS 0 written).
  MqttConnection(const BrokerSettings& broker, const std::string& client_id, int keepalive_s,
                 std::int64_t& published)
      : broker_(broker), keepalive_s_(keepalive_s), published_(published) {
    use_mosquitto();
    handle_.reset(mosquitto_new(client_id.c_str(), true, this));
    if (!handle_) throw std::bad_alloc();
    mosquitto_connect_callback_set(handle_.get(), [](mosquitto*, void* self, int code) {
      static_cast<MqttConnection*>(self)->connack_ = code;
    });
    mosquitto_disconnect_callback_set(handle_.get(), [](mosquitto*, void* self, int rc) {
      if (rc != 0) static_cast<MqttConnection*>(self)->lost_ = rc;
    });
    mosquitto_publish_callback_set(handle_.get(), [](mosquitto*, void* self, int mid) {
      static_cast<MqttConnection*>(self)->taken(mid);
    });
    mosquitto_message_callback_set(
        handle_.get(), [](mosquitto*, void* self, const mosquitto_message* m) {
          std::string payload;
          if (m->payloadlen > 0)
            payload.assign(static_cast<const char*>(m->payload), m->payloadlen);
          static_cast<MqttConnection*>(self)->received_.push_back(
              {m->topic, std::move(payload), m->retain});
        });
  }
  MqttConnection(const MqttConnection&) = delete;
  MqttConnection& operator=(const MqttConnection&) = delete;

  // Starts connecting without waiting (but for the host name lookup); what went wrong as the
  // status says it.
  std::optional<std::string> begin(const std::string& will_topic) {
    mosquitto* m = handle_.get();
    if (!broker_.username.empty()) {
      mosquitto_username_pw_set(m, broker_.username.c_str(),
                                broker_.password.empty() ? nullptr : broker_.password.c_str());
    }
    if (!broker_.ca_file.empty()) {
      if (std::FILE* f = std::fopen(broker_.ca_file.c_str(), "r")) {
        std::fclose(f);
      } else {
        return "not tried: cannot read mqtt.ca_file " + broker_.ca_file.string() + " (" +
               std::error_code(errno, std::generic_category()).message() +
               "): give the CA certificate (PEM) that signed the broker's, or leave it empty to "
               "connect without TLS";
      }
      const int rc =
          mosquitto_tls_set(m, broker_.ca_file.c_str(), nullptr, nullptr, nullptr, nullptr);
      if (rc != MOSQ_ERR_SUCCESS) return "not tried: mqtt.ca_file: " + mqtt_describe(rc, errno);
    }
    const std::string offline(kOffline);
    mosquitto_will_set(m, will_topic.c_str(), static_cast<int>(offline.size()), offline.data(),
                       kAtLeastOnce, true);
    errno = 0;
    const int rc = mosquitto_connect_async(m, broker_.host.c_str(), broker_.port, keepalive_s_);
    if (rc != MOSQ_ERR_SUCCESS) return mqtt_problem(rc, errno);
    return std::nullopt;
  }

  // The socket to poll (-1 once closed) and whether to poll it for writing.
  int socket() const { return mosquitto_socket(handle_.get()); }
  bool wants_write() const { return mosquitto_want_write(handle_.get()); }

  // Reads, writes and keeps alive without waiting; the callbacks run here.
  void service() {
    errno = 0;
    const int rc = mosquitto_loop(handle_.get(), 0, 1);
    if (rc != MOSQ_ERR_SUCCESS && rc != MOSQ_ERR_NO_CONN && !error_)
      error_ = MqttFailure{rc, errno};
  }

  // The broker's CONNACK code, once it answered.
  std::optional<int> connack() const { return connack_; }
  // Why the connection ended, once it did.
  std::optional<MqttFailure> closed() const {
    if (socket() >= 0) return std::nullopt;
    if (error_) return error_;
    return MqttFailure{lost_.value_or(MOSQ_ERR_CONN_LOST), 0};
  }

  // Queues a message (written at once when the socket takes it); false when libmosquitto
  // refused it (no connection).
  bool send(const std::string& topic, std::string_view payload, int qos, bool retain) {
    int mid = 0;
    const int rc = mosquitto_publish(handle_.get(), &mid, topic.c_str(),
                                     static_cast<int>(payload.size()), payload.data(), qos, retain);
    if (rc != MOSQ_ERR_SUCCESS) return false;
    // A QoS 0 message written at once is reported taken before mosquitto_publish returns.
    if (!taken_early_.erase(mid)) in_flight_.insert(mid);
    return true;
  }
  void subscribe(const std::string& filter) {
    mosquitto_subscribe(handle_.get(), nullptr, filter.c_str(), kAtLeastOnce);
  }
  void unsubscribe(const std::string& filter) {
    mosquitto_unsubscribe(handle_.get(), nullptr, filter.c_str());
  }
  void disconnect() { mosquitto_disconnect(handle_.get()); }

  // Messages handed over and not yet taken by the broker.
  std::size_t in_flight() const { return in_flight_.size(); }
  std::vector<MqttReceived> take_received() { return std::exchange(received_, {}); }

 private:
  void taken(int mid) {
    ++published_;
    if (!in_flight_.erase(mid)) taken_early_.insert(mid);
  }

  BrokerSettings broker_;
  int keepalive_s_;
  std::int64_t& published_;
  std::unique_ptr<mosquitto, MosquittoDeleter> handle_;
  // What the callbacks recorded.
  std::optional<int> connack_;
  std::optional<int> lost_;
  std::vector<MqttReceived> received_;
  // The first error service() met.
  std::optional<MqttFailure> error_;
  // Message ids handed over and not yet taken, and ids taken before send() saw them.
  std::set<int> in_flight_;
  std::set<int> taken_early_;
};

}  // namespace yolo::daemon
