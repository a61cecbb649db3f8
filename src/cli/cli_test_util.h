// Test support for the commands: an in-memory ClientApiInterface and a CliEnv wired
// to string streams, a ManualClock and fixed users (root=0, alice=1000).
#pragma once

#include <cstdlib>
#include <ctime>
#include <sstream>

#include "cli/cli_env.h"
#include "rpc/field_copier.h"

namespace sluice {

class FakeApi : public ClientApiInterface {
 public:
  GetJobsReply jobs;
  GetNodesReply nodes;
  GetPartitionsReply partitions;
  GetConfigReply config;
  GetPrioritiesReply priorities;
  GetSharesReply shares;
  std::vector<GetPrioritiesRequest> priority_queries;
  Status fail;  // when set, every call fails with it
  // Recorded requests.
  std::vector<SubmitRequest> submits;
  std::vector<CancelRequest> cancels;
  std::vector<UpdateJobRequest> job_updates;
  std::vector<UpdateNodeRequest> node_updates;
  std::vector<GetJobsRequest> job_queries;
  SubmitReply submit_reply;
  Status submit_status;
  CancelReply cancel_reply;
  Status update_status;

  Expected<SubmitReply> SubmitJob(const SubmitRequest& r) override {
    submits.push_back(r);
    if (!fail.ok()) return fail;
    if (!submit_status.ok()) return submit_status;
    return submit_reply;
  }
  // As the controller: the records carry only the fields asked for (GetJobsRequest.fields),
  // so every command test also checks that its command asks for what it prints.
  Expected<GetJobsReply> GetJobs(const GetJobsRequest& r) override {
    job_queries.push_back(r);
    if (!fail.ok()) return fail;
    Expected<FieldCopier> copier =
        FieldCopier::Build(JobInfo::descriptor(), r.fields(), {"job_id", "uid"});
    if (!copier.ok()) return copier.status();
    GetJobsReply out = jobs;
    out.clear_jobs();
    for (const JobInfo& j : jobs.jobs()) copier->Copy(j, out.add_jobs());
    return out;
  }
  Expected<CancelReply> CancelJobs(const CancelRequest& r) override {
    cancels.push_back(r);
    if (!fail.ok()) return fail;
    return cancel_reply;
  }
  std::vector<GetNodesRequest> node_queries;
  Expected<GetNodesReply> GetNodes(const GetNodesRequest& r) override {
    node_queries.push_back(r);
    if (!fail.ok()) return fail;
    return nodes;
  }
  Expected<GetPartitionsReply> GetPartitions(const GetPartitionsRequest&) override {
    if (!fail.ok()) return fail;
    return partitions;
  }
  Expected<UpdateNodeReply> UpdateNode(const UpdateNodeRequest& r) override {
    node_updates.push_back(r);
    if (!fail.ok()) return fail;
    if (!update_status.ok()) return update_status;
    return UpdateNodeReply();
  }
  Expected<UpdateJobReply> UpdateJob(const UpdateJobRequest& r) override {
    job_updates.push_back(r);
    if (!fail.ok()) return fail;
    if (!update_status.ok()) return update_status;
    return UpdateJobReply();
  }
  Expected<GetConfigReply> GetConfig(const GetConfigRequest&) override {
    if (!fail.ok()) return fail;
    return config;
  }
  Expected<GetPrioritiesReply> GetPriorities(const GetPrioritiesRequest& r) override {
    priority_queries.push_back(r);
    if (!fail.ok()) return fail;
    return priorities;
  }
  Expected<GetSharesReply> GetShares(const GetSharesRequest&) override {
    if (!fail.ok()) return fail;
    return shares;
  }
  // Reservations: requests are recorded; replies are resv_reply or resv_status.
  std::vector<ReservationRequest> resv_requests;
  ReservationReply resv_reply;
  Status resv_status;
  Expected<ReservationReply> Reservation(const ReservationRequest& req) override {
    resv_requests.push_back(req);
    if (!fail.ok()) return fail;
    if (!resv_status.ok()) return resv_status;
    return resv_reply;
  }
  // sacctmgr show (association data).
  SacctmgrReply assoc_reply;
  Expected<SacctmgrReply> Sacctmgr(const SacctmgrRequest&) override {
    if (!fail.ok()) return fail;
    return assoc_reply;
  }
  // sdiag.
  GetStatsReply stats;
  std::vector<GetStatsRequest> stats_requests;
  Expected<GetStatsReply> GetStats(const GetStatsRequest& req) override {
    stats_requests.push_back(req);
    if (!fail.ok()) return fail;
    return stats;
  }
  // sstat: the running steps and what StepUsage answers for any of them.
  GetStepsReply steps;
  Expected<GetStepsReply> GetSteps(const GetStepsRequest&) override {
    if (!fail.ok()) return fail;
    return steps;
  }
  StepUsageReply step_usage;
  std::vector<StepUsageRequest> usage_requests;
  Expected<StepUsageReply> StepUsage(const StepUsageRequest& req) override {
    usage_requests.push_back(req);
    if (!fail.ok()) return fail;
    return step_usage;
  }
  // sacct / sreport.
  AcctJobsReply acct;
  std::vector<AcctJobsRequest> acct_requests;
  Expected<AcctJobsReply> AcctJobs(const AcctJobsRequest& req) override {
    acct_requests.push_back(req);
    if (!fail.ok()) return fail;
    return acct;
  }
  // scontrol token / setdebug.
  std::vector<IssueTokenRequest> token_requests;
  Expected<IssueTokenReply> IssueToken(const IssueTokenRequest& req) override {
    token_requests.push_back(req);
    if (!fail.ok()) return fail;
    IssueTokenReply r;
    r.set_token("eyJhbGciOiJIUzI1NiJ9.eyJzdW4iOiJhbGljZSJ9.c2ln");
    return r;
  }
  // scontrol takeover / ping (several controllers).
  int takeovers = 0;
  Expected<TakeoverReply> Takeover(const TakeoverRequest&) override {
    ++takeovers;
    if (!fail.ok()) return fail;
    return TakeoverReply();
  }
  std::vector<bool> ping_each;
  std::vector<bool> PingEach() override { return ping_each; }
  std::vector<SetDebugRequest> debug_requests;
  Expected<SetDebugReply> SetDebug(const SetDebugRequest& req) override {
    debug_requests.push_back(req);
    if (!fail.ok()) return fail;
    return SetDebugReply();
  }
};

struct TestCli {
  std::ostringstream out, err;
  std::istringstream in;
  ManualClock clock{0};
  FakeApi api;
  CliEnv env;
  int connects = 0;

  TestCli() {
    setenv("TZ", "UTC", 1);
    tzset();
    env.out = &out;
    env.err = &err;
    env.in = &in;
    env.cwd = "/home/alice/run";
    env.hostname = "login1";
    env.uid = 0;
    env.clock = &clock;
    env.connect = [this]() -> Expected<ClientApiInterface*> {
      ++connects;
      return static_cast<ClientApiInterface*>(&api);
    };
    env.sleep_ms = [this](int64_t ms) { clock.AdvanceMs(ms); };
    env.user_name = [](uint32_t uid) {
      return uid == 0 ? std::string("root") : std::to_string(uid);
    };
    env.user_id = [](const std::string& n) -> Expected<uint32_t> {
      if (n == "root" || n == "0") return 0u;
      if (n == "alice" || n == "1000") return 1000u;
      return NotFound("no user " + n);
    };
  }
  void SetStdin(const std::string& s) { in.str(s); }
};

// 2026-11-30T00:00:00Z, the day the reference outputs were captured.
inline constexpr int64_t kRefDay = 1795996800;
inline constexpr int64_t Ref(int h, int m, int s) { return kRefDay + h * 3600 + m * 60 + s; }

}  // namespace sluice
