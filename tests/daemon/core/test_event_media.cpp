// SPDX-License-Identifier: Apache-2.0
// Where an event's files are kept (daemon/core/event_media.cpp): one folder under the state
// folder, names that sort by event id, and only those names read back as ids.
#include "daemon/core/event_media.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace yolo::daemon {
namespace {

namespace fs = std::filesystem;

TEST(EventMedia, EachEventsFilesAreNamedByItsZeroPaddedIdInTheEventsFolder) {
  const fs::path state = "/var/lib/yolo-edge";
  EXPECT_EQ(event_media_dir(state), fs::path("/var/lib/yolo-edge/events"));
  const EventMedia media = event_media(state, 42);
  EXPECT_EQ(media.snapshot, fs::path("/var/lib/yolo-edge/events/000000000042.jpg"));
  EXPECT_EQ(media.crop, fs::path("/var/lib/yolo-edge/events/000000000042-crop.jpg"));
  EXPECT_EQ(media.clip, fs::path("/var/lib/yolo-edge/events/000000000042.avi"));
  EXPECT_EQ(event_media(state, 0).snapshot.filename(), "000000000000.jpg");
  EXPECT_EQ(event_media(state, 999999999999).clip.filename(), "999999999999.avi");
}

TEST(EventMedia, NamesSortAsTheirIds) {
  const std::vector<std::int64_t> ids{1, 9, 10, 99, 100, 12345, 999999999999};
  std::vector<std::string> names;
  for (const std::int64_t id : ids) names.push_back(event_media("s", id).snapshot.filename());
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()))
      << "an id's digits are padded, so that a listing is oldest first";
}

TEST(EventMedia, EveryNameGivenReadsBackAsItsId) {
  for (const std::int64_t id :
       {std::int64_t{0}, std::int64_t{1}, std::int64_t{7310}, std::int64_t{999999999999}}) {
    const EventMedia media = event_media("/state", id);
    for (const fs::path& file : {media.snapshot, media.crop, media.clip}) {
      EXPECT_EQ(event_media_id(file.filename().string()), id) << file;
    }
  }
}

TEST(EventMedia, OtherNamesAreNoEventsFiles) {
  for (const std::string_view name : {
           "",
           "000000000042",       // the id alone
           "42.jpg",             // not padded
           "00000000042.jpg",    // one digit short
           "0000000000042.jpg",  // one digit too many
           "000000000042.png",   // another suffix
           "000000000042-crop.avi",
           "000000000042.jpg.tmp",  // a write not finished
           "00000000004x.jpg",
           "-00000000042.jpg",  // a negative id
           "+00000000042.jpg",
           " 00000000042.jpg",
           "counts.json",
           "events.json",
       }) {
    EXPECT_EQ(event_media_id(name), std::nullopt) << '"' << name << '"';
  }
}

TEST(EventMedia, AnIdTooLongForTwelveDigitsIsNotReadBackWrong) {
  // Ids past 12 digits give longer names; they are no names event_media_id() accepts, rather
  // than read back as another id.
  const EventMedia media = event_media("/state", 1234567890123);
  EXPECT_EQ(media.snapshot.filename(), "1234567890123.jpg");
  EXPECT_EQ(event_media_id(media.snapshot.filename().string()), std::nullopt);
}

}  // namespace
}  // namespace yolo::daemon
