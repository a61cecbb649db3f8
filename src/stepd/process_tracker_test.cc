#include "stepd/process_tracker.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>


namespace sluice {
namespace {

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

}  // namespace
}  // namespace sluice
