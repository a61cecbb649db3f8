#include "cli/srun_options.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace sluice
