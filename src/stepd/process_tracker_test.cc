#include "stepd/process_tracker.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

namespace sluice {
namespace {

// Children and grandchildren are found; once they are gone (reaped) nothing is, which the
// walk answers from the process's own children list without reading every process.
TEST(ProcessTracker, DescendantsOfFindsChildrenAndGrandchildrenUntilTheyAreGone) {
  EXPECT_TRUE(DescendantsOf(getpid()).empty());
  int pids[2];
  ASSERT_EQ(pipe(pids), 0);
  pid_t child = fork();
  if (child == 0) {
    pid_t grandchild = fork();
    if (grandchild == 0) {
      pause();
      _exit(0);
    }
    write(pids[1], &grandchild, sizeof grandchild);
    pause();
    _exit(0);
  }
  pid_t grandchild = 0;
  ASSERT_EQ(read(pids[0], &grandchild, sizeof grandchild), static_cast<ssize_t>(sizeof grandchild));
  std::vector<pid_t> found = DescendantsOf(getpid());
  std::sort(found.begin(), found.end());
  std::vector<pid_t> want{child, grandchild};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(found, want);
  kill(grandchild, SIGKILL);
  kill(child, SIGKILL);
  ASSERT_EQ(waitpid(child, nullptr, 0), child);
  EXPECT_TRUE(DescendantsOf(getpid()).empty());
  close(pids[0]);
  close(pids[1]);
}

// A process-group leader that is also found as a descendant must get a signal once (a
// trap in the batch shell runs once per delivery: scancel --full, --signal). Real-time
// signals queue instead of merging, so the child counts every delivery.
TEST(ProcessTracker, SignalAllDeliversOncePerProcess) {
  const int sig = SIGRTMIN + 1;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  int ready[2], count[2];
  ASSERT_EQ(pipe(ready), 0);
  ASSERT_EQ(pipe(count), 0);
  auto tracker = ProcessTracker::Create(0, CgroupRoots{"/nonexistent/v2", "/nonexistent/v1"});
  ASSERT_EQ(tracker->mode(), ProcessTracker::Mode::kProcessGroup);
  pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    sigprocmask(SIG_BLOCK, &set, nullptr);
    char n = 0;
    write(ready[1], &n, 1);
    timespec wait{0, 500'000'000};
    while (sigtimedwait(&set, nullptr, &wait) == sig) ++n;
    write(count[1], &n, 1);
    _exit(0);
  }
  setpgid(pid, pid);
  tracker->SetLeader(pid);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  EXPECT_GE(tracker->SignalAll(sig), 1);
  ASSERT_EQ(read(count[0], &byte, 1), 1);
  EXPECT_EQ(byte, 1) << "deliveries to the group leader";
  waitpid(pid, nullptr, 0);
  for (int fd : {ready[0], ready[1], count[0], count[1]}) close(fd);
}

// Two trackers of the same job id on one host (a stale copy, or two agents' jobs) get
// separate cgroups: signalling one never reaches the other's processes.
TEST(ProcessTracker, SameJobIdTwiceGetsSeparateCgroups) {
  auto a = ProcessTracker::Create(987654321, CgroupRoots{});
  if (a->mode() == ProcessTracker::Mode::kProcessGroup) GTEST_SKIP() << "no writable cgroup";
  auto b = ProcessTracker::Create(987654321, CgroupRoots{});
  ASSERT_NE(b->mode(), ProcessTracker::Mode::kProcessGroup);
  EXPECT_NE(a->cgroup_dir(), b->cgroup_dir());
  // A double fork, so that the process is in b's cgroup but not our descendant.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  pid_t mid = fork();
  if (mid == 0) {
    if (b->ForkChild() == 0) {
      pid_t self = getpid();
      write(fds[1], &self, sizeof self);
      pause();
    }
    _exit(0);
  }
  waitpid(mid, nullptr, 0);
  pid_t pid = 0;
  ASSERT_EQ(read(fds[0], &pid, sizeof pid), static_cast<ssize_t>(sizeof pid));
  EXPECT_EQ(b->Alive(), std::vector<pid_t>{pid});
  EXPECT_TRUE(a->Alive().empty());
  EXPECT_EQ(a->SignalAll(SIGKILL), 0);
  EXPECT_EQ(kill(pid, 0), 0) << "a's signal reached b's process";
  EXPECT_EQ(b->SignalAll(SIGKILL), 1);
  for (int i = 0; i < 200 && !b->Alive().empty(); ++i) usleep(5'000);
  close(fds[0]);
  close(fds[1]);
  a->Remove();
  b->Remove();
  EXPECT_NE(access(a->cgroup_dir().c_str(), F_OK), 0);
  EXPECT_NE(access(b->cgroup_dir().c_str(), F_OK), 0);
}

}  // namespace
}  // namespace sluice
