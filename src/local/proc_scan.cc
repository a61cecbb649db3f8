#include "local/proc_scan.h"

#include <dirent.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace sluice {

std::vector<pid_t> AllPids() {
  std::vector<pid_t> out;
  DIR* d = ::opendir("/proc");
  if (!d) return out;
  while (struct dirent* e = ::readdir(d)) {
    pid_t pid = static_cast<pid_t>(std::atoi(e->d_name));
    if (pid > 0) out.push_back(pid);
  }
  ::closedir(d);
  return out;
}

pid_t ParentOf(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(f, line);
  size_t close = line.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(line.substr(close + 2));
  char state = 0;
  pid_t ppid = 0;
  rest >> state >> ppid;
  return ppid;
}

std::vector<std::string> ArgvOf(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/cmdline");
  std::vector<std::string> argv;
  for (std::string arg; std::getline(f, arg, '\0');) argv.push_back(arg);
  return argv;
}

std::vector<DaemonProcess> FindDaemons(const std::string& program, const std::string& conf_path) {
  std::vector<DaemonProcess> out;
  for (pid_t pid : AllPids()) {
    std::vector<std::string> argv = ArgvOf(pid);
    if (argv.empty() || argv[0].substr(argv[0].rfind('/') + 1) != program) continue;
    DaemonProcess d{pid, ""};
    bool ours = false;
    for (size_t i = 1; i + 1 < argv.size(); ++i) {
      if (argv[i] == "-f" && argv[i + 1] == conf_path) ours = true;
      if (argv[i] == "-N") d.node = argv[i + 1];
    }
    if (ours) out.push_back(d);
  }
  return out;
}

}  // namespace sluice
