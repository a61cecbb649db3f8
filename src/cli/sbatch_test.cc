#include "cli/sbatch.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include <cstdio>
#include <fstream>

#include "cli/cli_test_util.h"
#include "cli/sbatch_options.h"

namespace sluice {
namespace {

class SbatchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    t.api.submit_reply.set_job_id(11);
    t.env.environ = {{"HOME", "/home/alice"}, {"PATH", "/usr/bin"}, {"SLURM_CONF", "/x"}};
    char tmpl[] = "/tmp/sbatch_test_XXXXXX";
    dir_ = mkdtemp(tmpl);
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string Script(const std::string& name, const std::string& text) {
    std::string path = dir_ + "/" + name;
    std::ofstream(path) << text;
    return path;
  }
  int Run(std::vector<std::string> args) { return RunSbatch(args, t.env); }
  const JobSpec& Spec() { return t.api.submits.back().spec(); }
  std::vector<std::string> EnvWithoutUmask() {
    std::vector<std::string> out;
    for (const auto& v : Spec().env()) {
      if (v.rfind("SLURM_UMASK=", 0) != 0) out.push_back(v);
    }
    return out;
  }
  TestCli t;
  std::string dir_;
};

TEST_F(SbatchTest, WrapSubmitsAndPrints) {
  EXPECT_EQ(Run({"-J", "plain", "-o", "/dev/null", "--wrap", "sleep 120"}), 0);
  EXPECT_EQ(t.out.str(), "Submitted batch job 11\n");
  EXPECT_EQ(t.err.str(), "");
  const JobSpec& s = Spec();
  EXPECT_EQ(s.name(), "plain");
  EXPECT_EQ(s.stdout_pattern(), "/dev/null");
  EXPECT_EQ(s.script(), "#!/bin/sh\n# This script was created by sbatch --wrap.\n\nsleep 120\n");
  EXPECT_EQ(s.work_dir(), "/home/alice/run");
  EXPECT_EQ(s.submit_host(), "login1");
  EXPECT_EQ(s.command(), "");
  EXPECT_EQ(EnvWithoutUmask().size(), 3u);  // --export=ALL by default
}

TEST_F(SbatchTest, ArrayAndDependencyOptions) {
  EXPECT_EQ(Run({"--array=0-15:4%2", "-d", "afterok:37?afternotok:38", "--kill-on-invalid-dep=yes",
                 "--wrap", "true"}),
            0);
  EXPECT_EQ(Spec().array_spec(), "0-15:4%2");
  EXPECT_EQ(Spec().dependency(), "afterok:37?afternotok:38");
  EXPECT_EQ(Spec().kill_on_invalid_dep(), 1);
  std::string path =
      Script("arr.sh", "#!/bin/sh\n#SBATCH --array=1,3,5-7\n#SBATCH -d singleton\ntrue\n");
  EXPECT_EQ(Run({"--kill-on-invalid-dep=no", path}), 0);
  EXPECT_EQ(Spec().array_spec(), "1,3,5-7");
  EXPECT_EQ(Spec().dependency(), "singleton");
  EXPECT_EQ(Spec().kill_on_invalid_dep(), 2);
}

TEST_F(SbatchTest, ParsableAndQuiet) {
  EXPECT_EQ(Run({"--parsable", "--wrap", "true"}), 0);
  EXPECT_EQ(Run({"-Q", "--wrap", "true"}), 0);
  EXPECT_EQ(t.out.str(), "11\n");
  EXPECT_EQ(Spec().name(), "wrap");
}

TEST_F(SbatchTest, ScriptFileDirectivesAndCommandLineWins) {
  std::string path = Script("train.sh",
                            "#!/bin/bash\n"
                            "#SBATCH -N 2-4 --ntasks-per-node=8\n"
                            "#SBATCH --time 1-00:00:00\n"
                            "#SBATCH -p gpu\n"
                            "#SBATCH --gres=gpu:h100:8 --mem=64G\n"
                            "#SBATCH --signal=B:USR1@90 --requeue --exclusive\n"
                            "#SBATCH -J 'from script'\n"
                            "srun python train.py\n"
                            "#SBATCH -p never\n");
  EXPECT_EQ(Run({"-p", "debug", "--mem-per-cpu=2000", path, "--lr", "0.1"}), 0);
  const JobSpec& s = Spec();
  EXPECT_EQ(s.partition(), "debug");
  EXPECT_EQ(s.name(), "from script");
  EXPECT_EQ(s.min_nodes(), 2);
  EXPECT_EQ(s.max_nodes(), 4);
  EXPECT_EQ(s.ntasks_per_node(), 8);
  EXPECT_EQ(s.time_limit_min(), 24 * 60);
  ASSERT_EQ(s.gres_per_node_size(), 1);
  EXPECT_EQ(s.gres_per_node(0).type(), "h100");
  EXPECT_EQ(s.gres_per_node(0).count(), 8);
  EXPECT_EQ(s.mem_per_node_mb(), 0);  // command line --mem-per-cpu replaced script --mem
  EXPECT_EQ(s.mem_per_cpu_mb(), 2000);
  EXPECT_EQ(s.signal(), "B:USR1@90");
  EXPECT_EQ(s.requeue(), 1);
  EXPECT_TRUE(s.exclusive());
  EXPECT_EQ(s.argv_size(), 2);
  EXPECT_EQ(s.argv(0), "--lr");
  EXPECT_EQ(s.command(), path);
  EXPECT_EQ(s.script().substr(0, 12), "#!/bin/bash\n");
}

TEST_F(SbatchTest, DashReadsTheScriptFromStdinAndTheRestAreItsArguments) {
  t.SetStdin("#!/bin/sh\n#SBATCH -J fromstdin\necho \"$@\"\n");
  EXPECT_EQ(Run({"-t", "5", "-", "--lr", "0.1", "-"}), 0) << t.err.str();
  const JobSpec& s = Spec();
  EXPECT_EQ(s.name(), "fromstdin");
  EXPECT_EQ(s.time_limit_min(), 5);
  EXPECT_EQ(s.command(), "");
  EXPECT_EQ(std::vector<std::string>(s.argv().begin(), s.argv().end()),
            (std::vector<std::string>{"--lr", "0.1", "-"}));
}

TEST_F(SbatchTest, ColonsSeparateHetComponentsThatGoOverTheScripts) {
  std::string path = Script("het.sh",
                            "#!/bin/sh\n#SBATCH -N1 -J first\n#SBATCH hetjob\n#SBATCH -N2 -n2\n"
                            "srun true\n");
  EXPECT_EQ(
      Run({"--parsable", "-t", "7", ":", "-n", "4", ":", "--gres=gpu:2", "-N", "3", path, "arg"}),
      0)
      << t.err.str();
  EXPECT_EQ(t.out.str(), "11\n");
  ASSERT_EQ(t.api.submits.size(), 1u);
  const SubmitRequest& r = t.api.submits[0];
  EXPECT_EQ(r.spec().name(), "first");
  EXPECT_EQ(r.spec().time_limit_min(), 7);
  ASSERT_EQ(r.het_components_size(), 2);
  EXPECT_EQ(r.het_components(0).min_nodes(), 2);  // the script's second component...
  EXPECT_EQ(r.het_components(0).ntasks(), 4);     // ...with the command line's -n over it
  EXPECT_EQ(r.het_components(1).min_nodes(), 3);  // added by the command line
  ASSERT_EQ(r.het_components(1).gres_per_node_size(), 1);
  EXPECT_EQ(r.het_components(1).gres_per_node(0).count(), 2);
  for (const JobSpec& c : {r.spec(), r.het_components(0), r.het_components(1)}) {
    ASSERT_EQ(c.argv_size(), 1);
    EXPECT_EQ(c.argv(0), "arg");
  }
  // A ':' that is an option's value is not a separator.
  EXPECT_EQ(Run({"--comment", ":", "--wrap", "true"}), 0) << t.err.str();
  EXPECT_EQ(Spec().comment(), ":");
  EXPECT_EQ(t.api.submits.back().het_components_size(), 0);
  // A bad option in a later component is refused like any other.
  EXPECT_NE(Run({"-N1", ":", "--nodes=x", path}), 0);
  EXPECT_NE(t.err.str().find("sbatch"), std::string::npos);
}

TEST_F(SbatchTest, DefaultNameIsScriptBaseName) {
  std::string path = Script("job.sh", "#!/bin/sh\ntrue\n");
  EXPECT_EQ(Run({path}), 0);
  EXPECT_EQ(Spec().name(), "job.sh");
}

TEST_F(SbatchTest, ScriptFromStdin) {
  t.SetStdin("#!/bin/sh\n#SBATCH -n 4\necho hi\n");
  EXPECT_EQ(Run({"-D", "sub"}), 0);
  EXPECT_EQ(Spec().name(), "sbatch");
  EXPECT_EQ(Spec().ntasks(), 4);
  EXPECT_TRUE(Spec().ntasks_set());
  EXPECT_EQ(Spec().work_dir(), "/home/alice/run/sub");
}

TEST_F(SbatchTest, ResourceOptions) {
  EXPECT_EQ(Run({"-N3",
                 "-n",
                 "12",
                 "-c",
                 "2",
                 "-G",
                 "h100:4",
                 "--gpus-per-task=1",
                 "--gpus-per-node=2",
                 "--mem-per-gpu=10G",
                 "-t",
                 "30",
                 "-A",
                 "proj",
                 "--qos=high",
                 "-C",
                 "nvlink",
                 "-w",
                 "node[01-03]",
                 "-x",
                 "node09",
                 "--comment=c",
                 "-H",
                 "--no-requeue",
                 "-e",
                 "err-%j",
                 "-i",
                 "in.txt",
                 "--open-mode=append",
                 "--wrap",
                 "x"}),
            0);
  const JobSpec& s = Spec();
  EXPECT_EQ(s.min_nodes(), 3);
  EXPECT_EQ(s.max_nodes(), 0);
  EXPECT_EQ(s.ntasks(), 12);
  EXPECT_EQ(s.cpus_per_task(), 2);
  EXPECT_EQ(s.gpus_total(), 4);
  EXPECT_EQ(s.gpu_type(), "h100");
  EXPECT_EQ(s.gpus_per_task(), 1);
  ASSERT_EQ(s.gres_per_node_size(), 1);
  EXPECT_EQ(s.gres_per_node(0).count(), 2);
  EXPECT_EQ(s.mem_per_gpu_mb(), 10240);
  EXPECT_EQ(s.time_limit_min(), 30);
  EXPECT_EQ(s.account(), "proj");
  EXPECT_EQ(s.qos(), "high");
  EXPECT_EQ(s.constraint(), "nvlink");
  EXPECT_EQ(s.nodelist(), "node[01-03]");
  EXPECT_EQ(s.exclude(), "node09");
  EXPECT_EQ(s.comment(), "c");
  EXPECT_TRUE(s.hold());
  EXPECT_EQ(s.requeue(), 2);
  EXPECT_EQ(s.stderr_pattern(), "err-%j");
  EXPECT_EQ(s.stdin_path(), "in.txt");
  EXPECT_EQ(s.open_mode(), "append");
}

// Every size option takes Slurm's size grammar (common/slurm_size_test.cc has all of it).
TEST_F(SbatchTest, SizeOptionsTakeSlurmSpellings) {
  EXPECT_EQ(Run({"--mem=1GB", "--wrap", "true"}), 0);  // submitit's default spelling
  EXPECT_EQ(Spec().mem_per_node_mb(), 1024);
  EXPECT_FALSE(Spec().mem_whole_node());
  EXPECT_EQ(Run({"--mem=512mb", "--tmp=2gb", "--wrap", "true"}), 0);
  EXPECT_EQ(Spec().mem_per_node_mb(), 512);
  EXPECT_EQ(Spec().tmp_disk_mb(), 2048);
  EXPECT_EQ(Run({"--mem-per-cpu=1kb", "--wrap", "true"}), 0);
  EXPECT_EQ(Spec().mem_per_cpu_mb(), 1);
  EXPECT_EQ(Run({"--mem-per-gpu=2Tb", "--wrap", "true"}), 0);
  EXPECT_EQ(Spec().mem_per_gpu_mb(), 2097152);
  EXPECT_EQ(Run({"--mem=0", "--wrap", "true"}), 0);  // all the memory of each node
  EXPECT_TRUE(Spec().mem_whole_node());
  std::string path = Script("mem.sh", "#!/bin/sh\n#SBATCH --mem=0G\ntrue\n");
  EXPECT_EQ(Run({path}), 0);
  EXPECT_TRUE(Spec().mem_whole_node());
  EXPECT_EQ(Run({"--mem=4g", path}), 0);  // the command line replaces the script's --mem=0
  EXPECT_FALSE(Spec().mem_whole_node());
  EXPECT_EQ(Spec().mem_per_node_mb(), 4096);
}

TEST_F(SbatchTest, ExportModes) {
  EXPECT_EQ(Run({"--export=NONE", "--wrap", "x"}), 0);
  EXPECT_EQ(EnvWithoutUmask(), (std::vector<std::string>{"SLURM_CONF=/x"}));
  EXPECT_EQ(Run({"--export=HOME,FOO=bar", "--wrap", "x"}), 0);
  EXPECT_EQ(EnvWithoutUmask(),
            (std::vector<std::string>{"FOO=bar", "HOME=/home/alice", "SLURM_CONF=/x"}));
  EXPECT_EQ(Run({"--export=ALL,PATH=/opt/bin", "--wrap", "x"}), 0);
  EXPECT_EQ(EnvWithoutUmask(),
            (std::vector<std::string>{"HOME=/home/alice", "PATH=/opt/bin", "SLURM_CONF=/x"}));
}

TEST_F(SbatchTest, EnvironmentInputBetweenScriptAndCommandLine) {
  t.env.environ["SBATCH_PARTITION"] = "envpart";
  t.env.environ["SBATCH_TIMELIMIT"] = "5";
  std::string path = Script("j.sh", "#!/bin/sh\n#SBATCH -p scriptpart -t 10\n");
  EXPECT_EQ(Run({path}), 0);
  EXPECT_EQ(Spec().partition(), "envpart");
  EXPECT_EQ(Spec().time_limit_min(), 5);
  EXPECT_EQ(Run({"-t", "7", path}), 0);
  EXPECT_EQ(Spec().time_limit_min(), 7);
  t.env.environ["SBATCH_OUTPUT"] = "out.%j";  // Slurm's testsuite test_105_5
  t.env.environ["SBATCH_ERROR"] = "err spaces";
  EXPECT_EQ(Run({path}), 0);
  EXPECT_EQ(Spec().stdout_pattern(), "out.%j");
  EXPECT_EQ(Spec().stderr_pattern(), "err spaces");
  EXPECT_EQ(Run({"-o", "none", path}), 0);
  EXPECT_EQ(Spec().stdout_pattern(), "none");
}

TEST_F(SbatchTest, OptionErrors) {
  EXPECT_EQ(Run({"--bogus-option", "--wrap", "true"}), 255);
  EXPECT_EQ(
      t.err.str(),
      "sbatch: unrecognized option '--bogus-option'\nTry \"sbatch --help\" for more information\n");
  struct Case {
    std::vector<std::string> args;
    const char* err;
    int rc;
  };
  std::vector<Case> cases = {
      {{"--time=abc"}, "sbatch: error: Invalid --time specification\n", 255},
      {{"-N", "x"}, "sbatch: error: invalid node count `x'\n", 255},
      {{"-N", "4-2"}, "sbatch: error: invalid node count `4-2'\n", 255},
      {{"-n", "0"}, "sbatch: error: Invalid numeric value \"0\" for --ntasks.\n", 255},
      {{"-c", "two"}, "sbatch: error: Invalid numeric value \"two\" for --cpus-per-task.\n", 255},
      {{"--mem=lots"}, "sbatch: error: Invalid --mem specification\n", 255},
      {{"--mem=1.5G"}, "sbatch: error: Invalid --mem specification\n", 255},
      {{"--mem=16GiB"}, "sbatch: error: Invalid --mem specification\n", 255},
      {{"--mem=100B"}, "sbatch: error: Invalid --mem specification\n", 255},
      {{"--mem=-1"}, "sbatch: error: Invalid --mem specification\n", 255},
      {{"--mem-per-cpu=2X"}, "sbatch: error: Invalid --mem-per-cpu specification\n", 255},
      {{"--mem-per-gpu=1P"}, "sbatch: error: Invalid --mem-per-gpu specification\n", 255},
      {{"--tmp=lots"}, "sbatch: error: Invalid --tmp specification\n", 255},
      {{"--mem=1G", "--mem-per-cpu=1G"},
       "sbatch: error: --mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.\n",
       255},
      {{"--gres=gpu:x:y:z"}, "sbatch: error: Invalid --gres specification\n", 255},
      {{"--signal=NOPE@10"}, "sbatch: error: Invalid --signal specification\n", 255},
      {{"--signal=USR1@-3"}, "sbatch: error: Invalid --signal specification\n", 255},
      {{"--open-mode=sideways"}, "sbatch: error: Invalid --open-mode argument: sideways\n", 255},
      {{"--array=5-3"}, "sbatch: error: Invalid --array specification\n", 255},
      {{"--array=0-3%x"}, "sbatch: error: Invalid --array specification\n", 255},
      {{"-a", ""}, "sbatch: error: Invalid --array specification\n", 255},
      {{"--kill-on-invalid-dep=maybe"},
       "sbatch: error: Invalid --kill-on-invalid-dep specification\n",
       255},
      {{"--bb=x"}, "sbatch: error: --bb is not supported yet\n", 1},
      {{"--cpus-per-gpu=0"},
       "sbatch: error: Invalid numeric value \"0\" for --cpus-per-gpu.\n",
       255},
      {{"--switches=x"}, "sbatch: error: Invalid numeric value \"x\" for --switches.\n", 255},
      {{"--switches=2@soon"}, "sbatch: error: Invalid --switches max-time: soon\n", 255},
  };
  for (const Case& c : cases) {
    t.err.str("");
    std::vector<std::string> args = c.args;
    args.insert(args.end(), {"--wrap", "true"});
    EXPECT_EQ(Run(args), c.rc) << args[0];
    EXPECT_EQ(t.err.str(), c.err) << args[0];
  }
  EXPECT_TRUE(t.api.submits.empty());
}

TEST_F(SbatchTest, ScriptErrors) {
  EXPECT_EQ(Run({"/nonexistent/script.sh"}), 1);
  EXPECT_EQ(t.err.str(), "sbatch: error: Unable to open file /nonexistent/script.sh\n");
  t.err.str("");
  t.SetStdin("echo no shebang\n");
  EXPECT_EQ(Run({}), 1);
  EXPECT_EQ(t.err.str(),
            "sbatch: error: This does not look like a batch script.  The first\n"
            "sbatch: error: line must start with #! followed by the path to an interpreter.\n"
            "sbatch: error: For instance: #!/bin/sh\n");
  t.err.str("");
  EXPECT_EQ(Run({Script("bad.sh", "#!/bin/sh\n#SBATCH --bogus\n")}), 255);
  EXPECT_EQ(t.err.str(), "sbatch: error: Invalid directive found in batch script: --bogus\n");
  t.err.str("");
  EXPECT_EQ(Run({Script("bad2.sh", "#!/bin/sh\n#SBATCH -t soon\n")}), 255);
  EXPECT_EQ(t.err.str(), "sbatch: error: Invalid --time specification\n");
  t.err.str("");
  EXPECT_EQ(Run({Script("bad3.sh", "#!/bin/sh\n#SBATCH -J 'x\n")}), 255);
  EXPECT_EQ(t.err.str(), "sbatch: error: Line 2: unmatched quote in #SBATCH line\n");
  t.err.str("");
  EXPECT_EQ(Run({Script("bad4.sh", "#!/bin/sh\n#SBATCH stray\n")}), 255);
  EXPECT_EQ(t.err.str(), "sbatch: error: Invalid directive found in batch script: stray\n");
  t.err.str("");
  EXPECT_EQ(Run({"--wrap", "x", "extra"}), 1);
  EXPECT_EQ(t.err.str(), "sbatch: error: Script arguments not permitted with --wrap option\n");
  EXPECT_TRUE(t.api.submits.empty());
}

TEST_F(SbatchTest, SubmitFailures) {
  t.api.submit_status =
      InvalidArgument("invalid partition specified: nosuch\nInvalid partition name specified");
  EXPECT_EQ(Run({"-p", "nosuch", "--wrap", "true"}), 1);
  EXPECT_EQ(t.err.str(),
            "sbatch: error: invalid partition specified: nosuch\n"
            "sbatch: error: Batch job submission failed: Invalid partition name specified\n");
  t.err.str("");
  t.api.submit_status = Status();
  t.api.fail = Unavailable("Unable to contact slurm controller (connect failure)");
  EXPECT_EQ(Run({"--wrap", "true"}), 1);
  EXPECT_EQ(t.err.str(),
            "sbatch: error: Batch job submission failed: Unable to contact slurm controller "
            "(connect failure)\n");
  EXPECT_EQ(t.out.str(), "");
}

TEST_F(SbatchTest, TestOnly) {
  t.api.submit_reply.set_test_only_message(
      "Job 17 to start at 2282-02-07T20:33:17 using 1 processors on nodes node01 in partition gpu");
  EXPECT_EQ(Run({"--test-only", "--wrap", "true"}), 0);
  EXPECT_TRUE(t.api.submits.back().test_only());
  EXPECT_EQ(t.out.str(), "");
  EXPECT_EQ(t.err.str(),
            "sbatch: Job 17 to start at 2282-02-07T20:33:17 using 1 processors on nodes node01 "
            "in partition gpu\n");
}

TEST_F(SbatchTest, WaitReturnsJobExitCode) {
  JobInfo* j = t.api.jobs.add_jobs();
  j->set_job_id(11);
  j->set_state(JOB_FAILED);
  j->set_exit_code(3);
  EXPECT_EQ(Run({"--wait", "--wrap", "exit 3"}), 3);
  EXPECT_EQ(t.out.str(), "Submitted batch job 11\n");
  j->set_state(JOB_CANCELLED);
  j->set_exit_code(0);
  j->set_term_signal(15);
  EXPECT_EQ(Run({"-W", "--wrap", "x"}), 128 + 15);
  j->set_state(JOB_TIMEOUT);
  j->set_term_signal(0);
  EXPECT_EQ(Run({"-W", "--wrap", "x"}), 1);
  j->set_state(JOB_COMPLETED);
  EXPECT_EQ(Run({"-W", "--wrap", "x"}), 0);
}

TEST_F(SbatchTest, WaitPollsUntilTerminal) {
  JobInfo* j = t.api.jobs.add_jobs();
  j->set_job_id(11);
  j->set_state(JOB_RUNNING);
  int polls = 0;
  t.env.sleep_ms = [&](int64_t) {
    if (++polls == 3) t.api.jobs.mutable_jobs(0)->set_state(JOB_COMPLETED);
  };
  EXPECT_EQ(Run({"--wait", "--wrap", "x"}), 0);
  EXPECT_EQ(polls, 3);
}

TEST_F(SbatchTest, HelpAndVersionNeedNoController) {
  EXPECT_EQ(Run({"--version"}), 0);
  EXPECT_EQ(Run({"--help"}), 0);
  EXPECT_NE(t.out.str().find("slurm 22.05.8\nUsage: sbatch"), std::string::npos);
  EXPECT_EQ(t.connects, 0);
}

TEST(SbatchOptions, HelpersDirectly) {
  int32_t mn = 0, mx = 0;
  EXPECT_TRUE(ParseNodeCount("2-2", &mn, &mx).ok());
  EXPECT_EQ(mn, 2);
  EXPECT_EQ(mx, 2);
  EXPECT_FALSE(ParseNodeCount("", &mn, &mx).ok());
  EXPECT_FALSE(ParseNodeCount("2-", &mn, &mx).ok());
  EXPECT_TRUE(ParseNodeCount("-3", &mn, &mx).ok());  // Slurm: a missing minimum is one
  EXPECT_EQ(mn, 1);
  EXPECT_EQ(mx, 3);
  EXPECT_FALSE(ParseNodeCount("-", &mn, &mx).ok());
  EXPECT_FALSE(ParseNodeCount("--3", &mn, &mx).ok());
  EXPECT_TRUE(ValidateSignalSpec("USR1").ok());
  EXPECT_TRUE(ValidateSignalSpec("RB:10@30").ok());
  EXPECT_FALSE(ValidateSignalSpec("X:USR1").ok());
  EXPECT_FALSE(ValidateSignalSpec("USR1@").ok());
  EXPECT_EQ(DefaultJobName("/a/b/run.sh", false), "run.sh");
  EXPECT_FALSE(ResolveExport("=x", {}).ok());
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

TEST(SbatchNice, DefaultExplicitAndInvalid) {
  TestCli t;
  EXPECT_EQ(RunSbatch({"--nice", "--wrap", "true"}, t.env), 0);
  EXPECT_EQ(t.api.submits.back().spec().nice(), 100);
  EXPECT_EQ(RunSbatch({"--nice=-5", "--wrap", "true"}, t.env), 0);
  EXPECT_EQ(t.api.submits.back().spec().nice(), -5);
  EXPECT_EQ(RunSbatch({"--wrap", "true"}, t.env), 0);
  EXPECT_EQ(t.api.submits.back().spec().nice(), 0);
  EXPECT_NE(RunSbatch({"--nice=lots", "--wrap", "true"}, t.env), 0);
  EXPECT_NE(t.err.str().find("Invalid nice value"), std::string::npos) << t.err.str();
}

TEST_F(SbatchTest, RecordsTheSubmittersUmask) {
  mode_t old = ::umask(027);
  EXPECT_EQ(Run({"--export=NONE", "--wrap", "x"}), 0);
  ::umask(old);
  const auto& env = Spec().env();
  EXPECT_EQ(std::count(env.begin(), env.end(), std::string("SLURM_UMASK=0027")), 1);
  EXPECT_EQ(Run({"--export=NONE,SLURM_UMASK=0077", "--wrap", "x"}), 0);  // explicit wins
  EXPECT_EQ(std::count(Spec().env().begin(), Spec().env().end(), std::string("SLURM_UMASK=0077")),
            1);
  EXPECT_EQ(EnvWithoutUmask().size() + 1, static_cast<size_t>(Spec().env().size()));
}

// sbatch stops at the script (getopt's "+"): what follows is the script's; "--" ends options.
TEST_F(SbatchTest, GetoptAbbreviationsAndDoubleDash) {
  std::string path = Script("a.sh", "#!/bin/sh\ntrue\n");
  EXPECT_EQ(Run({"--parsab", "--job-n", "x", "--", path, "-J", "y"}), 0);
  EXPECT_EQ(t.out.str(), "11\n");
  EXPECT_EQ(Spec().name(), "x");
  std::vector<std::string> argv(Spec().argv().begin(), Spec().argv().end());
  ASSERT_GE(argv.size(), 2u);
  EXPECT_EQ(std::vector<std::string>(argv.end() - 2, argv.end()),
            (std::vector<std::string>{"-J", "y"}));
  EXPECT_EQ(Run({"--par", "--wrap", "true"}), 255);
  EXPECT_EQ(t.err.str(),
            "sbatch: option '--par' is ambiguous; possibilities: '--partition' '--parsable'\n"
            "Try \"sbatch --help\" for more information\n");
}

}  // namespace
}  // namespace sluice
