// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

#include "daemon/outputs/http/http_access.h"

struct MHD_Connection;

namespace yolo::daemon {

// The open connections of the HTTP server, for the bounds on their number (in all and per
// address) and the deadline of each one's request. Fed by libmicrohttpd's callbacks on the loop;
// the timer thread cuts what is overdue and hands back the memory a flood left.
class HttpConnections {
 public:
  // A request not received whole within `request_deadline` of its start is cut off, or within
  // `busy_deadline` while more than three quarters of the connections allowed are in use.
  HttpConnections(std::chrono::milliseconds request_deadline,
                  std::chrono::milliseconds busy_deadline);

  // The bounds of the libmicrohttpd daemon about to start.
  void limit(int max_clients, int max_per_address);
  // Whether a connection from `address` may be taken; when all places are taken, the slowest
  // sender is cut to make room.
  bool accept_from(const HttpAccess::Address& address);
  void started(MHD_Connection* connection);
  void closed(MHD_Connection* connection);
  // A request is in whole (its deadline no longer runs) / was answered (the next one's starts).
  void request_received(MHD_Connection* connection);
  void request_done(MHD_Connection* connection);
  // Cuts off connections whose request is overdue.
  void cut_overdue();
  // Hands the allocator's memory back after a flood of connections (the timer thread's call).
  void release_flood_memory();
  // Takes the connections of a daemon that stopped out of the tables.
  void forget();

  std::size_t open() const;
  // Connections refused for the bounds, and requests cut off (overdue, or to make room).
  std::uint64_t refused() const { return refused_.load(); }
  std::uint64_t cut_off() const { return cut_off_.load(); }

 private:
  struct Connection {
    int fd = -1;
    HttpAccess::Address address{};
    std::chrono::steady_clock::time_point since{};
    bool receiving = true;
  };

  const std::chrono::milliseconds request_deadline_;
  const std::chrono::milliseconds busy_deadline_;

  mutable std::mutex mutex_;
  std::map<MHD_Connection*, Connection> connections_;
  std::map<HttpAccess::Address, int> per_address_;
  int max_clients_ = 0;
  int max_per_address_ = 0;
  // The most connections seen since memory was last handed back (the timer thread's own).
  std::size_t peak_ = 0;
  static constexpr std::size_t kFlood = 256;
  std::atomic<std::uint64_t> refused_{0};
  std::atomic<std::uint64_t> cut_off_{0};
};

}  // namespace yolo::daemon
