// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/http/http_exchange.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <charconv>
#include <cstring>

#include <nlohmann/json.hpp>

namespace yolo::daemon::http {

namespace {

static_assert(kEndOfStream == MHD_CONTENT_READER_END_OF_STREAM);

// The kernel's send buffer of a stream's socket.
constexpr int kStreamSocketBuffer = 128 * 1024;
// Bytes handed to the socket per call of a stream's body.
constexpr std::size_t kStreamBlock = 32 * 1024;

ssize_t read_stream(void* cls, std::uint64_t, char* buffer, std::size_t max) {
  return (*static_cast<std::function<long(char*, std::size_t)>*>(cls))(buffer, max);
}

void free_stream(void* cls) {
  delete static_cast<std::function<long(char*, std::size_t)>*>(cls);
}

std::string value(MHD_Connection* connection, MHD_ValueKind kind, const char* name) {
  const char* text = MHD_lookup_connection_value(connection, kind, name);
  return text ? text : "";
}

}  // namespace

int queue(MHD_Connection* connection, int status, const std::string& body, const std::string& type,
          const Headers& headers) {
  MHD_Response* response = MHD_create_response_from_buffer(
      body.size(), const_cast<char*>(body.data()), MHD_RESPMEM_MUST_COPY);
  if (!response) return MHD_NO;
  MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, type.c_str());
  MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
  for (const auto& [name, value] : headers) {
    MHD_add_response_header(response, name.c_str(), value.c_str());
  }
  const MHD_Result result = MHD_queue_response(connection, static_cast<unsigned>(status), response);
  MHD_destroy_response(response);
  return result;
}

int queue(MHD_Connection* connection, const Answer& answer) {
  return queue(connection, answer.status, answer.body, answer.type, answer.headers);
}

Answer error_answer(int status, const std::string& message, const Headers& headers) {
  return {status, nlohmann::json{{"error", message}}.dump() + "\n", "application/json", headers};
}

int queue_error(MHD_Connection* connection, int status, const std::string& message,
                const Headers& headers) {
  return queue(connection, error_answer(status, message, headers));
}

int queue_json(MHD_Connection* connection, const std::string& json_text) {
  return queue(connection, 200, json_text, "application/json", {{"Cache-Control", "no-store"}});
}

int queue_stream(MHD_Connection* connection, const char* type, const Headers& headers,
                 std::chrono::seconds write_timeout,
                 std::function<long(char* buffer, std::size_t max)> next) {
  MHD_Response* response = MHD_create_response_from_callback(
      MHD_SIZE_UNKNOWN, kStreamBlock, &read_stream,
      new std::function<long(char*, std::size_t)>(std::move(next)), &free_stream);
  if (!response) return MHD_NO;
  MHD_add_response_header(response, MHD_HTTP_HEADER_CONTENT_TYPE, type);
  MHD_add_response_header(response, "Cache-Control", "no-store");
  MHD_add_response_header(response, "X-Content-Type-Options", "nosniff");
  for (const auto& [name, value] : headers) {
    MHD_add_response_header(response, name.c_str(), value.c_str());
  }
  // A client that stops reading is dropped after this, and its place is free again. Its socket
  // holds a few frames, not the megabytes the kernel would grow it to: a slow viewer gets fresh
  // frames instead of old ones queued, and one that stopped reading is found within seconds.
  MHD_set_connection_option(connection, MHD_CONNECTION_OPTION_TIMEOUT,
                            static_cast<unsigned>(write_timeout.count()));
  if (const auto* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD)) {
    const int bytes = kStreamSocketBuffer;
    setsockopt(info->connect_fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
  }
  const MHD_Result result = MHD_queue_response(connection, MHD_HTTP_OK, response);
  MHD_destroy_response(response);
  return result;
}

std::string request_header(MHD_Connection* connection, const char* name) {
  return value(connection, MHD_HEADER_KIND, name);
}

std::string cookie(MHD_Connection* connection, const char* name) {
  return value(connection, MHD_COOKIE_KIND, name);
}

std::optional<std::string> query_argument(MHD_Connection* connection, const char* name) {
  const char* text = MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, name);
  if (!text) return std::nullopt;
  return std::string(text);
}

HttpAccess::Address address_of(const sockaddr* addr) {
  HttpAccess::Address out{};
  if (addr == nullptr) return out;
  if (addr->sa_family == AF_INET) {
    out[10] = out[11] = 0xff;
    std::memcpy(out.data() + 12, &reinterpret_cast<const sockaddr_in*>(addr)->sin_addr, 4);
  } else if (addr->sa_family == AF_INET6) {
    std::memcpy(out.data(), &reinterpret_cast<const sockaddr_in6*>(addr)->sin6_addr, 16);
  }
  return out;
}

std::string address_text(const HttpAccess::Address& a) {
  char text[INET6_ADDRSTRLEN] = "?";
  static constexpr std::uint8_t kMapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
  if (std::memcmp(a.data(), kMapped, 12) == 0) {
    inet_ntop(AF_INET, a.data() + 12, text, sizeof text);
  } else {
    inet_ntop(AF_INET6, a.data(), text, sizeof text);
  }
  return text;
}

std::optional<std::int64_t> whole_number(std::string_view text) {
  // Ids fit in 18 digits (any int64 below 10^18): a longer one is no id, not an overflow.
  if (text.empty() || text.size() > 18) return std::nullopt;
  std::int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

}  // namespace yolo::daemon::http
