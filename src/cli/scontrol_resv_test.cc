// scontrol create|update|delete|show reservation against a fake API: the exact 22.05
// record layout, Slurm's messages, and the words sent to the controller.
#include <gtest/gtest.h>

#include "cli/ref_cluster_test_util.h"
#include "cli/scontrol.h"
#include "cli/scontrol_show.h"

namespace sluice {
namespace {

class ScontrolResvTest : public ::testing::Test {
 protected:
  void SetUp() override { SetRefCluster(&t.api); }
  int Run(std::vector<std::string> args) { return RunScontrol(args, t.env); }
  TestCli t;
};

ReservationInfo Maint() {
  ReservationInfo r;
  r.set_name("maint");
  r.set_start_time(Ref(3, 0, 0));
  r.set_end_time(Ref(4, 0, 0));
  for (const char* n : {"node01", "node02"}) r.add_nodes(n);
  r.set_core_cnt(32);
  r.add_flags("MAINT");
  r.add_flags("SPEC_NODES");
  r.add_users("root");
  r.set_tres("cpu=32");
  return r;
}

TEST_F(ScontrolResvTest, ShowLayoutMatchesSlurm) {
  *t.api.resv_reply.add_reservations() = Maint();
  ReservationInfo b = Maint();
  b.set_name("team");
  b.clear_flags();
  b.clear_users();
  b.add_accounts("ml");
  b.add_accounts("vision");
  b.set_partition("gpu");
  b.set_start_time(Ref(2, 0, 0));
  b.set_end_time(Ref(2, 0, 0) + 2 * 86400 + 3600);
  *t.api.resv_reply.add_reservations() = b;
  t.api.resv_reply.set_now(Ref(3, 30, 0));
  EXPECT_EQ(Run({"show", "reservation"}), 0);
  EXPECT_EQ(t.out.str(),
            "ReservationName=maint StartTime=2026-11-30T03:00:00 EndTime=2026-11-30T04:00:00 "
            "Duration=01:00:00\n"
            "   Nodes=node[01-02] NodeCnt=2 CoreCnt=32 Features=(null) PartitionName=(null) "
            "Flags=MAINT,SPEC_NODES\n"
            "   TRES=cpu=32\n"
            "   Users=root Groups=(null) Accounts=(null) Licenses=(null) State=ACTIVE "
            "BurstBuffer=(null) Watts=n/a\n"
            "   MaxStartDelay=(null)\n"
            "\n"
            "ReservationName=team StartTime=2026-11-30T02:00:00 EndTime=2026-12-02T03:00:00 "
            "Duration=2-01:00:00\n"
            "   Nodes=node[01-02] NodeCnt=2 CoreCnt=32 Features=(null) PartitionName=gpu Flags=\n"
            "   TRES=cpu=32\n"
            "   Users=(null) Groups=(null) Accounts=ml,vision Licenses=(null) State=ACTIVE "
            "BurstBuffer=(null) Watts=n/a\n"
            "   MaxStartDelay=(null)\n"
            "\n");
  ASSERT_EQ(t.api.resv_requests.size(), 1u);
  EXPECT_EQ(t.api.resv_requests[0].action(), RESV_SHOW);
  EXPECT_EQ(t.api.resv_requests[0].name(), "");
}

TEST_F(ScontrolResvTest, ShowOneLinerInactiveAndEmpty) {
  *t.api.resv_reply.add_reservations() = Maint();
  t.api.resv_reply.set_now(Ref(2, 0, 0));
  EXPECT_EQ(Run({"-o", "show", "res", "maint"}), 0);
  EXPECT_EQ(t.out.str(),
            "ReservationName=maint StartTime=2026-11-30T03:00:00 EndTime=2026-11-30T04:00:00 "
            "Duration=01:00:00 Nodes=node[01-02] NodeCnt=2 CoreCnt=32 Features=(null) "
            "PartitionName=(null) Flags=MAINT,SPEC_NODES TRES=cpu=32 Users=root Groups=(null) "
            "Accounts=(null) Licenses=(null) State=INACTIVE BurstBuffer=(null) Watts=n/a "
            "MaxStartDelay=(null)\n");
  EXPECT_EQ(t.api.resv_requests[0].name(), "maint");
  t.out.str("");
  t.api.resv_reply.Clear();
  EXPECT_EQ(Run({"show", "reservations"}), 0);
  EXPECT_EQ(t.out.str(), "No reservations in the system\n");
  t.api.resv_status = NotFound("Reservation x not found");
  EXPECT_EQ(Run({"show", "reservation", "x"}), 1);
  EXPECT_EQ(t.err.str(), "Reservation x not found\n");
}

TEST_F(ScontrolResvTest, CreateSendsWordsAndPrintsName) {
  t.api.resv_reply.set_name("maint");
  EXPECT_EQ(Run({"create", "reservation", "ReservationName=maint", "StartTime=now", "Duration=60",
                 "Nodes=node[01-02]", "Users=root", "Flags=MAINT"}),
            0);
  EXPECT_EQ(t.out.str(), "Reservation created: maint\n");
  ASSERT_EQ(t.api.resv_requests.size(), 1u);
  const ReservationRequest& req = t.api.resv_requests[0];
  EXPECT_EQ(req.action(), RESV_CREATE);
  EXPECT_EQ(std::vector<std::string>(req.args().begin(), req.args().end()),
            (std::vector<std::string>{"ReservationName=maint", "StartTime=now", "Duration=60",
                                      "Nodes=node[01-02]", "Users=root", "Flags=MAINT"}));
  // "create Reservation=NAME ..." is the same request.
  EXPECT_EQ(Run({"create", "Reservation=maint", "StartTime=now", "Duration=60", "NodeCnt=1",
                 "Accounts=ml"}),
            0);
  EXPECT_EQ(t.api.resv_requests[1].args(0), "Reservation=maint");
}

TEST_F(ScontrolResvTest, CreateChecksAndServerErrors) {
  struct Case {
    std::vector<std::string> args;
    std::string err;
  } cases[] = {
      {{"create", "res", "Duration=5", "Nodes=ALL", "Users=root"},
       "A start time must be specified.  No reservation created.\n"},
      {{"create", "res", "StartTime=now", "Nodes=ALL", "Users=root"},
       "An end time or duration must be specified.  No reservation created.\n"},
      {{"create", "res", "StartTime=now", "Duration=5", "Users=root"},
       "Nodes, NodeCnt, CoreCnt or TRES must be specified.  No reservation created.\n"},
      {{"create", "res", "StartTime=now", "Duration=5", "Nodes=ALL"},
       "Either Users/Groups and/or Accounts must be specified.  No reservation created.\n"},
  };
  for (const Case& c : cases) {
    t.err.str("");
    EXPECT_EQ(Run(c.args), 1);
    EXPECT_EQ(t.err.str(), c.err);
  }
  EXPECT_TRUE(t.api.resv_requests.empty());
  t.err.str("");
  t.api.resv_status = PermissionDenied("Access/permission denied");
  EXPECT_EQ(Run({"create", "res", "StartTime=now", "Duration=5", "Nodes=ALL", "Users=root"}), 1);
  EXPECT_EQ(t.err.str(), "Error creating the reservation: Access/permission denied\n");
}

TEST_F(ScontrolResvTest, UpdateAndDelete) {
  EXPECT_EQ(Run({"update", "ReservationName=maint", "Duration=120", "Users=alice"}), 0);
  EXPECT_EQ(t.out.str(), "Reservation updated.\n");
  EXPECT_EQ(t.api.resv_requests[0].action(), RESV_UPDATE);
  EXPECT_EQ(t.api.resv_requests[0].args_size(), 3);
  EXPECT_EQ(Run({"delete", "ReservationName=maint"}), 0);
  EXPECT_EQ(Run({"delete", "reservation", "maint"}), 0);
  EXPECT_EQ(t.api.resv_requests[1].action(), RESV_DELETE);
  EXPECT_EQ(t.api.resv_requests[1].name(), "maint");
  EXPECT_EQ(t.api.resv_requests[2].name(), "maint");
  t.api.resv_status = NotFound("Requested reservation is invalid");
  EXPECT_EQ(Run({"delete", "ReservationName=nope"}), 1);
  EXPECT_EQ(t.err.str(), "delete_reservation nope: Requested reservation is invalid\n");
  t.err.str("");
  EXPECT_EQ(Run({"update", "ReservationName=nope", "Duration=1"}), 1);
  EXPECT_EQ(t.err.str(), "Error updating the reservation: Requested reservation is invalid\n");
}

TEST_F(ScontrolResvTest, PartitionAccessFieldsShown) {
  PartitionInfo* p = t.api.partitions.mutable_partitions(0);
  p->set_allow_accounts("ml,vision");
  p->set_allow_qos("high");
  p->set_allow_groups("gpuusers");
  p->set_priority_tier(5);
  p->set_exclusive(true);
  EXPECT_EQ(Run({"show", "partition", "gpu"}), 0);
  EXPECT_NE(t.out.str().find("   AllowGroups=gpuusers AllowAccounts=ml,vision AllowQos=high\n"),
            std::string::npos)
      << t.out.str();
  EXPECT_NE(t.out.str().find("   PriorityJobFactor=1 PriorityTier=5 RootOnly=NO ReqResv=NO "
                             "OverSubscribe=EXCLUSIVE\n"),
            std::string::npos);
  p->clear_allow_accounts();
  p->set_deny_accounts("guests");
  t.out.str("");
  EXPECT_EQ(Run({"show", "partition", "gpu"}), 0);
  EXPECT_NE(t.out.str().find(" DenyAccounts=guests AllowQos=high\n"), std::string::npos);
}

}  // namespace
}  // namespace sluice
