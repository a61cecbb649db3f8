// Prolog / Epilog of a batch job (slurm.conf Prolog= / Epilog=, filled into BatchLaunch
// by the agent), run by sluice-stepd with its own (root) privileges on the batch host:
// the prolog before the script starts, the epilog after the job's processes are gone.
// Environment (as Slurm's slurmd gives them): SLURM_JOB_ID, SLURM_JOB_USER,
// SLURM_JOB_UID, SLURM_JOB_GID, SLURM_JOB_NODELIST, SLURM_JOB_PARTITION,
// SLURM_JOB_ACCOUNT (when set), SLURM_CLUSTER_NAME, SLURMD_NODENAME,
// SLURM_RESTART_COUNT, SLURM_JOB_GPUS / CUDA_VISIBLE_DEVICES (this node's GPUs),
// SLURM_SCRIPT_CONTEXT (prolog_slurmd / epilog_slurmd), SLURM_CONF, PATH; the epilog
// also gets SLURM_JOB_EXIT_CODE (the raw wait status). The time limit is
// BatchLaunch.prolog_epilog_timeout_s (0 = none).
#pragma once

#include <string>
#include <vector>

#include "node.pb.h"
#include "node_common/hook_runner.h"

namespace sluice {

std::vector<std::string> NodeScriptEnv(const BatchLaunch& launch, bool epilog, int wait_status);
// No program configured: a passing result.
HookResult RunProlog(const BatchLaunch& launch);
HookResult RunEpilog(const BatchLaunch& launch, int wait_status);

}  // namespace sluice
