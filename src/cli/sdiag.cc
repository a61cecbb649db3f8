#include "cli/sdiag.h"

#include <fmt/format.h>

#include <algorithm>
#include <ostream>

#include "cli/help_text.h"
#include "cli/opt_parser.h"
#include "cli/query_json.h"
#include "cli/sinfo.h"

namespace sluice {
namespace {

enum Opt { kAll = 1, kReset, kJson, kVersion, kHelp, kUsage, kIgnored };

const std::vector<OptionDef>& Defs() {
  static const std::vector<OptionDef> defs = {
      {"all", 'a', ArgKind::kNone, kAll},
      {"reset", 'r', ArgKind::kNone, kReset},
      {"json", 0, ArgKind::kNone, kJson},
      {"version", 'V', ArgKind::kNone, kVersion},
      {"help", 'h', ArgKind::kNone, kHelp},
      {"usage", 0, ArgKind::kNone, kUsage},
      {"cluster", 'M', ArgKind::kRequired, kIgnored},
      {"sort-by-id", 'i', ArgKind::kNone, kIgnored},
      {"sort-by-time", 't', ArgKind::kNone, kIgnored},
      {"sort-by-time2", 'T', ArgKind::kNone, kIgnored},
  };
  return defs;
}

std::string Stamp(int64_t t) { return fmt::format("{} ({})", LongDateLine(t), t); }

void Print(const GetStatsReply& s, std::ostream& out) {
  const int64_t cycles = s.sched_cycles();
  const int64_t minutes = std::max<int64_t>(1, (s.now() - s.data_since()) / 60);
  out << "*******************************************************\n"
      << "sdiag output at " << Stamp(s.now()) << "\n"
      << "Data since      " << Stamp(s.data_since()) << "\n"
      << "*******************************************************\n"
      << "Agent queue size:     " << s.agent_queue_size() << "\n"
      << "DBD Agent queue size: " << s.acct_queue_size() << "\n\n"
      << "Jobs submitted: " << s.jobs_submitted() << "\n"
      << "Jobs started:   " << s.jobs_started() << "\n"
      << "Jobs completed: " << s.jobs_completed() << "\n"
      << "Jobs canceled:  " << s.jobs_cancelled() << "\n"
      << "Jobs failed:    " << s.jobs_failed() << "\n"
      << "Jobs requeued:  " << s.jobs_requeued() << "\n\n"
      << "Job states ts:  " << Stamp(s.now()) << "\n"
      << "Jobs pending:   " << s.jobs_pending() << "\n"
      << "Jobs running:   " << s.jobs_running() << "\n\n"
      << "Main schedule statistics (microseconds):\n"
      << "\tLast cycle:   " << s.sched_last_us() << "\n"
      << "\tMax cycle:    " << s.sched_max_us() << "\n"
      << "\tTotal cycles: " << cycles << "\n";
  if (cycles > 0) {
    out << "\tMean cycle:   " << s.sched_total_us() / cycles << "\n"
        << "\tMean depth cycle:  " << s.sched_total_depth() / cycles << "\n"
        << "\tCycles per minute: " << cycles / minutes << "\n";
  }
  out << "\tLast queue length: " << s.sched_last_depth() << "\n\n"
      << "Backfilling stats (backfill runs inside the main schedule pass)\n"
      << "\tTotal backfilled jobs (since last slurm start): " << s.backfilled_jobs() << "\n"
      << "\tLast cycle backfilled jobs: " << s.last_backfilled_jobs() << "\n\n"
      << "Remote Procedure Call statistics by message type\n";
  std::vector<RpcMethodStats> rpcs(s.rpcs().begin(), s.rpcs().end());
  std::stable_sort(rpcs.begin(), rpcs.end(),
                   [](const auto& a, const auto& b) { return a.count() > b.count(); });
  for (const RpcMethodStats& m : rpcs) {
    out << fmt::format("\t{:<24} count:{:<6} ave_time:{:<6} total_time:{}\n", m.method(), m.count(),
                       m.count() ? m.total_us() / m.count() : 0, m.total_us());
  }
}

}  // namespace

int RunSdiag(const std::vector<std::string>& args, CliEnv& env) {
  Expected<ParsedArgs> parsed = ParseCommandLine("sdiag", args, Defs());
  if (!parsed.ok()) {
    *env.err << parsed.status().message() << "\nTry \"sdiag --help\" for more information\n";
    return 1;
  }
  bool reset = false, json = false;
  for (const ParsedOption& o : parsed->options) {
    switch (o.id) {
      case kReset:
        reset = true;
        break;
      case kJson:
        json = true;
        break;
      case kVersion:
        *env.out << "slurm " << kSlurmVersion << "\n";
        return 0;
      case kHelp:
        *env.out << HelpText("sdiag", HelpKind::kHelp);
        return 0;
      case kUsage:
        *env.out << HelpText("sdiag", HelpKind::kUsage);
        return 0;
      default:
        break;
    }
  }
  if (!parsed->positionals.empty()) {
    *env.err << "sdiag: error: Unrecognized option: " << parsed->positionals[0] << "\n"
             << "Try \"sdiag --help\" for more information\n";
    return 1;
  }
  Expected<ClientApiInterface*> api = env.connect();
  GetStatsRequest req;
  req.set_reset(reset);
  Expected<GetStatsReply> reply =
      api.ok() ? (*api)->GetStats(req) : Expected<GetStatsReply>(api.status());
  if (!reply.ok()) {
    *env.err << "sdiag: error: " << reply.status().message() << "\n";
    return 1;
  }
  if (reset) {
    *env.out << "Reset scheduling statistics\n";
    return 0;
  }
  if (json) {
    *env.out << FormatSdiagJson(*reply);
  } else {
    Print(*reply, *env.out);
  }
  return 0;
}

}  // namespace sluice
