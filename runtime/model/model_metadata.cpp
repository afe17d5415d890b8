// SPDX-License-Identifier: Apache-2.0
#include "runtime/model/model_metadata.h"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cstdint>
#include <utility>

#include "runtime/model/model_error.h"

namespace yolo::runtime {

namespace {

// A Python literal as str(dict) / str(list) prints it: enough of the grammar for what Ultralytics
// writes (dicts, lists, tuples, strings, numbers, True/False/None).
struct Literal {
  enum class Kind { kNone, kBool, kInt, kFloat, kString, kList, kDict };
  Kind kind = Kind::kNone;
  bool boolean = false;
  long long integer = 0;
  std::string text;
  std::vector<Literal> items;
  std::vector<std::pair<Literal, Literal>> entries;
};

// Shows the value around `pos` (where parsing stopped), so a long names dict is not cut off
// before the fault.
[[noreturn]] void malformed(const std::string& key, const std::string& text,
                            const std::string& what, std::size_t pos = 0) {
  constexpr std::size_t kContext = 30;
  const std::size_t begin = pos > kContext ? pos - kContext : 0;
  const std::size_t end = std::min(text.size(), pos + kContext);
  const std::string shown =
      (begin > 0 ? "..." : "") + text.substr(begin, end - begin) + (end < text.size() ? "..." : "");
  throw ModelError("model metadata '" + key + "' is malformed: " + what + " (value: \"" + shown +
                   "\"); re-export the model or correct that metadata entry");
}

class LiteralParser {
 public:
  LiteralParser(const std::string& key, const std::string& text) : key_(key), text_(text) {}

  Literal parse_whole() {
    Literal value = parse_value(0);
    skip_space();
    if (pos_ != text_.size()) fail("unexpected text after the value");
    return value;
  }

 private:
  // Deep nesting only comes from garbage; the limit keeps recursion off the stack's edge.
  static constexpr int kMaxDepth = 16;

  [[noreturn]] void fail(const std::string& what) const {
    malformed(key_, text_, what + " at character " + std::to_string(pos_ + 1), pos_);
  }

  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool eat(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  Literal parse_value(int depth) {
    if (depth > kMaxDepth) fail("nested too deeply");
    skip_space();
    if (pos_ >= text_.size()) fail("value expected but the text ends");
    const char c = text_[pos_];
    if (c == '{') return parse_dict(depth);
    if (c == '[') return parse_sequence(depth, ']');
    if (c == '(') return parse_sequence(depth, ')');
    if (c == '\'' || c == '"') return parse_string();
    if (c == '-' || c == '+' || (c >= '0' && c <= '9')) return parse_number();
    return parse_word();
  }

  Literal parse_dict(int depth) {
    ++pos_;
    Literal dict;
    dict.kind = Literal::Kind::kDict;
    while (!eat('}')) {
      Literal key = parse_value(depth + 1);
      if (!eat(':')) fail("':' expected after a dict key");
      Literal value = parse_value(depth + 1);
      dict.entries.emplace_back(std::move(key), std::move(value));
      if (eat('}')) break;
      if (!eat(',')) fail("',' or '}' expected in a dict");
    }
    return dict;
  }

  Literal parse_sequence(int depth, char close) {
    ++pos_;
    Literal list;
    list.kind = Literal::Kind::kList;
    while (!eat(close)) {
      list.items.push_back(parse_value(depth + 1));
      if (eat(close)) break;
      if (!eat(',')) fail(std::string("',' or '") + close + "' expected in a list");
    }
    return list;
  }

  static void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  // \xHH, \uHHHH, \UHHHHHHHH: Python's repr writes non-printable characters this way.
  std::uint32_t parse_hex_escape(int digits) {
    if (pos_ + digits > text_.size()) fail("incomplete \\x/\\u escape");
    std::uint32_t cp = 0;
    const char* first = text_.data() + pos_;
    const auto [end, ec] = std::from_chars(first, first + digits, cp, 16);
    if (ec != std::errc() || end != first + digits) fail("bad hexadecimal escape");
    if (cp > 0x10FFFF) fail("escape beyond the last Unicode code point");
    pos_ += digits;
    return cp;
  }

  Literal parse_string() {
    const char quote = text_[pos_++];
    Literal str;
    str.kind = Literal::Kind::kString;
    while (true) {
      if (pos_ >= text_.size()) fail(std::string("string not closed (missing ") + quote + ")");
      const char c = text_[pos_++];
      if (c == quote) break;
      // repr() escapes control characters; a raw one means the value is not a Python literal.
      if (static_cast<unsigned char>(c) < 0x20) fail("control character inside a string");
      if (c != '\\') {
        str.text += c;
        continue;
      }
      if (pos_ >= text_.size()) fail("string ends in a backslash");
      const char e = text_[pos_++];
      switch (e) {
        case 'n':
          str.text += '\n';
          break;
        case 't':
          str.text += '\t';
          break;
        case 'r':
          str.text += '\r';
          break;
        case '\\':
        case '\'':
        case '"':
          str.text += e;
          break;
        case 'x':
          append_utf8(str.text, parse_hex_escape(2));
          break;
        case 'u':
          append_utf8(str.text, parse_hex_escape(4));
          break;
        case 'U':
          append_utf8(str.text, parse_hex_escape(8));
          break;
        default:
          // Python keeps unknown escapes as written.
          str.text += '\\';
          str.text += e;
      }
    }
    return str;
  }

  Literal parse_number() {
    const std::size_t start = pos_;
    if (text_[pos_] == '-' || text_[pos_] == '+') ++pos_;
    bool is_float = false;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c >= '0' && c <= '9') {
        ++pos_;
      } else if (c == '.' || c == 'e' || c == 'E' ||
                 ((c == '-' || c == '+') && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E'))) {
        is_float = true;
        ++pos_;
      } else {
        break;
      }
    }
    Literal num;
    const char* first = text_.data() + start + (text_[start] == '+' ? 1 : 0);
    const char* last = text_.data() + pos_;
    if (is_float) {
      double value = 0;
      const auto [end, ec] = std::from_chars(first, last, value);
      if (ec != std::errc() || end != last) fail("bad number");
      num.kind = Literal::Kind::kFloat;
    } else {
      const auto [end, ec] = std::from_chars(first, last, num.integer);
      if (ec == std::errc::result_out_of_range) fail("integer out of range");
      if (ec != std::errc() || end != last) fail("bad number");
      num.kind = Literal::Kind::kInt;
    }
    return num;
  }

  Literal parse_word() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && ((text_[pos_] >= 'a' && text_[pos_] <= 'z') ||
                                   (text_[pos_] >= 'A' && text_[pos_] <= 'Z'))) {
      ++pos_;
    }
    const std::string word = text_.substr(start, pos_ - start);
    Literal value;
    if (word == "True" || word == "False") {
      value.kind = Literal::Kind::kBool;
      value.boolean = word == "True";
    } else if (word == "None") {
      value.kind = Literal::Kind::kNone;
    } else {
      pos_ = start;
      fail("unexpected character '" + text_.substr(start, 1) + "'");
    }
    return value;
  }

  const std::string& key_;
  const std::string& text_;
  std::size_t pos_ = 0;
};

Literal parse_literal(const std::string& key, const std::string& text) {
  return LiteralParser(key, text).parse_whole();
}

int to_int(const std::string& key, const std::string& text, const Literal& value) {
  if (value.kind != Literal::Kind::kInt) malformed(key, text, "an integer was expected");
  if (value.integer < INT_MIN || value.integer > INT_MAX) {
    malformed(key, text, "integer out of range");
  }
  return static_cast<int>(value.integer);
}

}  // namespace

std::vector<std::string> parse_names(const std::string& key, const std::string& text) {
  const Literal value = parse_literal(key, text);
  std::vector<std::string> names;
  if (value.kind == Literal::Kind::kList) {
    for (const Literal& item : value.items) {
      if (item.kind != Literal::Kind::kString) malformed(key, text, "class names must be strings");
      names.push_back(item.text);
    }
    return names;
  }
  if (value.kind != Literal::Kind::kDict) {
    malformed(key, text, "expected a dict {index: 'name'} or a list ['name', ...]");
  }
  // Indices must be exactly 0..n-1: a gap would shift every later class id.
  names.resize(value.entries.size());
  std::vector<bool> seen(value.entries.size(), false);
  for (const auto& [index, name] : value.entries) {
    const int i = to_int(key, text, index);
    if (i < 0 || static_cast<std::size_t>(i) >= names.size()) {
      malformed(key, text,
                "class index " + std::to_string(i) + " outside 0.." +
                    std::to_string(names.size() - 1) + " (indices must run from 0 without gaps)");
    }
    if (seen[i]) malformed(key, text, "class index " + std::to_string(i) + " appears twice");
    if (name.kind != Literal::Kind::kString) malformed(key, text, "class names must be strings");
    seen[i] = true;
    names[i] = name.text;
  }
  return names;
}

std::vector<int> parse_int_list(const std::string& key, const std::string& text) {
  const Literal value = parse_literal(key, text);
  std::vector<int> ints;
  if (value.kind == Literal::Kind::kInt) {
    const int n = to_int(key, text, value);
    ints = {n, n};
  } else if (value.kind == Literal::Kind::kList && !value.items.empty()) {
    for (const Literal& item : value.items) ints.push_back(to_int(key, text, item));
  } else {
    malformed(key, text, "expected a list of integers such as [640, 640]");
  }
  for (int n : ints) {
    if (n <= 0) malformed(key, text, "sizes must be positive");
  }
  return ints;
}

int parse_int(const std::string& key, const std::string& text) {
  return to_int(key, text, parse_literal(key, text));
}

bool parse_bool(const std::string& key, const std::string& text) {
  const Literal value = parse_literal(key, text);
  if (value.kind != Literal::Kind::kBool) malformed(key, text, "expected True or False");
  return value.boolean;
}

ModelMetadata read_metadata(const onnx::ModelProto& model, std::vector<std::string>& problems) {
  ModelMetadata meta;
  meta.producer = model.producer_name();
  meta.producer_version = model.producer_version();
  for (const auto& opset : model.opset_import()) {
    if (opset.domain().empty() || opset.domain() == "ai.onnx") {
      meta.opset = static_cast<int>(opset.version());
    }
  }
  for (const auto& prop : model.metadata_props()) meta.raw[prop.key()] = prop.value();

  const auto text_of = [&](const char* key) {
    const auto it = meta.raw.find(key);
    return it == meta.raw.end() ? std::string() : it->second;
  };
  meta.description = text_of("description");
  meta.author = text_of("author");
  meta.version = text_of("version");
  meta.license = text_of("license");
  meta.task = text_of("task");

  // Each typed key parses on its own, so one bad entry does not hide the others.
  const auto parse_key = [&](const char* key, const auto& parse) {
    const auto it = meta.raw.find(key);
    if (it == meta.raw.end()) return;
    try {
      parse(it->first, it->second);
    } catch (const ModelError& e) {
      problems.emplace_back(e.what());
    }
  };
  parse_key("names",
            [&](const std::string& k, const std::string& v) { meta.names = parse_names(k, v); });
  parse_key("imgsz",
            [&](const std::string& k, const std::string& v) { meta.imgsz = parse_int_list(k, v); });
  parse_key("stride", [&](const std::string& k, const std::string& v) {
    const int stride = parse_int(k, v);
    if (stride <= 0) malformed(k, v, "the stride must be positive");
    meta.stride = stride;
  });
  parse_key("end2end",
            [&](const std::string& k, const std::string& v) { meta.end2end = parse_bool(k, v); });
  return meta;
}

ModelMetadata read_metadata(const onnx::ModelProto& model) {
  std::vector<std::string> problems;
  ModelMetadata meta = read_metadata(model, problems);
  if (!problems.empty()) throw ModelError(problems.front());
  return meta;
}

}  // namespace yolo::runtime
