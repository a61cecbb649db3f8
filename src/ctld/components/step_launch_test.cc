#include "ctld/components/step_launch.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace sluice::ctld {
namespace {

TEST(LaunchLatch, FiresOnceAfterTheLastAnswerWithTheErrors) {
  LaunchLatch latch(3);
  int fired = 0;
  std::vector<std::string> got;
  latch.OnDone([&](const std::vector<std::string>& errors) {
    ++fired;
    got = errors;
  });
  latch.Done("node01", "");
  latch.Done("node02", "Prolog error");
  EXPECT_EQ(fired, 0);
  latch.Done("node03", "");
  EXPECT_EQ(fired, 1);
  EXPECT_EQ(got, std::vector<std::string>{"node02: Prolog error"});
}

TEST(LaunchLatch, CallbackSetAfterTheAnswersRunsAtOnce) {
  LaunchLatch latch(1);
  latch.Done("node01", "");
  bool fired = false;
  latch.OnDone([&](const std::vector<std::string>& errors) { fired = errors.empty(); });
  EXPECT_TRUE(fired);

  LaunchLatch none(0);  // a step with no node to wait for
  bool fired_none = false;
  none.OnDone([&](const std::vector<std::string>&) { fired_none = true; });
  EXPECT_TRUE(fired_none);
}

TEST(LaunchLatch, AnswersFromManyThreadsFireExactlyOnce) {
  for (int round = 0; round < 50; ++round) {
    LaunchLatch latch(8);
    std::atomic<int> fired{0};
    std::vector<std::thread> agents;
    for (int i = 0; i < 8; ++i) {
      agents.emplace_back([&, i] {
        if (i == 4)
          latch.OnDone(
              [&](const std::vector<std::string>& e) { fired += 1 + static_cast<int>(e.size()); });
        latch.Done("node" + std::to_string(i), i == 2 ? "down" : "");
      });
    }
    for (auto& t : agents) t.join();
    EXPECT_EQ(fired.load(), 2) << "round " << round;  // once, with one error
  }
}

}  // namespace
}  // namespace sluice::ctld
