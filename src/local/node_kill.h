// KillNodeProcesses: simulates the death of one node of a LocalCluster: SIGKILL to its
// agent and to every job supervisor (sluice-stepd) started from that node's spool
// directory, with all their descendants (the job's processes). Used by the node-loss
// integration tests and bench_requeue. Returns the number of processes killed.
#pragma once

#include "local/local_cluster.h"

namespace sluice {

int KillNodeProcesses(LocalCluster& cluster, int node_index);
// The same for every node agent process `group` of an emulated cluster serves
// (LocalClusterOptions::agents): the death of all its nodes at once.
int KillAgentGroupProcesses(LocalCluster& cluster, int group);

// SIGKILL to every sluice-stepd whose command line names a directory under
// `spool_prefix`, and to all their descendants. Returns the number of processes killed.
int KillStepdTrees(const std::string& spool_prefix);

}  // namespace sluice
