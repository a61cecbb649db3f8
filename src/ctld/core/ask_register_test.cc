// A controller that starts (a restart, or a standby that now leads) asks the nodes that
// have not registered with it yet to register now, rather than at their next heartbeat.
#include <gtest/gtest.h>

#include "ctld/testing/controller_harness.h"

namespace sluice::ctld::testing {
namespace {

class AskRegisterTest : public ControllerHarness {
 protected:
  Config MakeConfig() const override { return SmallCluster({"n1", "n2", "n3"}, "p"); }
};

TEST_F(AskRegisterTest, OnlyTheNodesNotRegisteredSinceTheStartAreAsked) {
  ctl_->AskNodesToRegister("ctl2");
  EXPECT_TRUE(link_.reregisters.empty());  // every node registered in SetUp
  StartController();                       // a restart: nobody has registered with it
  Register("n2");
  ctl_->AskNodesToRegister("ctl2");
  EXPECT_EQ(link_.reregisters, (std::vector<std::string>{"n1@ctl2", "n3@ctl2"}));
}

}  // namespace
}  // namespace sluice::ctld::testing
