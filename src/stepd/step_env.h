// The environment one task of a job step (srun) sees: srun's environment
// (StepLaunch.env; inside a batch job it already holds the batch variables) overlaid
// with the variables Slurm 22.05 sets for step tasks, same names and formats (see
// shared/reference/env/srun_*.env and sbatch_*.step.rank*.env):
//   job:   SLURM_JOB_ID/JOBID/NAME/PARTITION/QOS/ACCOUNT/UID/GID/USER, SLURM_JOB_NODELIST,
//          SLURM_JOB_NUM_NODES, SLURM_JOB_CPUS_PER_NODE, SLURM_SUBMIT_DIR/HOST, cluster
//   step:  SLURM_STEP_ID/STEPID, SLURM_STEP_NODELIST (= SLURM_NODELIST), SLURM_NNODES,
//          SLURM_STEP_NUM_NODES/NUM_TASKS, SLURM_NTASKS/NPROCS, SLURM_TASKS_PER_NODE and
//          SLURM_STEP_TASKS_PER_NODE ("2(x2)"), SLURM_NTASKS_PER_NODE / CPUS_PER_TASK /
//          DISTRIBUTION when requested; in batch allocations (not salloc/srun ones)
//          SLURM_DISTRIBUTION (default block) and SLURM_JOB_CPUS_PER_NODE_PACK_GROUP_0
//   task:  SLURM_PROCID, SLURM_LOCALID, SLURM_NODEID, SLURM_GTIDS, SLURM_TASK_PID,
//          SLURMD_NODENAME, SLURM_LAUNCH_NODE_IPADDR, SLURM_SRUN_COMM_HOST/PORT, ...
//   GPUs:  SLURM_GPUS_ON_NODE, SLURM_STEP_GPUS, CUDA_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL,
//          ROCR_VISIBLE_DEVICES, ZE_AFFINITY_MASK: the node's GPUs of the job, or the
//          task's own slice with --gpus-per-task (then SLURMD_TRES_BIND too)
// plus, when StepLaunch.pytorch_env, RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE,
// GROUP_RANK, MASTER_ADDR, MASTER_PORT, each only when srun's environment lacks it.
// Pure: no process, file or clock access.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "node.pb.h"

namespace sluice {

struct StepTaskContext {
  std::string node_name;  // SLURMD_NODENAME
  int local_id = 0;       // index into StepLaunch.task_ids
  pid_t task_pid = 0;
  std::string work_dir;  // PWD
};

std::vector<std::string> BuildStepTaskEnv(const StepLaunch& launch, const StepTaskContext& ctx);

// GPU indices task `local_id` gets on this node ("0,1"): the step's GPUs (step_gpu_ids,
// else the job's), split per --gpus-per-task, or as --gpu-bind says (none: all of them;
// single:N: one GPU per N tasks; map_gpu:a,b: the listed ids by local task id).
std::string TaskGpus(const StepLaunch& launch, int local_id);
std::vector<int> StepGpus(const StepLaunch& launch);
// The CUDA_VISIBLE_DEVICES of GPUs `ids` ("2,5") when only the GPUs `visible` can be
// opened (ConstrainDevices): CUDA numbers what it can open from 0, so each id becomes
// its position among them ("0,1"), as Slurm does. Ids not in `visible` are dropped.
std::string VisibleGpuIndices(const std::string& ids, std::vector<int> visible);

}  // namespace sluice
