// Advance reservations end to end through the real scontrol/sbatch/squeue: create, show,
// delete; persistence across a controller restart; jobs outside wait with Slurm's reason
// while jobs in the reservation run; access checks for other users.
#include <pwd.h>
#include <unistd.h>

#include <csignal>

#include "cluster_fixture.h"

namespace sluice::testing {
namespace {

class Reservation : public ClusterTest {
 protected:
  // Polls squeue's %r for `job` until it equals `want`; returns the last one seen.
  std::string WaitReason(int64_t job, const std::string& want, int timeout_ms = 20'000) {
    std::string last;
    for (int waited = 0; waited < timeout_ms; waited += 100) {
      RunResult r = Run({"squeue", "-h", "-j", std::to_string(job), "-o", "%r"});
      last = r.out;
      while (!last.empty() && last.back() == '\n') last.pop_back();
      if (last == want) return last;
      usleep(100'000);
    }
    return last;
  }
};

TEST_F(Reservation, CreateShowDeleteAndSurviveRestart) {
  const std::string node = cluster_->NodeName(1);
  RunResult c = Run({"scontrol", "create", "reservation", "ReservationName=later",
                     "StartTime=now+1hour", "Duration=60", "Nodes=" + node, "Users=root"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  EXPECT_EQ(c.out, "Reservation created: later\n");
  RunResult dup = Run({"scontrol", "create", "reservation", "ReservationName=later",
                       "StartTime=now+1hour", "Duration=60", "Nodes=" + node, "Users=root"});
  EXPECT_EQ(dup.exit_code, 1);
  EXPECT_NE(dup.err.find("Error creating the reservation:"), std::string::npos) << dup.err;
  RunResult show = Run({"scontrol", "show", "reservation", "later"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(show.out.rfind("ReservationName=later StartTime=", 0), 0u) << show.out;
  EXPECT_NE(
      show.out.find(" Duration=01:00:00\n   Nodes=" + node +
                    " NodeCnt=1 CoreCnt=16 "
                    "Features=(null) PartitionName=(null) Flags=SPEC_NODES\n   TRES=cpu=16\n"
                    "   Users=root Groups=(null) Accounts=(null) Licenses=(null) "
                    "State=INACTIVE BurstBuffer=(null) Watts=n/a\n   MaxStartDelay=(null)\n\n"),
      std::string::npos)
      << show.out;

  cluster_->KillController(SIGKILL);
  ASSERT_TRUE(cluster_->StartController().ok());
  RunResult again;
  for (int i = 0; i < 100; ++i) {
    again = Run({"scontrol", "show", "reservation"});
    if (again.exit_code == 0) break;
    usleep(100'000);
  }
  EXPECT_EQ(again.out, show.out) << "the reservation must survive a controller restart";

  RunResult upd = Run({"scontrol", "update", "ReservationName=later", "Duration=2:00:00"});
  EXPECT_EQ(upd.exit_code, 0) << upd.err;
  EXPECT_EQ(upd.out, "Reservation updated.\n");
  EXPECT_NE(Run({"scontrol", "show", "res", "later"}).out.find("Duration=02:00:00"),
            std::string::npos);

  RunResult del = Run({"scontrol", "delete", "ReservationName=later"});
  EXPECT_EQ(del.exit_code, 0) << del.err;
  EXPECT_EQ(Run({"scontrol", "show", "reservation"}).out, "No reservations in the system\n");
  RunResult gone = Run({"scontrol", "show", "reservation", "later"});
  EXPECT_EQ(gone.exit_code, 1);
  EXPECT_EQ(gone.err, "Reservation later not found\n");
  RunResult del2 = Run({"scontrol", "delete", "ReservationName=later"});
  EXPECT_EQ(del2.exit_code, 1);
  EXPECT_NE(del2.err.find("Requested reservation is invalid"), std::string::npos) << del2.err;
}

TEST_F(Reservation, OutsideJobsWaitReservationJobsRun) {
  RunResult c = Run({"scontrol", "create", "reservation", "ReservationName=maint", "StartTime=now",
                     "Duration=30", "Nodes=ALL", "Users=root", "Flags=MAINT"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const int64_t outside = Submit({"-o", "/dev/null", "-t", "1", "--wrap", "true"});
  EXPECT_EQ(WaitReason(outside, "ReqNodeNotAvail, Reserved for maintenance"),
            "ReqNodeNotAvail, Reserved for maintenance");
  EXPECT_EQ(State(outside), "PENDING");
  const int64_t inside = Submit({"-o", "/dev/null", "--reservation=maint", "--wrap", "true"});
  EXPECT_EQ(WaitDone(inside), "COMPLETED");
  EXPECT_EQ(State(outside), "PENDING");

  RunResult bad = Run({"sbatch", "--reservation=nope", "--wrap", "true"});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("Requested reservation is invalid"), std::string::npos) << bad.err;

  ASSERT_EQ(Run({"scontrol", "delete", "reservation", "maint"}).exit_code, 0);
  EXPECT_EQ(WaitDone(outside), "COMPLETED");
}

TEST_F(Reservation, OnlyAdminsManageAndOnlyMembersUse) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run commands as another user";
  const passwd* nobody = getpwnam("nobody");
  ASSERT_NE(nobody, nullptr);
  RunOptions as;
  as.uid = nobody->pw_uid;
  as.gid = nobody->pw_gid;
  as.cwd = "/tmp";
  RunResult denied = Run({"scontrol", "create", "reservation", "ReservationName=x", "StartTime=now",
                          "Duration=5", "NodeCnt=1", "Users=nobody"},
                         as);
  EXPECT_EQ(denied.exit_code, 1);
  EXPECT_EQ(denied.err, "Error creating the reservation: Access/permission denied\n");
  ASSERT_EQ(Run({"scontrol", "create", "reservation", "ReservationName=rootonly", "StartTime=now",
                 "Duration=5", "NodeCnt=1", "Users=root"})
                .exit_code,
            0);
  RunResult use =
      Run({"sbatch", "--reservation=rootonly", "-o", "/dev/null", "--wrap", "true"}, as);
  EXPECT_NE(use.exit_code, 0);
  EXPECT_NE(use.err.find("Access denied to requested reservation"), std::string::npos) << use.err;
  RunResult del = Run({"scontrol", "delete", "ReservationName=rootonly"}, as);
  EXPECT_EQ(del.exit_code, 1);
  EXPECT_NE(del.err.find("Access/permission denied"), std::string::npos) << del.err;
}

}  // namespace
}  // namespace sluice::testing
