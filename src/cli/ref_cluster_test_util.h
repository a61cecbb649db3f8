// The cluster situation of the reference outputs (../shared/reference/cli): 4 nodes
// node[01-04] (16 CPUs, 64000 MB, 8 GPUs), partition gpu*, and jobs 1-4, 11-16 at
// 2026-11-30T02:26:16Z, as JobInfo/NodeInfo protos.
#pragma once

#include "cli/cli_test_util.h"

namespace sluice {

inline JobInfo RefJob(int64_t id, const char* name, JobState state, const char* reason,
                      int64_t priority, int64_t submit) {
  JobInfo j;
  j.set_job_id(id);
  j.mutable_spec()->set_name(name);
  j.mutable_spec()->set_partition("gpu");
  j.mutable_spec()->set_account("root");
  j.mutable_spec()->set_mem_per_cpu_mb(1000);
  j.mutable_spec()->set_work_dir("/home/alice/run");
  j.mutable_spec()->set_submit_host("localhost");
  j.set_state(state);
  j.set_reason(reason);
  j.set_priority(priority);
  j.set_user("root");
  j.set_group("root");
  j.set_submit_time(submit);
  j.set_eligible_time(submit);
  j.set_time_limit_min(-1);
  j.set_num_nodes(1);
  j.set_num_cpus(1);
  j.set_num_tasks(1);
  j.set_stdout_path("/dev/null");
  j.set_stderr_path("/dev/null");
  return j;
}

inline void StartJob(JobInfo* j, int64_t start, std::vector<std::string> nodes, int gpus_each = 0) {
  j->set_start_time(start);
  j->set_last_sched_eval(start);
  int cpu = 0;
  for (const std::string& n : nodes) {
    NodeAlloc* a = j->add_alloc();
    a->set_node(n);
    a->add_cpu_ids(cpu++);
    a->set_mem_mb(1000);
    for (int g = 0; g < gpus_each; ++g) a->add_gpu_ids(g);
  }
}

inline GetJobsReply RefJobs() {
  GetJobsReply r;
  r.set_now(Ref(2, 26, 16));
  JobInfo j4 = RefJob(4, "requeue", JOB_PENDING, "BeginTime", 1, Ref(2, 26, 2));
  j4.set_planned_start(Ref(2, 28, 3));
  JobInfo j16 = RefJob(16, "depwait", JOB_PENDING, "Dependency", 1, Ref(2, 26, 13));
  JobInfo j14 = RefJob(14, "bigjob", JOB_PENDING, "Resources", 1, Ref(2, 26, 13));
  j14.set_num_nodes(4);
  j14.set_num_cpus(4);
  j14.set_num_tasks(4);
  j14.set_gpus_per_node(8);
  j14.mutable_spec()->set_min_nodes(4);
  GresRequest* g = j14.mutable_spec()->add_gres_per_node();
  g->set_name("gpu");
  g->set_count(8);
  j14.set_last_sched_eval(Ref(2, 26, 14));
  JobInfo j15 = RefJob(15, "held", JOB_PENDING, "JobHeldUser", 0, Ref(2, 26, 13));
  j15.set_eligible_time(0);
  j15.set_last_sched_eval(Ref(2, 26, 13));
  JobInfo j11 = RefJob(11, "plain", JOB_RUNNING, "None", 1, Ref(2, 26, 13));
  StartJob(&j11, Ref(2, 26, 14), {"node01"});
  JobInfo j12 = RefJob(12, "parsable", JOB_RUNNING, "None", 1, Ref(2, 26, 13));
  StartJob(&j12, Ref(2, 26, 14), {"node01"});
  JobInfo j13 = RefJob(13, "gpujob", JOB_RUNNING, "None", 1, Ref(2, 26, 13));
  StartJob(&j13, Ref(2, 26, 14), {"node01", "node02"}, 4);
  j13.set_num_nodes(2);
  j13.set_num_cpus(2);
  j13.set_num_tasks(2);
  j13.set_gpus_per_node(4);
  g = j13.mutable_spec()->add_gres_per_node();
  g->set_name("gpu");
  g->set_count(4);
  for (JobInfo* j : {&j4, &j16, &j14, &j15, &j11, &j12, &j13}) *r.add_jobs() = *j;
  const char* names[] = {"timeout", "sigB", "sigStep"};
  for (int i = 0; i < 3; ++i) {
    JobInfo j = RefJob(i + 1, names[i], JOB_RUNNING, "None", 1, Ref(2, 26, 0));
    j.set_time_limit_min(1);
    StartJob(&j, Ref(2, 26, 2), {"node01"});
    *r.add_jobs() = j;
  }
  return r;
}

inline NodeInfo RefNode(const std::string& name, NodeState state, int alloc_cpus, int64_t alloc_mem,
                        int alloc_gpus) {
  NodeInfo n;
  n.set_name(name);
  n.set_state(state);
  n.set_responding(true);
  n.set_cpus(16);
  n.set_sockets(2);
  n.set_cores_per_socket(8);
  n.set_threads_per_core(1);
  n.set_real_memory_mb(64000);
  for (int i = 0; i < 8; ++i) n.add_gpus()->set_index(i);
  n.add_partitions("gpu");
  n.set_alloc_cpus(alloc_cpus);
  n.set_alloc_mem_mb(alloc_mem);
  n.set_alloc_gpus(alloc_gpus);
  n.set_addr("10.77.0.1" + name.substr(name.size() - 1));
  n.set_arch("x86_64");
  n.set_os("Linux 6.18.44-fc-v669 #1 SMP PREEMPT_DYNAMIC @0");
  n.set_cpu_load(2.10);
  n.set_version("22.05.8");
  n.set_boot_time(Ref(2, 10, 28));
  n.set_agent_start_time(Ref(2, 25, 59));
  n.set_last_busy_time(Ref(2, 25, 59));
  return n;
}

inline void SetRefCluster(FakeApi* api) {
  api->jobs = RefJobs();
  api->nodes.set_now(Ref(2, 26, 17));
  NodeInfo n1 = RefNode("node01", NODE_MIXED, 6, 6000, 4);
  n1.set_free_mem_mb(23544);
  NodeInfo n2 = RefNode("node02", NODE_MIXED, 1, 1000, 4);
  n2.set_free_mem_mb(23543);
  n2.set_last_busy_time(Ref(2, 26, 5));
  NodeInfo n3 = RefNode("node03", NODE_IDLE, 0, 0, 0);
  n3.set_free_mem_mb(23542);
  NodeInfo n4 = RefNode("node04", NODE_IDLE, 0, 0, 0);
  n4.set_free_mem_mb(23542);
  for (NodeInfo* n : {&n1, &n2, &n3, &n4}) *api->nodes.add_nodes() = *n;
  PartitionInfo* p = api->partitions.add_partitions();
  p->set_name("gpu");
  for (const char* n : {"node01", "node02", "node03", "node04"}) p->add_nodes(n);
  p->set_nodes_expr("node[01-04]");
  p->set_is_default(true);
  p->set_max_time_min(-1);
  p->set_up(true);
  p->set_priority_tier(1);
  p->set_priority_job_factor(1);
}

}  // namespace sluice
