// SPDX-License-Identifier: Apache-2.0
#include "runtime/xnn/xnn_operator.h"

#include <stdexcept>
#include <utility>

namespace yolo::runtime::xnn {

namespace {

std::once_flag g_init_once;
xnn_status g_init_status = xnn_status_uninitialized;

}  // namespace

void initialize() {
  std::call_once(g_init_once, [] { g_init_status = xnn_initialize(nullptr); });
  if (g_init_status != xnn_status_success) {
    throw std::runtime_error(
        "XNNPACK initialisation failed: " + std::string(status_name(g_init_status)) +
        " (unsupported_hardware means this CPU lacks the SIMD XNNPACK needs)");
  }
}

std::string_view status_name(xnn_status status) {
  switch (status) {
    case xnn_status_success:
      return "success";
    case xnn_status_uninitialized:
      return "uninitialized";
    case xnn_status_invalid_parameter:
      return "invalid_parameter";
    case xnn_status_invalid_state:
      return "invalid_state";
    case xnn_status_unsupported_parameter:
      return "unsupported_parameter";
    case xnn_status_unsupported_hardware:
      return "unsupported_hardware";
    case xnn_status_out_of_memory:
      return "out_of_memory";
  }
  return "unknown status";
}

void check(xnn_status status, std::string_view what, std::string_view name) {
  if (status == xnn_status_success) return;
  throw std::runtime_error("XNNPACK " + std::string(what) + " failed for '" + std::string(name) +
                           "': " + std::string(status_name(status)));
}

pthreadpool_t ThreadPools::get(int threads) {
  if (threads < 1) {
    throw std::invalid_argument("thread count must be at least 1, got " + std::to_string(threads));
  }
  if (threads == 1) return nullptr;
  std::lock_guard lock(mutex_);
  auto& pool = pools_[threads];
  if (!pool) {
    pool.reset(pthreadpool_create(static_cast<size_t>(threads)));
    if (!pool) {
      pools_.erase(threads);
      throw std::runtime_error("cannot create a pool of " + std::to_string(threads) +
                               " threads (pthreadpool_create failed: out of memory or threads)");
    }
  }
  return pool.get();
}

Operator::Operator(Operator&& other) noexcept
    : op_(std::exchange(other.op_, nullptr)), name_(std::move(other.name_)) {}

Operator& Operator::operator=(Operator&& other) noexcept {
  if (this != &other) {
    if (op_ != nullptr) xnn_delete_operator(op_);
    op_ = std::exchange(other.op_, nullptr);
    name_ = std::move(other.name_);
  }
  return *this;
}

Operator::~Operator() {
  if (op_ != nullptr) xnn_delete_operator(op_);
}

void Operator::run(pthreadpool_t pool) const {
  if (op_ == nullptr) throw std::logic_error("run of an empty XNNPACK operator '" + name_ + "'");
  check(xnn_run_operator(op_, pool), "run", name_);
}

}  // namespace yolo::runtime::xnn
