// Report formatting: see report.h.
#include "sim/report.h"

#include <fmt/format.h>

namespace sluice::sim {

namespace {

const char* KindName(TraceKind kind) { return kind == TraceKind::kGpu ? "gpu" : "cpu"; }

std::string JsonString(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<int>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string CsvField(std::string_view text) {
  if (text.find_first_of(",\"\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::vector<std::pair<std::string, std::string>> MetricFields(const Metrics& m) {
  return {
      {"started", fmt::format("{}", m.started)},
      {"rejected", fmt::format("{}", m.rejected)},
      {"never_started", fmt::format("{}", m.never_started)},
      {"makespan_s", fmt::format("{}", m.makespan_s)},
      {"utilization", fmt::format("{:.4f}", m.utilization)},
      {"cpu_utilization", fmt::format("{:.4f}", m.cpu_utilization)},
      {"gpu_utilization", fmt::format("{:.4f}", m.gpu_utilization)},
      {"mean_wait_s", fmt::format("{:.3f}", m.mean_wait_s)},
      {"p50_wait_s", fmt::format("{}", m.p50_wait_s)},
      {"p95_wait_s", fmt::format("{}", m.p95_wait_s)},
      {"p99_wait_s", fmt::format("{}", m.p99_wait_s)},
      {"mean_bounded_slowdown", fmt::format("{:.3f}", m.mean_bounded_slowdown)},
      {"mean_jct_s", fmt::format("{:.3f}", m.mean_jct_s)},
      {"max_bounded_slowdown", fmt::format("{:.3f}", m.max_bounded_slowdown)},
      {"p95_jct_s", fmt::format("{}", m.p95_jct_s)},
      {"estimate_mae_s", fmt::format("{:.3f}", m.estimate_mae_s)},
      {"estimate_under_fraction", fmt::format("{:.4f}", m.estimate_under_fraction)},
      {"estimate_mean_ratio", fmt::format("{:.3f}", m.estimate_mean_ratio)},
  };
}

std::string FormatTextReport(const RunInfo& info, const Workload& workload, const SimResult& result,
                             const Metrics& m) {
  std::string out;
  auto line = [&out](std::string_view key, const std::string& value) {
    out += fmt::format("{:<24}{}\n", key, value);
  };
  line("trace",
       fmt::format("{} ({} jobs, {} dropped by cleaning rules)", info.trace, m.jobs, info.dropped));
  line("policy", info.policy);
  line("cluster", fmt::format("{} nodes, {} CPUs, {} GPUs", workload.cluster.nodes.size(),
                              workload.total_cpus, workload.total_gpus));
  line("jobs", fmt::format("{} started, {} rejected, {} never started", m.started, m.rejected,
                           m.never_started));
  line("makespan_s", fmt::format("{}", m.makespan_s));
  line(workload.kind == TraceKind::kGpu ? "utilization (GPU)" : "utilization (CPU)",
       fmt::format("{:.4f}", m.utilization));
  line("wait_s mean", fmt::format("{:.3f}", m.mean_wait_s));
  line("wait_s p50/p95/p99", fmt::format("{} / {} / {}", m.p50_wait_s, m.p95_wait_s, m.p99_wait_s));
  line("bounded_slowdown mean",
       fmt::format("{:.3f} (tau = {:.0f} s)", m.mean_bounded_slowdown, kSlowdownTauS));
  line("bounded_slowdown max", fmt::format("{:.3f}", m.max_bounded_slowdown));
  line("estimate error",
       fmt::format("MAE {:.1f} s, {:.1f}% under, mean estimate/run {:.2f}", m.estimate_mae_s,
                   100 * m.estimate_under_fraction, m.estimate_mean_ratio));
  if (workload.kind == TraceKind::kGpu) {
    line("gpu_utilization", fmt::format("{:.4f}", m.gpu_utilization));
    line("jct_s mean", fmt::format("{:.3f}", m.mean_jct_s));
    line("jct_s p95", fmt::format("{}", m.p95_jct_s));
  }
  line("scheduler passes",
       fmt::format("{} (max {} pending)", result.stats.passes, result.stats.max_pending));
  return out;
}

std::string FormatJsonReport(const RunInfo& info, const Workload& workload, const SimResult& result,
                             const Metrics& m) {
  std::string out = "{\n";
  out += fmt::format("  \"trace\": {},\n", JsonString(info.trace));
  out += fmt::format("  \"kind\": \"{}\",\n", KindName(workload.kind));
  out += fmt::format("  \"policy\": {},\n", JsonString(info.policy));
  out += fmt::format("  \"nodes\": {},\n", workload.cluster.nodes.size());
  out += fmt::format("  \"cpus\": {},\n", workload.total_cpus);
  out += fmt::format("  \"gpus\": {},\n", workload.total_gpus);
  out += fmt::format("  \"jobs\": {},\n", m.jobs);
  out += fmt::format("  \"dropped\": {},\n", info.dropped);
  for (const auto& [key, value] : MetricFields(m)) {
    out += fmt::format("  \"{}\": {},\n", key, value);
  }
  out += fmt::format("  \"scheduler_passes\": {},\n", result.stats.passes);
  out += fmt::format("  \"max_pending\": {}\n", result.stats.max_pending);
  return out + "}\n";
}

std::string FormatJobsCsv(const Workload& workload, const SimResult& result) {
  std::string out =
      "job_id,trace_id,submit_s,start_s,end_s,wait_s,run_s,nodes,cpus,gpus,time_limit_s,state\n";
  for (size_t i = 0; i < workload.jobs.size(); ++i) {
    const SimJob& job = workload.jobs[i];
    const JobOutcome& o = result.jobs[i];
    const bool ran = !o.rejected && o.start_s >= 0;
    const char* state = o.rejected ? "rejected" : ran ? "completed" : "never_started";
    std::string times = ran ? fmt::format("{},{},{}", o.start_s, o.end_s, o.start_s - job.submit_s)
                            : std::string(",,");
    out += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", job.request.job_id, CsvField(job.id),
                       job.submit_s, times, job.run_s, job.request.num_nodes, job.cpus, job.gpus,
                       job.request.time_limit_s, state);
  }
  return out;
}

}  // namespace sluice::sim
