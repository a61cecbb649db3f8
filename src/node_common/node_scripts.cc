#include "node_common/node_scripts.h"

#include <cstdio>

#include "common/hostlist.h"

namespace sluice {
namespace {

std::string JoinInts(const google::protobuf::RepeatedField<int32_t>& v) {
  std::string out;
  for (int x : v) out += (out.empty() ? "" : ",") + std::to_string(x);
  return out;
}

HookResult Run(const BatchLaunch& launch, const std::string& program, bool epilog,
               int wait_status) {
  if (program.empty()) {
    HookResult ok;
    ok.started = true;
    return ok;
  }
  HookResult r = RunHook(program, NodeScriptEnv(launch, epilog, wait_status),
                         launch.prolog_epilog_timeout_s() * 1000);
  if (!r.ok()) {
    std::fprintf(stderr, "sluice-stepd: job %lld: %s %s: %s\n",
                 static_cast<long long>(launch.job_id()), epilog ? "epilog" : "prolog",
                 program.c_str(), r.Reason(epilog ? "Epilog" : "Prolog").c_str());
  }
  return r;
}

}  // namespace

std::vector<std::string> NodeScriptEnv(const BatchLaunch& launch, bool epilog, int wait_status) {
  const JobInfo& job = launch.job();
  std::vector<std::string> names;
  for (const auto& a : job.alloc()) names.push_back(a.node());
  std::vector<std::string> env = {
      "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
      "SLURM_JOB_ID=" + std::to_string(launch.job_id()),
      "SLURM_JOBID=" + std::to_string(launch.job_id()),
      "SLURM_JOB_USER=" + job.user(),
      "SLURM_JOB_UID=" + std::to_string(job.uid()),
      "SLURM_JOB_GID=" + std::to_string(job.gid()),
      "SLURM_JOB_NODELIST=" + CompressHostlistSorted(names),
      "SLURM_JOB_PARTITION=" + job.spec().partition(),
      "SLURM_CLUSTER_NAME=" + launch.cluster_name(),
      "SLURMD_NODENAME=" + launch.local().node(),
      "SLURM_RESTART_COUNT=" + std::to_string(job.restarts()),
      "SLURM_SCRIPT_CONTEXT=" + std::string(epilog ? "epilog_slurmd" : "prolog_slurmd"),
      "SLURM_CONF=" + launch.conf_path(),
  };
  if (!job.spec().account().empty()) env.push_back("SLURM_JOB_ACCOUNT=" + job.spec().account());
  if (launch.local().gpu_ids_size() > 0) {
    env.push_back("SLURM_JOB_GPUS=" + JoinInts(launch.local().gpu_ids()));
    env.push_back("CUDA_VISIBLE_DEVICES=" + JoinInts(launch.local().gpu_ids()));
  }
  if (epilog) env.push_back("SLURM_JOB_EXIT_CODE=" + std::to_string(wait_status));
  return env;
}

HookResult RunProlog(const BatchLaunch& launch) { return Run(launch, launch.prolog(), false, 0); }

HookResult RunEpilog(const BatchLaunch& launch, int wait_status) {
  return Run(launch, launch.epilog(), true, wait_status);
}

}  // namespace sluice
