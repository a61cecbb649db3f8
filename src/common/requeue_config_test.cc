// MaxBatchRequeue / RequeueExit / RequeueExitHold keys and the --signal spec parser.
#include <gtest/gtest.h>

#include <csignal>

#include "common/config.h"
#include "common/signal_spec.h"

namespace sluice {
namespace {

TEST(RequeueConfig, DefaultsAndValues) {
  auto d = ParseConfig("ClusterName=c\n", "t.conf");
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->requeue.max_batch_requeue, 5);
  EXPECT_TRUE(d->requeue.requeue_exit.empty());
  auto c = ParseConfig("ClusterName=c\nmaxbatchrequeue=2\nRequeueExit=1,3-5\nRequeueExitHold=99\n",
                       "t.conf");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->requeue.max_batch_requeue, 2);
  EXPECT_EQ(c->requeue.requeue_exit, (std::set<int>{1, 3, 4, 5}));
  EXPECT_EQ(c->requeue.requeue_exit_hold, (std::set<int>{99}));
}

TEST(RequeueConfig, BadValuesAreErrorsWithTheLine) {
  for (const char* bad : {"RequeueExit=1-x", "RequeueExit=300", "RequeueExitHold=5-2",
                          "MaxBatchRequeue=-1", "MaxBatchRequeue=many"}) {
    auto c = ParseConfig(std::string("ClusterName=c\n") + bad + "\n", "t.conf");
    ASSERT_FALSE(c.ok()) << bad;
    EXPECT_NE(c.status().message().find("t.conf:2: "), std::string::npos) << c.status().message();
  }
}

TEST(SignalSpec, ParsesSlurmForms) {
  auto d = ParseSignalSpec("USR1");
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->signal, SIGUSR1);
  EXPECT_EQ(d->seconds, 60);
  EXPECT_FALSE(d->batch_only);
  auto b = ParseSignalSpec("B:SIGUSR2@90");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->signal, SIGUSR2);
  EXPECT_EQ(b->seconds, 90);
  EXPECT_TRUE(b->batch_only);
  auto r = ParseSignalSpec("R:10@0");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->signal, 10);
  EXPECT_EQ(r->seconds, 0);
  EXPECT_FALSE(r->batch_only);
  EXPECT_TRUE(ParseSignalSpec("RB:TERM").ok());
  for (const char* bad : {"", "X:USR1", ":USR1", "USR1@", "USR1@-3", "USR1@70000", "NOPE", "B:"}) {
    auto e = ParseSignalSpec(bad);
    ASSERT_FALSE(e.ok()) << bad;
    EXPECT_EQ(e.status().message(), "Invalid --signal specification");
  }
}

}  // namespace
}  // namespace sluice
