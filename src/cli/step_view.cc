#include "cli/step_view.h"

#include <fmt/format.h>

#include <cstdlib>

#include "cli/scontrol_show.h"
#include "common/hostlist.h"
#include "common/slurm_format.h"

namespace sluice {

std::string FormatStepRecord(const StepInfo& s) {
  std::vector<std::string> nodes(s.nodes().begin(), s.nodes().end());
  std::string tres = fmt::format("cpu={}", s.ncpus());
  if (s.ngpus() > 0) tres += fmt::format(",gres/gpu={}", s.ngpus());
  tres += fmt::format(",node={}", s.nodes_size());
  std::string out;
  out +=
      fmt::format("StepId={}.{} UserId={} StartTime={} TimeLimit={}\n", s.job_id(), s.step_id(),
                  s.uid(), FormatTimestamp(s.start_time()), FormatLimitMinutes(s.time_limit_min()));
  out += fmt::format("   State={} Partition={} NodeList={}\n", s.state(), s.partition(),
                     CompressHostlistSorted(nodes));
  out += fmt::format("   Nodes={} CPUs={} Tasks={} Name={} Network=(null)\n", s.nodes_size(),
                     s.ncpus(), s.ntasks(), s.name());
  out += "   TRES=" + tres + "\n";
  out += "   ResvPorts=(null)\n";
  out += "   CPUFreqReq=Default Dist=Block\n";
  out += "   SrunHost:Pid=(null):0\n\n";
  return out;
}

int ShowSteps(CliEnv& env, const std::vector<std::string>& ids, bool oneliner) {
  GetStepsRequest req;
  std::vector<std::pair<int64_t, int>> wanted;  // step -1 = every step of the job
  for (const std::string& id : ids) {
    size_t dot = id.find('.');
    char* end = nullptr;
    int64_t job = std::strtoll(id.c_str(), &end, 10);
    int step = -1;
    bool ok = job > 0 && (dot == std::string::npos ? *end == '\0' : end == id.c_str() + dot);
    if (ok && dot != std::string::npos) {
      std::string s = id.substr(dot + 1);
      ok = !s.empty() && s.find_first_not_of("0123456789") == std::string::npos;
      if (ok) step = std::atoi(s.c_str());
    }
    if (!ok) {
      *env.err << "Invalid job step id: " << id << "\n";
      return 1;
    }
    req.add_job_ids(job);
    wanted.push_back({job, step});
  }
  Expected<ClientApiInterface*> api = env.connect();
  Expected<GetStepsReply> rep =
      api.ok() ? (*api)->GetSteps(req) : Expected<GetStepsReply>(api.status());
  if (!rep.ok()) {
    *env.err << "slurm_get_job_steps error: " << rep.status().message() << "\n";
    return 1;
  }
  int shown = 0;
  for (const StepInfo& s : rep->steps()) {
    bool match = wanted.empty();
    for (const auto& [j, st] : wanted) match |= j == s.job_id() && (st < 0 || st == s.step_id());
    if (!match) continue;
    std::string rec = FormatStepRecord(s);
    *env.out << (oneliner ? OneLiner(rec) : rec);
    ++shown;
  }
  if (shown == 0 && !wanted.empty()) {
    auto [j, st] = wanted.front();
    *env.out << "Job step " << j << "." << (st < 0 ? 0 : st) << " not found\n";
    return 1;
  }
  if (shown == 0) *env.out << "No job steps in the system\n";
  return 0;
}

}  // namespace sluice
