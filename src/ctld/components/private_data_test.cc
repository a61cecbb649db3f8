// PrivateData: parsing, and what non-admins see of other users' jobs, steps,
// priorities, shares, reservations, users, associations and accounts (admins see everything).
#include "ctld/components/private_data.h"

#include <gtest/gtest.h>

#include "ctld/testing/controller_harness.h"

namespace sluice::ctld {
namespace {

constexpr uint32_t kAlice = 1000;
constexpr uint32_t kBob = 1001;

TEST(PrivateDataParse, Items) {
  auto p = ParsePrivateData("jobs,Usage,reservations");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->jobs && p->usage && p->reservations);
  EXPECT_FALSE(p->users || p->accounts);
  EXPECT_TRUE(ParsePrivateData("nodes,partitions,cloud,events,users,accounts").ok());
  EXPECT_EQ(ParsePrivateData("jobs,secrets").status().message(),
            "PrivateData: unknown item 'secrets'");
  Config c;
  EXPECT_FALSE(PrivateDataOf(c).jobs);
  c.raw["PrivateData"] = "jobs";
  EXPECT_TRUE(PrivateDataOf(c).jobs);
}

class PrivateDataTest : public testing::ControllerHarness {
 protected:
  Config MakeConfig() const override {
    Config c = testing::SmallCluster({"node01", "node02"}, "gpu");
    c.raw["PrivateData"] = private_;
    return c;
  }
  int64_t SubmitAs(uint32_t uid) {
    SubmitRequest r;
    r.mutable_spec()->set_script("#!/bin/sh\nsleep 100\n");
    r.mutable_spec()->set_cpus_per_task(1);
    auto rep = ctl_->Submit(Caller{uid, uid}, r);
    EXPECT_TRUE(rep.ok()) << rep.status().message();
    EXPECT_TRUE(ctl_->Commit().ok());
    return rep.ok() ? rep->job_id() : 0;
  }
  std::vector<int64_t> Visible(uint32_t uid, std::vector<int64_t> ids, Status* st = nullptr) {
    GetJobsRequest req;
    for (int64_t id : ids) req.add_job_ids(id);
    auto r = ctl_->GetJobs(req);
    std::vector<int64_t> out;
    if (!r.ok()) {
      if (st) *st = r.status();
      return out;
    }
    Status s = ctl_->access().HidePrivate(Caller{uid, uid}, !ids.empty(), &*r);
    if (st) *st = s;
    if (s.ok()) {
      for (const auto& j : r->jobs()) out.push_back(j.job_id());
    }
    return out;
  }
  std::string private_ = "jobs,usage";
};

TEST_F(PrivateDataTest, UsersSeeOnlyTheirOwnJobs) {
  int64_t a = SubmitAs(kAlice);
  int64_t b = SubmitAs(kBob);
  EXPECT_EQ(Visible(kAlice, {}), std::vector<int64_t>({a}));
  EXPECT_EQ(Visible(kBob, {}), std::vector<int64_t>({b}));
  EXPECT_EQ(Visible(0, {}), std::vector<int64_t>({a, b}));  // root sees all
  Status st;
  EXPECT_TRUE(Visible(kBob, {a}, &st).empty());
  EXPECT_EQ(st.code(), Code::kNotFound);
  EXPECT_EQ(st.message(), "Invalid job id specified");
  EXPECT_EQ(Visible(kBob, {a, b}), std::vector<int64_t>({b}));
  GetPrioritiesReply prio;
  prio.add_jobs()->set_uid(kAlice);
  prio.add_jobs()->set_uid(kBob);
  ctl_->access().HidePrivate(Caller{kBob, kBob}, &prio);
  ASSERT_EQ(prio.jobs_size(), 1);
  EXPECT_EQ(prio.jobs(0).uid(), kBob);
  GetStepsReply steps;
  steps.add_steps()->set_uid(kAlice);
  ctl_->access().HidePrivate(Caller{kBob, kBob}, &steps);
  EXPECT_EQ(steps.steps_size(), 0);
}

TEST_F(PrivateDataTest, UsageHidesOtherUsersShareRows) {
  GetSharesReply r;
  r.add_rows()->set_account("root");
  auto* mine = r.add_rows();
  mine->set_account("ml");
  mine->set_user("u1001");
  auto* theirs = r.add_rows();
  theirs->set_account("ml");
  theirs->set_user("u1000");
  GetSharesReply admin_view = r;
  ctl_->access().HidePrivate(Caller{0, 0}, &admin_view);
  EXPECT_EQ(admin_view.rows_size(), 3);
  ctl_->access().HidePrivate(Caller{kBob, kBob}, &r);
  ASSERT_EQ(r.rows_size(), 2);
  EXPECT_EQ(r.rows(0).account(), "root");
  EXPECT_EQ(r.rows(1).user(), "u1001");
}

class NoPrivateDataTest : public PrivateDataTest {
 protected:
  NoPrivateDataTest() { private_ = ""; }
};

TEST_F(NoPrivateDataTest, EveryoneSeesEverything) {
  int64_t a = SubmitAs(kAlice);
  int64_t b = SubmitAs(kBob);
  EXPECT_EQ(Visible(kBob, {}), std::vector<int64_t>({a, b}));
  EXPECT_EQ(Visible(kBob, {a}), std::vector<int64_t>({a}));
}

class PrivateResvTest : public PrivateDataTest {
 protected:
  PrivateResvTest() { private_ = "reservations"; }
};

TEST_F(PrivateResvTest, ReservationsListOnlyThoseNamingTheCaller) {
  ReservationReply r;
  auto* mine = r.add_reservations();
  mine->set_name("mine");
  mine->add_users("u1001");
  auto* other = r.add_reservations();
  other->set_name("other");
  other->add_users("u1000");
  auto* open = r.add_reservations();
  open->set_name("all_but_alice");
  open->add_users("u1000");
  open->set_users_denied(true);
  ctl_->access().HidePrivate(Caller{kBob, kBob}, &r);
  ASSERT_EQ(r.reservations_size(), 2);
  EXPECT_EQ(r.reservations(0).name(), "mine");
  EXPECT_EQ(r.reservations(1).name(), "all_but_alice");
}

class PrivateUsersTest : public PrivateDataTest {
 protected:
  PrivateUsersTest() { private_ = "users,accounts"; }
  SacctmgrReply Mgr(uint32_t uid, const std::string& verb, const std::string& entity,
                    std::vector<std::string> names = {}, std::vector<std::string> set = {}) {
    SacctmgrRequest r;
    r.set_verb(verb);
    r.set_entity(entity);
    for (auto& n : names) r.add_names(n);
    for (auto& v : set) r.add_set(v);
    auto rep = ctl_->Sacctmgr(Caller{uid, uid}, r);
    EXPECT_TRUE(rep.ok()) << rep.status().message();
    return rep.ok() ? *rep : SacctmgrReply{};
  }
  static std::vector<std::string> Users(const SacctmgrReply& r) {
    std::vector<std::string> out;
    for (const auto& u : r.users()) out.push_back(u.user() + "@" + u.account());
    return out;
  }
  static std::vector<std::string> Accounts(const SacctmgrReply& r) {
    std::vector<std::string> out;
    for (const auto& a : r.accounts()) out.push_back(a.name());
    return out;
  }
};

TEST_F(PrivateUsersTest, SacctmgrShowsOnlyTheCallersUserAssociationsAndAccounts) {
  Mgr(0, "add", "account", {"ml", "cv"}, {"parent=root"});
  Mgr(0, "add", "user", {"u1000"}, {"account=ml"});
  Mgr(0, "add", "user", {"u1001"}, {"account=cv"});
  Mgr(0, "add", "user", {"u1001"}, {"account=ml"});
  EXPECT_EQ(Users(Mgr(kAlice, "show", "user")), std::vector<std::string>{"u1000@ml"});
  EXPECT_EQ(Users(Mgr(kBob, "show", "association")),
            (std::vector<std::string>{"u1001@cv", "u1001@ml"}));
  EXPECT_EQ(Accounts(Mgr(kAlice, "show", "account")), std::vector<std::string>{"ml"});
  EXPECT_EQ(Accounts(Mgr(kAlice, "show", "association")), std::vector<std::string>{"ml"});
  SacctmgrReply root_view = Mgr(0, "show", "association");
  EXPECT_EQ(Users(root_view).size(), 3u);
  EXPECT_GE(Accounts(root_view).size(), 3u);  // root, ml, cv
}

TEST_F(PrivateDataTest, WithoutUsersSacctmgrListsEveryone) {
  SacctmgrRequest add;
  add.set_verb("add");
  add.set_entity("account");
  add.add_names("ml");
  add.add_set("parent=root");
  ASSERT_TRUE(ctl_->Sacctmgr(Caller{0, 0}, add).ok());
  for (const char* u : {"u1000", "u1001"}) {
    SacctmgrRequest r;
    r.set_verb("add");
    r.set_entity("user");
    r.add_names(u);
    r.add_set("account=ml");
    ASSERT_TRUE(ctl_->Sacctmgr(Caller{0, 0}, r).ok());
  }
  SacctmgrRequest show;
  show.set_verb("show");
  show.set_entity("user");
  auto rep = ctl_->Sacctmgr(Caller{kAlice, kAlice}, show);
  ASSERT_TRUE(rep.ok());
  EXPECT_EQ(rep->users_size(), 2);
}

}  // namespace
}  // namespace sluice::ctld
