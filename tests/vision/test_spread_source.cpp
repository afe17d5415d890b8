// SPDX-License-Identifier: Apache-2.0
#include "vision/spread_source.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>

#include <opencv2/core.hpp>
#include <opencv2/videoio.hpp>

#include "tests/support/fixtures.h"
#include "tests/support/temp_folder.h"

namespace yolo::vision {
namespace {

std::string video() {
  return (test::fixtures_dir() / "video" / "birds_720p_10fps.mp4").string();
}

// A fingerprint of a frame's pixels (FNV-1a): the video's frames all differ.
std::uint64_t fingerprint(const cv::Mat& bgr) {
  std::uint64_t h = 1469598103934665603ULL;
  const cv::Mat m = bgr.isContinuous() ? bgr : bgr.clone();
  for (const std::uint8_t* p = m.data; p != m.dataend; ++p) h = (h ^ *p) * 1099511628211ULL;
  return h;
}

// The inner frame each delivered frame was, among the first `scan` of `uri` (-1: none of them).
std::vector<std::int64_t> delivered_indices(SpreadSource& spread, const std::string& uri,
                                            std::size_t scan) {
  std::vector<std::uint64_t> all;
  const auto whole = open_source({uri});
  Frame frame;
  while (all.size() < scan && whole->read(frame)) all.push_back(fingerprint(frame.bgr));
  std::vector<std::int64_t> out;
  while (spread.read(frame)) {
    const auto it = std::find(all.begin(), all.end(), fingerprint(frame.bgr));
    out.push_back(it == all.end() ? -1 : static_cast<std::int64_t>(it - all.begin()));
  }
  return out;
}

TEST(SpreadIndices, TakeTheMiddleOfEqualStretches) {
  EXPECT_EQ(spread_indices(10, 2), (std::vector<std::int64_t>{2, 7}));
  EXPECT_EQ(spread_indices(335, 1), (std::vector<std::int64_t>{167}));
  EXPECT_EQ(spread_indices(4, 4), (std::vector<std::int64_t>{0, 1, 2, 3}));
  // Fewer frames than asked: all of them.
  EXPECT_EQ(spread_indices(3, 256), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_TRUE(spread_indices(0, 5).empty());
  EXPECT_THROW(spread_indices(-1, 5), std::invalid_argument);
  // Ascending, distinct, first and last stretch both covered.
  const auto picks = spread_indices(167, 64);
  ASSERT_EQ(picks.size(), 64U);
  for (std::size_t i = 1; i < picks.size(); ++i) EXPECT_LT(picks[i - 1], picks[i]);
  EXPECT_LE(picks.front(), 2);
  EXPECT_GE(picks.back(), 164);
}

TEST(SpreadSource, DrawsFramesAcrossTheWholeVideoNotTheFirstOnes) {
  YOLO_REQUIRE_FIXTURES();
  SpreadSource spread(open_source({video()}), 4);
  EXPECT_EQ(spread.frame_count(), 4);
  EXPECT_NE(spread.describe().find("4 frame(s) spread evenly over all 671"), std::string::npos)
      << spread.describe();
  EXPECT_EQ(delivered_indices(spread, video(), 600),
            (std::vector<std::int64_t>{83, 251, 419, 587}));
}

TEST(SpreadSource, KeepsToTheFirstFramesOfThePool) {
  YOLO_REQUIRE_FIXTURES();
  SpreadSource spread(open_source({video()}), 3, 30);
  EXPECT_NE(spread.describe().find("3 frame(s) spread evenly over the first 30"), std::string::npos)
      << spread.describe();
  EXPECT_EQ(delivered_indices(spread, video(), 30), (std::vector<std::int64_t>{5, 15, 25}));
  // A pool larger than the video is the video.
  SpreadSource all(open_source({video()}), 1000, 5000);
  EXPECT_EQ(all.frame_count(), 671);
  EXPECT_NE(all.describe().find("all 671 frame(s)"), std::string::npos) << all.describe();
}

TEST(SpreadSource, TakesTheFirstFramesOfASourceOfUnknownLength) {
  YOLO_REQUIRE_FIXTURES();
  // A looping file has no end, like a camera.
  SpreadSource spread(open_source({video(), true}), 3);
  EXPECT_EQ(spread.frame_count(), 0);
  EXPECT_NE(spread.describe().find("its first 3 frame(s)"), std::string::npos) << spread.describe();
  Frame frame;
  int n = 0;
  while (spread.read(frame)) EXPECT_EQ(frame.index, n++);
  EXPECT_EQ(n, 3);
}

// An MJPEG AVI of `frames` frames whose header claims `claimed` (the AVI header's total frames
// and the stream's length), as some cameras and converters write them; each frame's blue level
// is its index times 4.
std::string overstated_avi(const std::filesystem::path& dir, int frames, std::uint32_t claimed) {
  const std::string path = (dir / "overstated.avi").string();
  {
    cv::VideoWriter w(path, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 50, cv::Size(64, 48));
    for (int i = 0; i < frames; ++i) w.write(cv::Mat(48, 64, CV_8UC3, cv::Scalar(i * 4, 0, 0)));
  }
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  // dwTotalFrames is 16 bytes into the avih chunk's data, dwLength 32 into the strh chunk's.
  for (const auto& [tag, offset] : {std::pair{"avih", 16}, std::pair{"strh", 32}}) {
    const std::size_t at = bytes.find(tag);
    if (at == std::string::npos) throw std::runtime_error(std::string("no ") + tag);
    std::memcpy(&bytes[at + 8 + static_cast<std::size_t>(offset)], &claimed, sizeof claimed);
  }
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
  return path;
}

// The blue level each delivered frame has, as the frame it was (its index).
std::vector<int> levels(SpreadSource& spread) {
  std::vector<int> out;
  Frame frame;
  while (spread.read(frame))
    out.push_back(static_cast<int>(std::lround(cv::mean(frame.bgr)[0] / 4)));
  return out;
}

// A header that claims 40 frames of a file holding 20: asked for 16, the spread finds 16 of the
// 20 (not 8 from the first half) and says why.
TEST(SpreadSource, AHeaderThatClaimsMoreFramesIsReadAgainAndSaid) {
  test::TempFolder folder;
  const std::string avi = overstated_avi(folder.path(), 20, 40);
  ASSERT_EQ(open_source({avi})->frame_count(), 40) << "the patched header is read as written";
  SpreadSource spread(open_source({avi}), 16, 0, [avi] { return open_source({avi}); });
  const std::vector<int> got = levels(spread);
  EXPECT_EQ(got.size(), 16U);
  EXPECT_EQ(std::set<int>(got.begin(), got.end()).size(), 16U) << "no frame taken twice";
  EXPECT_GE(*std::max_element(got.begin(), got.end()), 15) << "the frames spread to the end";
  EXPECT_NE(spread.note().find("says 40 frames but 20 could be read"), std::string::npos)
      << spread.note();
  EXPECT_NE(spread.note().find("spread over those 20"), std::string::npos) << spread.note();
}

// Without a way to read it again, the spread says how many it got and why.
TEST(SpreadSource, AShortSourceThatCannotBeReadAgainSaysWhatItGot) {
  test::TempFolder folder;
  const std::string avi = overstated_avi(folder.path(), 20, 40);
  SpreadSource spread(open_source({avi}), 16);
  EXPECT_EQ(levels(spread).size(), 8U);
  EXPECT_NE(spread.note().find("8 of the 16 frame(s) asked were taken, from its first 20"),
            std::string::npos)
      << spread.note();
}

// A source as long as it says leaves no note.
TEST(SpreadSource, ASourceAsLongAsItSaysLeavesNoNote) {
  test::TempFolder folder;
  const std::string avi = overstated_avi(folder.path(), 20, 20);
  SpreadSource spread(open_source({avi}), 8, 0, [avi] { return open_source({avi}); });
  EXPECT_EQ(levels(spread).size(), 8U);
  EXPECT_TRUE(spread.note().empty()) << spread.note();
}

}  // namespace
}  // namespace yolo::vision
