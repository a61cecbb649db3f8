// Reading /proc for the local cluster: every pid, a process's parent and argv, and the
// daemons of one cluster (sluicectld / sluiced started with `-f <its config>`), whoever
// started them and whatever pid files say.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace sluice {

std::vector<pid_t> AllPids();
pid_t ParentOf(pid_t pid);
std::vector<std::string> ArgvOf(pid_t pid);  // empty when gone or unreadable

struct DaemonProcess {
  pid_t pid = 0;
  std::string node;  // sluiced: its -N value ("" for the controller)
};
// Live processes whose program's base name is `program` ("sluiced") and whose arguments
// include "-f <conf_path>".
std::vector<DaemonProcess> FindDaemons(const std::string& program, const std::string& conf_path);

}  // namespace sluice
