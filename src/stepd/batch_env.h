// The environment a batch script sees: the user's environment as submitted
// (BatchLaunch.env) overlaid with the variables Slurm's batch step sets, with the same
// names, presence rules and value formats as Slurm 22.05 (see
// shared/reference/env/*.batch.env). Pure: no process, file or clock access.
//   SLURM_JOB_NODELIST  compressed, sorted hostlist ("node[01-02]")
//   SLURM_TASKS_PER_NODE / SLURM_JOB_CPUS_PER_NODE  run-length form ("2(x2),1")
//   SLURM_NTASKS/NPROCS only when -n or --ntasks-per-node was given; GPU variables
//   (CUDA_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL, ROCR_VISIBLE_DEVICES, ZE_AFFINITY_MASK,
//   SLURM_JOB_GPUS, SLURM_GPUS_ON_NODE) only when this node holds GPUs of the job.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "node.pb.h"

namespace sluice {

struct BatchEnvContext {
  std::string node_name;  // this node (SLURMD_NODENAME, HOSTNAME)
  std::string work_dir;   // directory the script actually starts in (PWD)
  pid_t task_pid = 0;     // SLURM_TASK_PID
};

std::vector<std::string> BuildBatchEnv(const BatchLaunch& launch, const BatchEnvContext& ctx);

class EnvList;
// The job variables the batch script and every step task share: SLURM_JOB_ID/JOBID/NAME/
// PARTITION/ACCOUNT/QOS/UID/GID/USER, SLURM_SUBMIT_DIR/HOST, SLURM_RESTART_COUNT.
void SetJobIdentityVars(const JobInfo& job, int64_t job_id, EnvList* env);
// SLUICE_RELAY_SOCKET: this node's agent relays srun's calls (noded/client_relay.h); one
// inherited from elsewhere (srun's node, a job submitted from a job) is replaced or blanked.
void SetRelaySocketVar(const std::string& socket, EnvList* env);

}  // namespace sluice
