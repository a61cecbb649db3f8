#include "cli/array_view.h"

#include <gtest/gtest.h>

#include "cli/ref_cluster_test_util.h"
#include "cli/scancel.h"
#include "cli/scontrol.h"
#include "cli/squeue.h"

namespace sluice {
namespace {

JobInfo Task(int64_t id, int64_t array, int64_t task, JobState st, const char* reason) {
  JobInfo j = RefJob(id, "arrthr", st, reason, 1, 1'700'000'000);
  j.set_array_job_id(array);
  j.set_array_task_id(task);
  j.set_array_task_count(8);
  j.set_array_throttle(2);
  if (st == JOB_RUNNING) StartJob(&j, 1'700'000'000, {"node01"});
  return j;
}

// Array 48 (tasks 0-7 %2, ids 48-55): tasks 0 and 1 running, the rest pending.
void SetArray(FakeApi* api) {
  api->jobs.Clear();
  api->jobs.set_now(1'700'000'001);
  for (int i = 0; i < 8; ++i) {
    *api->jobs.add_jobs() = Task(48 + i, 48, i, i < 2 ? JOB_RUNNING : JOB_PENDING,
                                 i < 2 ? "None" : "JobArrayTaskLimit");
  }
}

// `squeue -j 48` of SetArray's array: its pending tasks in one line.
constexpr char kArray48Listing[] =
    "             JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)\n"
    "        48_[2-7%2]       gpu   arrthr     root PD       0:00      1 (JobArrayTaskLimit)\n"
    "              48_0       gpu   arrthr     root  R       0:01      1 node01\n"
    "              48_1       gpu   arrthr     root  R       0:01      1 node01\n";

TEST(JobSelectorTest, ParsesTasksRangesAndLists) {
  auto s = ParseJobSelectors("12,44_3,44_[1-3],50_[1,4] 7");
  ASSERT_TRUE(s.ok());
  ASSERT_EQ(s->size(), 5u);
  EXPECT_TRUE((*s)[0].tasks.empty());
  EXPECT_EQ((*s)[1].tasks, (std::vector<int64_t>{3}));
  EXPECT_EQ((*s)[2].tasks, (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ((*s)[3].tasks, (std::vector<int64_t>{1, 4}));
  EXPECT_EQ((*s)[4].id, 7);
  for (const char* bad : {"x", "12_", "12_x", "12_[1-", "12_1-3", "_3", "12_[3-1]", "0"}) {
    EXPECT_FALSE(ParseJobSelectors(bad).ok()) << bad;
  }
  JobInfo t = Task(50, 48, 2, JOB_PENDING, "None");
  EXPECT_TRUE(SelectorMatches({48, {}, ""}, t));
  EXPECT_TRUE(SelectorMatches({50, {}, ""}, t));
  EXPECT_TRUE(SelectorMatches({48, {2}, ""}, t));
  EXPECT_FALSE(SelectorMatches({48, {3}, ""}, t));
  EXPECT_FALSE(SelectorMatches({50, {2}, ""}, t));
}

TEST(ArrayViewTest, DisplayAndDependencyStrings) {
  JobInfo j = RefJob(38, "depB", JOB_PENDING, "Dependency", 1, 1);
  EXPECT_EQ(DisplayJobId(j), "38");
  EXPECT_EQ(DependencyString(j), "(null)");
  DependencyTerm* t = j.add_dependency();
  t->set_type("afterok");
  t->set_job_id(37);
  t->set_task_id(-1);
  EXPECT_EQ(DependencyString(j), "afterok:37(unfulfilled)");
  t->set_state(2);
  EXPECT_EQ(DependencyString(j), "afterok:37(failed)");
  DependencyTerm* s = j.add_dependency();
  s->set_type("singleton");
  s->set_task_id(-1);
  j.set_dependency_any(true);
  EXPECT_EQ(DependencyString(j), "afterok:37(failed)?singleton(unfulfilled)");
  t->set_state(1);  // fulfilled terms are not shown
  EXPECT_EQ(DependencyString(j), "singleton(unfulfilled)");
  EXPECT_EQ(DisplayJobId(Task(50, 48, 2, JOB_PENDING, "")), "48_2");
}

TEST(ArrayViewTest, SqueueCompressesPendingTasks) {
  TestCli t;
  SetArray(&t.api);
  EXPECT_EQ(RunSqueue({"-j", "48"}, t.env), 0);
  EXPECT_EQ(t.out.str(), kArray48Listing);
  t.out.str("");
  EXPECT_EQ(RunSqueue({"-r", "-h", "-j", "48_[3-4],48_7", "-o", "%i %A %F %K %T"}, t.env), 0);
  EXPECT_EQ(t.out.str(), "48_3 51 48 3 PENDING\n48_4 52 48 4 PENDING\n48_7 55 48 7 PENDING\n");
  t.out.str("");
  EXPECT_EQ(RunSqueue({"-h", "-t", "PD", "-o", "%i|%K"}, t.env), 0);
  EXPECT_EQ(t.out.str(), "48_[2-7%2]|2-7%2\n");
}

TEST(ArrayViewTest, SqueueShowsWhatTheControllerCompressed) {
  TestCli t;
  SetArray(&t.api);
  // What a controller answering compress_pending_tasks sends: the running tasks and one
  // record for the pending ones. squeue prints it as it printed its own compression.
  GetJobsReply compressed;
  compressed.set_now(t.api.jobs.now());
  for (int i = 0; i < 3; ++i) *compressed.add_jobs() = t.api.jobs.jobs(i);
  compressed.mutable_jobs(2)->set_array_task_str("[2-7%2]");
  t.api.jobs = compressed;
  EXPECT_EQ(RunSqueue({"-j", "48"}, t.env), 0);
  EXPECT_EQ(t.out.str(), kArray48Listing);
}

TEST(ArrayViewTest, ScontrolShowsArrayFields) {
  TestCli t;
  SetArray(&t.api);
  EXPECT_EQ(RunScontrol({"show", "job", "48_7"}, t.env), 0);
  EXPECT_NE(
      t.out.str().find("JobId=55 ArrayJobId=48 ArrayTaskId=7 ArrayTaskThrottle=2 JobName=arrthr\n"),
      std::string::npos)
      << t.out.str();
  EXPECT_NE(t.out.str().find("JobState=PENDING Reason=JobArrayTaskLimit Dependency=(null)\n"),
            std::string::npos);
  t.out.str("");
  EXPECT_EQ(RunScontrol({"show", "job", "48"}, t.env), 0);
  EXPECT_NE(t.out.str().find("JobId=50 ArrayJobId=48 ArrayTaskId=2-7 ArrayTaskThrottle=2"),
            std::string::npos)
      << t.out.str();
}

TEST(ArrayViewTest, ScancelResolvesTasks) {
  TestCli t;
  SetArray(&t.api);
  EXPECT_EQ(RunScancel({"48_4", "48_[6-7]", "48_0"}, t.env), 0);
  ASSERT_EQ(t.api.cancels.size(), 1u);
  EXPECT_EQ(t.api.cancels[0].job_ids_size(), 0);
  std::vector<int64_t> ids(t.api.cancels[0].exact_job_ids().begin(),
                           t.api.cancels[0].exact_job_ids().end());
  EXPECT_EQ(ids, (std::vector<int64_t>{52, 54, 55, 48}));  // 48_0 is job 48, not the array
  // One query names the tasks, not the whole array (which may hold 10,000 of them).
  ASSERT_EQ(t.api.job_queries.size(), 1u);
  const GetJobsRequest& q = t.api.job_queries[0];
  EXPECT_EQ(q.job_ids_size(), 0);
  ASSERT_EQ(q.array_tasks_size(), 3);
  EXPECT_EQ(q.array_tasks(1).array_job_id(), 48);
  EXPECT_EQ(
      std::vector<int64_t>(q.array_tasks(1).task_ids().begin(), q.array_tasks(1).task_ids().end()),
      (std::vector<int64_t>{6, 7}));
  EXPECT_EQ(RunScancel({"48"}, t.env), 0);  // the whole array: the controller expands it
  EXPECT_EQ(t.api.cancels[1].job_ids(0), 48);
  EXPECT_EQ(RunScancel({"48_9"}, t.env), 0);  // no such task: silent, like an unknown id
  EXPECT_EQ(t.api.cancels.size(), 2u);
  EXPECT_EQ(RunScancel({"-t", "PD", "48"}, t.env), 0);  // a filter picks single tasks
  ASSERT_EQ(t.api.cancels.size(), 3u);
  EXPECT_EQ(t.api.cancels[2].exact_job_ids_size(), 6);
  EXPECT_EQ(t.api.cancels[2].job_ids_size(), 0);
  EXPECT_EQ(RunScancel({"-v", "48_9"}, t.env), 0);
  EXPECT_NE(t.err.str().find("Kill job error on job id 48_9: Invalid job id specified"),
            std::string::npos);
}

}  // namespace
}  // namespace sluice
