// `sluice sim` command: see sim_command.h.
#include "sim/sim_command.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "common/clock.h"
#include "common/config.h"
#include "sim/compare.h"
#include "sim/html_report.h"
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
  std::string compare;
  double bf_starvation_factor = 0;
  std::string filter = "none";
  bool predict_by_app = false;
  std::string report_dir;
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
  app->add_option("--policy", o->policy,
                  "fcfs | easy | conservative | easy[-pred|-clairvoyant][-sjbf|-wfp3|-unicep|-f1"
                  "|-sgtf] | wfp3 | unicep | f1 | gpu-sgtf (default easy)");
  app->add_option("--compare", o->compare,
                  "comma-separated policies: replay each, print one table (replaces --policy)");
  app->add_option("--bf-starvation-factor", o->bf_starvation_factor,
                  "backfill candidates whose wait reached K x their run time are tried first "
                  "(0 = off)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--filter", o->filter,
                  "none | published (also drop jobs without a requested time or wider than "
                  "MaxProcs)");
  app->add_option("--report", o->report_dir,
                  "write DIR/index.html: the compare table and inline SVG plots");
  app->add_flag("--predict-by-app", o->predict_by_app,
                "-pred policies: history per user and executable instead of per user");
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

// One policy replayed on `workload`.
Expected<CompareRow> Replay(const PolicySpec& spec, const Options& o, const Workload& workload) {
  sched::SchedulerConfig knobs;
  knobs.bf_max_job_test = o.bf_max_job_test;
  knobs.bf_order.starvation_factor = o.bf_starvation_factor;
  knobs.bf_order.origin = kSimEpoch;  // F1's submit times count from the trace start
  std::unique_ptr<sched::Scheduler> scheduler = MakeSpecScheduler(spec, knobs);
  SimPrediction prediction = spec.prediction;
  prediction.by_app = o.predict_by_app;
  ManualClock clock(kSimEpoch);
  ASSIGN_OR_RETURN(SimResult result, Simulate(workload.cluster, workload.jobs, scheduler.get(),
                                              &clock, {}, PreemptMode::kCancel, prediction));
  Metrics metrics = ComputeMetrics(workload, result);
  return CompareRow{spec.name, std::move(result), metrics};
}

std::vector<std::string> SplitCommas(const std::string& text) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (!part.empty()) parts.push_back(part);
  }
  return parts;
}

Status Run(const Options& o, std::ostream& out) {
  std::vector<PolicySpec> specs;
  for (const std::string& name : SplitCommas(o.compare.empty() ? o.policy : o.compare)) {
    ASSIGN_OR_RETURN(PolicySpec spec, ParsePolicySpec(name));
    specs.push_back(std::move(spec));
  }
  if (specs.empty()) return InvalidArgument("no policy given");
  if (o.filter != "none" && o.filter != "published") {
    return InvalidArgument("--filter " + o.filter + " (want none or published)");
  }
  ASSIGN_OR_RETURN(TraceFormat format, ParseTraceFormat(o.format));
  ASSIGN_OR_RETURN(Trace trace, ReadTrace(o.trace, format, o.limit));
  if (o.filter == "published") ApplyPublishedFilter(&trace);
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
  std::vector<CompareRow> rows;
  for (const PolicySpec& spec : specs) {
    ASSIGN_OR_RETURN(CompareRow row, Replay(spec, o, workload));
    rows.push_back(std::move(row));
  }
  if (!o.report_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.report_dir, ec);
    if (ec) return InvalidArgument(o.report_dir + ": " + ec.message());
    RETURN_IF_ERROR(WriteFile((std::filesystem::path(o.report_dir) / "index.html").string(),
                              FormatHtmlReport(trace.name, workload, rows)));
  }
  if (!o.compare.empty()) {
    out << FormatCompareTable(trace.name, workload, rows);
    return Status::Ok();
  }
  const CompareRow& row = rows.front();
  const RunInfo info{trace.name, row.policy, trace.dropped};
  if (!o.jobs_csv.empty()) {
    RETURN_IF_ERROR(WriteFile(o.jobs_csv, FormatJobsCsv(workload, row.result)));
  }
  out << (o.json ? FormatJsonReport(info, workload, row.result, row.metrics)
                 : FormatTextReport(info, workload, row.result, row.metrics));
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
