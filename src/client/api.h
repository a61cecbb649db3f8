// ClientApiInterface: the controller's client API as the commands see it. One method
// per ClientApi RPC; each returns the reply or a Status whose message is already worded
// for users (Slurm's wording: "Invalid job id specified", "Access/permission denied",
// "Unable to contact slurm controller (connect failure)", ...).
//
// ClusterClient (cluster_client.h) implements it over gRPC; tests of the commands use
// an in-memory fake.
#pragma once

#include "client.pb.h"
#include "common/status.h"

namespace sluice {

class ClientApiInterface {
 public:
  virtual ~ClientApiInterface() = default;
  virtual Expected<SubmitReply> SubmitJob(const SubmitRequest& req) = 0;
  virtual Expected<GetJobsReply> GetJobs(const GetJobsRequest& req) = 0;
  virtual Expected<CancelReply> CancelJobs(const CancelRequest& req) = 0;
  virtual Expected<GetNodesReply> GetNodes(const GetNodesRequest& req) = 0;
  virtual Expected<GetPartitionsReply> GetPartitions(const GetPartitionsRequest& req) = 0;
  virtual Expected<UpdateNodeReply> UpdateNode(const UpdateNodeRequest& req) = 0;
  virtual Expected<UpdateJobReply> UpdateJob(const UpdateJobRequest& req) = 0;
  virtual Expected<GetConfigReply> GetConfig(const GetConfigRequest& req) = 0;
  // srun / salloc. Not pure: command fakes that do not need them keep compiling.
  virtual Expected<StepReply> LaunchStep(const StepRequest&) {
    return FailedPrecondition("LaunchStep is not supported");
  }
  virtual Expected<ReleaseAllocationReply> ReleaseAllocation(const ReleaseAllocationRequest&) {
    return FailedPrecondition("ReleaseAllocation is not supported");
  }
  // sprio / sshare. Not pure so that existing fakes keep compiling.
  virtual Expected<GetPrioritiesReply> GetPriorities(const GetPrioritiesRequest&) {
    return Internal("GetPriorities is not supported");
  }
  virtual Expected<GetSharesReply> GetShares(const GetSharesRequest&) {
    return Internal("GetShares is not supported");
  }
  // srun/salloc keepalive and running steps (scontrol show step, squeue -s).
  virtual Expected<KeepaliveReply> Keepalive(const KeepaliveRequest&) {
    return Internal("Keepalive is not supported");
  }
  virtual Expected<GetStepsReply> GetSteps(const GetStepsRequest&) {
    return Internal("GetSteps is not supported");
  }
  // scontrol create|update|delete|show reservation.
  virtual Expected<ReservationReply> Reservation(const ReservationRequest&) {
    return Internal("Reservation is not supported");
  }
  // sacctmgr.
  virtual Expected<SacctmgrReply> Sacctmgr(const SacctmgrRequest&) {
    return Internal("Sacctmgr is not supported");
  }
  // sacct / sreport: live jobs merged with the accounting store.
  virtual Expected<AcctJobsReply> AcctJobs(const AcctJobsRequest&) {
    return Internal("AcctJobs is not supported");
  }
  virtual Expected<GetStatsReply> GetStats(const GetStatsRequest&) {
    return Internal("GetStats is not supported");
  }
  virtual Expected<StepUsageReply> StepUsage(const StepUsageRequest&) {
    return Internal("StepUsage is not supported");
  }
  // scontrol token / setdebug.
  virtual Expected<IssueTokenReply> IssueToken(const IssueTokenRequest&) {
    return Internal("IssueToken is not supported");
  }
  virtual Expected<TakeoverReply> Takeover(const TakeoverRequest&) {
    return Internal("Takeover is not supported");
  }
  virtual Expected<ReconfigureReply> Reconfigure(const ReconfigureRequest&) {
    return Internal("Reconfigure is not supported");
  }
  // Whether each controller (SlurmctldHost order) answers at all, leading or standing by.
  virtual std::vector<bool> PingEach() { return {GetConfig({}).ok()}; }
  virtual Expected<SetDebugReply> SetDebug(const SetDebugRequest&) {
    return Internal("SetDebug is not supported");
  }
};

}  // namespace sluice
