// SPDX-License-Identifier: Apache-2.0
// Counts as the state folder keeps them (tracking/counts.cpp).
#include "tracking/counts.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace yolo::tracking {
namespace {

Counts sample() {
  PlaceCounts line;
  line.camera = "main";
  line.name = "road";
  line.line = true;
  line.since = std::chrono::system_clock::time_point(std::chrono::milliseconds(1'800'000'000'123));
  line.total = {{"car", {41, 17}}, {"truck", {3, 0}}};
  line.hours = {{"2027-01-15T09:00+01:00", {{"car", {4, 2}}}}};
  PlaceCounts zone;
  zone.camera = "main";
  zone.name = "gate";
  zone.since = line.since;
  return {{line, zone}};
}

TEST(Counts, RoundTrip) {
  const Counts c = sample();
  EXPECT_EQ(counts_from_json(nlohmann::json::parse(to_json(c).dump())), c);
  const nlohmann::json j = to_json(c);
  EXPECT_EQ(j["places"][0]["kind"], "line");
  EXPECT_EQ(j["places"][0]["since"], "2027-01-15T08:00:00.123Z");
  EXPECT_EQ(j["places"][0]["total"]["car"]["in"], 41);
}

TEST(Counts, BadDocumentsSayWhatIsWrong) {
  const auto error = [](const std::string& text) {
    try {
      counts_from_json(nlohmann::json::parse(text));
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("[]").find("places"), std::string::npos);
  EXPECT_NE(
      error(
          R"({"places": [{"camera": "main", "name": "x", "kind": "circle", "since": "2027-01-15T08:00:00.123Z"}]})")
          .find("places[0].kind"),
      std::string::npos);
  EXPECT_NE(
      error(
          R"({"places": [{"camera": "main", "name": "x", "kind": "line", "since": "yesterday"}]})")
          .find("places[0].since"),
      std::string::npos);
  EXPECT_NE(
      error(
          R"({"places": [{"camera": "main", "name": "x", "kind": "line", "since": "2027-01-15T08:00:00.123Z", "total": {"car": {"in": "many", "out": 0}}}]})")
          .find("places[0].total.car"),
      std::string::npos);
  EXPECT_NE(
      error(
          R"({"places": [{"camera": "main", "name": "x", "kind": "line", "since": "2027-01-15T08:00:00.123Z", "hours": {"monday": {}}}]})")
          .find("places[0].hours.monday"),
      std::string::npos);
  EXPECT_NE(error(R"({"places": [{"camera": "main", "kind": "line"}]})").find("places[0].name"),
            std::string::npos);
}

TEST(Counts, HourKeysReadBack) {
  // 2027-01-15T09:00+01:00 is 08:00 UTC; -05:30 is behind UTC.
  const auto t = std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));
  const auto hour = t - std::chrono::seconds(1'800'000'000 % 3600);
  EXPECT_EQ(hour_start("2027-01-15T09:00+01:00"), hour);
  EXPECT_EQ(hour_start("2027-01-15T08:00+00:00"), hour);
  EXPECT_EQ(hour_start("2027-01-15T02:00-06:00"), hour);
  EXPECT_EQ(hour_start("2027-01-15T02:30-05:30"), std::nullopt) << "an hour starts at :00";
  EXPECT_EQ(hour_start("2027-01-15T02:00-05:30"), hour - std::chrono::minutes(30));
  for (const char* bad :
       {"", "2027-01-15T09:00", "2027-01-15T09:00+01:00 ", "2027-13-15T09:00+01:00",
        "2027-01-15T24:00+01:00", "2027-01-15T09:00*01:00", "monday"}) {
    EXPECT_EQ(hour_start(bad), std::nullopt) << bad;
  }
  // What local_hour() writes, in whatever zone the process runs.
  EXPECT_EQ(hour_start(local_hour(t)), hour);
}

TEST(Counts, LocalHourSaysItsOffset) {
  // The process's zone decides local time: Paris in January is UTC+1.
  const char* old = std::getenv("TZ");
  const std::string saved = old ? old : "";
  setenv("TZ", "Europe/Paris", 1);
  tzset();
  const auto t = std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));
  EXPECT_EQ(local_hour(t), "2027-01-15T09:00+01:00");
  setenv("TZ", "UTC", 1);
  tzset();
  EXPECT_EQ(local_hour(t), "2027-01-15T08:00+00:00");
  if (old) {
    setenv("TZ", saved.c_str(), 1);
  } else {
    unsetenv("TZ");
  }
  tzset();
}

}  // namespace
}  // namespace yolo::tracking
