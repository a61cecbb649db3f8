#include "local/doctor_command.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "client/connect.h"
#include "common/config.h"
#include "common/version.h"
#include "ctld/runtime/config_check.h"
#include "rpc/protocol.h"
#include "storage/pg_lease.h"
#include "storage/state_dump.h"

namespace sluice {
namespace {

enum class Verdict { kOk, kWarn, kFail };

class Report {
 public:
  void Add(Verdict v, const std::string& check, const std::string& detail) {
    static constexpr const char* kTag[] = {"[ OK ]", "[WARN]", "[FAIL]"};
    std::printf("%s %-11s %s\n", kTag[static_cast<int>(v)], check.c_str(), detail.c_str());
    failed_ = failed_ || v == Verdict::kFail;
  }
  int ExitCode() const { return failed_ ? 1 : 0; }

 private:
  bool failed_ = false;
};

// A list of at most a few names, then how many more.
std::string Some(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < 5; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 5) out += fmt::format(" and {} more", names.size() - 5);
  return out;
}

void CheckKey(const Config& config, Report* r) {
  const std::string& path = config.cluster_key_file;  // filled in by the parser
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    r->Add(Verdict::kFail, "key", path + " is missing (the controller creates it at first start)");
  } else if ((st.st_mode & 077) != 0) {
    r->Add(Verdict::kFail, "key",
           fmt::format("{} has mode {:04o}: others can read it and forge credentials "
                       "(chmod 600)",
                       path, st.st_mode & 07777));
  } else {
    r->Add(Verdict::kOk, "key", fmt::format("{} (mode {:04o})", path, st.st_mode & 07777));
  }
}

void CheckState(const Config& config, Report* r) {
  auto store = storage::OpenStateStore(config, /*create=*/false);
  if (!store.ok()) {
    r->Add(Verdict::kFail, "state", store.status().message());
    return;
  }
  if (config.state_storage.type != "state/pgsql") {
    r->Add(Verdict::kOk, "state", "state/sqlite in " + config.state_save_location);
    return;
  }
  auto lease = storage::PgLease::Open(storage::StateConnString(config));
  auto now = lease.ok() ? (*lease)->Current() : Expected<storage::LeaseState>(lease.status());
  if (!now.ok()) {
    r->Add(Verdict::kFail, "state", now.status().message());
  } else if (!now->live) {
    r->Add(Verdict::kFail, "state", "state/pgsql reachable, but no controller leads");
  } else {
    r->Add(Verdict::kOk, "state",
           fmt::format("state/pgsql: {} leads at {} (epoch {})", now->holder, now->address,
                       now->epoch));
  }
}

// "0.1.0 (protocol 2)": an agent's, or by default this binary's.
std::string Release(const std::string& version = SluiceVersion(), int protocol = SpokenProtocol()) {
  return fmt::format("{} (protocol {})", version, protocol);
}

void CheckNodes(const GetNodesReply& nodes, Report* r) {
  std::vector<std::string> silent, unknown_version;
  std::map<std::string, std::vector<std::string>> other_versions;
  int64_t worst_skew = 0;
  std::string worst_node;
  for (const NodeInfo& n : nodes.nodes()) {
    if (!n.responding()) {
      silent.push_back(n.name());
      continue;
    }
    if (n.version().empty()) {
      unknown_version.push_back(n.name());
    } else if (std::string v = Release(n.version(), n.protocol()); v != Release()) {
      other_versions[v].push_back(n.name());
    }
    if (n.has_clock_skew_ms() &&
        (worst_node.empty() || std::llabs(n.clock_skew_ms()) > std::llabs(worst_skew))) {
      worst_skew = n.clock_skew_ms();
      worst_node = n.name();
    }
  }
  const int n = nodes.nodes_size();
  if (silent.empty()) {
    r->Add(Verdict::kOk, "nodes", fmt::format("{} of {} agents respond", n, n));
  } else {
    r->Add(Verdict::kWarn, "nodes",
           fmt::format("{} of {} agents do not respond: {}", silent.size(), n, Some(silent)));
  }
  if (other_versions.empty() && unknown_version.empty()) {
    r->Add(Verdict::kOk, "versions", fmt::format("every agent runs {}", Release()));
  }
  for (const auto& [version, names] : other_versions) {
    r->Add(
        Verdict::kWarn, "versions",
        fmt::format("{} run {} (this is {}): {}", names.size(), version, Release(), Some(names)));
  }
  if (!unknown_version.empty()) {
    r->Add(Verdict::kWarn, "versions",
           fmt::format("{} do not report a version (older agents): {}", unknown_version.size(),
                       Some(unknown_version)));
  }
  if (worst_node.empty()) {
    r->Add(Verdict::kWarn, "clocks", "no agent has sent a timestamped heartbeat yet");
    return;
  }
  const int64_t skew = std::llabs(worst_skew);
  const std::string clocks = fmt::format("{} ms apart at most ({})", worst_skew, worst_node);
  const Verdict v = skew > 60'000 ? Verdict::kFail : skew > 1'000 ? Verdict::kWarn : Verdict::kOk;
  r->Add(v, "clocks",
         v == Verdict::kFail ? clocks + ": credentials expire; run NTP on every node" : clocks);
}

void CheckCompleting(const GetJobsReply& jobs, Report* r) {
  const int64_t now = std::time(nullptr);
  std::vector<std::string> stuck;
  for (const JobInfo& j : jobs.jobs()) {
    if (j.state() == JOB_COMPLETING && j.end_time() > 0 && now - j.end_time() > 60) {
      stuck.push_back(fmt::format("{} ({} s)", j.job_id(), now - j.end_time()));
    }
  }
  if (stuck.empty()) {
    r->Add(Verdict::kOk, "completing", "no job stuck COMPLETING");
  } else {
    r->Add(Verdict::kWarn, "completing",
           fmt::format("{} jobs COMPLETING for over a minute: {} (docs/operations.md)",
                       stuck.size(), Some(stuck)));
  }
}

}  // namespace

int DoctorCommand(const std::string& conf_path) {
  Report r;
  auto config = LoadConfigFile(conf_path);
  if (!config.ok()) {
    r.Add(Verdict::kFail, "config", config.status().message());
    return r.ExitCode();
  }
  const auto problems = ctld::CheckControllerConfig(*config);
  for (const ctld::ConfigProblem& p : problems) r.Add(Verdict::kFail, "config", p.message);
  if (problems.empty()) {
    r.Add(Verdict::kOk, "config",
          fmt::format("{}: {} nodes, {} partitions", conf_path, config->nodes.size(),
                      config->partitions.size()));
  }
  CheckKey(*config, &r);
  CheckState(*config, &r);
  ConnectOptions copts;
  copts.config_path = conf_path;
  copts.deadline_ms = 10'000;
  auto conn = ConnectToController(copts);
  if (!conn.ok()) {
    r.Add(Verdict::kFail, "controllers", conn.status().message());
    return r.ExitCode();
  }
  const std::vector<bool> up = conn->client->PingEach();
  const auto hosts = config->Controllers();
  std::vector<std::string> down;
  for (size_t i = 0; i < up.size() && i < hosts.size(); ++i)
    if (!up[i]) down.push_back(hosts[i].name);
  const bool any = std::find(up.begin(), up.end(), true) != up.end();
  r.Add(!any           ? Verdict::kFail
        : down.empty() ? Verdict::kOk
                       : Verdict::kWarn,
        "controllers",
        down.empty()
            ? fmt::format("{} of {} answer", up.size(), up.size())
            : fmt::format("{} of {} do not answer: {}", down.size(), up.size(), Some(down)));
  if (!any) return r.ExitCode();
  auto nodes = conn->client->GetNodes({});
  if (!nodes.ok()) {
    r.Add(Verdict::kFail, "nodes", nodes.status().message());
  } else {
    CheckNodes(*nodes, &r);
  }
  auto jobs = conn->client->GetJobs({});
  if (!jobs.ok()) {
    r.Add(Verdict::kFail, "completing", jobs.status().message());
  } else {
    CheckCompleting(*jobs, &r);
  }
  return r.ExitCode();
}

}  // namespace sluice
