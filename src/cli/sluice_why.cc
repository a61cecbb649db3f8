#include "cli/sluice_why.h"

#include <fmt/format.h>

#include "cli/array_view.h"
#include "cli/job_states.h"
#include "cli/job_view.h"
#include "common/slurm_format.h"

namespace sluice {
namespace {

constexpr char kUsage[] = "Usage: sluice why JOBID[,JOBID...] [JOBID...]\n";

std::string Line(const JobInfo& j) {
  std::string head = fmt::format("Job {} ({}) is {}", j.job_id(), j.spec().name(), JobStateName(j));
  if (j.state() == JOB_PENDING) {
    const std::string why = j.explanation().empty() ? "not explained" : j.explanation();
    return fmt::format("{} ({}): {}", head, j.reason().empty() ? "None" : j.reason(), why);
  }
  if (IsTerminalState(j.state())) return fmt::format("{}, exit code {}", head, JobExitCode(j));
  return fmt::format("{} on {} since {}", head, JobNodeList(j), FormatTimestamp(j.start_time()));
}

}  // namespace

int RunSluiceWhy(const std::vector<std::string>& args, CliEnv& env) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help") {
    *(args.empty() ? env.err : env.out) << kUsage;
    return args.empty() ? 1 : 0;
  }
  GetJobsRequest req;
  std::vector<JobSelector> sels;
  for (const std::string& a : args) {
    Expected<std::vector<JobSelector>> v = ParseJobSelectors(a);
    if (!v.ok()) {
      *env.err << "sluice: error: Invalid job id specified: " << a << "\n";
      return 1;
    }
    sels.insert(sels.end(), v->begin(), v->end());
  }
  AddSelectors(sels, &req);
  req.set_explain(true);
  Expected<ClientApiInterface*> api = env.connect();
  Expected<GetJobsReply> rep =
      api.ok() ? (*api)->GetJobs(req) : Expected<GetJobsReply>(api.status());
  if (!rep.ok()) {
    *env.err << "sluice: error: " << rep.status().message() << "\n";
    return 1;
  }
  int shown = 0;
  for (const JobInfo& j : rep->jobs()) {
    if (!AnySelectorMatches(sels, j)) continue;
    *env.out << Line(j) << "\n";
    ++shown;
  }
  if (shown == 0) {
    *env.err << "sluice: error: Invalid job id specified\n";
    return 1;
  }
  return 0;
}

}  // namespace sluice
