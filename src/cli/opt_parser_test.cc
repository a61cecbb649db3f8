#include "cli/opt_parser.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

const std::vector<OptionDef> kDefs = {
    {"job-name", 'J', ArgKind::kRequired, 1}, {"parsable", 0, ArgKind::kNone, 2},
    {"hold", 'H', ArgKind::kNone, 3},         {"jobs", 'j', ArgKind::kOptional, 4},
    {"states", 't', ArgKind::kRequired, 5},   {"state-file", 0, ArgKind::kRequired, 6},
    {"verbose", 'v', ArgKind::kNone, 7},
};

TEST(OptParser, LongAndShortForms) {
  auto p = ParseCommandLine("x", {"--job-name=a", "--job-name", "b", "-Jc", "-J", "d"}, kDefs);
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->options.size(), 4u);
  EXPECT_EQ(p->options[0].value, "a");
  EXPECT_EQ(p->options[1].value, "b");
  EXPECT_EQ(p->options[2].value, "c");
  EXPECT_EQ(p->options[3].value, "d");
  EXPECT_EQ(p->options[3].spelled, "-J");
}

TEST(OptParser, ClustersPermutationAndDoubleDash) {
  auto p = ParseCommandLine("x", {"123", "-Hv", "456", "--", "-J"}, kDefs);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->options.size(), 2u);
  EXPECT_EQ(p->positionals, (std::vector<std::string>{"123", "456", "-J"}));
}

TEST(OptParser, StopAtFirstPositional) {
  ParseSettings s;
  s.stop_at_first_positional = true;
  auto p = ParseCommandLine("x", {"-H", "script.sh", "-J", "arg"}, kDefs, s);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->options.size(), 1u);
  EXPECT_EQ(p->positionals, (std::vector<std::string>{"script.sh", "-J", "arg"}));
}

TEST(OptParser, AbbreviationsAndAmbiguity) {
  auto p = ParseCommandLine("x", {"--pars", "--job-n=z"}, kDefs);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->options[0].id, 2);
  EXPECT_EQ(p->options[1].id, 1);
  EXPECT_EQ(p->options[1].value, "z");
  EXPECT_FALSE(ParseCommandLine("x", {"--job=z"}, kDefs).ok());  // job-name or jobs
}

TEST(OptParser, AmbiguousPrefix) {
  auto p = ParseCommandLine("x", {"--state=R"}, kDefs);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "x: option '--state=R' is ambiguous; possibilities: '--states' '--state-file'");
}

TEST(OptParser, OptionalArgumentTakesNextWordWhenAsked) {
  ParseSettings s;
  s.optional_takes_next_word = {4};
  auto p = ParseCommandLine("x", {"-j", "15", "-j", "-H", "--jobs=3"}, kDefs, s);
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->options.size(), 4u);
  EXPECT_EQ(p->options[0].value, "15");
  EXPECT_FALSE(p->options[1].has_value);
  EXPECT_EQ(p->options[3].value, "3");
  auto q = ParseCommandLine("x", {"-j", "15"}, kDefs);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->positionals, (std::vector<std::string>{"15"}));
}

TEST(OptParser, GlibcMessages) {
  std::string bad;
  auto e = [&](std::vector<std::string> args) {
    auto p = ParseCommandLine("sbatch", args, kDefs, {}, &bad);
    return p.ok() ? std::string("ok") : p.status().message();
  };
  EXPECT_EQ(e({"--bogus-option"}), "sbatch: unrecognized option '--bogus-option'");
  EXPECT_EQ(bad, "--bogus-option");
  EXPECT_EQ(e({"-Z"}), "sbatch: invalid option -- 'Z'");
  EXPECT_EQ(e({"-HZ"}), "sbatch: invalid option -- 'Z'");
  EXPECT_EQ(e({"-J"}), "sbatch: option requires an argument -- 'J'");
  EXPECT_EQ(e({"--job-name"}), "sbatch: option '--job-name' requires an argument");
  EXPECT_EQ(e({"--parsable=1"}), "sbatch: option '--parsable' doesn't allow an argument");
  EXPECT_EQ(e({"-", "x"}), "ok");
}

// What glibc's getopt_long does, checked against it with the same option table.
TEST(OptParser, AmbiguityIgnoresAliasesAndQuotesTheWordAsTyped) {
  std::vector<OptionDef> defs = kDefs;
  defs.push_back({"statez", 0, ArgKind::kRequired, 5});  // alias of --states
  defs.push_back({"cluster", 'M', ArgKind::kRequired, 9});
  defs.push_back({"clusters", 0, ArgKind::kRequired, 9});
  auto p = ParseCommandLine("x", {"--stat", "x"}, defs);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "x: option '--stat' is ambiguous; possibilities: '--states' '--state-file'");
  auto q = ParseCommandLine("x", {"--clus=a", "--cluster", "b"}, defs);
  ASSERT_TRUE(q.ok()) << q.status().message();
  EXPECT_EQ(q->options[0].id, 9);
  EXPECT_EQ(q->options[0].value, "a");
  EXPECT_EQ(q->options[1].value, "b");
}

TEST(OptParser, OptionsWithValuesPermutedAfterPositionals) {
  auto p =
      ParseCommandLine("x", {"show", "-J", "n", "node", "--states", "R", "--parsab", "n1"}, kDefs);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->positionals, (std::vector<std::string>{"show", "node", "n1"}));
  ASSERT_EQ(p->options.size(), 3u);
  EXPECT_EQ(p->options[0].value, "n");
  EXPECT_EQ(p->options[1].value, "R");
  EXPECT_EQ(p->options[2].id, 2);
}

TEST(OptParser, RequiredArgumentMayStartWithDash) {
  auto p = ParseCommandLine("x", {"-J", "-H", "--job-name", "--parsable", "--states=-x"}, kDefs);
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->options.size(), 3u);
  EXPECT_EQ(p->options[0].value, "-H");
  EXPECT_EQ(p->options[1].value, "--parsable");
  EXPECT_EQ(p->options[2].value, "-x");
}

TEST(OptParser, DoubleDashEndsOptionsInEitherOrder) {
  ParseSettings s;
  s.stop_at_first_positional = true;
  auto p = ParseCommandLine("x", {"-H", "--", "-v", "a"}, kDefs, s);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->options.size(), 1u);
  EXPECT_EQ(p->positionals, (std::vector<std::string>{"-v", "a"}));
  auto q = ParseCommandLine("x", {"a", "--", "--", "-v"}, kDefs);
  ASSERT_TRUE(q.ok());
  EXPECT_TRUE(q->options.empty());
  EXPECT_EQ(q->positionals, (std::vector<std::string>{"a", "--", "-v"}));
}

TEST(OptParser, MoreGlibcMessages) {
  auto e = [&](std::vector<std::string> args) {
    auto p = ParseCommandLine("scontrol", args, kDefs);
    return p.ok() ? std::string("ok") : p.status().message();
  };
  EXPECT_EQ(e({"--bogus=3"}), "scontrol: unrecognized option '--bogus=3'");
  EXPECT_EQ(e({"-H-"}), "scontrol: invalid option -- '-'");
  EXPECT_EQ(e({"--j=3"}),
            "scontrol: option '--j=3' is ambiguous; possibilities: '--job-name' '--jobs'");
  EXPECT_EQ(e({"show", "--verbose=2"}), "scontrol: option '--verbose' doesn't allow an argument");
}

}  // namespace
}  // namespace sluice
