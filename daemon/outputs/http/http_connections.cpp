// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/http/http_connections.h"

#include <malloc.h>
#include <microhttpd.h>
#include <sys/socket.h>

#include <algorithm>

#include "daemon/outputs/http/http_exchange.h"

namespace yolo::daemon {

HttpConnections::HttpConnections(std::chrono::milliseconds request_deadline,
                                 std::chrono::milliseconds busy_deadline)
    : request_deadline_(request_deadline), busy_deadline_(busy_deadline) {}

void HttpConnections::limit(int max_clients, int max_per_address) {
  std::lock_guard lock(mutex_);
  max_clients_ = max_clients;
  max_per_address_ = max_per_address;
}

bool HttpConnections::accept_from(const HttpAccess::Address& address) {
  std::lock_guard lock(mutex_);
  const auto it = per_address_.find(address);
  if (it != per_address_.end() && it->second >= max_per_address_) {
    ++refused_;
    return false;
  }
  if (static_cast<int>(connections_.size()) >= max_clients_) {
    // Full: the connection that has taken longest to send its request makes room (a slow
    // client holding a place), so the page and the API stay reachable while many hosts trickle.
    // Connections that are being answered (streams, waits) are never cut for it.
    Connection* oldest = nullptr;
    for (auto& [connection, c] : connections_) {
      if (c.receiving && c.fd >= 0 && (!oldest || c.since < oldest->since)) oldest = &c;
    }
    if (!oldest) {
      ++refused_;
      return false;
    }
    shutdown(oldest->fd, SHUT_RDWR);
    oldest->fd = -1;
    ++cut_off_;
  }
  return true;
}

void HttpConnections::started(MHD_Connection* connection) {
  Connection c;
  if (const auto* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD)) {
    c.fd = info->connect_fd;
  }
  if (const auto* info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS)) {
    c.address = http::address_of(info->client_addr);
  }
  c.since = http::Clock::now();
  std::lock_guard lock(mutex_);
  ++per_address_[c.address];
  connections_[connection] = c;
}

void HttpConnections::closed(MHD_Connection* connection) {
  std::lock_guard lock(mutex_);
  const auto it = connections_.find(connection);
  if (it == connections_.end()) return;
  const auto per = per_address_.find(it->second.address);
  if (per != per_address_.end() && --per->second <= 0) per_address_.erase(per);
  connections_.erase(it);
}

void HttpConnections::request_received(MHD_Connection* connection) {
  std::lock_guard lock(mutex_);
  const auto it = connections_.find(connection);
  if (it != connections_.end()) it->second.receiving = false;
}

void HttpConnections::request_done(MHD_Connection* connection) {
  // A kept-alive connection waits for its next request: that one has its own deadline.
  std::lock_guard lock(mutex_);
  const auto it = connections_.find(connection);
  if (it == connections_.end()) return;
  it->second.receiving = true;
  it->second.since = http::Clock::now();
}

void HttpConnections::cut_overdue() {
  const auto now = http::Clock::now();
  std::lock_guard lock(mutex_);
  const bool busy = static_cast<int>(connections_.size()) * 4 > max_clients_ * 3;
  const auto deadline = busy ? busy_deadline_ : request_deadline_;
  for (auto& [connection, c] : connections_) {
    if (!c.receiving || c.fd < 0 || now - c.since < deadline) continue;
    // The loop sees the socket end and closes the connection; the descriptor stays valid until
    // closed() has taken it out of this table (it runs under the same lock).
    shutdown(c.fd, SHUT_RDWR);
    c.fd = -1;
    ++cut_off_;
  }
}

void HttpConnections::release_flood_memory() {
  // A flood of connections leaves their freed buffers (a few KiB each) in the allocator's heap,
  // where they count in the daemon's RSS for good; once most have gone, hand them back.
  const std::size_t now_open = open();
  peak_ = std::max(peak_, now_open);
  if (peak_ >= kFlood && now_open <= peak_ / 4) {
    malloc_trim(0);
    peak_ = now_open;
  }
}

void HttpConnections::forget() {
  std::lock_guard lock(mutex_);
  connections_.clear();
  per_address_.clear();
}

std::size_t HttpConnections::open() const {
  std::lock_guard lock(mutex_);
  return connections_.size();
}

}  // namespace yolo::daemon
