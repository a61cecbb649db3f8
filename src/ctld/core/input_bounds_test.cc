// The controller's own bounds on hostile numbers and lists (issue 22): each is refused
// with Slurm's message before anything proportional to it is allocated, and in time
// linear in the request. A test here fails if its bound is removed.
#include <gtest/gtest.h>

#include <chrono>
#include <climits>

#include "client.pb.h"
#include "common/array_spec.h"
#include "ctld/components/reservation_spec.h"
#include "ctld/components/step_layout.h"
#include "ctld/components/validate.h"
#include "ctld/testing/controller_harness.h"
#include "rpc/request_limits.h"

namespace sluice::ctld {
namespace {

JobInfo Job(const std::function<void(JobSpec*)>& edit) {
  JobInfo job;
  job.set_job_id(1);
  job.mutable_spec()->set_script("#!/bin/sh\ntrue\n");
  edit(job.mutable_spec());
  return job;
}

Status Normalize(const Config& c, const std::function<void(JobSpec*)>& edit) {
  JobInfo j = Job(edit);
  return NormalizeJob(c, &j);
}

TEST(InputBounds, ArrayOverMaxArraySizeIsRefusedAtValidation) {
  Config c = testing::SmallCluster({"node01"}, "p");
  auto start = std::chrono::steady_clock::now();
  Status st = Normalize(c, [](JobSpec* s) { s->set_array_spec("5-999399999"); });
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  EXPECT_EQ(st.message(), kMsgInvalidArray);
  EXPECT_EQ(Normalize(c, [](JobSpec* s) { s->set_array_spec("0-1001"); }).message(),
            kMsgInvalidArray);
  EXPECT_TRUE(Normalize(c, [](JobSpec* s) { s->set_array_spec("0-1000"); }).ok());
  c.max_array_size = 10;
  EXPECT_EQ(Normalize(c, [](JobSpec* s) { s->set_array_spec("0-10"); }).message(),
            kMsgInvalidArray);
  EXPECT_TRUE(Normalize(c, [](JobSpec* s) { s->set_array_spec("0-9"); }).ok());
  c.max_array_size = 0;  // Slurm: arrays off
  EXPECT_EQ(Normalize(c, [](JobSpec* s) { s->set_array_spec("0"); }).message(), kMsgInvalidArray);
}

TEST(InputBounds, NodeListLongerThanTheClusterIsRefusedBeforeExpanding) {
  Config c = testing::SmallCluster({"node01", "node02"}, "p");
  for (const char* list : {"node[1-99999999]", "node[01-02],node[01-02],node01"}) {
    EXPECT_EQ(Normalize(c, [&](JobSpec* s) { s->set_nodelist(list); }).message(), kMsgBadNodeName)
        << list;
    EXPECT_EQ(Normalize(c, [&](JobSpec* s) { s->set_exclude(list); }).message(), kMsgBadNodeName)
        << list;
  }
  EXPECT_TRUE(Normalize(c, [](JobSpec* s) { s->set_nodelist("node[01-02]"); }).ok());
  EXPECT_TRUE(Normalize(c, [](JobSpec* s) { s->set_exclude("node02"); }).ok());
}

JobInfo Running(int nodes) {
  JobInfo job;
  job.set_job_id(1);
  for (int i = 0; i < nodes; ++i) {
    NodeAlloc* a = job.add_alloc();
    a->set_node("node0" + std::to_string(i + 1));
    a->add_cpu_ids(0);
    a->set_ntasks(1);
  }
  return job;
}

TEST(InputBounds, StepTaskCountIsBoundedBeforeLayout) {
  JobInfo job = Running(2);
  StepRequest r;
  r.set_ntasks(INT_MAX);  // would size per-rank tables of 2^31 entries
  auto l = PlanStepLayout(job, r);
  ASSERT_FALSE(l.ok());
  EXPECT_EQ(l.status().message(), kMsgBadTaskCount);
  r.set_ntasks(2 * kMaxStepTasksPerNode + 1);
  EXPECT_EQ(PlanStepLayout(job, r).status().message(), kMsgBadTaskCount);
  r.set_ntasks(2 * kMaxStepTasksPerNode);
  EXPECT_TRUE(PlanStepLayout(job, r).ok());
  StepRequest per_node;
  per_node.set_ntasks_per_node(kMaxStepTasksPerNode + 1);
  EXPECT_EQ(PlanStepLayout(job, per_node).status().message(), kMsgBadTaskCount);
  per_node.set_ntasks_per_node(INT_MAX);  // nnodes * ntasks_per_node would overflow
  EXPECT_EQ(PlanStepLayout(job, per_node).status().message(), kMsgBadTaskCount);
}

TEST(InputBounds, StepNodeListLongerThanTheAllocationIsRefused) {
  JobInfo job = Running(2);
  StepRequest r;
  r.set_nodelist("node[1-99999999]");  // past every hostlist bound: refused as Submit does
  EXPECT_EQ(PlanStepLayout(job, r).status().message(), kMsgBadNodeName);
  r.set_nodelist("node0[1-2],node01");
  EXPECT_EQ(PlanStepLayout(job, r).status().message(), kMsgStepNodeConfig);
  r.set_nodelist("node0[1-2]");
  EXPECT_TRUE(PlanStepLayout(job, r).ok());
}

TEST(InputBounds, RepeatedFieldsAreBounded) {
  GetJobsRequest ok, over;
  for (size_t i = 0; i < kMaxRepeatedEntries; ++i) ok.add_job_ids(static_cast<int64_t>(i));
  over = ok;
  over.add_job_ids(1);
  EXPECT_TRUE(CheckRequestLimits(ok).ok());
  std::string detail;
  Status st = CheckRequestLimits(over, &detail);
  EXPECT_EQ(st.message(), kMsgTooLong);
  EXPECT_EQ(detail, "job_ids: 65537 entries (limit 65536)");
  KeepaliveRequest k;
  for (size_t i = 0; i <= kMaxRepeatedEntries; ++i) k.add_ended_step_ids(1);
  EXPECT_FALSE(CheckRequestLimits(k).ok());
}

TEST(InputBounds, ReservationNumbersNeverThrowOrOverflow) {
  const int64_t now = 1700000000;
  for (const char* bad : {"TRES=cpu=99999999999999999999999", "TRES=gres/gpu=18446744073709551616",
                          "TRES=node=9999999999", "NodeCnt=99999999999999999999999",
                          "NodeCnt=1000001", "StartTime=now+99999999999999999999999",
                          "StartTime=now+9223372036854775807weeks", "EndTime=now+2000000000days"}) {
    auto r = ParseReservationArgs({"ReservationName=r", bad}, now);
    EXPECT_FALSE(r.ok()) << bad;
  }
  auto ok = ParseReservationArgs(
      {"ReservationName=r", "StartTime=now+10days", "NodeCnt=3", "TRES=cpu=64"}, now);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(*ok->start, now + 10 * 86400);
  EXPECT_EQ(*ok->tres_cpus, 64);
}

}  // namespace
}  // namespace sluice::ctld
