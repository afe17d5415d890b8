// SPDX-License-Identifier: Apache-2.0
#pragma once

// A strict reader of the Prometheus text exposition format 0.0.4, for tests of what GET /metrics
// serves: anything the format does not allow, or that Prometheus would refuse on ingestion
// (a series twice, a histogram without its +Inf bucket or with buckets that shrink), throws with
// the line and what is wrong.
#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace yolo::test {

using PromLabels = std::map<std::string, std::string>;

// One sample line: name{labels} value.
struct PromSample {
  std::string name;
  PromLabels labels;
  double value = 0;
};

// One metric family: its TYPE, its HELP and its samples in order.
struct PromFamily {
  std::string type = "untyped";
  std::optional<std::string> help;
  std::vector<PromSample> samples;
};

class PromText {
 public:
  static PromText parse(std::string_view text) {
    PromText p;
    p.read(text);
    return p;
  }

  const std::map<std::string, PromFamily>& families() const { return families_; }

  // The names samples are written with (a histogram's NAME_bucket, NAME_sum, NAME_count).
  std::set<std::string> sample_names() const {
    std::set<std::string> names;
    for (const auto& [family, f] : families_) {
      for (const auto& s : f.samples) names.insert(s.name);
    }
    return names;
  }

  // Every sample written as `name`.
  std::vector<PromSample> samples(const std::string& name) const {
    std::vector<PromSample> found;
    for (const auto& [family, f] : families_) {
      for (const auto& s : f.samples) {
        if (s.name == name) found.push_back(s);
      }
    }
    return found;
  }

  // The value of the sample `name` with exactly `labels`.
  std::optional<double> value(const std::string& name, const PromLabels& labels = {}) const {
    for (const auto& s : samples(name)) {
      if (s.labels == labels) return s.value;
    }
    return std::nullopt;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("exposition line " + std::to_string(line_number_) + ": " + what +
                             "\n  " + line_);
  }

  static bool name_start(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
  }
  static bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }

  static bool valid_utf8(std::string_view text) {
    std::size_t i = 0;
    while (i < text.size()) {
      const auto c = static_cast<unsigned char>(text[i]);
      const std::size_t n = c < 0x80           ? 1
                            : (c >> 5) == 0x6  ? 2
                            : (c >> 4) == 0xE  ? 3
                            : (c >> 3) == 0x1E ? 4
                                               : 0;
      if (n == 0 || i + n > text.size()) return false;
      for (std::size_t k = 1; k < n; ++k) {
        if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return false;
      }
      i += n;
    }
    return true;
  }

  // A metric name at pos_ of line_.
  std::string metric_name() {
    if (pos_ >= line_.size() || !name_start(line_[pos_])) fail("expected a metric name");
    const std::size_t start = pos_;
    while (pos_ < line_.size() && name_char(line_[pos_])) ++pos_;
    return line_.substr(start, pos_ - start);
  }

  std::string label_name() {
    if (pos_ >= line_.size() || !name_start(line_[pos_]) || line_[pos_] == ':') {
      fail("expected a label name");
    }
    const std::size_t start = pos_;
    while (pos_ < line_.size() && name_char(line_[pos_]) && line_[pos_] != ':') ++pos_;
    const std::string name = line_.substr(start, pos_ - start);
    if (name.rfind("__", 0) == 0) fail("label name " + name + " is reserved (starts with __)");
    return name;
  }

  void expect(char c) {
    if (pos_ >= line_.size() || line_[pos_] != c) fail(std::string("expected '") + c + "'");
    ++pos_;
  }

  // A quoted label value; only \\, \" and \n are escapes.
  std::string label_value() {
    expect('"');
    std::string value;
    while (true) {
      if (pos_ >= line_.size()) fail("label value without its closing quote");
      const char c = line_[pos_++];
      if (c == '"') return value;
      if (c != '\\') {
        value += c;
        continue;
      }
      if (pos_ >= line_.size()) fail("label value ends in a backslash");
      const char e = line_[pos_++];
      if (e == '\\' || e == '"') {
        value += e;
      } else if (e == 'n') {
        value += '\n';
      } else {
        fail(std::string("invalid escape \\") + e + " in a label value");
      }
    }
  }

  static std::optional<double> number(const std::string& token) {
    if (token == "+Inf" || token == "Inf") return INFINITY;
    if (token == "-Inf") return -INFINITY;
    if (token == "NaN") return NAN;
    // Decimal only: strtod would also take hex, "infinity" and "nan(...)".
    for (char c : token) {
      if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) {
        return std::nullopt;
      }
    }
    if (token.empty()) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(token.c_str(), &end);
    if (end != token.c_str() + token.size()) return std::nullopt;
    return v;
  }

  void skip_blanks() {
    while (pos_ < line_.size() && (line_[pos_] == ' ' || line_[pos_] == '\t')) ++pos_;
  }

  std::string token() {
    skip_blanks();
    const std::size_t start = pos_;
    while (pos_ < line_.size() && line_[pos_] != ' ' && line_[pos_] != '\t') ++pos_;
    return line_.substr(start, pos_ - start);
  }

  // The family a sample named `name` belongs to: a declared family of that name, or a histogram
  // or summary whose samples it is, else an untyped family of its own.
  std::string family_of(const std::string& name) const {
    if (families_.contains(name)) return name;
    for (const std::string suffix : {"_bucket", "_sum", "_count"}) {
      if (name.size() <= suffix.size() || !name.ends_with(suffix)) continue;
      const std::string base = name.substr(0, name.size() - suffix.size());
      const auto found = families_.find(base);
      if (found == families_.end()) continue;
      if (found->second.type == "histogram") return base;
      if (found->second.type == "summary" && suffix != "_bucket") return base;
    }
    return name;
  }

  // Samples of a family come together: once another family started, it cannot come back.
  void enter(const std::string& family) {
    if (family == current_) return;
    if (finished_.contains(family)) fail("family " + family + " continues after another one");
    if (!current_.empty()) finished_.insert(current_);
    current_ = family;
  }

  void comment() {
    pos_ = 1;
    skip_blanks();
    const std::string keyword = token();
    if (keyword != "HELP" && keyword != "TYPE") return;  // any other comment is allowed
    skip_blanks();
    const std::string name = metric_name();
    if (pos_ < line_.size() && line_[pos_] != ' ' && line_[pos_] != '\t') {
      fail("bad metric name in " + keyword);
    }
    skip_blanks();
    enter(name);
    PromFamily& family = families_[name];
    if (keyword == "TYPE") {
      if (typed_.contains(name)) fail("second TYPE for " + name);
      if (!family.samples.empty()) fail("TYPE for " + name + " after its samples");
      const std::string type = line_.substr(pos_);
      if (type != "counter" && type != "gauge" && type != "histogram" && type != "summary" &&
          type != "untyped") {
        fail("unknown type '" + type + "'");
      }
      family.type = type;
      typed_.insert(name);
      return;
    }
    if (family.help) fail("second HELP for " + name);
    std::string help;
    for (std::size_t i = pos_; i < line_.size(); ++i) {
      if (line_[i] != '\\') {
        help += line_[i];
        continue;
      }
      if (++i >= line_.size()) fail("HELP ends in a backslash");
      if (line_[i] == '\\') {
        help += '\\';
      } else if (line_[i] == 'n') {
        help += '\n';
      } else {
        fail(std::string("invalid escape \\") + line_[i] + " in HELP");
      }
    }
    family.help = help;
  }

  void sample() {
    pos_ = 0;
    PromSample s;
    s.name = metric_name();
    const std::size_t after_name = pos_;
    skip_blanks();
    if (pos_ < line_.size() && line_[pos_] == '{') {
      ++pos_;
      skip_blanks();
      while (pos_ < line_.size() && line_[pos_] != '}') {
        const std::string name = label_name();
        skip_blanks();
        expect('=');
        skip_blanks();
        if (!s.labels.emplace(name, label_value()).second) fail("label " + name + " twice");
        skip_blanks();
        if (pos_ < line_.size() && line_[pos_] == ',') {
          ++pos_;
          skip_blanks();
        } else if (pos_ < line_.size() && line_[pos_] != '}') {
          fail("expected ',' or '}' after a label");
        }
      }
      expect('}');
      if (pos_ >= line_.size() || (line_[pos_] != ' ' && line_[pos_] != '\t')) {
        fail("expected a blank before the value");
      }
    } else if (pos_ == after_name) {
      fail("expected a blank before the value");
    }
    const auto value = number(token());
    if (!value) fail("the value is not a number");
    s.value = *value;
    if (const std::string timestamp = token(); !timestamp.empty()) {
      const bool integer = timestamp.find_first_not_of("-0123456789") == std::string::npos;
      if (!integer) fail("the timestamp is not an integer");
    }
    if (!token().empty()) fail("text after the timestamp");

    const std::string family_name = family_of(s.name);
    enter(family_name);
    PromFamily& family = families_[family_name];
    const std::string key = s.name + series_key(s.labels);
    if (!series_.insert(key).second) fail("series " + key + " twice");
    if (family.type == "counter" && !(s.value >= 0)) fail("a counter below 0");
    if (family.type == "histogram" && s.name.ends_with("_bucket") && !s.labels.contains("le")) {
      fail("a bucket without le");
    }
    family.samples.push_back(std::move(s));
  }

  static std::string series_key(const PromLabels& labels) {
    std::string key = "{";
    for (const auto& [name, value] : labels) key += name + "=\"" + value + "\",";
    return key + "}";
  }

  // Each histogram series: buckets that never shrink as le grows, a +Inf bucket equal to
  // _count, and a _sum.
  void check_histograms() const {
    for (const auto& [name, family] : families_) {
      if (family.type != "histogram") continue;
      std::map<std::string, std::map<double, double>> buckets;
      std::map<std::string, double> counts;
      std::set<std::string> sums;
      for (const auto& s : family.samples) {
        PromLabels series = s.labels;
        series.erase("le");
        const std::string key = series_key(series);
        if (s.name == name + "_bucket") {
          const auto le = number(s.labels.at("le"));
          if (!le) throw std::runtime_error(name + ": le=\"" + s.labels.at("le") + "\"");
          buckets[key][*le] = s.value;
        } else if (s.name == name + "_count") {
          counts[key] = s.value;
        } else if (s.name == name + "_sum") {
          sums.insert(key);
        } else {
          throw std::runtime_error("histogram " + name + " has a sample " + s.name);
        }
      }
      for (const auto& [key, series] : buckets) {
        const std::string where = "histogram " + name + key;
        double previous = 0;
        for (const auto& [le, count] : series) {
          if (count < previous) throw std::runtime_error(where + ": buckets are not cumulative");
          previous = count;
        }
        if (!series.contains(INFINITY)) throw std::runtime_error(where + " has no +Inf bucket");
        if (!counts.contains(key) || counts.at(key) != series.at(INFINITY)) {
          throw std::runtime_error(where + ": _count differs from the +Inf bucket");
        }
        if (!sums.contains(key)) throw std::runtime_error(where + " has no _sum");
      }
      if (counts.size() != buckets.size()) {
        throw std::runtime_error("histogram " + name + " has a _count without buckets");
      }
    }
  }

  void read(std::string_view text) {
    if (!valid_utf8(text)) throw std::runtime_error("the exposition is not valid UTF-8");
    if (!text.empty() && text.back() != '\n') {
      throw std::runtime_error("the exposition does not end with a newline");
    }
    std::size_t start = 0;
    while (start < text.size()) {
      const std::size_t end = text.find('\n', start);
      line_ = std::string(text.substr(start, end - start));
      ++line_number_;
      start = end + 1;
      if (line_.find('\r') != std::string::npos) fail("carriage return");
      if (line_.empty()) continue;
      if (line_[0] == '#') {
        comment();
      } else {
        sample();
      }
    }
    check_histograms();
  }

  std::map<std::string, PromFamily> families_;
  std::set<std::string> typed_;
  std::set<std::string> series_;
  std::set<std::string> finished_;
  std::string current_;
  std::string line_;
  std::size_t pos_ = 0;
  int line_number_ = 0;
};

}  // namespace yolo::test
