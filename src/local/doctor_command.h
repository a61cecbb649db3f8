// `sluice doctor [-f sluice.conf]`: what an operator checks first when the cluster
// misbehaves, one verdict per check ("[ OK ]", "[WARN]", "[FAIL]") and exit 1 on a FAIL:
//   config      parses, and passes the controller's start-up checks (config_check.h)
//   key         the cluster key exists and only its owner can read it
//   state       the state database opens; on PostgreSQL, which controller leads
//   controllers each SlurmctldHost answers (a standby counts: it answers)
//   nodes       every node's agent responds
//   versions    the agents run this Sluice version
//   clocks      the agents' clocks agree with the controller's (heartbeat timestamps)
//   completing  no job has been COMPLETING (its node cleaning up) for over a minute
#pragma once

#include <string>

namespace sluice {

int DoctorCommand(const std::string& conf_path);

}  // namespace sluice
