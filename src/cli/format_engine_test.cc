#include "cli/format_engine.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(FormatEngine, PercentFormat) {
  auto f = ParsePercentFormat("%.18i %9P|%j%%%-4t%#N");
  ASSERT_TRUE(f.ok());
  ASSERT_EQ(f->size(), 8u);
  EXPECT_EQ((*f)[0].key, "i");
  EXPECT_EQ((*f)[0].width, 18);
  EXPECT_TRUE((*f)[0].right);
  EXPECT_EQ((*f)[1].literal, " ");
  EXPECT_EQ((*f)[2].key, "P");
  EXPECT_FALSE((*f)[2].right);
  EXPECT_EQ((*f)[3].literal, "|");
  EXPECT_EQ((*f)[5].literal, "%");
  EXPECT_EQ((*f)[6].width, 4);
  EXPECT_TRUE((*f)[7].auto_width);
  EXPECT_FALSE(ParsePercentFormat("%.18").ok());
}

TEST(FormatEngine, NamedFormat) {
  auto f = ParseNamedFormat("JobID:10,State:.12,Name");
  ASSERT_TRUE(f.ok());
  ASSERT_EQ(f->size(), 3u);
  EXPECT_EQ((*f)[0].key, "jobid");
  EXPECT_EQ((*f)[0].width, 10);
  EXPECT_TRUE((*f)[1].right);
  EXPECT_EQ((*f)[2].width, 20);
  EXPECT_FALSE(ParseNamedFormat("JobID:x").ok());
  EXPECT_FALSE(ParseNamedFormat(",").ok());
}

TEST(FormatEngine, JustifyPadsAndTruncates) {
  EXPECT_EQ(Justify("abc", 5, true), "  abc");
  EXPECT_EQ(Justify("abc", 5, false), "abc  ");
  EXPECT_EQ(Justify("cancelpending", 8, true), "cancelpe");
  EXPECT_EQ(Justify("abc", 0, true), "abc");
}

TEST(FormatEngine, RenderLine) {
  auto f = ParsePercentFormat("%.4i|%-3j|%N");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(RenderLine(*f, [](const FormatField& x) { return x.key + x.key; }), "  ii|jj |NN");
}

}  // namespace
}  // namespace sluice
