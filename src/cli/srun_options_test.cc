#include "cli/srun_options.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace sluice {
namespace {

// srun stops at the command (getopt's "+"); "--" ends options; abbreviations as getopt_long.
TEST(SrunOptions, GetoptStopsAtCommandAbbreviatesAndHonoursDoubleDash) {
  SrunOptions o;
  ASSERT_TRUE(ParseSrunArgs("srun", {"--ntasks=2", "--lab", "hostname", "-l", "--x"}, &o).ok());
  EXPECT_TRUE(o.label);
  EXPECT_TRUE(o.ntasks_set);
  EXPECT_EQ(o.command, (std::vector<std::string>{"hostname", "-l", "--x"}));
  SrunOptions d;
  ASSERT_TRUE(ParseSrunArgs("srun", {"-n", "1", "--", "-l"}, &d).ok());
  EXPECT_FALSE(d.label);
  EXPECT_EQ(d.command, (std::vector<std::string>{"-l"}));
}

TEST(SrunOptions, RefusedInGlibcWords) {
  SrunOptions o;
  Status st = ParseSrunArgs("srun", {"-n1", "--bogus", "true"}, &o);
  EXPECT_TRUE(o.getopt_error);
  EXPECT_EQ(st.message(), "srun: unrecognized option '--bogus'");
  SrunOptions a;
  st = ParseSrunArgs("srun", {"--ntasks-per", "1", "true"}, &a);
  EXPECT_TRUE(a.getopt_error);
  EXPECT_EQ(st.message().rfind("srun: option '--ntasks-per' is ambiguous; possibilities:", 0), 0u)
      << st.message();
}

// srun's input environment variables stand for options the command line overrides;
// the ones describing an allocation count only outside one.
TEST(SrunOptions, InputEnvironmentVariables) {
  std::map<std::string, std::string> env = {
      {"SLURM_NPROCS", "5"},          {"SLURM_NNODES", "2"},     {"SLURM_OVERCOMMIT", "1"},
      {"SLURM_STDOUTMODE", "out.%t"}, {"SLURM_DEBUG", "2"},      {"SLURM_LABELIO", "1"},
      {"SLURM_UNBUFFEREDIO", "0"},    {"SLURM_PARTITION", "gpu"}};
  std::vector<std::string> args = SrunEnvArgs(env);
  args.insert(args.end(), {"-N1", "hostname"});
  SrunOptions o;
  ASSERT_TRUE(ParseSrunArgs("srun", args, &o).ok());
  EXPECT_EQ(o.alloc.spec.ntasks(), 5);
  EXPECT_EQ(o.alloc.spec.min_nodes(), 1);  // -N1 on the command line wins
  EXPECT_TRUE(o.alloc.spec.overcommit());
  EXPECT_EQ(o.output, "out.%t");
  EXPECT_EQ(o.alloc.verbose, 2);
  EXPECT_TRUE(o.label);
  EXPECT_FALSE(o.unbuffered);
  EXPECT_EQ(o.alloc.spec.partition(), "gpu");
  env["SLURM_JOB_ID"] = "7";  // inside a job: SLURM_NPROCS/NNODES/PARTITION describe it
  std::vector<std::string> in_job = SrunEnvArgs(env);
  EXPECT_EQ(std::count_if(in_job.begin(), in_job.end(),
                          [](const std::string& a) {
                            return a.rfind("--ntasks", 0) == 0 || a.rfind("--nodes", 0) == 0 ||
                                   a.rfind("--partition", 0) == 0;
                          }),
            0);
  EXPECT_TRUE(SrunEnvArgs({{"SLURM_DEBUG", "x"}, {"SLURM_OVERCOMMIT", "no"}}).empty());
}

TEST(SrunOptions, ImmediateAndHold) {
  SrunOptions o;
  ASSERT_TRUE(ParseSrunArgs("srun", {"-I", "--hold", "true"}, &o).ok());
  EXPECT_EQ(o.immediate_s, 1);
  EXPECT_TRUE(o.alloc.spec.hold());
  SrunOptions t;
  ASSERT_TRUE(ParseSrunArgs("srun", {"--immediate=5", "true"}, &t).ok());
  EXPECT_EQ(t.immediate_s, 5);
  EXPECT_EQ(SrunOptions().immediate_s, -1);
}

}  // namespace
}  // namespace sluice
