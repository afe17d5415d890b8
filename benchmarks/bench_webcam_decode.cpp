// SPDX-License-Identifier: Apache-2.0
// What a USB webcam's frames cost the CPU before detection, as OpenCV's V4L2 backend turns them
// into BGR: MJPG frames go through cv::imdecode (libjpeg-turbo), YUYV frames through cv::cvtColor.
// Frames of the traffic clip, at 720p and scaled to 1080p, are made into JPEGs as a webcam would
// send them (quality 80 unless given; 4:2:0, the only chroma subsampling OpenCV 4.6 writes, where
// many webcams send 4:2:2, a little more to decode) and into YUYV; each is then converted on one
// thread.
// Prints CPU ms a frame and the share of one core that 30 fps of it takes; not a test.
//
//   bench_webcam_decode [CLIP] [--frames 120] [--passes 3] [--quality 80]
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

namespace {

struct Figures {
  double mean_ms = 0;
  double p50_ms = 0;
  double p95_ms = 0;
};

Figures figures(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  double sum = 0;
  for (double m : ms) sum += m;
  return {sum / static_cast<double>(ms.size()), ms[ms.size() / 2], ms[ms.size() * 95 / 100]};
}

// YUYV (Y0 U Y1 V) of a BGR frame, as a webcam's uncompressed mode delivers it.
cv::Mat to_yuyv(const cv::Mat& bgr) {
  cv::Mat yuv;
  cv::cvtColor(bgr, yuv, cv::COLOR_BGR2YUV);
  cv::Mat yuyv(bgr.rows, bgr.cols, CV_8UC2);
  for (int y = 0; y < bgr.rows; ++y) {
    const auto* in = yuv.ptr<cv::Vec3b>(y);
    auto* out = yuyv.ptr<std::uint8_t>(y);
    for (int x = 0; x + 1 < bgr.cols; x += 2) {
      out[2 * x] = in[x][0];
      out[2 * x + 1] = static_cast<std::uint8_t>((in[x][1] + in[x + 1][1]) / 2);
      out[2 * x + 2] = in[x + 1][0];
      out[2 * x + 3] = static_cast<std::uint8_t>((in[x][2] + in[x + 1][2]) / 2);
    }
  }
  return yuyv;
}

double thread_cpu_ms() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_nsec) / 1e6;
}

// The CPU time `f` takes on this thread: what the frame costs, whatever else the machine runs
// (its wall time on a shared machine also counts the time other processes had the core).
template <class F>
double cpu_ms(F&& f) {
  const double start = thread_cpu_ms();
  f();
  return thread_cpu_ms() - start;
}

void print(const char* what, const cv::Size& size, const Figures& f, const std::string& extra) {
  std::printf(
      "%-24s %4dx%-4d  mean %6.2f  p50 %6.2f  p95 %6.2f ms   %5.1f %% of a core at 30 fps%s\n",
      what, size.width, size.height, f.mean_ms, f.p50_ms, f.p95_ms, f.mean_ms * 3, extra.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  std::string clip = (std::filesystem::path(YOLO_EDGE_SOURCE_DIR).parent_path() /
                      "shared/fixtures/video/traffic_720p_30fps.mp4")
                         .string();
  int frames = 120;
  int passes = 3;
  int quality = 80;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 < argc && arg == "--frames")
      frames = std::atoi(argv[++i]);
    else if (i + 1 < argc && arg == "--passes")
      passes = std::atoi(argv[++i]);
    else if (i + 1 < argc && arg == "--quality")
      quality = std::atoi(argv[++i]);
    else
      clip = arg;
  }
  cv::setNumThreads(1);
  cv::VideoCapture capture(clip, cv::CAP_FFMPEG);
  if (!capture.isOpened()) {
    std::fprintf(stderr, "bench_webcam_decode: cannot open %s; give a video file\n", clip.c_str());
    return 1;
  }
  std::vector<cv::Mat> source;
  for (cv::Mat frame; static_cast<int>(source.size()) < frames && capture.read(frame);)
    source.push_back(frame.clone());
  if (source.empty()) {
    std::fprintf(stderr, "bench_webcam_decode: no frames in %s\n", clip.c_str());
    return 1;
  }
  std::printf("%zu frames of %s, %d passes, one thread, JPEG quality %d 4:2:0\n", source.size(),
              clip.c_str(), passes, quality);

  const std::vector<int> jpeg_params = {cv::IMWRITE_JPEG_QUALITY, quality};
  for (const cv::Size size : {cv::Size(1280, 720), cv::Size(1920, 1080)}) {
    std::vector<std::vector<std::uint8_t>> jpegs;
    std::vector<cv::Mat> yuyvs;
    std::size_t bytes = 0;
    for (const cv::Mat& frame : source) {
      cv::Mat scaled;
      if (frame.size() == size)
        scaled = frame;
      else
        cv::resize(frame, scaled, size, 0, 0, cv::INTER_LINEAR);
      jpegs.emplace_back();
      cv::imencode(".jpg", scaled, jpegs.back(), jpeg_params);
      bytes += jpegs.back().size();
      // A few YUYV frames do: the conversion's cost does not depend on what the pixels show.
      if (yuyvs.size() < 8) yuyvs.push_back(to_yuyv(scaled));
    }
    // Into one buffer reused frame after frame, as the capture does.
    cv::Mat bgr;
    std::vector<double> decode_ms;
    std::vector<double> convert_ms;
    for (int pass = 0; pass < passes; ++pass) {
      for (const auto& jpeg : jpegs)
        decode_ms.push_back(cpu_ms([&] { cv::imdecode(jpeg, cv::IMREAD_COLOR, &bgr); }));
      for (std::size_t i = 0; i < jpegs.size(); ++i) {
        convert_ms.push_back(
            cpu_ms([&] { cv::cvtColor(yuyvs[i % yuyvs.size()], bgr, cv::COLOR_YUV2BGR_YUYV); }));
      }
    }
    char kb[64];
    std::snprintf(kb, sizeof kb, "   (%.0f KB a frame)",
                  static_cast<double>(bytes) / static_cast<double>(jpegs.size()) / 1024);
    print("MJPG decode (imdecode)", size, figures(decode_ms), kb);
    print("YUYV -> BGR (cvtColor)", size, figures(convert_ms), "");
  }
  return 0;
}
