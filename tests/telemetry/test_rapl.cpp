// SPDX-License-Identifier: Apache-2.0
#include "telemetry/rapl.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/support/temp_folder.h"
#include "tests/telemetry/without_file_override.h"

namespace yolo::telemetry {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using yolo::test::TempFolder;

constexpr std::int64_t kPackageRange = 262143328850;
const std::chrono::steady_clock::time_point kStart{};

// A laptop's powercap tree: package-0 with its core and dram subzones, and psys.
void write_domains(const TempFolder& folder, std::int64_t package_uj, std::int64_t dram_uj) {
  const auto zone = [&](const std::string& id, const std::string& name, std::int64_t uj,
                        std::int64_t range) {
    const fs::path dir = fs::path("sys/class/powercap") / id;
    folder.write(dir / "name", name + "\n");
    folder.write(dir / "energy_uj", std::to_string(uj) + "\n");
    folder.write(dir / "max_energy_range_uj", std::to_string(range) + "\n");
  };
  zone("intel-rapl:0", "package-0", package_uj, kPackageRange);
  zone("intel-rapl:0:0", "core", 1000, kPackageRange);
  zone("intel-rapl:0:1", "dram", dram_uj, 65712999613);
  zone("intel-rapl:1", "psys", 5000, kPackageRange);
}

// `source` read at `t` counted `joules` since its previous read, `watts` on average.
void expect_counted(PowerSource& source, std::chrono::steady_clock::time_point t, double joules,
                    double watts) {
  const auto m = source.read(t);
  ASSERT_TRUE(m) << source.label();
  ASSERT_TRUE(m->energy_j) << source.label();
  EXPECT_DOUBLE_EQ(*m->energy_j, joules) << source.label();
  EXPECT_DOUBLE_EQ(m->watts, watts) << source.label();
}

TEST(Rapl, PackageFirstAndPowerFromTheCounters) {
  TempFolder folder;
  write_domains(folder, 10'000'000, 5'000'000);
  RaplDomains domains = find_rapl_domains(folder.path() / "sys");
  EXPECT_TRUE(domains.problem.empty()) << domains.problem;
  ASSERT_EQ(domains.sources.size(), 4u);
  EXPECT_EQ(domains.packages, 1u);
  EXPECT_EQ(domains.sources[0]->label(), "rapl package-0");
  EXPECT_EQ(domains.sources[1]->label(), "rapl core");
  EXPECT_EQ(domains.sources[2]->label(), "rapl dram");
  EXPECT_EQ(domains.sources[3]->label(), "rapl psys");

  auto& package = *domains.sources[0];
  auto& dram = *domains.sources[2];
  // The first read only sets the starting point.
  EXPECT_FALSE(package.read(kStart));
  EXPECT_FALSE(dram.read(kStart));

  write_domains(folder, 16'000'000, 5'500'000);
  expect_counted(package, kStart + 2s, 6.0, 3.0);
  expect_counted(dram, kStart + 2s, 0.5, 0.25);
}

TEST(Rapl, CounterWrapAround) {
  TempFolder folder;
  write_domains(folder, kPackageRange - 1'000'000, 0);
  RaplDomains domains = find_rapl_domains(folder.path() / "sys");
  auto& package = *domains.sources[0];
  EXPECT_FALSE(package.read(kStart));
  // 1 J up to the wrap, then 2 J past 0.
  write_domains(folder, 2'000'000, 0);
  expect_counted(package, kStart + 1s, 3.0, 3.0);
}

TEST(Rapl, RootOnlyCountersAreLeftOutWithTheReason) {
  TempFolder folder;
  write_domains(folder, 1, 1);
  for (const char* zone : {"intel-rapl:0", "intel-rapl:0:0", "intel-rapl:0:1", "intel-rapl:1"}) {
    fs::permissions(folder.path() / "sys/class/powercap" / zone / "energy_uj", fs::perms::none);
  }
  test::WithoutFileOverride as_a_user;
  const RaplDomains domains = find_rapl_domains(folder.path() / "sys");
  EXPECT_TRUE(domains.sources.empty());
  EXPECT_EQ(domains.packages, 0u);
  EXPECT_NE(domains.problem.find("Permission denied"), std::string::npos) << domains.problem;
  EXPECT_NE(domains.problem.find("CVE-2020-8694"), std::string::npos) << domains.problem;
  EXPECT_NE(domains.problem.find("udev rule"), std::string::npos) << domains.problem;
}

TEST(Rapl, NoPowercapNoDomains) {
  TempFolder folder;
  const RaplDomains domains = find_rapl_domains(folder.path() / "sys");
  EXPECT_TRUE(domains.sources.empty());
  EXPECT_TRUE(domains.problem.empty());
}

}  // namespace
}  // namespace yolo::telemetry
