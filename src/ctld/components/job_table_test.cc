// JobTable's indexes follow inserts, replacements and erases.
#include "ctld/components/job_table.h"

#include <gtest/gtest.h>

namespace sluice::ctld {
namespace {

JobInfo Job(int64_t id, uint32_t uid, bool interactive, JobState state = JOB_PENDING) {
  JobInfo j;
  j.set_job_id(id);
  j.set_uid(uid);
  j.set_user("u" + std::to_string(uid));
  j.set_state(state);
  j.mutable_spec()->set_interactive(interactive);
  return j;
}

TEST(JobTable, IndexesFollowInsertsReplacementsAndErases) {
  JobTable t;
  t.Insert(Job(1, 100, false));
  t.Insert(Job(2, 100, true));
  t.Insert(Job(3, 200, true, JOB_RUNNING));
  EXPECT_EQ(t.Interactive(), (std::set<int64_t>{2, 3}));
  EXPECT_EQ(t.NotPending(), (std::set<int64_t>{3}));
  EXPECT_EQ(t.OfUid(100), (std::set<int64_t>{1, 2}));
  EXPECT_EQ(t.UidsNamed("u200"), (std::set<uint32_t>{200}));

  t.Insert(Job(2, 300, false, JOB_COMPLETED));  // a record replaced
  EXPECT_EQ(t.Interactive(), (std::set<int64_t>{3}));
  EXPECT_EQ(t.NotPending(), (std::set<int64_t>{2, 3}));
  EXPECT_EQ(t.OfUid(100), (std::set<int64_t>{1}));
  EXPECT_EQ(t.OfUid(300), (std::set<int64_t>{2}));

  t.Erase(3);
  EXPECT_TRUE(t.Interactive().empty());
  EXPECT_EQ(t.NotPending(), (std::set<int64_t>{2}));
  EXPECT_TRUE(t.OfUid(200).empty());
  EXPECT_EQ(t.PendingCount(), 1u);
}

}  // namespace
}  // namespace sluice::ctld
