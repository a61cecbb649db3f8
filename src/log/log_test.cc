#include "log/log.h"

#include <gtest/gtest.h>

namespace sluice::log {
namespace {

TEST(Log, SlurmLevelNames) {
  EXPECT_EQ(*ParseLevel("info"), Level::info);
  EXPECT_EQ(*ParseLevel("error"), Level::err);
  EXPECT_EQ(*ParseLevel("debug"), Level::debug);
  EXPECT_EQ(*ParseLevel("debug3"), Level::trace);
  EXPECT_EQ(*ParseLevel("quiet"), Level::off);
  EXPECT_EQ(*ParseLevel(""), Level::info);
  auto bad = ParseLevel("loud");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(), "invalid debug level: loud");
}

TEST(Log, SetdebugAcceptsSlurmsNumbersAndAnyCase) {
  EXPECT_EQ(*ParseLevel("0"), Level::off);
  EXPECT_EQ(*ParseLevel("3"), Level::info);
  EXPECT_EQ(*ParseLevel("5"), Level::debug);
  EXPECT_EQ(*ParseLevel("9"), Level::trace);
  EXPECT_EQ(*ParseLevel("DEBUG2"), Level::trace);
  EXPECT_EQ(*ParseLevel("Error"), Level::err);
  EXPECT_FALSE(ParseLevel("10").ok());
  EXPECT_FALSE(ParseLevel("-1").ok());
  EXPECT_FALSE(ParseLevel("debug6").ok());
}

TEST(Log, CaptureKeepsTheLinesAtOrAboveItsLevel) {
  Capture cap(Level::info);
  cap.logger()->debug("hidden job_id={}", 1);
  cap.logger()->info("job requeued job_id={} reason={}", 7, "NodeFail");
  cap.logger()->error("commit failed");
  ASSERT_EQ(cap.lines().size(), 2u);
  EXPECT_EQ(cap.lines()[0], "job requeued job_id=7 reason=NodeFail");
  EXPECT_EQ(cap.lines()[1], "commit failed");
}

TEST(Log, NullDropsEverything) {
  Logger l = Null();
  l->error("nothing");  // must not crash or print
  EXPECT_EQ(l->sinks().size(), 1u);
}

}  // namespace
}  // namespace sluice::log
