// SPDX-License-Identifier: Apache-2.0
// Requests from other threads to the control loop (daemon/core/control_requests.cpp): answered
// by serve() in the order queued, the eventfd readable exactly while some wait, a handler's
// exception a refusal, close() answering everything with kStopping, many callers at once.
#include "daemon/core/control_requests.h"

#include <gtest/gtest.h>
#include <poll.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace yolo::daemon {
namespace {

using namespace std::chrono_literals;

// Whether the requests' eventfd is readable within `timeout`.
bool readable(const ControlRequests& requests, std::chrono::milliseconds timeout = 0ms) {
  pollfd p{requests.fd(), POLLIN, 0};
  return poll(&p, 1, static_cast<int>(timeout.count())) == 1 && (p.revents & POLLIN) != 0;
}

ControlRequest precision(std::string value, std::string origin = "test") {
  return {ControlRequest::Kind::kPrecision, std::move(value), std::move(origin)};
}

// Serves on its own thread, as the control loop does: polls the fd and answers with `handler`
// until stopped.
class ControlLoop {
 public:
  explicit ControlLoop(ControlRequests& requests,
                       std::function<ControlReply(const ControlRequest&)> handler)
      : thread_([this, &requests, handler = std::move(handler)] {
          while (!stop_) {
            if (readable(requests, 10ms)) requests.serve(handler);
          }
        }) {}
  ~ControlLoop() {
    stop_ = true;
    thread_.join();
  }
  ControlLoop(const ControlLoop&) = delete;
  ControlLoop& operator=(const ControlLoop&) = delete;

 private:
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

// Serves what is queued, answering kApplied, keeping the requests in `seen`; how many it served.
int serve_all(ControlRequests& requests, std::vector<ControlRequest>* seen = nullptr) {
  int served = 0;
  requests.serve([&](const ControlRequest& r) {
    ++served;
    if (seen) seen->push_back(r);
    return ControlReply{};
  });
  return served;
}

TEST(ControlRequests, TheFdIsReadableExactlyWhileRequestsWait) {
  ControlRequests requests;
  ASSERT_GE(requests.fd(), 0);
  EXPECT_FALSE(readable(requests)) << "nothing queued";
  requests.post(precision("int8"));
  requests.post({ControlRequest::Kind::kReload, "", "SIGHUP"});
  EXPECT_TRUE(readable(requests));
  EXPECT_EQ(serve_all(requests), 2) << "one serve() answers every request queued";
  EXPECT_FALSE(readable(requests)) << "served: the fd sleeps again";
  EXPECT_EQ(serve_all(requests), 0) << "serving with nothing queued calls nothing";
}

TEST(ControlRequests, ServeHandsEachRequestOverAsPostedInOrder) {
  ControlRequests requests;
  requests.post(precision("int8", "POST /api/precision from 192.168.1.20"));
  requests.post({ControlRequest::Kind::kReload, "", "GPIO 17"});
  requests.post(precision("toggle", "button"));
  std::vector<ControlRequest> seen;
  EXPECT_EQ(serve_all(requests, &seen), 3);
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].kind, ControlRequest::Kind::kPrecision);
  EXPECT_EQ(seen[0].precision, "int8");
  EXPECT_EQ(seen[0].origin, "POST /api/precision from 192.168.1.20");
  EXPECT_EQ(seen[1].kind, ControlRequest::Kind::kReload);
  EXPECT_EQ(seen[1].origin, "GPIO 17");
  EXPECT_EQ(seen[2].precision, "toggle");
  EXPECT_EQ(seen[2].origin, "button");
}

TEST(ControlRequests, CallWaitsForTheControlLoopsAnswer) {
  ControlRequests requests;
  ControlLoop loop(requests, [](const ControlRequest& r) {
    return ControlReply{ControlReply::Outcome::kApplied,
                        "reloaded: model.precision=" + r.precision,
                        {"model.precision"}};
  });
  const std::optional<ControlReply> reply = requests.call(precision("fp32"), 5s);
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->outcome, ControlReply::Outcome::kApplied);
  EXPECT_EQ(reply->message, "reloaded: model.precision=fp32");
  EXPECT_EQ(reply->changed, std::vector<std::string>{"model.precision"});
}

TEST(ControlRequests, ACallNotAnsweredInTimeIsNothingButStillRuns) {
  ControlRequests requests;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_FALSE(requests.call(precision("int8"), 50ms)) << "no control loop answered";
  EXPECT_GE(std::chrono::steady_clock::now() - start, 50ms) << "it waited its timeout";
  // The request stayed queued: the loop still runs it, and answering it harms nothing.
  EXPECT_TRUE(readable(requests));
  std::vector<ControlRequest> seen;
  EXPECT_EQ(serve_all(requests, &seen), 1);
  EXPECT_EQ(seen.at(0).precision, "int8");
}

TEST(ControlRequests, AHandlerThatThrowsRefusesWithItsMessageAndTheRestAreServed) {
  ControlRequests requests;
  ControlLoop loop(requests, [](const ControlRequest& r) -> ControlReply {
    if (r.precision == "bad") throw std::runtime_error("model.precision: 'bad' is not a precision");
    return {ControlReply::Outcome::kApplied, "reloaded", {}};
  });
  const auto refused = requests.call(precision("bad"), 5s);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->outcome, ControlReply::Outcome::kRefused);
  EXPECT_EQ(refused->message, "model.precision: 'bad' is not a precision");
  EXPECT_TRUE(refused->changed.empty());
  const auto applied = requests.call(precision("int8"), 5s);
  ASSERT_TRUE(applied);
  EXPECT_EQ(applied->outcome, ControlReply::Outcome::kApplied);
}

TEST(ControlRequests, CloseAnswersWaitingAndLaterRequestsWithStopping) {
  ControlRequests requests;
  std::optional<ControlReply> waiting;
  std::thread caller([&] { waiting = requests.call(precision("int8"), 5s); });
  // Until the call is queued.
  ASSERT_TRUE(readable(requests, 5000ms));
  requests.close();
  caller.join();
  ASSERT_TRUE(waiting) << "the waiting caller got an answer, not a timeout";
  EXPECT_EQ(waiting->outcome, ControlReply::Outcome::kStopping);
  EXPECT_EQ(waiting->message, "the daemon is stopping");

  const auto start = std::chrono::steady_clock::now();
  const auto later = requests.call({ControlRequest::Kind::kReload, "", "SIGHUP"}, 5s);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s) << "answered at once";
  ASSERT_TRUE(later);
  EXPECT_EQ(later->outcome, ControlReply::Outcome::kStopping);
  requests.post(precision("fp32"));
  EXPECT_EQ(serve_all(requests), 0) << "nothing is queued once closed";
}

TEST(ControlRequests, ManyThreadsCallingAtOnceEachGetTheirOwnAnswer) {
  ControlRequests requests;
  std::atomic<int> handled{0};
  ControlLoop loop(requests, [&](const ControlRequest& r) {
    ++handled;
    return ControlReply{ControlReply::Outcome::kApplied, r.origin, {}};
  });
  constexpr int kThreads = 8;
  constexpr int kCalls = 50;
  std::atomic<int> right{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < kThreads; ++t) {
    callers.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) {
        const std::string origin = std::to_string(t) + "/" + std::to_string(i);
        const auto reply = requests.call(precision("toggle", origin), 10s);
        if (reply && reply->message == origin) ++right;
      }
    });
  }
  for (auto& c : callers) c.join();
  EXPECT_EQ(right, kThreads * kCalls) << "every caller got the answer to its own request";
  EXPECT_EQ(handled, kThreads * kCalls) << "each request ran once";
}

}  // namespace
}  // namespace yolo::daemon
