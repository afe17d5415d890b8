// SPDX-License-Identifier: Apache-2.0
#include "vision/decode.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <opencv2/imgcodecs.hpp>

#include "tests/vision/golden_cases.h"
#include "vision/nms.h"

namespace yolo::vision {
namespace {

using Shape = std::vector<std::int64_t>;

// A [1, 4+nc, N] tensor with every score 0; set() writes one candidate.
struct V8Tensor {
  int nc, n;
  std::vector<float> data;
  V8Tensor(int classes, int candidates)
      : nc(classes), n(candidates), data(static_cast<std::size_t>((4 + classes) * candidates)) {}
  Shape shape() const { return {1, 4 + nc, n}; }
  void set(int i, float cx, float cy, float w, float h, int cls, float score) {
    const float box[4] = {cx, cy, w, h};
    for (int k = 0; k < 4; ++k) data[static_cast<std::size_t>(k * n + i)] = box[k];
    data[static_cast<std::size_t>((4 + cls) * n + i)] = score;
  }
};

// Identity geometry: a 640x640 frame into a 640x640 input.
LetterboxTransform identity() {
  return LetterboxTransform::compute({640, 640}, {640, 640});
}

TEST(Decode, Yolov8PicksTheBestClassAndThresholdsStrictly) {
  V8Tensor t(3, 5);
  t.set(0, 100, 100, 20, 40, 1, 0.9f);
  t.data[(4 + 2) * 5 + 0] = 0.5f;        // a weaker second class on the same candidate
  t.set(1, 300, 300, 10, 10, 2, 0.25f);  // exactly at the threshold: dropped (score > conf)
  t.set(2, 400, 200, 30, 30, 0, 0.2500001f);
  const auto dets = decode_candidates(t.data, t.shape(), DecoderKind::kYolov8, 0.25f);
  ASSERT_EQ(dets.size(), 2u);
  EXPECT_EQ(dets[0].class_id, 1);
  EXPECT_FLOAT_EQ(dets[0].score, 0.9f);
  EXPECT_FLOAT_EQ(dets[0].box.x1, 90);
  EXPECT_FLOAT_EQ(dets[0].box.y1, 80);
  EXPECT_FLOAT_EQ(dets[0].box.x2, 110);
  EXPECT_FLOAT_EQ(dets[0].box.y2, 120);
  EXPECT_EQ(dets[1].class_id, 0);

  const int only_zero[] = {0};
  const auto filtered =
      decode_candidates(t.data, t.shape(), DecoderKind::kYolov8, 0.25f, only_zero);
  ASSERT_EQ(filtered.size(), 1u);
  EXPECT_EQ(filtered[0].class_id, 0);
}

TEST(Decode, Yolov8MultiLabelKeepsEveryClassAboveTheThreshold) {
  V8Tensor t(3, 5);
  t.set(0, 100, 100, 20, 40, 1, 0.9f);
  t.data[(4 + 2) * 5 + 0] = 0.5f;   // a weaker second class on the same candidate
  t.data[(4 + 0) * 5 + 0] = 0.25f;  // a third one exactly at the threshold: dropped
  t.set(1, 300, 300, 10, 10, 2, 0.3f);
  const auto dets = decode_candidates(t.data, t.shape(), DecoderKind::kYolov8, 0.25f, {}, true);
  ASSERT_EQ(dets.size(), 3u);
  std::vector<std::pair<int, float>> got;
  for (const auto& d : dets) got.emplace_back(d.class_id, d.score);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::pair<int, float>>{{1, 0.9f}, {2, 0.3f}, {2, 0.5f}}));
  for (const auto& d : dets) {
    EXPECT_FLOAT_EQ(d.box.x1, d.score == 0.3f ? 295 : 90);
  }

  const int only_two[] = {2};
  const auto filtered =
      decode_candidates(t.data, t.shape(), DecoderKind::kYolov8, 0.25f, only_two, true);
  ASSERT_EQ(filtered.size(), 2u);
  EXPECT_EQ(filtered[0].class_id, 2);
  EXPECT_EQ(filtered[1].class_id, 2);
}

TEST(Decode, Yolov5MultiLabelScoresEveryClassByObjectness) {
  std::vector<float> data = {50, 50, 20, 20, 0.9f, 0.5f, 0.8f};  // 0.45 class 0, 0.72 class 1
  const Shape shape = {1, 1, 7};
  const auto dets = decode_candidates(data, shape, DecoderKind::kYolov5, 0.25f, {}, true);
  ASSERT_EQ(dets.size(), 2u);
  EXPECT_EQ(dets[0].class_id, 0);
  EXPECT_FLOAT_EQ(dets[0].score, 0.9f * 0.5f);
  EXPECT_EQ(dets[1].class_id, 1);
  EXPECT_FLOAT_EQ(dets[1].score, 0.9f * 0.8f);
}

TEST(Decode, MultiLabelPostprocessKeepsTwoClassesOfOneObject) {
  // A truck that is nearly as much a car: best-class decoding shows the car only, multi-label
  // both, because the NMS compares boxes of the same class only.
  V8Tensor t(4, 2);
  t.set(0, 320, 320, 100, 60, 2, 0.66f);
  t.data[(4 + 3) * 2 + 0] = 0.42f;
  DecodeOptions options;
  options.kind = DecoderKind::kYolov8;
  EXPECT_EQ(postprocess(t.data, t.shape(), options, identity()).size(), 1u);
  options.multi_label = true;
  const auto dets = postprocess(t.data, t.shape(), options, identity());
  ASSERT_EQ(dets.size(), 2u);
  EXPECT_EQ(dets[0].class_id, 2);
  EXPECT_EQ(dets[1].class_id, 3);
}

TEST(Decode, Yolov5MultipliesObjectnessByClassScore) {
  const int nc = 2;
  std::vector<float> data = {
      50, 50, 20, 20, 0.9f, 0.1f, 0.8f,  // 0.72 class 1
      80, 80, 10, 10, 0.2f, 1.0f, 0.0f,  // objectness below conf: dropped
      90, 90, 10, 10, 0.6f, 0.4f, 0.3f,  // 0.24: dropped
  };
  const Shape shape = {1, 3, 5 + nc};
  const auto dets = decode_candidates(data, shape, DecoderKind::kYolov5, 0.25f);
  ASSERT_EQ(dets.size(), 1u);
  EXPECT_EQ(dets[0].class_id, 1);
  EXPECT_FLOAT_EQ(dets[0].score, 0.9f * 0.8f);
  EXPECT_FLOAT_EQ(dets[0].box.x1, 40);
  EXPECT_FLOAT_EQ(dets[0].box.y2, 60);
}

TEST(Decode, End2EndThresholdsSuppressesDuplicatesCapsAndMapsBack) {
  // An end-to-end model is trained to leave one box per object, yet sometimes emits a second one
  // over an object it already boxed (rows 0 and 1, IoU ~0.92): the NMS drops it. Another class on
  // an overlapping box of its own (row 2) stays unless agnostic; row 3 is under the threshold.
  std::vector<float> data = {
      10,  90,  110, 190, 0.9f, 3,  //
      12,  92,  112, 192, 0.8f, 3,  //
      11,  90,  110, 190, 0.7f, 5,  //
      0,   0,   5,   5,   0.1f, 7,  //
      150, 100, 190, 140, 0.6f, 3,  //
  };
  const Shape shape = {1, 5, 6};
  DecodeOptions options;
  const auto frame_geometry = LetterboxTransform::compute({200, 100}, {200, 200});
  ASSERT_EQ(frame_geometry.pad_top, 50);
  auto dets = postprocess(data, shape, options, frame_geometry);
  ASSERT_EQ(dets.size(), 3u);
  EXPECT_EQ(dets[0].class_id, 3);
  EXPECT_FLOAT_EQ(dets[0].score, 0.9f);
  EXPECT_FLOAT_EQ(dets[0].box.y1, 40);
  EXPECT_FLOAT_EQ(dets[0].box.y2, 100);  // 140 clipped to the frame height
  EXPECT_EQ(dets[1].class_id, 5);
  EXPECT_FLOAT_EQ(dets[2].score, 0.6f);
  options.agnostic = true;
  dets = postprocess(data, shape, options, frame_geometry);
  ASSERT_EQ(dets.size(), 2u);
  EXPECT_FLOAT_EQ(dets[1].score, 0.6f);
  options.agnostic = false;
  options.max_detections = 1;
  dets = postprocess(data, shape, options, frame_geometry);
  ASSERT_EQ(dets.size(), 1u);
  EXPECT_FLOAT_EQ(dets[0].score, 0.9f);
}

// One anchor of an end-to-end head can give rows of several classes with the very same box (its
// best pairs of anchor and class): the box is shown and counted once, as its best class, unless
// multi_label asks for every class (as mAP does); a class filter applies after that choice.
TEST(Decode, End2EndKeepsEachBoxAsItsBestClass) {
  std::vector<float> data = {
      10, 10, 50, 50, 0.40f, 7,  //
      60, 60, 90, 90, 0.50f, 0,  //
      10, 10, 50, 50, 0.85f, 2,  //
      10, 10, 50, 50, 0.30f, 5,  //
      60, 60, 90, 91, 0.45f, 1,  //
  };
  const Shape shape = {1, 5, 6};
  auto dets = decode_candidates(data, shape, DecoderKind::kEnd2End, 0.25f);
  ASSERT_EQ(dets.size(), 3u);
  EXPECT_EQ(dets[0].class_id, 2);
  EXPECT_FLOAT_EQ(dets[0].score, 0.85f);
  EXPECT_EQ(dets[1].class_id, 0);
  EXPECT_EQ(dets[2].class_id, 1);  // its box differs by a pixel: another anchor
  EXPECT_EQ(decode_candidates(data, shape, DecoderKind::kEnd2End, 0.25f, {}, true).size(), 5u);
  const std::vector<int> trucks = {7};
  EXPECT_TRUE(decode_candidates(data, shape, DecoderKind::kEnd2End, 0.25f, trucks).empty());
  EXPECT_EQ(decode_candidates(data, shape, DecoderKind::kEnd2End, 0.25f, trucks, true).size(), 1u);
}

TEST(Decode, PostprocessSuppressesOverlapsPerClass) {
  V8Tensor t(2, 4);
  t.set(0, 100, 100, 50, 50, 0, 0.9f);
  t.set(1, 102, 101, 50, 50, 0, 0.8f);  // same class, IoU ~0.9: suppressed
  t.set(2, 101, 100, 50, 50, 1, 0.7f);  // other class: kept unless agnostic
  t.set(3, 400, 400, 20, 20, 0, 0.6f);
  // Four candidates are fewer than 4+nc rows, which the automatic choice would read as YOLOv5.
  DecodeOptions options;
  options.kind = DecoderKind::kYolov8;
  auto dets = postprocess(t.data, t.shape(), options, identity());
  ASSERT_EQ(dets.size(), 3u);
  EXPECT_FLOAT_EQ(dets[1].score, 0.7f);
  options.agnostic = true;
  dets = postprocess(t.data, t.shape(), options, identity());
  ASSERT_EQ(dets.size(), 2u);
  EXPECT_FLOAT_EQ(dets[1].score, 0.6f);
}

TEST(Decode, ChoosesTheDecoderFromShapeAndFlag) {
  EXPECT_EQ(choose_decoder(Shape{1, 84, 8400}, DecoderKind::kAuto, false), DecoderKind::kYolov8);
  EXPECT_EQ(choose_decoder(Shape{1, 300, 6}, DecoderKind::kAuto, false), DecoderKind::kEnd2End);
  EXPECT_EQ(choose_decoder(Shape{1, 300, 6}, DecoderKind::kAuto, true), DecoderKind::kEnd2End);
  EXPECT_EQ(choose_decoder(Shape{1, 25200, 85}, DecoderKind::kAuto, false), DecoderKind::kYolov5);
  // A one-class YOLOv5 looks end-to-end to the automatic choice; the override reads it right.
  EXPECT_EQ(choose_decoder(Shape{1, 25200, 6}, DecoderKind::kYolov5, false), DecoderKind::kYolov5);
  EXPECT_EQ(choose_decoder(Shape{1, 5, 2100}, DecoderKind::kAuto, false), DecoderKind::kYolov8);
}

TEST(Decode, RejectsImpossibleShapesWithTheExpectedOne) {
  const auto message = [](Shape shape, DecoderKind kind) {
    try {
      choose_decoder(shape, kind, false);
    } catch (const DecodeError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({1, 84, 8400}, DecoderKind::kEnd2End).find("expects [1, K, 6]"),
            std::string::npos);
  EXPECT_NE(message({1, 4, 8400}, DecoderKind::kYolov8).find("[1,4,8400]"), std::string::npos);
  EXPECT_NE(message({1, 100, 5}, DecoderKind::kYolov5).find("[1, N, 5+nc]"), std::string::npos);
  EXPECT_NE(message({2, 84, 8400}, DecoderKind::kYolov8).find("[2,84,8400]"), std::string::npos);
  EXPECT_NE(message({84, 8400}, DecoderKind::kAuto).find("batch 1"), std::string::npos);
  std::vector<float> too_few(10);
  EXPECT_THROW(decode_candidates(too_few, Shape{1, 6, 5}, DecoderKind::kYolov8, 0.25f),
               DecodeError);
  EXPECT_THROW(decode_candidates(too_few, Shape{1, 6, 5}, DecoderKind::kAuto, 0.25f), DecodeError);
}

// The standard decode of every golden output reproduces index.json's detections one to one. The
// index lists an end-to-end model's rows as the model gave them, without NMS (yolo26n on the kite
// photo boxes one kite twice, scores 0.87 and 0.52, IoU ~0.95), so those go through the same NMS
// first.
TEST(Decode, ReproducesEveryGoldenCase) {
  YOLO_REQUIRE_FIXTURES();
  const auto cases = test::golden_cases();
  ASSERT_EQ(cases.size(), 12u);
  for (const auto& c : cases) {
    const auto output = test::read_floats(c.output_file);
    const cv::Mat frame = cv::imread(c.image.string());
    ASSERT_FALSE(frame.empty()) << c.image;
    const auto geometry = LetterboxTransform::compute(frame.size(), {c.size, c.size});
    DecodeOptions options;
    options.conf = 0.25f;
    options.iou = 0.45f;
    const auto dets = postprocess(output, c.output_dims, options, geometry);
    const bool end2end = c.output_dims.back() == 6;
    const Detections wanted =
        end2end ? nms(c.detections, {options.iou, options.agnostic, options.max_detections})
                : c.detections;
    ASSERT_EQ(dets.size(), wanted.size()) << c.name;
    std::vector<bool> used(dets.size(), false);
    for (const auto& want : wanted) {
      int match = -1;
      for (std::size_t i = 0; i < dets.size(); ++i) {
        if (!used[i] && dets[i].class_id == want.class_id && iou(dets[i].box, want.box) >= 0.98f &&
            std::abs(dets[i].score - want.score) <= 0.005f) {
          match = static_cast<int>(i);
          break;
        }
      }
      ASSERT_GE(match, 0) << c.name << ": no match for class " << want.class_id << " score "
                          << want.score << " box " << want.box.x1 << "," << want.box.y1 << ","
                          << want.box.x2 << "," << want.box.y2;
      used[static_cast<std::size_t>(match)] = true;
    }
  }
}

}  // namespace
}  // namespace yolo::vision
