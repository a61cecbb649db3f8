#include "common/hostlist.h"
#include "common/text_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace sluice {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Expand(std::string_view expr) {
  auto r = ExpandHostlist(expr);
  EXPECT_TRUE(r.ok()) << expr << ": " << r.status().message();
  return r.ok() ? *r : std::vector<std::string>{};
}

std::string ExpandError(std::string_view expr) {
  auto r = ExpandHostlist(expr);
  EXPECT_FALSE(r.ok()) << expr << " should fail";
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
  return r.status().message();
}

TEST(ExpandHostlist, SimpleRange) {
  EXPECT_THAT(Expand("node[01-04]"), ElementsAre("node01", "node02", "node03", "node04"));
}

TEST(ExpandHostlist, ReferenceScontrolShowHostnames) {
  EXPECT_THAT(Expand("node[01-02,04],gpu[1-3]"),
              ElementsAre("node01", "node02", "node04", "gpu1", "gpu2", "gpu3"));
}

TEST(ExpandHostlist, RangesAndSinglesInOneBracket) {
  EXPECT_THAT(Expand("node[01-03,07]"), ElementsAre("node01", "node02", "node03", "node07"));
}

TEST(ExpandHostlist, SeveralPrefixes) {
  EXPECT_THAT(Expand("gpu-a[1-2],cpu[008-010]"),
              ElementsAre("gpu-a1", "gpu-a2", "cpu008", "cpu009", "cpu010"));
}

TEST(ExpandHostlist, UnpaddedRangeGrowsDigits) {
  EXPECT_THAT(Expand("node[8-10]"), ElementsAre("node8", "node9", "node10"));
}

TEST(ExpandHostlist, PaddingFollowsRangeStart) {
  EXPECT_THAT(Expand("n[098-101]"), ElementsAre("n098", "n099", "n100", "n101"));
  EXPECT_THAT(Expand("n[1-2,03]"), ElementsAre("n1", "n2", "n03"));
}

TEST(ExpandHostlist, PlainNames) {
  EXPECT_THAT(Expand("login"), ElementsAre("login"));
  EXPECT_THAT(Expand("a,b,c"), ElementsAre("a", "b", "c"));
  EXPECT_THAT(Expand("node01"), ElementsAre("node01"));
}

TEST(ExpandHostlist, CartesianProduct) {
  EXPECT_THAT(Expand("rack[1-2]-n[1-2]"),
              ElementsAre("rack1-n1", "rack1-n2", "rack2-n1", "rack2-n2"));
}

TEST(ExpandHostlist, SuffixAfterBracket) {
  EXPECT_THAT(Expand("node[1-2].ib"), ElementsAre("node1.ib", "node2.ib"));
  EXPECT_THAT(Expand("[1-2]x"), ElementsAre("1x", "2x"));
}

TEST(ExpandHostlist, WhitespaceSeparatesAndEmptyPartsSkipped) {
  EXPECT_THAT(Expand(" a  b,,c, "), ElementsAre("a", "b", "c"));
  EXPECT_TRUE(Expand("").empty());
}

TEST(ExpandHostlist, DuplicatesKept) {
  EXPECT_THAT(Expand("n1,n[1-2]"), ElementsAre("n1", "n1", "n2"));
}

TEST(ExpandHostlist, SingleElementBracket) {
  EXPECT_THAT(Expand("node[5]"), ElementsAre("node5"));
  EXPECT_THAT(Expand("node[0]"), ElementsAre("node0"));
}

TEST(ExpandHostlist, FileLikeNames) {
  EXPECT_THAT(Expand("/dev/nvidia[0-2]"),
              ElementsAre("/dev/nvidia0", "/dev/nvidia1", "/dev/nvidia2"));
}

TEST(ExpandHostlist, MalformedInputs) {
  EXPECT_THAT(ExpandError("node[1-"), HasSubstr("missing ']'"));
  EXPECT_THAT(ExpandError("node[1-3"), HasSubstr("missing ']'"));
  EXPECT_THAT(ExpandError("node[3-1]"), HasSubstr("ends before it starts"));
  EXPECT_THAT(ExpandError("node[a-b]"), HasSubstr("not a number"));
  EXPECT_THAT(ExpandError("node[]"), HasSubstr("empty range"));
  EXPECT_THAT(ExpandError("node[1,]"), HasSubstr("empty range"));
  EXPECT_THAT(ExpandError("node[,1]"), HasSubstr("empty range"));
  EXPECT_THAT(ExpandError("node[1-2-3]"), HasSubstr("not a number"));
  EXPECT_THAT(ExpandError("node[-3]"), HasSubstr("not a number"));
  EXPECT_THAT(ExpandError("node[1-]"), HasSubstr("not a number"));
  EXPECT_THAT(ExpandError("node1]"), HasSubstr("unmatched ']'"));
  EXPECT_THAT(ExpandError("node[[1]]"), HasSubstr("nested"));
  EXPECT_THAT(ExpandError("node[ 1]"), HasSubstr("not a number"));
  EXPECT_THAT(ExpandError("node[1-3],x["), HasSubstr("Invalid hostlist 'node[1-3],x['"));
}

TEST(ExpandHostlist, HugeRangesRejected) {
  EXPECT_THAT(ExpandError("n[0-65536]"), HasSubstr("more than 65536"));
  EXPECT_THAT(ExpandError("n[1-99999999999999999999]"), HasSubstr("too large"));
  EXPECT_THAT(ExpandError("a[1-256]b[1-257]"), HasSubstr("more than 65536"));
  EXPECT_THAT(ExpandError("a[1-40000],b[1-40000]"), HasSubstr("more than 65536"));
  // Long names: the bytes of the expansion are bounded too (fuzz_hostlist's OOM).
  EXPECT_THAT(ExpandError(std::string(100, 'x') + "[1-60000]"), HasSubstr("bytes of names"));
  std::string reg("\x0czc[1-365]65k\0\0[2-765]\x01L\xf0", 25);
  EXPECT_THAT(ExpandError(reg), HasSubstr("more than 65536"));
}

// fuzz/regressions/hostlist/oom-two-groups-41616-names: two groups of 204 after a long
// literal; expands within both bounds, and costs no more than kMaxHostlistBytes of names.
TEST(ExpandHostlist, FuzzTwoGroupsRegressionStaysWithinTheByteBound) {
  std::string in("\xa5n\0\0\0\0\xf6\xf6\xf6\xf6\xf6\xf6\xf6\0c[1-204]\0c[1-204]\0", 32);
  auto r = ExpandHostlist(in);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->size(), 204u * 204u);
  size_t bytes = 0;
  for (const auto& h : *r) bytes += h.size();
  EXPECT_LE(bytes, kMaxHostlistBytes);
  EXPECT_THAT(ExpandError(in + ",x" + std::string(200, 'y') + "[1-20000]"),
              HasSubstr("bytes of names"));
}

TEST(ExpandHostlist, ExactlyTheLimitIsAccepted) {
  auto r = ExpandHostlist("n[1-65536]");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->size(), kMaxHostlistSize);
  EXPECT_EQ(r->back(), "n65536");
}

TEST(CompressHostlist, ReferenceOutputs) {
  EXPECT_EQ(CompressHostlist({"node01", "node02", "node03", "node04"}), "node[01-04]");
  EXPECT_EQ(CompressHostlist({"node04", "node01", "node02"}), "node[04,01-02]");
  EXPECT_EQ(CompressHostlistSorted({"node04", "node01", "node02"}), "node[01-02,04]");
}

TEST(CompressHostlist, SingleHostHasNoBrackets) {
  EXPECT_EQ(CompressHostlist({"node01"}), "node01");
  EXPECT_EQ(CompressHostlist({"login"}), "login");
  EXPECT_EQ(CompressHostlist({}), "");
}

TEST(CompressHostlist, SeveralPrefixes) {
  EXPECT_EQ(CompressHostlist({"node01", "node02", "node04", "gpu1", "gpu2", "gpu3"}),
            "node[01-02,04],gpu[1-3]");
  EXPECT_EQ(CompressHostlist({"gpu-a1", "gpu-a2", "cpu008", "cpu009", "cpu010"}),
            "gpu-a[1-2],cpu[008-010]");
}

TEST(CompressHostlist, OnlyConsecutiveSamePrefixShareBrackets) {
  EXPECT_EQ(CompressHostlist({"n1", "g1", "n2"}), "n1,g1,n2");
  EXPECT_EQ(CompressHostlistSorted({"n1", "g1", "n2"}), "g1,n[1-2]");
}

TEST(CompressHostlist, MixedPadding) {
  EXPECT_EQ(CompressHostlist({"node9", "node10"}), "node[9-10]");
  EXPECT_EQ(CompressHostlist({"node8", "node9", "node10", "node11"}), "node[8-11]");
  EXPECT_EQ(CompressHostlist({"node09", "node10"}), "node[09-10]");
  EXPECT_EQ(CompressHostlist({"node1", "node01"}), "node[1,01]");
  EXPECT_EQ(CompressHostlist({"node009", "node10"}), "node[009,10]");
  EXPECT_EQ(CompressHostlist({"n099", "n100", "n101"}), "n[099-101]");
}

TEST(CompressHostlist, NumbersOnlyAtTheEnd) {
  EXPECT_EQ(CompressHostlist({"rack1-n1", "rack1-n2", "rack2-n1"}), "rack1-n[1-2],rack2-n1");
  EXPECT_EQ(CompressHostlist({"n1.ib", "n2.ib"}), "n1.ib,n2.ib");
  EXPECT_EQ(CompressHostlist({"1", "2", "3"}), "[1-3]");
}

TEST(CompressHostlist, DifferentPrefixesDoNotMerge) {
  EXPECT_EQ(CompressHostlist({"a1", "b2"}), "a1,b2");
  EXPECT_EQ(CompressHostlist({"node", "node1"}), "node,node1");
}

TEST(CompressHostlist, DuplicatesKeptUnsorted) {
  EXPECT_EQ(CompressHostlist({"n1", "n1"}), "n[1,1]");
  EXPECT_EQ(CompressHostlistSorted({"n1", "n1", "n2", "n2"}), "n[1-2]");
}

TEST(CompressHostlistSorted, NaturalOrder) {
  EXPECT_EQ(CompressHostlistSorted({"node10", "node9", "node1"}), "node[1,9-10]");
  EXPECT_EQ(CompressHostlistSorted({"rack10-n1", "rack2-n1"}), "rack2-n1,rack10-n1");
  EXPECT_EQ(CompressHostlistSorted({"b1", "a2", "a1", "login"}), "a[1-2],b1,login");
}

TEST(CompressHostlist, RoundTripsThroughExpand) {
  for (std::string expr : {"node[01-04,07]", "gpu-a[1-2],cpu[008-010]", "node[8-10]",
                           "rack1-n[1-2],rack2-n[1-2]", "login,node[1,01]"}) {
    auto hosts = Expand(expr);
    EXPECT_EQ(CompressHostlist(hosts), expr);
    EXPECT_EQ(Expand(CompressHostlist(hosts)), hosts);
  }
}

TEST(CompressHostlist, LargeListIsFast) {
  auto hosts = Expand("n[00001-65536]");
  EXPECT_EQ(CompressHostlist(hosts), "n[00001-65536]");
  std::reverse(hosts.begin(), hosts.end());
  EXPECT_EQ(CompressHostlistSorted(hosts), "n[00001-65536]");
}

TEST(NaturalCompare, Basics) {
  EXPECT_LT(NaturalCompare("n2", "n10"), 0);
  EXPECT_GT(NaturalCompare("n10", "n2"), 0);
  EXPECT_EQ(NaturalCompare("abc", "abc"), 0);
  EXPECT_LT(NaturalCompare("ab", "abc"), 0);
  EXPECT_LT(NaturalCompare("a-", "b"), 0);
  EXPECT_EQ(NaturalCompare("n007", "n7"), 0);
}

}  // namespace
}  // namespace sluice

namespace sluice {
namespace {

TEST(FormatIdRanges, SortsAndCompressesRuns) {
  EXPECT_EQ(FormatIdRanges({8, 0, 1, 2, 3, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(FormatIdRanges({}), "");
  EXPECT_EQ(FormatIdRanges({5}), "5");
  EXPECT_EQ(ExpandIdRanges("0-3,8,x,10-11"), (std::vector<int>{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_TRUE(ExpandIdRanges("").empty());
}

}  // namespace
}  // namespace sluice
