#include "stepd/batch_env.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

namespace sluice {
namespace {

// Lines of a reference env file (comments dropped), sorted.
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line[0] != '#') out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The environment the user submitted with (the non-Slurm lines of the references).
std::vector<std::string> UserEnv(const std::string& shlvl, const std::string& underscore) {
  return {"HOME=/root",
          "LANG=C.UTF-8",
          "LOGNAME=root",
          "OLDPWD=/tmp",
          "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
          "PWD=/home/alice/run",
          "SHELL=/bin/bash",
          "SHLVL=" + shlvl,
          "TERM=dumb",
          "USER=root",
          "_=" + underscore};
}

BatchLaunch BaseLaunch(int64_t id, const std::string& name) {
  BatchLaunch l;
  l.set_job_id(id);
  JobInfo* job = l.mutable_job();
  job->set_job_id(id);
  job->set_uid(0);
  job->set_gid(0);
  job->set_user("root");
  JobSpec* spec = job->mutable_spec();
  spec->set_name(name);
  spec->set_partition("gpu");
  spec->set_account("root");
  spec->set_qos("normal");
  spec->set_work_dir("/home/alice/run");
  spec->set_submit_host("vm");
  l.set_cluster_name("anchor");
  l.set_conf_path("/etc/slurm/slurm.conf");
  l.set_ctld_host("10.77.0.1");
  l.set_ctld_port(6817);
  l.set_def_mem_per_cpu_mb(1000);
  return l;
}

NodeAlloc* AddNode(BatchLaunch* l, const std::string& node, int cpus, int ntasks,
                   std::vector<int> gpus) {
  NodeAlloc* a = l->mutable_job()->add_alloc();
  a->set_node(node);
  for (int c = 0; c < cpus; ++c) a->add_cpu_ids(c);
  for (int g : gpus) a->add_gpu_ids(g);
  a->set_ntasks(ntasks);
  return a;
}

std::vector<std::string> Build(const BatchLaunch& l, pid_t pid) {
  auto env = BuildBatchEnv(l, BatchEnvContext{"node01", "/home/alice/run", pid});
  std::sort(env.begin(), env.end());
  return env;
}

// shared/reference/env/sbatch_N2_npn2_gpu2.batch.env (+ SLUICE_CONF).
constexpr char kN2Npn2Gpu2[] = R"(CUDA_VISIBLE_DEVICES=0,1
ENVIRONMENT=BATCH
GPU_DEVICE_ORDINAL=0,1
HOME=/root
HOSTNAME=node01
LANG=C.UTF-8
LOGNAME=root
OLDPWD=/tmp
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
PWD=/home/alice/run
ROCR_VISIBLE_DEVICES=0,1
SHELL=/bin/bash
SHLVL=2
SLUICE_CONF=/etc/slurm/slurm.conf
SLURMD_NODENAME=node01
SLURM_CLUSTER_NAME=anchor
SLURM_CONF=/etc/slurm/slurm.conf
SLURM_CPUS_ON_NODE=2
SLURM_GPUS_ON_NODE=2
SLURM_GTIDS=0
SLURM_JOBID=8
SLURM_JOB_ACCOUNT=root
SLURM_JOB_CPUS_PER_NODE=2(x2)
SLURM_JOB_GID=0
SLURM_JOB_GPUS=0,1
SLURM_JOB_ID=8
SLURM_JOB_NAME=envbatch
SLURM_JOB_NODELIST=node[01-02]
SLURM_JOB_NUM_NODES=2
SLURM_JOB_PARTITION=gpu
SLURM_JOB_QOS=normal
SLURM_JOB_UID=0
SLURM_JOB_USER=root
SLURM_LOCALID=0
SLURM_MEM_PER_CPU=1000
SLURM_NNODES=2
SLURM_NODEID=0
SLURM_NODELIST=node[01-02]
SLURM_NODE_ALIASES=(null)
SLURM_NPROCS=4
SLURM_NTASKS=4
SLURM_NTASKS_PER_NODE=2
SLURM_PRIO_PROCESS=0
SLURM_PROCID=0
SLURM_SUBMIT_DIR=/home/alice/run
SLURM_SUBMIT_HOST=vm
SLURM_TASKS_PER_NODE=2(x2)
SLURM_TASK_PID=16743
SLURM_TOPOLOGY_ADDR=node01
SLURM_TOPOLOGY_ADDR_PATTERN=node
SLURM_WORKING_CLUSTER=anchor:10.77.0.1:6817:9728:109
TERM=dumb
TMPDIR=/tmp
USER=root
ZE_AFFINITY_MASK=0,1
_=/usr/bin/env
)";

TEST(BatchEnvTest, MatchesReferenceTwoNodesTwoTasksTwoGpus) {
  BatchLaunch l = BaseLaunch(8, "envbatch");
  for (const auto& e : UserEnv("2", "/usr/bin/env")) l.add_env(e);
  l.mutable_job()->mutable_spec()->set_ntasks_per_node(2);
  l.mutable_job()->set_num_tasks(4);
  // Allocation listed out of order on purpose: the nodelist is sorted.
  AddNode(&l, "node02", 2, 2, {0, 1});
  *l.mutable_local() = *AddNode(&l, "node01", 2, 2, {0, 1});
  EXPECT_EQ(Build(l, 16743), Lines(kN2Npn2Gpu2));
}

// shared/reference/env/sbatch_N1_gpus3.batch.env (+ SLUICE_CONF).
constexpr char kN1Gpus3[] = R"(CUDA_VISIBLE_DEVICES=0,1,2
ENVIRONMENT=BATCH
GPU_DEVICE_ORDINAL=0,1,2
HOME=/root
HOSTNAME=node01
LANG=C.UTF-8
LOGNAME=root
OLDPWD=/tmp
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
PWD=/home/alice/run
ROCR_VISIBLE_DEVICES=0,1,2
SHELL=/bin/bash
SHLVL=1
SLUICE_CONF=/etc/slurm/slurm.conf
SLURMD_NODENAME=node01
SLURM_CLUSTER_NAME=anchor
SLURM_CONF=/etc/slurm/slurm.conf
SLURM_CPUS_ON_NODE=1
SLURM_GPUS=3
SLURM_GPUS_ON_NODE=3
SLURM_GTIDS=0
SLURM_JOBID=10
SLURM_JOB_ACCOUNT=root
SLURM_JOB_CPUS_PER_NODE=1
SLURM_JOB_GID=0
SLURM_JOB_GPUS=0,1,2
SLURM_JOB_ID=10
SLURM_JOB_NAME=wrap
SLURM_JOB_NODELIST=node01
SLURM_JOB_NUM_NODES=1
SLURM_JOB_PARTITION=gpu
SLURM_JOB_QOS=normal
SLURM_JOB_UID=0
SLURM_JOB_USER=root
SLURM_LOCALID=0
SLURM_MEM_PER_CPU=1000
SLURM_NNODES=1
SLURM_NODEID=0
SLURM_NODELIST=node01
SLURM_NODE_ALIASES=(null)
SLURM_PRIO_PROCESS=0
SLURM_PROCID=0
SLURM_SUBMIT_DIR=/home/alice/run
SLURM_SUBMIT_HOST=vm
SLURM_TASKS_PER_NODE=1
SLURM_TASK_PID=17835
SLURM_TOPOLOGY_ADDR=node01
SLURM_TOPOLOGY_ADDR_PATTERN=node
SLURM_WORKING_CLUSTER=anchor:10.77.0.1:6817:9728:109
TERM=dumb
TMPDIR=/tmp
USER=root
ZE_AFFINITY_MASK=0,1,2
_=/usr/bin/sbatch
)";

TEST(BatchEnvTest, MatchesReferenceOneNodeThreeGpus) {
  BatchLaunch l = BaseLaunch(10, "wrap");
  for (const auto& e : UserEnv("1", "/usr/bin/sbatch")) l.add_env(e);
  l.mutable_job()->mutable_spec()->set_gpus_total(3);
  // ctld may fill spec.ntasks with a default; without -n there is no SLURM_NTASKS.
  l.mutable_job()->mutable_spec()->set_ntasks(1);
  *l.mutable_local() = *AddNode(&l, "node01", 1, 1, {0, 1, 2});
  EXPECT_EQ(Build(l, 17835), Lines(kN1Gpus3));
}

TEST(BatchEnvTest, NoGpuJobWithNtasksMatchesReference) {
  BatchLaunch l = BaseLaunch(9, "wrap");
  for (const auto& e : UserEnv("1", "/usr/bin/sbatch")) l.add_env(e);
  l.mutable_job()->mutable_spec()->set_ntasks(1);
  l.mutable_job()->mutable_spec()->set_ntasks_set(true);
  l.mutable_job()->set_num_tasks(1);
  *l.mutable_local() = *AddNode(&l, "node01", 1, 1, {});
  auto env = Build(l, 17316);
  for (const char* want : {"SLURM_NTASKS=1", "SLURM_NPROCS=1", "SLURM_JOB_ID=9",
                           "SLURM_TASKS_PER_NODE=1", "SLURM_CPUS_ON_NODE=1"}) {
    EXPECT_TRUE(std::count(env.begin(), env.end(), want)) << want;
  }
  for (const auto& e : env) {
    for (const char* absent :
         {"CUDA_VISIBLE_DEVICES=", "SLURM_JOB_GPUS=", "SLURM_GPUS_ON_NODE=", "ZE_AFFINITY_MASK=",
          "SLURM_NTASKS_PER_NODE=", "SLURM_RESTART_COUNT="}) {
      EXPECT_NE(e.rfind(absent, 0), 0u) << e;
    }
  }
}

TEST(BatchEnvTest, SlurmValuesOverrideUserEnvAndTmpdirKept) {
  BatchLaunch l = BaseLaunch(5, "x");
  l.add_env("SLURM_JOB_ID=999");
  l.add_env("TMPDIR=/scratch");
  l.add_env("CUDA_VISIBLE_DEVICES=7");  // leaks from the submit host; not overridden
  l.add_env("garbage-without-equals");
  l.mutable_job()->set_restarts(2);
  l.mutable_job()->mutable_spec()->set_mem_per_node_mb(4096);
  *l.mutable_local() = *AddNode(&l, "node01", 4, 1, {});
  auto env = Build(l, 1);
  auto has = [&](const std::string& s) { return std::count(env.begin(), env.end(), s) == 1; };
  EXPECT_TRUE(has("SLURM_JOB_ID=5"));
  EXPECT_FALSE(has("SLURM_JOB_ID=999"));
  EXPECT_TRUE(has("TMPDIR=/scratch"));
  EXPECT_TRUE(has("SLURM_RESTART_COUNT=2"));
  EXPECT_TRUE(has("SLURM_MEM_PER_NODE=4096"));
  EXPECT_FALSE(has("SLURM_MEM_PER_CPU=1000"));
  EXPECT_TRUE(has("SLURM_CPUS_ON_NODE=4"));
  for (const auto& e : env) EXPECT_NE(e, "garbage-without-equals");
  EXPECT_EQ(std::count_if(env.begin(), env.end(),
                          [](const std::string& e) { return e.rfind("SLURM_OPEN_MODE=", 0) == 0; }),
            0);  // no --open-mode: srun uses its default
  l.mutable_job()->mutable_spec()->set_open_mode("append");
  env = Build(l, 1);
  EXPECT_TRUE(has("SLURM_OPEN_MODE=a"));  // the job's sruns append to their files too
}

TEST(BatchEnvTest, ArrayTaskVariables) {
  BatchLaunch l = BaseLaunch(47, "arr");
  JobInfo* j = l.mutable_job();
  j->set_array_job_id(44);
  j->set_array_task_id(2);
  j->set_array_task_count(4);
  j->set_array_task_min(0);
  j->set_array_task_max(3);
  j->set_array_task_step(1);
  *l.mutable_local() = *AddNode(&l, "node01", 1, 1, {});
  auto env = Build(l, 1);
  auto has = [&](const std::string& s) { return std::count(env.begin(), env.end(), s) == 1; };
  for (const char* v : {"SLURM_ARRAY_JOB_ID=44", "SLURM_ARRAY_TASK_ID=2",
                        "SLURM_ARRAY_TASK_COUNT=4", "SLURM_ARRAY_TASK_MIN=0",
                        "SLURM_ARRAY_TASK_MAX=3", "SLURM_ARRAY_TASK_STEP=1", "SLURM_JOB_ID=47"}) {
    EXPECT_TRUE(has(v)) << v;
  }
  j->set_array_task_step(0);  // uneven ids (1,3,5-7): no step variable
  env = Build(l, 1);
  for (const auto& e : env) EXPECT_NE(e.rfind("SLURM_ARRAY_TASK_STEP=", 0), 0u) << e;
  BatchLaunch plain = BaseLaunch(5, "x");
  *plain.mutable_local() = *AddNode(&plain, "node01", 1, 1, {});
  for (const auto& e : Build(plain, 1)) EXPECT_NE(e.rfind("SLURM_ARRAY", 0), 0u) << e;
}

}  // namespace
}  // namespace sluice
