// What a new configuration would do to work that is under way (`scontrol reconfigure`):
// one sentence per conflict, naming the node, partition, reservation and jobs, and what
// to do first. Empty: the configuration can replace the running one without ending,
// moving or stranding any job. Refused:
//   - removing a node that runs jobs or that a reservation holds;
//   - changing a node's CPUs, sockets, cores, threads, memory or GPUs while it runs jobs;
//   - removing a partition that has pending or running jobs, or that a reservation names;
//   - taking from a partition a node that a reservation in that partition holds.
// Pure: reads the tables, changes nothing.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "common/config.h"
#include "ctld/components/job_table.h"
#include "ctld/components/node_table.h"
#include "types.pb.h"

namespace sluice::ctld {

// `before`: the configuration the tables were built from.
std::vector<std::string> WorkAtRisk(const Config& before, const Config& next,
                                    const NodeTable& nodes, const JobTable& jobs,
                                    const std::map<std::string, ReservationInfo>& reservations);

// Did the node's resources change (what jobs are placed by)? A GPU type `after` leaves
// out is not a change (`before` may hold the type its agent found).
bool ResourcesChanged(const NodeConfig& before, const NodeConfig& after);

}  // namespace sluice::ctld
