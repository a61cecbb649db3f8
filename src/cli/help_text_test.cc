// Each command's --usage and --help, run through the command itself (so the option
// wiring is tested too), against the layout Slurm's own testsuite and scripts look for.
#include "cli/help_text.h"

#include <gtest/gtest.h>

#include <functional>
#include <regex>

#include "cli/cli_test_util.h"
#include "cli/sacct.h"
#include "cli/sacctmgr.h"
#include "cli/sbatch.h"
#include "cli/sbcast.h"
#include "cli/scancel.h"
#include "cli/scontrol.h"
#include "cli/sdiag.h"
#include "cli/sinfo.h"
#include "cli/sprio.h"
#include "cli/squeue.h"
#include "cli/sreport.h"
#include "cli/srun.h"
#include "cli/sshare.h"
#include "cli/sstat.h"

namespace sluice {
namespace {

using RunFn = std::function<int(const std::vector<std::string>&, CliEnv&)>;

// Runs the command, expects exit 0 and no connection to a controller; returns stdout
// without its final newline (Python's `$` also matches before a final newline).
std::string Out(const RunFn& run, const std::vector<std::string>& args) {
  TestCli t;
  EXPECT_EQ(run(args, t.env), 0) << t.err.str();
  EXPECT_EQ(t.connects, 0);
  std::string out = t.out.str();
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

bool Has(const std::string& text, const std::string& pattern) {
  return std::regex_search(text, std::regex(pattern));
}

// A whole text (no newline inside `.`): ECMAScript `.` does not match '\n' either.
bool Whole(const std::string& text, const std::string& pattern) {
  return std::regex_search(text, std::regex(pattern + "$"));
}

TEST(HelpText, UsageSynopsesEndTheWaySlurmsDo) {
  {
    std::string sb = Out(RunSbcast, {"--usage"}) + "\n";  // Slurm's regex wants the newline
    EXPECT_TRUE(
        std::regex_search(sb, std::regex(R"(Usage: sbcast (?:\[-+[a-zA-Z-]+]\s)+SOURCE DEST\n$)")));
  }
  EXPECT_TRUE(Whole(Out(RunSbatch, {"--usage"}),
                    R"(Usage: sbatch (?:\[-{1,2}.*?\]\s+)+executable \[args\.\.\.\])"));
  EXPECT_TRUE(Whole(Out(RunSrun, {"--usage"}),
                    R"(Usage: srun (?:\[-{1,2}.*?\]\s+)+executable \[args\.\.\.\])"));
  EXPECT_TRUE(
      Whole(Out(RunSalloc, {"--usage"}),
            R"(Usage: salloc(?:\s+\[{1,2}-{1,2}.*?\](?=\s+\[))+\s+\[command \[args\.\.\.\]\])"));
  EXPECT_TRUE(Whole(Out(RunSinfo, {"--usage"}), R"(Usage: sinfo(?:\s+\[-{1,2}[^\]]+])+)"));
  EXPECT_TRUE(Whole(Out(RunSqueue, {"--usage"}), R"(Usage: squeue(?:\s+\[-{1,2}[^\]]+\])+)"));
  EXPECT_TRUE(
      Whole(Out(RunSprio, {"--usage"}), R"(Usage: sprio(?:\s+\[-{1,2}[^\]]+(?:\[s\])?\])+)"));
  EXPECT_TRUE(Whole(Out(RunScancel, {"--usage"}),
                    R"(Usage: scancel(?:\s+\[-{1,2}[^\]]+\])+\s+\[job_id.+\])"));
  EXPECT_TRUE(Whole(Out(RunSdiag, {"--usage"}), R"(Usage: sdiag(?:\s+\[-{1,2}[^\]]+\])+)"));
  EXPECT_TRUE(Has(Out(RunSacct, {"--usage"}), R"(^Usage: sacct \[)"));
  EXPECT_TRUE(Has(Out(RunSshare, {"--usage"}), R"(^Usage: sshare \[)"));
}

TEST(HelpText, HelpListsOptionsUnderSlurmsHeadings) {
  for (auto [run, name] : {std::pair<RunFn, std::string>{RunSqueue, "squeue"},
                           {RunSinfo, "sinfo"},
                           {RunScancel, "scancel"},
                           {RunSshare, "sshare"},
                           {RunSdiag, "sdiag"}}) {
    std::string out = Out(run, {"--help"});
    EXPECT_TRUE(Has(out, "Usage: " + name + R"( \[OPTIONS\])")) << out;
    EXPECT_TRUE(Has(out, "Help options:")) << out;
  }
  std::string sacct = Out(RunSacct, {"--help"});
  for (const char* p :
       {R"(sacct \[<OPTION>\])", "Valid <OPTION> values are:", "-A, --accounts:", "-j, --jobs:",
        "-s, --state:", "-S, --starttime:", R"(valid start/end time formats are\.\.\.)"})
    EXPECT_TRUE(Has(sacct, p)) << p;
  std::string mgr = Out(RunSacctmgr, {"--usage"});
  for (const char* p : {R"(sacctmgr \[<OPTION>\] \[<COMMAND>\])", "Valid <OPTION> values are:",
                        "Valid <COMMAND> values are:", "<ENTITY> may be",
                        "<SPECS> are different for each command entity pair", "add account",
                        "list associations", "modify cluster", "delete qos"})
    EXPECT_TRUE(Has(mgr, p)) << p;
  std::string ctl = Out(RunScontrol, {"--help"});
  for (const char* p :
       {"Valid <COMMAND> values are:", "reconfigure", R"(show <ENTITY> \[<ID>\])", "version"})
    EXPECT_TRUE(Has(ctl, p)) << p;
  EXPECT_EQ(Out(RunScontrol, {"help"}), ctl);
  std::string prio = Out(RunSprio, {"--help"});
  for (const char* p : {R"(sprio \[OPTIONS\])", "-j, --jobs", "-l, --long", "-M, --cluster",
                        "-p, --partition", "-u, --user", "-w, --weights"})
    EXPECT_TRUE(Has(prio, p)) << p;
  std::string srun = Out(RunSrun, {"--help"});
  for (const char* p : {R"(Usage: srun .*?OPTIONS.*?executable.*?args)", "-b, --begin=time",
                        "-N, --nodes=N", "-q, --qos=qos", "--mincpus=n", "-G, --gpus=n"})
    EXPECT_TRUE(Has(srun, p)) << p;
  EXPECT_TRUE(Has(Out(RunSbatch, {"-h"}), R"(Usage: sbatch \[OPTIONS)"));
  EXPECT_TRUE(Has(Out(RunSalloc, {"--help"}), R"(Usage: salloc \[OPTIONS)"));
  EXPECT_TRUE(Has(Out(RunSreport, {"--help"}), "Valid <COMMAND> values are:"));
}

// Options anywhere: `--help` after other options and operands still prints the help.
TEST(HelpText, HelpAfterOtherOptionsStillWins) {
  EXPECT_TRUE(Has(Out(RunSqueue, {"-u", "alice", "--help"}), "Help options:"));
  EXPECT_TRUE(Has(Out(RunSinfo, {"-N", "--usage"}), "^Usage: sinfo"));
}

// Every option a help text names is one the command accepts: parse each "-x, --name"
// and "--name" the help lists (the command must not answer "unrecognized option").
TEST(HelpText, EveryOptionInTheHelpIsAccepted) {
  const std::vector<std::pair<std::string, RunFn>> commands = {
      {"squeue", RunSqueue}, {"sinfo", RunSinfo}, {"scancel", RunScancel}, {"sprio", RunSprio},
      {"sshare", RunSshare}, {"sacct", RunSacct}, {"sbatch", RunSbatch},   {"srun", RunSrun},
      {"salloc", RunSalloc}, {"sdiag", RunSdiag}, {"sbcast", RunSbcast},   {"sstat", RunSstat}};
  const std::regex long_opt(R"((?:^|[\s,\[])(--[a-z][a-z0-9-]+))");
  for (const auto& [name, run] : commands) {
    const std::string text(HelpText(name, HelpKind::kHelp));
    for (auto it = std::sregex_iterator(text.begin(), text.end(), long_opt);
         it != std::sregex_iterator(); ++it) {
      const std::string opt = (*it)[1];
      TestCli t;
      t.api.fail = Unavailable("no controller in this test");
      run({opt + "=x"}, t.env);
      run({opt}, t.env);
      EXPECT_EQ(t.err.str().find("unrecognized option"), std::string::npos)
          << name << " " << opt << ": " << t.err.str();
      EXPECT_EQ(t.err.str().find("is not supported yet"), std::string::npos)
          << name << " " << opt << ": " << t.err.str();
    }
  }
}

}  // namespace
}  // namespace sluice
