#include "cli/batch_script.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(CheckBatchScript, AcceptsAndRejects) {
  EXPECT_TRUE(CheckBatchScript("#!/bin/sh\necho hi\n").ok());
  EXPECT_EQ(CheckBatchScript("").message(), "Batch script is empty!");
  EXPECT_EQ(CheckBatchScript(" \n\t\n").message(), "Batch script contains only whitespace!");
  EXPECT_EQ(CheckBatchScript("echo no shebang\n").message(),
            "This does not look like a batch script.  The first\n"
            "line must start with #! followed by the path to an interpreter.\n"
            "For instance: #!/bin/sh");
  EXPECT_FALSE(CheckBatchScript(std::string("#!/bin/sh\necho \0x\n", 18)).ok());
  EXPECT_NE(CheckBatchScript("#!/bin/sh\r\necho\r\n").message().find("DOS line breaks"),
            std::string::npos);
}

TEST(TokenizeDirective, ShellLikeSplitting) {
  auto t =
      TokenizeDirective(" -N 2 --time 100:00:00 -J 'my job' --comment=\"a b\" a\\ b # trailing");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, (std::vector<std::string>{"-N", "2", "--time", "100:00:00", "-J", "my job",
                                          "--comment=a b", "a b"}));
  EXPECT_FALSE(TokenizeDirective(" -J 'unterminated").ok());
  EXPECT_EQ(*TokenizeDirective(" --comment='#not a comment'"),
            (std::vector<std::string>{"--comment=#not a comment"}));
}

TEST(ExtractDirectives, StopsAtFirstCommand) {
  auto d = ExtractDirectives(
      "#!/bin/bash\n"
      "#SBATCH -N 2\n"
      "\n"
      "# a comment\n"
      "   # indented comment\n"
      "#SBATCH --job-name=x  # named\n"
      " #SBATCH -p notcolumn0\n"
      "#SBATCHELOR\n"
      "echo start\n"
      "#SBATCH -p ignored\n");
  ASSERT_TRUE(d.ok());
  ASSERT_EQ(d->size(), 3u);
  EXPECT_EQ((*d)[0].tokens, (std::vector<std::string>{"-N", "2"}));
  EXPECT_EQ((*d)[1].tokens, (std::vector<std::string>{"--job-name=x"}));
  EXPECT_EQ((*d)[1].line, 6);
  EXPECT_EQ((*d)[2].tokens, (std::vector<std::string>{"ELOR"}));
}

TEST(ExtractDirectives, ReportsLineOfBadQuote) {
  auto d = ExtractDirectives("#!/bin/sh\n#SBATCH -J \"oops\necho\n");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().message(), "Line 2: unmatched quote in #SBATCH line");
}

TEST(WrapScript, SlurmWrapper) {
  EXPECT_EQ(WrapScript("sleep 1"),
            "#!/bin/sh\n# This script was created by sbatch --wrap.\n\nsleep 1\n");
}

}  // namespace
}  // namespace sluice
