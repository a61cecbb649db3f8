#include "common/step_io.h"

#include <gtest/gtest.h>

namespace sluice {
namespace {

TEST(StepIoTest, FramesRoundTripAcrossArbitrarySplits) {
  std::string wire = EncodeFrame(FrameType::kHello, 3, "key") +
                     EncodeFrame(FrameType::kStdout, 7, std::string("a\0b\n", 4)) +
                     EncodeFrame(FrameType::kExit, 7, EncodeU32(3 << 8));
  FrameReader r;
  std::vector<Frame> got;
  for (char c : wire) {  // one byte at a time
    r.Append(std::string_view(&c, 1));
    for (;;) {
      auto f = r.Next();
      ASSERT_TRUE(f.ok());
      if (!f->has_value()) break;
      got.push_back(**f);
    }
  }
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].type, FrameType::kHello);
  EXPECT_EQ(got[0].task, 3u);
  EXPECT_EQ(got[0].payload, "key");
  EXPECT_EQ(got[1].payload, std::string("a\0b\n", 4));
  EXPECT_EQ(DecodeU32(got[2].payload), 3u << 8);
}

TEST(StepIoTest, GarbageIsAnErrorNotACrash) {
  FrameReader bad_type;
  bad_type.Append(std::string(9, '\x7f'));
  EXPECT_FALSE(bad_type.Next().ok());
  FrameReader too_big;
  too_big.Append(std::string("\x02\0\0\0\0\xff\xff\xff\xff", 9));
  EXPECT_FALSE(too_big.Next().ok());
  FrameReader short_frame;
  short_frame.Append(std::string("\x02\0\0", 3));
  auto f = short_frame.Next();
  ASSERT_TRUE(f.ok());
  EXPECT_FALSE(f->has_value());
  EXPECT_EQ(DecodeU32("ab"), 0u);
}

}  // namespace
}  // namespace sluice
