// sacctmgr without -i, end to end: the change is printed, then "(N/y): " is read from
// stdin; 'n' and end of input discard it (exit 0, nothing written), 'y' commits.
#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

class SacctmgrConfirm : public ClusterTest {
 protected:
  RunResult MgrWithInput(std::vector<std::string> args, const std::string& input) {
    args.insert(args.begin(), "sacctmgr");
    RunOptions o;
    o.stdin_data = input;
    return Run(args, o);
  }
  std::string Accounts() {
    return Run({"sacctmgr", "-n", "-P", "show", "account", "format=account"}).out;
  }
};

TEST_F(SacctmgrConfirm, OnlyYesCommits) {
  const std::string prompt =
      "Would you like to commit changes? (You have 30 seconds to decide)\n(N/y): ";
  for (const char* input : {"n\n", ""}) {
    RunResult no = MgrWithInput({"add", "account", "chem"}, input);
    EXPECT_EQ(no.exit_code, 0) << no.err;
    EXPECT_EQ(no.out.rfind(" Adding Account(s)\n  chem\n", 0), 0u) << no.out;
    EXPECT_NE(no.out.find(prompt + " Changes Discarded.\n"), std::string::npos) << no.out;
    EXPECT_EQ(Accounts().find("chem"), std::string::npos) << input;
  }
  RunResult yes = MgrWithInput({"add", "account", "chem"}, "y\n");
  EXPECT_EQ(yes.exit_code, 0) << yes.err;
  EXPECT_NE(yes.out.find(prompt), std::string::npos) << yes.out;
  EXPECT_EQ(yes.out.find("Discarded"), std::string::npos) << yes.out;
  EXPECT_NE(Accounts().find("chem\n"), std::string::npos);
  // Deleting asks too; 'n' keeps the account.
  RunResult keep = MgrWithInput({"delete", "account", "chem"}, "n\n");
  EXPECT_EQ(keep.exit_code, 0) << keep.err;
  EXPECT_NE(keep.out.find(" Changes Discarded.\n"), std::string::npos) << keep.out;
  EXPECT_NE(Accounts().find("chem\n"), std::string::npos);
}

}  // namespace
}  // namespace sluice::testing
