#include "cli/step_output.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

StepOutputFiles Files(const std::string& out, const std::string& err) {
  return StepOutputFiles(out, err, PatternVars{}, {"node1"}, {0, 0, 0}, false);
}

// -o/-e all | none | <task id>: srun's own stream (nullptr) or nowhere, never a file.
TEST(StepOutput, AllNoneAndATaskIdRouteStreamsInsteadOfNamingFiles) {
  StepOutputFiles all = Files("all", "");
  EXPECT_FALSE(all.active());
  EXPECT_EQ(all.For(1, false), nullptr);

  StepOutputFiles none = Files("none", "all");
  ASSERT_TRUE(none.active());
  std::ostream* sink = none.For(0, false);
  ASSERT_NE(sink, nullptr);
  *sink << "dropped";  // goes nowhere, and fails nothing
  EXPECT_EQ(none.For(0, true), nullptr);
  EXPECT_EQ(none.PathFor(0, false), "");

  StepOutputFiles one = Files("1", "");
  EXPECT_EQ(one.For(1, false), nullptr);  // task 1: srun's stdout
  EXPECT_NE(one.For(2, false), nullptr);  // the others: discarded
  EXPECT_EQ(one.PathFor(2, false), "");
  EXPECT_TRUE(one.Check().ok());
}

}  // namespace
}  // namespace sluice
