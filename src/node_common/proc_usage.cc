#include "node_common/proc_usage.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "node_common/job_dir.h"

namespace sluice {
namespace {

// The file's text, "" when it cannot be read (the process ended, /proc/<pid>/io denied).
std::string ReadOrEmpty(const std::string& path) {
  Expected<std::string> text = ReadSmallFile(path);
  return text.ok() ? *text : std::string();
}

void AddIo(const std::string& io, ProcessUsage* u) {
  std::istringstream in(io);
  std::string key;
  int64_t value = 0;
  while (in >> key >> value) {
    if (key == "read_bytes:") u->read_bytes += value;
    if (key == "write_bytes:") u->write_bytes += value;
  }
}

}  // namespace

bool ParseProcStat(const std::string& stat, long clock_ticks, long page_kb, pid_t* group,
                   ProcessUsage* usage) {
  size_t close = stat.rfind(')');
  if (close == std::string::npos || clock_ticks <= 0) return false;
  std::istringstream in(stat.substr(close + 1));
  std::vector<std::string> f;  // f[0] is field 3 (state)
  for (std::string tok; in >> tok && f.size() < 22;) f.push_back(tok);
  if (f.size() < 22) return false;
  auto num = [&](int field) {
    return std::strtoll(f[static_cast<size_t>(field - 3)].c_str(), nullptr, 10);
  };
  *group = static_cast<pid_t>(num(5));
  usage->pages = num(12);
  usage->cpu_ms = (num(14) + num(15) + num(16) + num(17)) * 1000 / clock_ticks;
  usage->vsize_kb = num(23) / 1024;
  usage->rss_kb = num(24) * page_kb;
  return true;
}

std::map<pid_t, ProcessUsage> SampleProcessGroups(const std::vector<pid_t>& groups,
                                                  const std::string& proc_root) {
  std::map<pid_t, ProcessUsage> out;
  DIR* d = ::opendir(proc_root.c_str());
  if (d == nullptr) return out;
  const long ticks = ::sysconf(_SC_CLK_TCK);
  const long page_kb = ::sysconf(_SC_PAGESIZE) / 1024;
  while (struct dirent* e = ::readdir(d)) {
    if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
    const std::string dir = proc_root + "/" + e->d_name;
    pid_t group = 0;
    ProcessUsage u;
    if (!ParseProcStat(ReadOrEmpty(dir + "/stat"), ticks, page_kb, &group, &u)) continue;
    if (std::find(groups.begin(), groups.end(), group) == groups.end()) continue;
    AddIo(ReadOrEmpty(dir + "/io"), &u);
    ProcessUsage& sum = out[group];
    sum.rss_kb += u.rss_kb;
    sum.vsize_kb += u.vsize_kb;
    sum.cpu_ms += u.cpu_ms;
    sum.pages += u.pages;
    sum.read_bytes += u.read_bytes;
    sum.write_bytes += u.write_bytes;
    sum.pids.push_back(static_cast<pid_t>(std::atoi(e->d_name)));
  }
  ::closedir(d);
  return out;
}

}  // namespace sluice
