#include "cli/scontrol.h"

#include <gtest/gtest.h>

#include "cli/ref_cluster_test_util.h"
#include "cli/scontrol_show.h"

namespace sluice {
namespace {

class ScontrolTest : public ::testing::Test {
 protected:
  void SetUp() override { SetRefCluster(&t.api); }
  int Run(std::vector<std::string> args) { return RunScontrol(args, t.env); }
  TestCli t;
};

TEST_F(ScontrolTest, ShowPendingJob) {
  EXPECT_EQ(Run({"show", "job", "14"}), 0);
  EXPECT_EQ(
      t.out.str(),
      "JobId=14 JobName=bigjob\n"
      "   UserId=root(0) GroupId=root(0) MCS_label=N/A\n"
      "   Priority=1 Nice=0 Account=root QOS=normal\n"
      "   JobState=PENDING Reason=Resources Dependency=(null)\n"
      "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0\n"
      "   RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A\n"
      "   SubmitTime=2026-11-30T02:26:13 EligibleTime=2026-11-30T02:26:13\n"
      "   AccrueTime=2026-11-30T02:26:13\n"
      "   StartTime=Unknown EndTime=Unknown Deadline=N/A\n"
      "   SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-30T02:26:14 Scheduler=Main\n"
      "   Partition=gpu AllocNode:Sid=localhost:0\n"
      "   ReqNodeList=(null) ExcNodeList=(null)\n"
      "   NodeList=\n"
      "   NumNodes=4-4 NumCPUs=4 NumTasks=4 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
      "   TRES=cpu=4,mem=4000M,node=4,billing=4,gres/gpu=32\n"
      "   Socks/Node=* NtasksPerN:B:S:C=0:0:*:* CoreSpec=*\n"
      "   MinCPUsNode=1 MinMemoryCPU=1000M MinTmpDiskNode=0\n"
      "   Features=(null) DelayBoot=00:00:00\n"
      "   OverSubscribe=OK Contiguous=0 Licenses=(null) Network=(null)\n"
      "   Command=(null)\n"
      "   WorkDir=/home/alice/run\n"
      "   StdErr=/dev/null\n"
      "   StdIn=/dev/null\n"
      "   StdOut=/dev/null\n"
      "   Power=\n"
      "   TresPerNode=gres:gpu:8\n"
      "   \n\n");
}

TEST_F(ScontrolTest, ShowJobAsksForTheIdsWithoutScriptOrEnv) {
  EXPECT_EQ(Run({"show", "job", "14,15"}), 0);
  EXPECT_EQ(Run({"show", "job"}), 0);
  ASSERT_EQ(t.api.job_queries.size(), 2u);
  GetJobsRequest ids;
  ids.add_job_ids(14);
  ids.add_job_ids(15);
  ids.set_compress_pending_tasks(true);  // an array's pending tasks come as one record
  ids.set_explain(true);                 // the pending jobs named say why
  EXPECT_EQ(t.api.job_queries[0].SerializeAsString(), ids.SerializeAsString());
  GetJobsRequest all;  // every job, no script or env
  all.set_compress_pending_tasks(true);
  EXPECT_EQ(t.api.job_queries[1].SerializeAsString(), all.SerializeAsString());
}

TEST_F(ScontrolTest, ShowHeldJobHasUnknownEligibility) {
  EXPECT_EQ(Run({"show", "job", "15"}), 0);
  std::string s = t.out.str();
  EXPECT_NE(
      s.find("   SubmitTime=2026-11-30T02:26:13 EligibleTime=Unknown\n   AccrueTime=Unknown\n"),
      std::string::npos);
  EXPECT_NE(s.find("   Priority=0 Nice=0"), std::string::npos);
  EXPECT_NE(s.find("   NumNodes=1 NumCPUs=1"), std::string::npos);
  EXPECT_EQ(s.find("TresPerNode"), std::string::npos);
}

TEST_F(ScontrolTest, ShowRunningJob) {
  EXPECT_EQ(Run({"show", "job", "13"}), 0);
  std::string s = t.out.str();
  EXPECT_NE(s.find("   JobState=RUNNING Reason=None Dependency=(null)\n"), std::string::npos);
  EXPECT_NE(s.find("   RunTime=00:00:02 TimeLimit=UNLIMITED TimeMin=N/A\n"), std::string::npos);
  EXPECT_NE(s.find("   StartTime=2026-11-30T02:26:14 EndTime=Unknown Deadline=N/A\n"),
            std::string::npos);
  EXPECT_NE(s.find("   NodeList=node[01-02]\n   BatchHost=node01\n"
                   "   NumNodes=2 NumCPUs=2 NumTasks=2 CPUs/Task=1 ReqB:S:C:T=0:0:*:*\n"
                   "   TRES=cpu=2,mem=2000M,node=2,billing=2,gres/gpu=8\n"),
            std::string::npos);
  EXPECT_NE(s.find("   Power=\n   TresPerNode=gres:gpu:4\n   \n\n"), std::string::npos);
}

TEST_F(ScontrolTest, OneLiner) {
  EXPECT_EQ(Run({"-o", "show", "job", "11"}), 0);
  EXPECT_EQ(t.out.str(),
            "JobId=11 JobName=plain UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=1 Nice=0 "
            "Account=root QOS=normal JobState=RUNNING Reason=None Dependency=(null) Requeue=1 "
            "Restarts=0 BatchFlag=1 Reboot=0 ExitCode=0:0 RunTime=00:00:02 TimeLimit=UNLIMITED "
            "TimeMin=N/A SubmitTime=2026-11-30T02:26:13 EligibleTime=2026-11-30T02:26:13 "
            "AccrueTime=2026-11-30T02:26:13 StartTime=2026-11-30T02:26:14 EndTime=Unknown "
            "Deadline=N/A SuspendTime=None SecsPreSuspend=0 LastSchedEval=2026-11-30T02:26:14 "
            "Scheduler=Main Partition=gpu AllocNode:Sid=localhost:0 ReqNodeList=(null) "
            "ExcNodeList=(null) NodeList=node01 BatchHost=node01 NumNodes=1 NumCPUs=1 NumTasks=1 "
            "CPUs/Task=1 ReqB:S:C:T=0:0:*:* TRES=cpu=1,mem=1000M,node=1,billing=1 Socks/Node=* "
            "NtasksPerN:B:S:C=0:0:*:* CoreSpec=* MinCPUsNode=1 MinMemoryCPU=1000M MinTmpDiskNode=0 "
            "Features=(null) DelayBoot=00:00:00 OverSubscribe=OK Contiguous=0 Licenses=(null) "
            "Network=(null) Command=(null) WorkDir=/home/alice/run StdErr=/dev/null "
            "StdIn=/dev/null StdOut=/dev/null Power= \n");
}

TEST_F(ScontrolTest, FinishedJobFields) {
  JobInfo j = RefJob(31, "exit3", JOB_FAILED, "NonZeroExitCode", 1, Ref(2, 26, 23));
  StartJob(&j, Ref(2, 26, 23), {"node01"});
  j.set_end_time(Ref(2, 26, 23));
  j.set_exit_code(3);
  j.set_time_limit_min(365 * 24 * 60);
  j.set_stdout_path("/home/alice/run/exit3-31.out");
  j.set_stderr_path("/home/alice/run/exit3-31.out");
  t.api.jobs.clear_jobs();
  *t.api.jobs.add_jobs() = j;
  EXPECT_EQ(Run({"show", "job", "31"}), 0);
  std::string s = t.out.str();
  EXPECT_NE(s.find("   JobState=FAILED Reason=NonZeroExitCode Dependency=(null)\n"
                   "   Requeue=1 Restarts=0 BatchFlag=1 Reboot=0 ExitCode=3:0\n"
                   "   RunTime=00:00:00 TimeLimit=365-00:00:00 TimeMin=N/A\n"),
            std::string::npos);
  EXPECT_NE(s.find("   StartTime=2026-11-30T02:26:23 EndTime=2026-11-30T02:26:23 Deadline=N/A\n"),
            std::string::npos);
  EXPECT_NE(s.find("   StdErr=/home/alice/run/exit3-31.out\n   StdIn=/dev/null\n"
                   "   StdOut=/home/alice/run/exit3-31.out\n"),
            std::string::npos);
}

TEST_F(ScontrolTest, MissingJob) {
  EXPECT_EQ(Run({"show", "job", "999999"}), 1);
  EXPECT_EQ(t.out.str(), "");
  EXPECT_EQ(t.err.str(), "slurm_load_jobs error: Invalid job id specified\n");
}

TEST_F(ScontrolTest, ShowNode) {
  EXPECT_EQ(Run({"show", "node", "node01"}), 0);
  EXPECT_EQ(t.out.str(),
            "NodeName=node01 Arch=x86_64 CoresPerSocket=8 \n"
            "   CPUAlloc=6 CPUEfctv=16 CPUTot=16 CPULoad=2.10\n"
            "   AvailableFeatures=(null)\n"
            "   ActiveFeatures=(null)\n"
            "   Gres=gpu:8\n"
            "   NodeAddr=10.77.0.11 NodeHostName=node01 Version=22.05.8\n"
            "   OS=Linux 6.18.44-fc-v669 #1 SMP PREEMPT_DYNAMIC @0 \n"
            "   RealMemory=64000 AllocMem=6000 FreeMem=23544 Sockets=2 Boards=1\n"
            "   State=MIXED ThreadsPerCore=1 TmpDisk=0 Weight=1 Owner=N/A MCS_label=N/A\n"
            "   Partitions=gpu \n"
            "   BootTime=2026-11-30T02:10:28 SlurmdStartTime=2026-11-30T02:25:59\n"
            "   LastBusyTime=2026-11-30T02:25:59\n"
            "   CfgTRES=cpu=16,mem=62.50G,billing=16,gres/gpu=8\n"
            "   AllocTRES=cpu=6,mem=6000M,gres/gpu=4\n"
            "   CapWatts=n/a\n"
            "   CurrentWatts=0 AveWatts=0\n"
            "   ExtSensorsJoules=n/s ExtSensorsWatts=0 ExtSensorsTemp=n/s\n"
            "\n");
}

TEST_F(ScontrolTest, ShowAllNodesAndDrainReason) {
  NodeInfo* n3 = t.api.nodes.mutable_nodes(2);
  n3->set_drain(true);
  n3->set_reason("bad disk");
  n3->set_reason_time(Ref(3, 0, 0));
  EXPECT_EQ(Run({"show", "nodes"}), 0);
  std::string s = t.out.str();
  EXPECT_NE(s.find("NodeName=node04 "), std::string::npos);
  EXPECT_NE(s.find("   State=IDLE+DRAIN ThreadsPerCore=1"), std::string::npos);
  EXPECT_NE(s.find("   AllocTRES=\n"), std::string::npos);
  EXPECT_NE(s.find("   Reason=bad disk [root@2026-11-30T03:00:00]\n"), std::string::npos);
  t.err.str("");
  EXPECT_EQ(Run({"show", "node", "nosuch"}), 1);
  EXPECT_EQ(t.err.str(), "Node nosuch not found\n");
}

TEST_F(ScontrolTest, ShowPartition) {
  EXPECT_EQ(Run({"show", "partition"}), 0);
  EXPECT_EQ(t.out.str(),
            "PartitionName=gpu\n"
            "   AllowGroups=ALL AllowAccounts=ALL AllowQos=ALL\n"
            "   AllocNodes=ALL Default=YES QoS=N/A\n"
            "   DefaultTime=NONE DisableRootJobs=NO ExclusiveUser=NO GraceTime=0 Hidden=NO\n"
            "   MaxNodes=UNLIMITED MaxTime=UNLIMITED MinNodes=0 LLN=NO MaxCPUsPerNode=UNLIMITED\n"
            "   Nodes=node[01-04]\n"
            "   PriorityJobFactor=1 PriorityTier=1 RootOnly=NO ReqResv=NO OverSubscribe=NO\n"
            "   OverTimeLimit=NONE PreemptMode=OFF\n"
            "   State=UP TotalCPUs=64 TotalNodes=4 SelectTypeParameters=NONE\n"
            "   JobDefaults=(null)\n"
            "   DefMemPerNode=UNLIMITED MaxMemPerNode=UNLIMITED\n"
            "   TRES=cpu=64,mem=250G,node=4,billing=64,gres/gpu=32\n"
            "\n");
  EXPECT_EQ(Run({"show", "partition", "nosuch"}), 1);
  EXPECT_EQ(t.err.str(), "Partition nosuch not found\n");
}

TEST_F(ScontrolTest, ShowConfigAndPing) {
  t.api.config.add_keys("ClusterName");
  t.api.config.add_values("anchor");
  t.api.config.add_keys("SlurmctldHost");
  t.api.config.add_values("vm");
  t.api.config.add_keys("AccountingStorageBackupHost");
  t.api.config.add_values("(null)");
  t.clock.Set(Ref(2, 26, 0));
  EXPECT_EQ(Run({"show", "config"}), 0);
  EXPECT_EQ(t.out.str(),
            "Configuration data as of 2026-11-30T02:26:00\n"
            "ClusterName             = anchor\n"
            "SlurmctldHost           = vm\n"
            "AccountingStorageBackupHost = (null)\n"
            "\n"
            "Slurmctld(primary) at vm is UP\n");
  t.out.str("");
  EXPECT_EQ(Run({"ping"}), 0);
  EXPECT_EQ(t.out.str(), "Slurmctld(primary) at vm is UP\n");
}

TEST_F(ScontrolTest, Hostnames) {
  EXPECT_EQ(Run({"show", "hostnames", "node[01-02,04],gpu[1-3]"}), 0);
  EXPECT_EQ(t.out.str(), "node01\nnode02\nnode04\ngpu1\ngpu2\ngpu3\n");
  t.out.str("");
  EXPECT_EQ(Run({"show", "hostlist", "node04,node01,node02"}), 0);
  EXPECT_EQ(Run({"show", "hostlistsorted", "node04,node01,node02"}), 0);
  EXPECT_EQ(t.out.str(), "node[04,01-02]\nnode[01-02,04]\n");
  t.out.str("");
  t.env.environ["SLURM_NODELIST"] = "n[1-2]";
  EXPECT_EQ(Run({"show", "hostname"}), 0);
  t.env.environ["SLURM_JOB_NODELIST"] = "j[7-8]";
  EXPECT_EQ(Run({"show", "hostnames"}), 0);
  EXPECT_EQ(Run({"show", "hostnames=x[1-2]"}), 0);
  EXPECT_EQ(t.out.str(), "n1\nn2\nj7\nj8\nx1\nx2\n");
  EXPECT_EQ(t.connects, 0);
  EXPECT_EQ(Run({"show", "hostnames", "node[01-"}), 1);
  EXPECT_EQ(t.err.str(), "scontrol: error: Invalid hostlist: node[01-\n");
}

TEST_F(ScontrolTest, UpdateNode) {
  EXPECT_EQ(Run({"update", "NodeName=node[01-02]", "State=drain", "Reason=bad", "disk"}), 0);
  ASSERT_EQ(t.api.node_updates.size(), 1u);
  const UpdateNodeRequest& r = t.api.node_updates[0];
  EXPECT_EQ(r.names_size(), 2);
  EXPECT_EQ(r.state(), "DRAIN");
  EXPECT_EQ(r.reason(), "bad disk");
  EXPECT_EQ(Run({"update", "nodename=node01", "state=RESUME"}), 0);
  EXPECT_EQ(t.api.node_updates[1].state(), "RESUME");
  EXPECT_EQ(Run({"update", "NodeName=node01", "State=DOWN"}), 1);
  EXPECT_EQ(t.err.str(),
            "You must specify a reason when DOWNING or DRAINING a node. Request denied\n");
  t.err.str("");
  EXPECT_EQ(Run({"update", "NodeName=node01", "State=SLEEPY"}), 1);
  EXPECT_EQ(t.err.str(), "scontrol: error: Invalid node state specified\n");
  EXPECT_EQ(t.api.node_updates.size(), 2u);
}

TEST_F(ScontrolTest, UpdateJob) {
  EXPECT_EQ(Run({"update", "jobid=15", "TimeLimit=5", "Name=x", "Comment=hi"}), 0);
  ASSERT_EQ(t.api.job_updates.size(), 1u);
  const UpdateJobRequest& r = t.api.job_updates[0];
  EXPECT_EQ(r.action(), JOB_ACTION_UPDATE);
  EXPECT_EQ(r.job_ids(0), 15);
  EXPECT_TRUE(r.set_time_limit());
  EXPECT_EQ(r.time_limit_min(), 5);
  EXPECT_EQ(r.name(), "x");
  EXPECT_EQ(r.comment(), "hi");
  EXPECT_EQ(Run({"update", "JobId=15", "TimeLimit=soon"}), 1);
  EXPECT_EQ(Run({"update", "JobId=15", "Partition=x"}), 1);
  EXPECT_EQ(t.err.str(),
            "Invalid TimeLimit value\n"
            "Update of this parameter is not supported: Partition=x\nRequest aborted\n");
  t.api.update_status = PermissionDenied("Access/permission denied");
  t.err.str("");
  EXPECT_EQ(Run({"update", "JobId=15", "TimeLimit=1"}), 1);
  EXPECT_EQ(t.err.str(), "slurm_update error: Access/permission denied\n");
}

TEST_F(ScontrolTest, HoldReleaseRequeue) {
  EXPECT_EQ(Run({"hold", "15"}), 0);
  EXPECT_EQ(Run({"release", "15,16"}), 0);
  EXPECT_EQ(Run({"requeue", "4", "5"}), 0);
  EXPECT_EQ(Run({"uhold", "7"}), 0);
  ASSERT_EQ(t.api.job_updates.size(), 4u);
  EXPECT_EQ(t.api.job_updates[0].action(), JOB_ACTION_HOLD);
  EXPECT_EQ(t.api.job_updates[1].action(), JOB_ACTION_RELEASE);
  EXPECT_EQ(t.api.job_updates[1].job_ids_size(), 2);
  EXPECT_EQ(t.api.job_updates[2].action(), JOB_ACTION_REQUEUE);
  EXPECT_EQ(t.api.job_updates[2].job_ids_size(), 2);
  EXPECT_EQ(t.api.job_updates[3].action(), JOB_ACTION_UHOLD);
  EXPECT_EQ(t.out.str(), "");
  t.api.update_status = NotFound("Invalid job id specified");
  EXPECT_EQ(Run({"requeue", "999"}), 1);
  EXPECT_EQ(t.err.str(), "slurm_requeue error: Invalid job id specified\n");
  EXPECT_EQ(Run({"requeue", "12_3"}), 1);
}

TEST_F(ScontrolTest, BadKeywords) {
  EXPECT_EQ(Run({"frobnicate"}), 1);
  EXPECT_EQ(t.err.str(), "invalid keyword: frobnicate\n");
  EXPECT_EQ(Run({"--bogus"}), 1);
  EXPECT_EQ(Run({"show", "widgets"}), 1);
  EXPECT_EQ(Run({"version"}), 0);
  EXPECT_EQ(t.out.str(), "slurm 22.05.8\n");
}

// scontrol parses like getopt_long: its options may follow the verb, the entity and the IDs.
std::string OutputOf(std::vector<std::string> args, int* rc = nullptr) {
  TestCli t;
  SetRefCluster(&t.api);
  int r = RunScontrol(args, t.env);
  if (rc) *rc = r;
  return t.out.str() + t.err.str();
}

TEST_F(ScontrolTest, OptionsAfterVerbAndIds) {
  const std::string node = OutputOf({"-o", "show", "node", "node01"});
  ASSERT_EQ(node.find('\n'), node.size() - 1) << node;  // one line
  EXPECT_EQ(OutputOf({"show", "node", "node01", "-o"}), node);
  EXPECT_EQ(OutputOf({"show", "-o", "node", "node01"}), node);
  EXPECT_EQ(OutputOf({"show", "node", "node01", "--oneliner"}), node);
  const std::string all = OutputOf({"--oneliner", "show", "node"});
  EXPECT_EQ(OutputOf({"show", "node", "-o"}), all);
  EXPECT_NE(all.find("NodeName=node04 "), std::string::npos);
  EXPECT_EQ(OutputOf({"show", "job", "11", "-o"}), OutputOf({"-o", "show", "job", "11"}));
}

TEST_F(ScontrolTest, LongOptionAbbreviationsAnywhere) {
  const std::string job = OutputOf({"--oneliner", "show", "job", "11"});
  EXPECT_EQ(OutputOf({"show", "job", "11", "--onel"}), job);
  EXPECT_EQ(OutputOf({"show", "--one", "job", "11"}), job);
}

TEST_F(ScontrolTest, AcceptedGlobalOptionsAnywhere) {
  const std::string plain = OutputOf({"show", "node", "node01"});
  EXPECT_EQ(OutputOf({"show", "node", "node01", "-d", "-a", "-v", "-M", "c1", "--clusters=c1",
                      "--cluster", "c1", "--details", "--all", "--local", "--future"}),
            plain);
  EXPECT_EQ(OutputOf({"show", "node", "node01", "-dav", "-Mc1"}), plain);
}

TEST_F(ScontrolTest, QuietAfterTheIds) {
  int rc = 0;
  EXPECT_EQ(OutputOf({"show", "node", "nosuch", "-Q"}, &rc), "");
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(OutputOf({"show", "node", "nosuch", "--quiet"}, &rc), "");
  EXPECT_EQ(OutputOf({"show", "node", "nosuch"}, &rc), "Node nosuch not found\n");
}

TEST_F(ScontrolTest, DoubleDashEndsOptions) {
  int rc = 0;
  EXPECT_EQ(OutputOf({"show", "node", "--", "-o"}, &rc), "Node -o not found\n");
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(OutputOf({"-o", "--", "show", "node", "node01"}),
            OutputOf({"-o", "show", "node", "node01"}));
}

TEST_F(ScontrolTest, RefusedOptionsInSlurmWords) {
  const std::string tail = "Try \"scontrol --help\" for more information\n";
  int rc = 0;
  EXPECT_EQ(OutputOf({"--bogus"}, &rc), "scontrol: unrecognized option '--bogus'\n" + tail);
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(OutputOf({"show", "node", "--bogus=1"}, &rc),
            "scontrol: unrecognized option '--bogus=1'\n" + tail);
  EXPECT_EQ(rc, 1);
  EXPECT_EQ(OutputOf({"show", "job", "-Z"}, &rc), "scontrol: invalid option -- 'Z'\n" + tail);
  EXPECT_EQ(OutputOf({"show", "job", "-oZ"}, &rc), "scontrol: invalid option -- 'Z'\n" + tail);
  EXPECT_EQ(OutputOf({"show", "job", "-M"}, &rc),
            "scontrol: option requires an argument -- 'M'\n" + tail);
  EXPECT_EQ(OutputOf({"show", "job", "--clusters"}, &rc),
            "scontrol: option '--clusters' requires an argument\n" + tail);
  EXPECT_EQ(OutputOf({"show", "job", "--oneliner=yes"}, &rc),
            "scontrol: option '--oneliner' doesn't allow an argument\n" + tail);
  EXPECT_EQ(OutputOf({"show", "job", "--h"}, &rc),
            "scontrol: option '--h' is ambiguous; possibilities: '--help' '--hide'\n" + tail);
  EXPECT_EQ(rc, 1);
}

}  // namespace
}  // namespace sluice
