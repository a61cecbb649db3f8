// Controller reservation operations and partition access at submit: validation with
// Slurm's messages, admin-only changes, persistence across a reload, busy-node and
// overlap refusals, DAILY repetition, --reservation access, partition Allow*/Deny*.
#include <gtest/gtest.h>

#include <filesystem>

#include "ctld/testing/controller_harness.h"

namespace sluice::ctld {
namespace {

constexpr uint32_t kAlice = 1000;
constexpr int64_t kT0 = 1'700'000'000;

Config ResvConfig() {
  Config c = testing::SmallCluster({"node01", "node02", "node03"}, "gpu");
  const PartitionConfig p = c.partitions[0];
  PartitionConfig q = p;
  q.name = "private";
  q.is_default = false;
  q.allow_accounts = {"ml"};
  q.allow_qos = {"high"};
  q.exclusive = true;
  c.partitions.push_back(q);
  PartitionConfig d = p;
  d.name = "nodeny";
  d.is_default = false;
  d.deny_accounts = {"guests"};
  d.allow_groups = {"g7"};
  c.partitions.push_back(d);
  return c;
}

class ResvOpsTest : public testing::ControllerHarness {
 protected:
  ResvOpsTest() : ControllerHarness(kT0) {}
  Config MakeConfig() const override { return ResvConfig(); }
  // A controller restart on the same store; the nodes register again.
  void Reopen() {
    StartController();
    for (const char* n : {"node01", "node02", "node03"}) Register(n);
  }
  Expected<ReservationReply> Do(ReservationAction a, std::vector<std::string> args,
                                uint32_t uid = 0, std::string name = "") {
    ReservationRequest req;
    req.set_action(a);
    req.set_name(name);
    for (auto& s : args) req.add_args(s);
    return ctl_->Reservation({uid, uid}, req);
  }
  static std::string Msg(const Expected<ReservationReply>& r) {
    return r.ok() ? "ok" : r.status().message();
  }
  Expected<SubmitReply> Submit(uint32_t uid, std::string partition = "", std::string account = "",
                               std::string resv = "", std::string qos = "") {
    SubmitRequest r;
    r.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
    r.mutable_spec()->set_work_dir("/tmp");
    r.mutable_spec()->set_partition(partition);
    r.mutable_spec()->set_account(account);
    r.mutable_spec()->set_reservation(resv);
    r.mutable_spec()->set_qos(qos);
    auto rep = ctl_->Submit({uid, uid}, r);
    EXPECT_TRUE(ctl_->Commit().ok());
    return rep;
  }
};

TEST_F(ResvOpsTest, CreateValidatesAndPersists) {
  auto r = Do(RESV_CREATE, {"ReservationName=m", "StartTime=now+1hour", "Duration=1:30:00",
                            "Nodes=node[01-02]", "Users=root,u1000", "Flags=maint"});
  ASSERT_TRUE(r.ok()) << Msg(r);
  EXPECT_EQ(r->name(), "m");
  const ReservationInfo& m = ctl_->reservations().at("m");
  EXPECT_EQ(m.start_time(), kT0 + 3600);
  EXPECT_EQ(m.end_time(), kT0 + 3600 + 5400);
  EXPECT_EQ(m.core_cnt(), 8);
  EXPECT_EQ(m.tres(), "cpu=8");
  EXPECT_EQ(std::vector<std::string>(m.flags().begin(), m.flags().end()),
            (std::vector<std::string>{"MAINT", "SPEC_NODES"}));
  EXPECT_EQ(Msg(Do(RESV_CREATE, {"ReservationName=m", "StartTime=now", "Duration=5", "Nodes=node03",
                                 "Users=root"})),
            "Duplicate reservation name");
  EXPECT_EQ(
      Msg(Do(RESV_CREATE, {"StartTime=now+2hours", "Duration=5", "Nodes=node02", "Users=root"})),
      "Requested reservation overlaps with another reservation");
  EXPECT_EQ(Msg(Do(RESV_CREATE, {"StartTime=now", "Duration=5", "Nodes=node09", "Users=root"})),
            "Invalid node name specified");
  EXPECT_EQ(Msg(Do(RESV_CREATE, {"StartTime=now", "Duration=5", "Nodes=node03"})),
            "Reservation request lacks users or accounts");
  EXPECT_EQ(
      Msg(Do(RESV_CREATE, {"StartTime=yesterdayish", "Duration=5", "Nodes=node03", "Users=root"})),
      "Invalid StartTime value: yesterdayish");
  EXPECT_EQ(Msg(Do(RESV_CREATE, {"StartTime=now", "EndTime=now", "Nodes=node03", "Users=root"})),
            "Invalid time specified");
  EXPECT_EQ(Msg(Do(RESV_CREATE,
                   {"StartTime=now", "Duration=5", "Nodes=node03", "Users=root", "Flags=BOGUS"})),
            "Invalid flag: BOGUS");
  EXPECT_EQ(
      Msg(Do(RESV_CREATE, {"StartTime=now", "Duration=5", "Nodes=node03", "Users=root"}, kAlice)),
      "Access/permission denied");
  // Generated name; NodeCnt picks a free node outside other reservations in the window.
  auto g =
      Do(RESV_CREATE, {"StartTime=now+1hour", "Duration=UNLIMITED", "NodeCnt=1", "Accounts=ml"});
  ASSERT_TRUE(g.ok()) << Msg(g);
  EXPECT_EQ(g->name(), "ml_1");
  EXPECT_EQ(ctl_->reservations().at("ml_1").nodes(0), "node03");
  EXPECT_EQ(ctl_->reservations().at("ml_1").end_time() - kT0 - 3600, 365 * 86400);

  Reopen();
  ASSERT_EQ(ctl_->reservations().size(), 2u);
  EXPECT_EQ(ctl_->reservations().at("m").end_time(), kT0 + 3600 + 5400);

  auto u = Do(RESV_UPDATE, {"ReservationName=m", "StartTime=now+2hours"});
  ASSERT_TRUE(u.ok()) << Msg(u);
  EXPECT_EQ(ctl_->reservations().at("m").end_time(), kT0 + 7200 + 5400);  // duration kept
  EXPECT_EQ(Msg(Do(RESV_UPDATE, {"ReservationName=zz", "Duration=5"})),
            "Requested reservation is invalid");
  EXPECT_EQ(Msg(Do(RESV_DELETE, {}, 0, "zz")), "Requested reservation is invalid");
  EXPECT_EQ(Msg(Do(RESV_DELETE, {}, kAlice, "m")), "Access/permission denied");
  ASSERT_TRUE(Do(RESV_DELETE, {}, 0, "m").ok());
  Reopen();
  EXPECT_EQ(ctl_->reservations().count("m"), 0u);
  EXPECT_EQ(Msg(Do(RESV_SHOW, {}, kAlice, "m")), "Reservation m not found");
  EXPECT_EQ(Do(RESV_SHOW, {}, kAlice)->reservations_size(), 1);
}

TEST_F(ResvOpsTest, BusyNodesNeedIgnoreJobsAndDailyRepeats) {
  ASSERT_TRUE(Submit(kAlice).ok());
  ctl_->SchedulePass();
  ASSERT_TRUE(ctl_->Commit().ok());
  ASSERT_EQ(ctl_->jobs().Find(1)->state(), JOB_RUNNING);
  const std::string busy = ctl_->jobs().Find(1)->alloc(0).node();
  EXPECT_EQ(Msg(Do(RESV_CREATE, {"ReservationName=a", "StartTime=now", "Duration=10",
                                 "Nodes=" + busy, "Users=root"})),
            "Requested nodes are busy");
  ASSERT_TRUE(Do(RESV_CREATE, {"ReservationName=a", "StartTime=now", "Duration=10", "Nodes=" + busy,
                               "Users=root", "Flags=IGNORE_JOBS,DAILY"})
                  .ok());
  clock_.Set(kT0 + 11 * 60);
  ctl_->SchedulePass();
  const ReservationInfo& a = ctl_->reservations().at("a");
  EXPECT_EQ(a.start_time(), kT0 + 86400);
  EXPECT_EQ(a.end_time(), kT0 + 86400 + 600);
  ASSERT_TRUE(Do(RESV_CREATE, {"ReservationName=once", "StartTime=now", "Duration=1",
                               "Nodes=node03", "Users=root"})
                  .ok());
  clock_.Set(kT0 + 13 * 60);
  ctl_->SchedulePass();
  EXPECT_EQ(ctl_->reservations().count("once"), 0u) << "ended reservations are purged";
  Reopen();
  EXPECT_EQ(ctl_->reservations().count("once"), 0u);
  EXPECT_EQ(ctl_->reservations().at("a").start_time(), kT0 + 86400);
}

TEST_F(ResvOpsTest, SubmitChecksReservationAndPartitionAccess) {
  ASSERT_TRUE(Do(RESV_CREATE, {"ReservationName=team", "StartTime=now", "Duration=60",
                               "Nodes=node01", "Users=u1001", "Accounts=ml"})
                  .ok());
  EXPECT_EQ(Submit(kAlice, "", "", "nope").status().message(),
            "invalid reservation specified: nope\nRequested reservation is invalid");
  EXPECT_EQ(Submit(kAlice, "", "", "team").status().message(),
            "user u1000 (account root) may not use reservation team\n"
            "Access denied to requested reservation");
  EXPECT_TRUE(Submit(1001, "", "", "team").ok());
  EXPECT_TRUE(Submit(kAlice, "", "ml", "team").ok());

  EXPECT_EQ(Submit(kAlice, "private", "other", "", "high").status().message(),
            "job's account not permitted to use this partition (private allows ml not other)\n"
            "Invalid account or account/partition combination specified");
  EXPECT_EQ(Submit(kAlice, "private", "ml").status().message(),
            "job's QOS not permitted to use this partition (private allows high not normal)\n"
            "Invalid qos specification");
  auto ok = Submit(kAlice, "private", "ml", "", "high");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_TRUE(ctl_->jobs().Find(ok->job_id())->spec().exclusive()) << "OverSubscribe=EXCLUSIVE";
  EXPECT_EQ(Submit(7, "nodeny", "guests").status().message(),
            "job's account not permitted to use this partition (nodeny denies guests)\n"
            "Invalid account or account/partition combination specified");
  EXPECT_EQ(Submit(kAlice, "nodeny", "ml").status().message(),
            "User's group not permitted to use this partition");
  EXPECT_TRUE(Submit(7, "nodeny", "ml").ok());
}

}  // namespace
}  // namespace sluice::ctld
