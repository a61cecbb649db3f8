// Request size limits: every bounded field at and over its limit, with Slurm's message.
#include "rpc/request_limits.h"

#include <gtest/gtest.h>

#include "client.pb.h"

namespace sluice {
namespace {

SubmitRequest WithScript(size_t bytes) {
  SubmitRequest r;
  r.mutable_spec()->set_script("#!/bin/sh\n" + std::string(bytes - 10, 'x'));
  return r;
}

void ExpectTooLong(const google::protobuf::Message& m, const std::string& detail_start) {
  std::string detail;
  Status st = CheckRequestLimits(m, &detail);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_EQ(st.message(), "Pathname of a file, directory or other parameter too long");
  EXPECT_EQ(detail.rfind(detail_start, 0), 0u) << detail;
}

TEST(RequestLimits, ScriptUpToFourMiB) {
  EXPECT_TRUE(CheckRequestLimits(WithScript(kMaxScriptBytes)).ok());
  ExpectTooLong(WithScript(kMaxScriptBytes + 1), "script: 4194305 bytes (limit 4194304)");
}

TEST(RequestLimits, NamesAndPaths) {
  SubmitRequest r;
  r.mutable_spec()->set_name(std::string(1024, 'n'));
  r.mutable_spec()->set_work_dir("/" + std::string(4095, 'd'));
  EXPECT_TRUE(CheckRequestLimits(r).ok());
  r.mutable_spec()->set_name(std::string(1025, 'n'));
  ExpectTooLong(r, "name: 1025 bytes");
  r.mutable_spec()->set_name("ok");
  r.mutable_spec()->set_stdout_pattern(std::string(4097, 'o'));
  ExpectTooLong(r, "stdout_pattern: 4097 bytes");
  r.mutable_spec()->clear_stdout_pattern();
  r.mutable_spec()->set_nodelist(std::string(kMaxListBytes + 1, 'n'));
  ExpectTooLong(r, "nodelist:");
}

TEST(RequestLimits, EnvironmentEntriesAndTotal) {
  SubmitRequest r;
  for (size_t i = 0; i < kMaxEnvEntries; ++i) r.mutable_spec()->add_env("A=1");
  EXPECT_TRUE(CheckRequestLimits(r).ok());
  r.mutable_spec()->add_env("B=2");
  ExpectTooLong(r, "env: 65537 entries (limit 65536)");
  r.mutable_spec()->clear_env();
  r.mutable_spec()->add_env("BIG=" + std::string(kMaxEnvBytes, 'v'));
  ExpectTooLong(r, "env: 4194308 bytes in total");
}

TEST(RequestLimits, JobQueryFilters) {
  GetJobsRequest q;
  q.add_users(std::string(kMaxStringBytes, 'u'));
  q.add_nodes(std::string(kMaxListBytes, 'n'));
  q.add_states(JOB_RUNNING);
  EXPECT_TRUE(CheckRequestLimits(q).ok());
  q.add_accounts(std::string(kMaxStringBytes + 1, 'a'));
  ExpectTooLong(q, "accounts[0]: 1025 bytes");
  q.clear_accounts();
  for (size_t i = 0; i <= kMaxEnvEntries; ++i) q.add_names("n");
  ExpectTooLong(q, "names: 65537 entries");
  q.clear_names();
  for (size_t i = 0; i < kMaxRepeatedEntries; ++i) q.add_states(JOB_PENDING);
  ExpectTooLong(q, "states: 65537 entries");
}

TEST(RequestLimits, ArgvTotal) {
  StepRequest s;
  s.add_argv(std::string(kMaxArgvBytes, 'a'));
  EXPECT_TRUE(CheckRequestLimits(s).ok());
  s.add_argv("b");
  ExpectTooLong(s, "argv: 2097153 bytes in total");
}

TEST(RequestLimits, OtherRepeatedStringsEachBounded) {
  ReservationRequest r;
  r.add_args("Nodes=" + std::string(1000, 'n'));
  EXPECT_TRUE(CheckRequestLimits(r).ok());
  r.add_args(std::string(kMaxListBytes + 1, 'x'));
  ExpectTooLong(r, "args[1]:");
  UpdateNodeRequest u;
  u.set_reason(std::string(1025, 'r'));
  ExpectTooLong(u, "reason: 1025 bytes");
}

TEST(RequestLimits, EmptyRequestIsFine) {
  EXPECT_TRUE(CheckRequestLimits(SubmitRequest()).ok());
  EXPECT_TRUE(CheckRequestLimits(CancelRequest()).ok());
}

// The one-byte-over cases sit right above the size under which the walk is skipped.
TEST(RequestLimits, SmallestRequestThatCanBreakALimitIsWalked) {
  UpdateNodeRequest u;
  u.set_reason(std::string(kMaxStringBytes, 'r'));
  EXPECT_TRUE(CheckRequestLimits(u).ok());
  u.set_reason(std::string(kMaxStringBytes + 1, 'r'));
  ExpectTooLong(u, "reason: 1025 bytes");
}

// A sender walks only requests over kMaxListBytes; smaller ones go to the controller,
// which refuses them with the same error.
TEST(RequestLimits, SendersCheckOnlyLargeRequests) {
  SubmitRequest r;
  r.mutable_spec()->set_name(std::string(kMaxStringBytes + 1, 'n'));
  EXPECT_FALSE(CheckRequestLimits(r).ok());
  EXPECT_TRUE(CheckBeforeSending(r).ok());
  Status st = CheckBeforeSending(WithScript(kMaxScriptBytes + 1));
  EXPECT_EQ(st.code(), Code::kInvalidArgument);
  EXPECT_EQ(st.message(), kMsgTooLong);
  EXPECT_TRUE(CheckBeforeSending(WithScript(kMaxScriptBytes)).ok());
}

}  // namespace
}  // namespace sluice
