// `sluice sim` command: see sim_command.h.
#include "sim/sim_command.h"

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>

#include "common/clock.h"
#include "common/config.h"
#include "sim/metrics.h"
#include "sim/policy.h"
#include "sim/report.h"
#include "sim/simulator.h"
#include "sim/trace_reader.h"
#include "sim/workload.h"

namespace sluice::sim {

namespace {

// The simulated clock starts here (2001-09-09); report times are relative to it.
constexpr int64_t kSimEpoch = 1'000'000'000;

struct Options {
  std::string trace;
  std::string format = "auto";
  std::string cluster;
  int nodes = 0;
  int cpus_per_node = 1;
  int gpus_per_node = 8;
  std::string policy = "easy";
  int bf_max_job_test = 0;
  int64_t limit = 0;
  bool json = false;
  std::string jobs_csv;
};

void AddOptions(CLI::App* app, Options* o) {
  app->add_option("--trace", o->trace, "workload trace (.swf, .swf.gz, .csv)")->required();
  app->add_option("--format", o->format, "swf | gpu-csv (default: from the file name)");
  app->add_option("--cluster", o->cluster, "sluice.conf whose nodes replace the derived cluster");
  app->add_option("--nodes", o->nodes, "node count of the derived cluster (default: from trace)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--cpus-per-node", o->cpus_per_node, "SWF: CPUs per derived node (default 1)")
      ->check(CLI::PositiveNumber);
  app->add_option("--gpus-per-node", o->gpus_per_node, "GPU traces: GPUs per derived node (8)")
      ->check(CLI::PositiveNumber);
  app->add_option("--policy", o->policy, "fcfs | easy | conservative (default easy)");
  app->add_option("--bf-max-job-test", o->bf_max_job_test,
                  "conservative: reservations for the first N jobs (0 = all)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--limit", o->limit, "replay only the first N jobs (0 = all)")
      ->check(CLI::NonNegativeNumber);
  app->add_flag("--json", o->json, "print the report as JSON");
  app->add_option("--jobs-csv", o->jobs_csv, "write one CSV row per job to FILE");
}

Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << text;
  file.close();
  if (!file) return InvalidArgument(path + ": cannot write");
  return Status::Ok();
}

Status Run(const Options& o, std::ostream& out) {
  ASSIGN_OR_RETURN(Policy policy, ParsePolicy(o.policy));
  ASSIGN_OR_RETURN(TraceFormat format, ParseTraceFormat(o.format));
  sched::SchedulerConfig knobs;
  knobs.bf_max_job_test = o.bf_max_job_test;
  std::unique_ptr<sched::Scheduler> scheduler = MakePolicyScheduler(policy, knobs);
  ASSIGN_OR_RETURN(Trace trace, ReadTrace(o.trace, format, o.limit));
  WorkloadOptions workload_options;
  workload_options.nodes = o.nodes;
  workload_options.cpus_per_node = o.cpus_per_node;
  workload_options.gpus_per_node = o.gpus_per_node;
  Config config;
  if (!o.cluster.empty()) {
    ASSIGN_OR_RETURN(config, LoadConfigFile(o.cluster));
    workload_options.config = &config;
  }
  ASSIGN_OR_RETURN(Workload workload, BuildWorkload(trace, workload_options));
  ManualClock clock(kSimEpoch);
  ASSIGN_OR_RETURN(SimResult result,
                   Simulate(workload.cluster, workload.jobs, scheduler.get(), &clock));
  const Metrics metrics = ComputeMetrics(workload, result);
  const RunInfo info{trace.name, PolicyName(policy), trace.dropped};
  if (!o.jobs_csv.empty()) RETURN_IF_ERROR(WriteFile(o.jobs_csv, FormatJobsCsv(workload, result)));
  out << (o.json ? FormatJsonReport(info, workload, result, metrics)
                 : FormatTextReport(info, workload, result, metrics));
  return Status::Ok();
}

}  // namespace

int SimMain(int argc, char** argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"Replay a workload trace through the Sluice scheduler", "sluice sim"};
  Options options;
  AddOptions(&app, &options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e, out, err);
  }
  Status status = Run(options, out);
  if (!status.ok()) {
    err << "sluice sim: " << status.message() << "\n";
    return 1;
  }
  return 0;
}

int SimMain(int argc, char** argv) { return SimMain(argc, argv, std::cout, std::cerr); }

}  // namespace sluice::sim
