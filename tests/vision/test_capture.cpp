// SPDX-License-Identifier: Apache-2.0
#include "vision/capture.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>
#include <thread>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>
#include <opencv2/videoio/registry.hpp>

#include "tests/support/fixtures.h"
#include "tests/support/rtsp_server.h"
#include "tests/support/temp_folder.h"

namespace yolo::vision {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using test::TempFolder;

std::string video() {
  return (test::fixtures_dir() / "video" / "birds_720p_10fps.mp4").string();
}
std::string images() {
  return (test::fixtures_dir() / "images").string();
}

std::string open_error(const SourceSpec& spec) {
  try {
    open_source(spec);
  } catch (const SourceError& e) {
    return e.what();
  }
  return "no error";
}

TEST(Capture, ClassifiesEveryKindOfUri) {
  EXPECT_EQ(classify_source("0"), SourceKind::kV4l2);
  EXPECT_EQ(classify_source("/dev/video0"), SourceKind::kV4l2);
  EXPECT_EQ(classify_source("libcamerasrc ! videoconvert ! appsink"), SourceKind::kGstreamer);
  EXPECT_EQ(classify_source("rtsp://192.168.1.10:554/stream"), SourceKind::kNetwork);
  EXPECT_EQ(classify_source("HTTP://cam.local/video.mjpg"), SourceKind::kNetwork);
  EXPECT_THROW(classify_source(""), SourceError);
}

TEST(Capture, CheckSaysWhatOpenWillDo) {
  TempFolder tmp;
  const fs::path clip = tmp.path() / "clips" / "v.mp4";
  fs::create_directories(clip.parent_path());
  std::ofstream(clip) << "x";
  // file:// URLs and paths relative to a base folder name local files.
  for (const std::string& uri : {"file://" + clip.string(), "file://localhost" + clip.string()}) {
    const SourceCheck c = check_source(uri);
    EXPECT_EQ(c.uri, clip.string()) << uri;
    EXPECT_EQ(c.kind, SourceKind::kVideoFile) << uri;
    EXPECT_EQ(c.error, "") << uri;
  }
  EXPECT_EQ(check_source("clips/v.mp4", tmp.path()).uri, clip.string());
  EXPECT_EQ(check_source(clip.parent_path().string()).kind, SourceKind::kImageFolder);
  // A scheme nothing reads is an error; a camera that is not plugged in only a warning.
  EXPECT_NE(check_source("ftp://cam/v.mp4").error.find("'ftp://' is not a source"),
            std::string::npos);
  const SourceCheck camera = check_source("/dev/video97");
  EXPECT_EQ(camera.kind, SourceKind::kV4l2);
  EXPECT_EQ(camera.error, "");
  EXPECT_NE(camera.warning.find("no such camera device /dev/video97 now"), std::string::npos);
  EXPECT_NE(check_source("").error.find("is empty"), std::string::npos);
}

TEST(Capture, OpensFileUrls) {
  YOLO_REQUIRE_FIXTURES();
  const auto source = open_source({"file://" + video()});
  Frame frame;
  EXPECT_TRUE(source->read(frame));
}

TEST(Capture, ReadsTheWholeVideoFile) {
  YOLO_REQUIRE_FIXTURES();
  const auto source = open_source({video()});
  // FFmpeg reports the average rate: frames over duration, 10.06 for this file.
  EXPECT_NEAR(source->fps(), 10.0, 0.1);
  EXPECT_FALSE(source->is_live());
  EXPECT_EQ(source->frame_count(), 671);
  EXPECT_NE(source->describe().find("video file"), std::string::npos);
  EXPECT_NE(source->describe().find("1280x720"), std::string::npos);
  Frame frame;
  std::int64_t count = 0;
  while (source->read(frame)) {
    ASSERT_EQ(frame.index, count);
    ASSERT_EQ(frame.bgr.size(), cv::Size(1280, 720));
    ASSERT_EQ(frame.bgr.type(), CV_8UC3);
    ++count;
  }
  EXPECT_EQ(count, 671);
}

TEST(Capture, LoopsAVideoFile) {
  YOLO_REQUIRE_FIXTURES();
  const auto source = open_source({video(), true});
  // A looping file never ends.
  EXPECT_EQ(source->frame_count(), 0);
  Frame frame;
  cv::Mat first;
  for (int i = 0; i < 680; ++i) {
    ASSERT_TRUE(source->read(frame)) << "frame " << i;
    if (i == 0) first = frame.bgr.clone();
    if (i == 671) {
      EXPECT_EQ(cv::norm(first, frame.bgr, cv::NORM_INF), 0.0) << "not the first frame";
    }
  }
  EXPECT_EQ(frame.index, 679);
}

TEST(Capture, PacesAVideoFileAtItsFrameRate) {
  YOLO_REQUIRE_FIXTURES();
  const auto source = open_source({video(), false, true});
  EXPECT_TRUE(source->is_live());
  Frame frame;
  ASSERT_TRUE(source->read(frame));
  const auto start = Clock::now();
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(source->read(frame));
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  // Ten frames at 10 fps take a second; the bound is loose because the machine is shared.
  EXPECT_GT(seconds, 0.9);
  EXPECT_LT(seconds, 3.0);
}

TEST(Capture, AFileReadUnpacedKeepsItsOwnClockAndAPacedOneTheCaptureTime) {
  YOLO_REQUIRE_FIXTURES();
  const auto fast = open_source({video()});
  Frame frame;
  ASSERT_TRUE(fast->read(frame));
  const Clock::time_point first = frame.scene_time;
  EXPECT_EQ(first, frame.timestamp);
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(fast->read(frame));
  // 20 frames at the file's rate, however fast they were read.
  EXPECT_NEAR(std::chrono::duration<double>(frame.scene_time - first).count(), 20 / fast->fps(),
              1e-6);

  const auto paced = open_source({video(), false, true});
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(paced->read(frame));
    EXPECT_EQ(frame.scene_time, frame.timestamp);
  }
}

TEST(Capture, ReadsAFolderOfImagesInNameOrderAndLoops) {
  YOLO_REQUIRE_FIXTURES();
  const auto once = open_source({images()});
  EXPECT_NE(once->describe().find("6 images"), std::string::npos);
  EXPECT_EQ(once->frame_count(), 6);
  Frame frame;
  std::vector<cv::Size> sizes;
  while (once->read(frame)) sizes.push_back(frame.bgr.size());
  ASSERT_EQ(sizes.size(), 6u);
  // dog.jpg, eagle.jpg, giraffe.jpg, horses.jpg, kite.jpg, person.jpg
  EXPECT_EQ(sizes[0], cv::Size(768, 576));
  EXPECT_EQ(sizes[5], cv::imread(images() + "/person.jpg").size());

  const auto looping = open_source({images(), true});
  EXPECT_EQ(looping->frame_count(), 0);
  for (int i = 0; i < 13; ++i) ASSERT_TRUE(looping->read(frame));
  EXPECT_EQ(frame.index, 12);
  EXPECT_EQ(frame.bgr.size(), sizes[0]);
}

TEST(Capture, ReadsAStillImageOnceOrForever) {
  YOLO_REQUIRE_FIXTURES();
  const std::string dog = images() + "/dog.jpg";
  const auto once = open_source({dog});
  EXPECT_EQ(once->frame_count(), 1);
  Frame frame;
  ASSERT_TRUE(once->read(frame));
  EXPECT_EQ(frame.bgr.size(), cv::Size(768, 576));
  // Drawing on a frame must not change the next one.
  frame.bgr.setTo(cv::Scalar::all(0));
  EXPECT_FALSE(once->read(frame));

  const auto looping = open_source({dog, true, true, 0, 0, 50});
  EXPECT_DOUBLE_EQ(looping->fps(), 50.0);
  const auto start = Clock::now();
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(looping->read(frame));
  EXPECT_GT(std::chrono::duration<double>(Clock::now() - start).count(), 0.09);
  EXPECT_GT(cv::norm(frame.bgr, cv::NORM_INF), 0.0);
}

TEST(Capture, RunsAGStreamerPipelineAndAddsTheAppsink) {
  std::unique_ptr<FrameSource> source;
  try {
    source = open_source({"videotestsrc num-buffers=5 ! video/x-raw,width=320,height=240"});
  } catch (const SourceError& e) {
    GTEST_SKIP() << "GStreamer's videotestsrc is not usable here (gstreamer1.0-plugins-base): "
                 << e.what();
  }
  EXPECT_TRUE(source->is_live());
  EXPECT_NE(source->describe().find("GStreamer pipeline"), std::string::npos);
  Frame frame;
  int count = 0;
  while (source->read(frame)) {
    ASSERT_EQ(frame.bgr.size(), cv::Size(320, 240));
    ++count;
  }
  EXPECT_EQ(count, 5);
  EXPECT_NE(open_error({"nosuchelement ! appsink"}).find("GStreamer pipeline did not start"),
            std::string::npos);
  EXPECT_EQ(open_error({"nosuchelement ! appsink"}).find("libcamerasrc"), std::string::npos);
}

// A Pi camera's pipeline that does not start says what the VM's libcamera camera showed: a size
// it cannot give, and that a restart (not a reload) is needed after one failed. Here libcamerasrc
// is not installed, or finds no camera: either way the pipeline does not start. (Its own appsink:
// without libcamerasrc GStreamer parses the rest, and OpenCV 4.6 then waits forever for a
// pipeline of converters with no source to start; a bare appsink fails at once.)
TEST(Capture, ALibcameraPipelineThatFailsSaysWhatToCheckAndToRestart) {
  if (!cv::videoio_registry::hasBackend(cv::CAP_GSTREAMER)) GTEST_SKIP() << "no GStreamer backend";
  const std::string error = open_error({"libcamerasrc ! appsink"});
  EXPECT_NE(error.find("GStreamer pipeline did not start"), std::string::npos) << error;
  EXPECT_NE(error.find("not-negotiated"), std::string::npos) << error;
  EXPECT_NE(error.find("cam --list"), std::string::npos) << error;
  EXPECT_NE(error.find("restart the service (a reload cannot)"), std::string::npos) << error;
}

// An RTSP H.264 stream opens as a network stream; when its server falls silent (a camera cut off:
// no connection closed), the read ends within seconds rather than FFmpeg's own 30 s, the time after
// which the daemon's watchdog would take the whole daemon down for one camera.
TEST(Capture, ANetworkStreamThatFallsSilentEndsItsReadWithinSeconds) {
  YOLO_REQUIRE_FIXTURES();
  // Nothing in it depends on the CPU; its timeouts would measure the emulator.
  if (test::kEmulated) GTEST_SKIP() << "a real-time stream's timeouts are not tested under QEMU";
  TempFolder tmp;
  test::RtspServer server(test::fixtures_dir() / "video" / "traffic_720p_30fps.mp4",
                          tmp.path() / "rtsp.log");
  if (!server.start()) {
    if (server.missing_tools()) GTEST_SKIP() << server.problem();
    FAIL() << server.problem();
  }
  const auto source = open_source({server.url()});
  EXPECT_NE(source->describe().find("network stream " + server.url() + " (1280x720"),
            std::string::npos)
      << source->describe();
  EXPECT_TRUE(source->is_live());
  Frame frame;
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(source->read(frame)) << "frame " << i;
    EXPECT_EQ(frame.bgr.size(), cv::Size(1280, 720));
  }
  server.freeze();
  // Frames already on their way still come, then the reads wait for the next until they give up.
  const auto frozen = Clock::now();
  while (source->read(frame)) {
  }
  const double waited = std::chrono::duration<double>(Clock::now() - frozen).count();
  server.thaw();
  EXPECT_LT(waited, 15) << "a silent stream ended " << waited << " s after it fell silent";
}

TEST(Capture, FailuresNameTheSourceAndTheReason) {
  YOLO_REQUIRE_FIXTURES();
  TempFolder tmp;
  EXPECT_NE(open_error({"/nonexistent/clip.mp4"})
                .find("'/nonexistent/clip.mp4': no such file or folder '/nonexistent/clip.mp4'"),
            std::string::npos);
  EXPECT_NE(open_error({tmp.path().string()}).find("holds no images"), std::string::npos);

  const fs::path text = tmp.path() / "notes.txt";
  std::ofstream(text) << "not a video\n";
  EXPECT_NE(open_error({text.string()}).find("not a known image or video"), std::string::npos);
  const fs::path fake = tmp.path() / "fake.jpg";
  std::ofstream(fake) << "not a jpeg\n";
  EXPECT_NE(open_error({fake.string()}).find("not a known image format"), std::string::npos);
  // The folder now holds one "image" that cannot be decoded: it fails when it is read.
  const auto folder = open_source({tmp.path().string()});
  Frame frame;
  EXPECT_THROW(folder->read(frame), SourceError);

  EXPECT_NE(open_error({images(), false, true}).find("set fps"), std::string::npos);
  EXPECT_NE(open_error({"/dev/video99"}).find("no such camera device /dev/video99"),
            std::string::npos);
  EXPECT_NE(open_error({"7"}).find("no such camera device /dev/video7"), std::string::npos);
  EXPECT_NE(open_error({"/dev/null"}).find("would not open as a V4L2 camera"), std::string::npos);
  EXPECT_NE(open_error({"rtsp://127.0.0.1:1/none"}).find("could not be opened"), std::string::npos);
}

}  // namespace
}  // namespace yolo::vision
