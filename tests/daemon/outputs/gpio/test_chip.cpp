// SPDX-License-Identifier: Apache-2.0
#include "daemon/outputs/gpio/chip.h"

#include <gtest/gtest.h>

#include <cerrno>

#include "tests/daemon/outputs/gpio/fake_chip.h"
#include "tests/support/temp_folder.h"

namespace yolo::daemon::gpio {
namespace {

using test::FakeGpio;

// What open_chip threw for `spec`.
GpioError open_failure(Backend& backend, std::string_view spec) {
  try {
    open_chip(backend, spec);
  } catch (const GpioError& e) {
    return e;
  }
  ADD_FAILURE() << "opened '" << spec << "'";
  return GpioError(ErrorKind::kOther, "");
}

// A Pi 5 on a newer kernel: the header's chip is gpiochip0, with the RP1's label.
FakeGpio pi5() {
  FakeGpio gpio;
  gpio.add_chip("gpiochip0", "pinctrl-rp1", 54);
  gpio.add_chip("gpiochip10", "gpio-brcmstb@107d508500", 32);
  return gpio;
}

TEST(OpenChip, ByNamePathNumberOrLabel) {
  FakeGpio gpio = pi5();
  EXPECT_EQ(open_chip(gpio, "gpiochip10")->info().label, "gpio-brcmstb@107d508500");
  EXPECT_EQ(open_chip(gpio, "/dev/gpiochip0")->info().label, "pinctrl-rp1");
  EXPECT_EQ(open_chip(gpio, "10")->info().name, "gpiochip10");
  const std::shared_ptr<Chip> chip = open_chip(gpio, "pinctrl-rp1");
  EXPECT_EQ(chip->info().name, "gpiochip0");
  EXPECT_EQ(chip->info().path, "/dev/gpiochip0");
  EXPECT_EQ(chip->info().lines, 54u);
}

TEST(OpenChip, AMissingChipNamesTheChipsThatAreThere) {
  FakeGpio gpio = pi5();
  const GpioError e = open_failure(gpio, "gpiochip4");
  EXPECT_EQ(e.kind(), ErrorKind::kNoChip);
  EXPECT_STREQ(e.what(),
               "no GPIO chip 'gpiochip4'; the chips here are gpiochip0 (pinctrl-rp1, 54 lines), "
               "gpiochip10 (gpio-brcmstb@107d508500, 32 lines): name one, its path or its label");
  EXPECT_EQ(open_failure(gpio, "pinctrl-bcm2711").kind(), ErrorKind::kNoChip);
  EXPECT_NE(std::string(open_failure(gpio, "3").what()).find("no GPIO chip number 3"),
            std::string::npos);
  const GpioError path = open_failure(gpio, "/dev/gpiochip4");
  EXPECT_EQ(path.kind(), ErrorKind::kNoChip);
  EXPECT_NE(std::string(path.what()).find("cannot open /dev/gpiochip4"), std::string::npos);
  EXPECT_EQ(open_failure(gpio, "").kind(), ErrorKind::kNoChip);
}

TEST(OpenChip, NoChipsAtAllSaysSo) {
  FakeGpio none;
  const GpioError e = open_failure(none, "gpiochip0");
  EXPECT_NE(std::string(e.what()).find("there is none here"), std::string::npos) << e.what();
}

TEST(OpenChip, ALabelOnAChipThatWillNotOpenSaysWhy) {
  FakeGpio gpio = pi5();
  gpio.deny("gpiochip0");
  const GpioError e = open_failure(gpio, "pinctrl-rp1");
  EXPECT_EQ(e.kind(), ErrorKind::kNoChip);
  EXPECT_NE(std::string(e.what()).find("/dev/gpiochip0: cannot open /dev/gpiochip0: Permission "
                                       "denied"),
            std::string::npos)
      << e.what();
  EXPECT_EQ(open_failure(gpio, "gpiochip0").kind(), ErrorKind::kPermission);
}

TEST(RequestErrors, SayWhatWasWrongAndWhatToDo) {
  const ChipInfo chip{"gpiochip0", "pinctrl-bcm2711", "/dev/gpiochip0", 58};
  const GpioError busy = request_error(EBUSY, chip, 17, "buzzer.py");
  EXPECT_EQ(busy.kind(), ErrorKind::kBusy);
  EXPECT_STREQ(busy.what(),
               "line 17 of gpiochip0 is in use by 'buzzer.py' (gpioinfo gpiochip0 shows who holds "
               "it): free it, or choose another line");
  EXPECT_EQ(request_error(EACCES, chip, 17, "").kind(), ErrorKind::kPermission);
  EXPECT_EQ(request_error(ENXIO, chip, 17, "").kind(), ErrorKind::kUnsupported);
  EXPECT_EQ(request_error(ENOMEM, chip, 17, "").kind(), ErrorKind::kOther);
  try {
    check_offset(chip, 58);
    FAIL() << "offset 58 of 58 lines accepted";
  } catch (const GpioError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kNoLine);
    EXPECT_STREQ(e.what(),
                 "gpiochip0 (pinctrl-bcm2711) has lines 0 to 57, not 58: on a Pi, lines are BCM "
                 "GPIO numbers");
  }
  EXPECT_NO_THROW(check_offset(chip, 57));
}

TEST(GpiochipDevices, ListsOnlyCharacterDevicesInNumberOrder) {
  const yolo::test::TempFolder folder;
  // Plain files named like chips are not chips; /dev/null stands in for a character device.
  folder.write("gpiochip0", "");
  std::filesystem::create_symlink("/dev/null", folder.path() / "gpiochip10");
  std::filesystem::create_symlink("/dev/null", folder.path() / "gpiochip2");
  std::filesystem::create_symlink("/dev/null", folder.path() / "gpiochipX");
  EXPECT_EQ(gpiochip_devices(folder.path()),
            (std::vector<std::filesystem::path>{folder.path() / "gpiochip2",
                                                folder.path() / "gpiochip10"}));
  EXPECT_TRUE(gpiochip_devices(folder.path() / "missing").empty());
}

}  // namespace
}  // namespace yolo::daemon::gpio
