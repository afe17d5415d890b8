// SPDX-License-Identifier: Apache-2.0
// initialize(), ThreadPools, Operator ownership and the error messages every wrapper shares.

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/xnn/unary.h"
#include "runtime/xnn/xnn_operator.h"

namespace yolo::runtime::xnn {
namespace {

TEST(Initialize, IsIdempotentAndThreadSafe) {
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) threads.emplace_back([] { initialize(); });
  for (std::thread& t : threads) t.join();
  EXPECT_NO_THROW(initialize());
}

TEST(ThreadPools, OnePoolPerCountCreatedOnce) {
  ThreadPools pools;
  EXPECT_EQ(pools.get(1), nullptr);
  pthreadpool_t two = pools.get(2);
  ASSERT_NE(two, nullptr);
  EXPECT_EQ(pthreadpool_get_threads_count(two), 2u);
  EXPECT_EQ(pools.get(2), two);
  pthreadpool_t three = pools.get(3);
  EXPECT_NE(three, two);
  EXPECT_EQ(pthreadpool_get_threads_count(three), 3u);
  EXPECT_THROW(pools.get(0), std::invalid_argument);
  EXPECT_THROW(pools.get(-2), std::invalid_argument);
}

TEST(Operator, MovesOwnershipAndRunsAfterTheMove) {
  UnaryF32 relu = UnaryF32::clamp(4, 4, 4, 0.0f, 6.0f, "relu6");
  UnaryF32 moved = std::move(relu);
  // Four values and kExtraInputBytes of padding that XNNPACK may read.
  const float input[8] = {-1.0f, 2.0f, 7.0f, 0.5f};
  float output[4] = {};
  moved.setup(1, input, output, nullptr);
  moved.run(nullptr);
  EXPECT_EQ(output[0], 0.0f);
  EXPECT_EQ(output[1], 2.0f);
  EXPECT_EQ(output[2], 6.0f);
  EXPECT_EQ(output[3], 0.5f);

  Operator empty;
  EXPECT_EQ(empty.get(), nullptr);
  EXPECT_THROW(empty.run(nullptr), std::logic_error);
}

TEST(Operator, FailuresNameTheOperatorAndTheStatus) {
  try {
    // XNNPACK rejects a clamp whose min is above its max.
    create_operator("/model.9/Clip", "clamp create", [](xnn_operator_t* out) {
      return xnn_create_clamp_nc_f32(4, 4, 4, 1.0f, -1.0f, 0, out);
    });
    FAIL() << "expected a throw";
  } catch (const std::runtime_error& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("/model.9/Clip"), std::string::npos) << message;
    EXPECT_NE(message.find("clamp create"), std::string::npos) << message;
    EXPECT_NE(message.find("invalid_parameter"), std::string::npos) << message;
  }
  EXPECT_EQ(status_name(xnn_status_unsupported_hardware), "unsupported_hardware");
  EXPECT_NO_THROW(check(xnn_status_success, "anything", "node"));
}

}  // namespace
}  // namespace yolo::runtime::xnn
