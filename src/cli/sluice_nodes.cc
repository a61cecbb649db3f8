#include "cli/sluice_nodes.h"

#include <sstream>

#include "cli/scancel.h"
#include "cli/scontrol.h"
#include "cli/squeue.h"

namespace sluice {
namespace {

constexpr char kUsage[] =
    "Usage: sluice nodes drain NODES --reason TEXT [--requeue | --cancel]\n"
    "       sluice nodes resume NODES\n"
    "       sluice nodes requeue NODES\n"
    "       sluice nodes cancel NODES\n";

// The ids of the jobs running (or suspended) on `nodes`, comma-separated ("" if none).
Expected<std::string> JobsOn(const std::string& nodes, CliEnv& env) {
  CliEnv sub = env;
  std::ostringstream ids;
  sub.out = &ids;
  if (RunSqueue({"-h", "-w", nodes, "-t", "RUNNING,SUSPENDED,CONFIGURING", "-o", "%i"}, sub) != 0)
    return Unavailable("cannot list the jobs on " + nodes);
  std::string list;
  std::istringstream in(ids.str());
  for (std::string id; in >> id;) list += (list.empty() ? "" : ",") + id;
  return list;
}

enum class OnNodes { kRequeue, kCancel };

// Requeues or cancels every job running on `nodes` (scontrol requeue / scancel).
int ActOnJobs(OnNodes action, const std::string& nodes, CliEnv& env) {
  Expected<std::string> jobs = JobsOn(nodes, env);
  if (!jobs.ok()) {
    *env.err << "sluice: error: " << jobs.status().message() << "\n";
    return 1;
  }
  if (jobs->empty()) {
    *env.out << "no job runs on " << nodes << "\n";
    return 0;
  }
  const bool requeue = action == OnNodes::kRequeue;
  if (int rc = requeue ? RunScontrol({"requeue", *jobs}, env) : RunScancel({*jobs}, env); rc != 0)
    return rc;
  *env.out << (requeue ? "requeued " : "cancelled ") << *jobs << "\n";
  return 0;
}

}  // namespace

int RunSluiceNodes(const std::vector<std::string>& args, CliEnv& env) {
  if (args.size() < 2) {
    *env.err << kUsage;
    return args.size() == 1 && (args[0] == "-h" || args[0] == "--help") ? 0 : 1;
  }
  const std::string& verb = args[0];
  const std::string& nodes = args[1];
  std::string reason;
  bool requeue = false, cancel = false;
  for (size_t i = 2; i < args.size(); ++i) {
    if (args[i] == "--reason" && i + 1 < args.size()) {
      reason = args[++i];
    } else if (args[i].rfind("--reason=", 0) == 0) {
      reason = args[i].substr(9);
    } else if (args[i] == "--requeue") {
      requeue = true;
    } else if (args[i] == "--cancel") {
      cancel = true;
    } else {
      *env.err << "sluice: error: unexpected argument: " << args[i] << "\n" << kUsage;
      return 1;
    }
  }
  if (verb == "drain") {
    if (reason.empty() || (requeue && cancel)) {
      *env.err << "sluice: error: "
               << (reason.empty() ? "drain needs --reason" : "--requeue or --cancel, not both")
               << "\n";
      return 1;
    }
    // Drained first: nothing new starts there while its jobs leave.
    if (int rc =
            RunScontrol({"update", "NodeName=" + nodes, "State=DRAIN", "Reason=" + reason}, env);
        rc != 0) {
      return rc;
    }
    *env.out << "drained " << nodes << " (reason: " << reason << ")\n";
    if (requeue) return ActOnJobs(OnNodes::kRequeue, nodes, env);
    if (cancel) return ActOnJobs(OnNodes::kCancel, nodes, env);
    return 0;
  }
  if (!reason.empty() || requeue || cancel) {
    *env.err << "sluice: error: --reason, --requeue and --cancel go with drain\n";
    return 1;
  }
  if (verb == "resume") {
    if (int rc = RunScontrol({"update", "NodeName=" + nodes, "State=RESUME"}, env); rc != 0)
      return rc;
    *env.out << "resumed " << nodes << "\n";
    return 0;
  }
  if (verb == "requeue") return ActOnJobs(OnNodes::kRequeue, nodes, env);
  if (verb == "cancel") return ActOnJobs(OnNodes::kCancel, nodes, env);
  *env.err << "sluice: error: unknown action: " << verb << "\n" << kUsage;
  return 1;
}

}  // namespace sluice
