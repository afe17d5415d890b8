// SPDX-License-Identifier: Apache-2.0
#pragma once

// What a section's file (config/sections/*.cpp) writes its rows with: defaults as Values, and the
// bindings of a row to its member of Config (SectionAdder, bind) or of a record's struct
// (bind_records, bind_list_section). Internal to config/.

#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "config/schema.h"

namespace yolo::config::rows {

inline Value text(const char* s) {
  return std::string(s);
}
inline Value whole(std::int64_t n) {
  return n;
}
inline Value none() {
  return std::vector<std::int64_t>{};
}
inline Value no_records() {
  return std::vector<Record>{};
}

inline void assign(bool& out, const Value& v) {
  out = std::get<bool>(v);
}
inline void assign(int& out, const Value& v) {
  out = static_cast<int>(std::get<std::int64_t>(v));
}
inline void assign(std::int64_t& out, const Value& v) {
  out = std::get<std::int64_t>(v);
}
inline void assign(double& out, const Value& v) {
  out = std::get<double>(v);
}
inline void assign(std::string& out, const Value& v) {
  out = std::get<std::string>(v);
}
inline void assign(std::filesystem::path& out, const Value& v) {
  out = std::get<std::string>(v);
}
inline void assign(runtime::InputSize& out, const Value& v) {
  out = to_image_size(v);
}
inline void assign(std::vector<int>& out, const Value& v) {
  const auto& items = std::get<std::vector<std::int64_t>>(v);
  out.assign(items.begin(), items.end());
}

inline void assign(FramePoint& out, const Value& v) {
  const auto& p = std::get<std::vector<double>>(v);
  out = {p.at(0), p.at(1)};
}
inline void assign(std::vector<FramePoint>& out, const Value& v) {
  out.clear();
  for (const auto& p : std::get<std::vector<std::vector<double>>>(v))
    out.push_back({p.at(0), p.at(1)});
}
inline void assign(std::vector<std::string>& out, const Value& v) {
  out = std::get<std::vector<std::string>>(v);
}

inline Value as_value(bool v) {
  return v;
}
inline Value as_value(int v) {
  return std::int64_t{v};
}
inline Value as_value(std::int64_t v) {
  return v;
}
inline Value as_value(double v) {
  return v;
}
inline Value as_value(const std::string& v) {
  return v;
}
inline Value as_value(const std::filesystem::path& v) {
  return v.string();
}
inline Value as_value(const runtime::InputSize& v) {
  switch (v.mode) {
    case runtime::InputSize::Mode::kModel:
      return std::int64_t{0};
    case runtime::InputSize::Mode::kFixed:
      if (v.height == v.width) return std::int64_t{v.height};
      return std::vector<std::int64_t>{v.height, v.width};
    case runtime::InputSize::Mode::kAuto:
      return std::string("auto");
  }
  return std::int64_t{0};
}
inline Value as_value(const FramePoint& p) {
  return std::vector<double>{p.x, p.y};
}
inline Value as_value(const std::vector<FramePoint>& points) {
  std::vector<std::vector<double>> out;
  for (const FramePoint& p : points) out.push_back({p.x, p.y});
  return out;
}
inline Value as_value(const std::vector<std::string>& v) {
  return v;
}
inline Value no_names() {
  return std::vector<std::string>{};
}
inline Value no_points() {
  return std::vector<std::vector<double>>{};
}

// A list of enums, held by name (a kNameList with choices in the enum's order).
template <class T>
struct is_enum_list : std::false_type {};
template <class E>
struct is_enum_list<std::vector<E>> : std::is_enum<E> {};

template <class E>
void assign_enums(std::vector<E>& out, const Value& v,
                  const std::vector<std::string_view>& choices) {
  out.clear();
  for (const std::string& name : std::get<std::vector<std::string>>(v)) {
    const auto it = std::find(choices.begin(), choices.end(), name);
    if (it == choices.end()) throw std::invalid_argument("unchecked enum value stored");
    out.push_back(static_cast<E>(it - choices.begin()));
  }
}
template <class E>
Value enums_value(const std::vector<E>& in, const std::vector<std::string_view>& choices) {
  std::vector<std::string> names;
  for (const E e : in) names.emplace_back(choices.at(static_cast<std::size_t>(e)));
  return names;
}

inline Value as_value(const std::vector<int>& v) {
  return std::vector<std::int64_t>(v.begin(), v.end());
}

// Connects a table row to its member of Config, e.g. &Config::model and &ModelConfig::path.
template <class S, class T>
inline void bind(FieldSpec& field, S Config::*section, T S::*member) {
  if constexpr (std::is_enum_v<T>) {
    // Enums are stored by position in the row's choices, which follow the C++ enum's order.
    field.store = [section, member, choices = field.choices](Config& c, const Value& v) {
      const auto it = std::find(choices.begin(), choices.end(), std::get<std::string>(v));
      if (it == choices.end()) throw std::invalid_argument("unchecked enum value stored");
      c.*section.*member = static_cast<T>(it - choices.begin());
    };
    field.fetch = [section, member, choices = field.choices](const Config& c) {
      return Value(std::string(choices.at(static_cast<std::size_t>(c.*section.*member))));
    };
  } else if constexpr (is_enum_list<T>::value) {
    field.store = [section, member, choices = field.choices](Config& c, const Value& v) {
      assign_enums(c.*section.*member, v, choices);
    };
    field.fetch = [section, member, choices = field.choices](const Config& c) {
      return enums_value(c.*section.*member, choices);
    };
  } else {
    field.store = [section, member](Config& c, const Value& v) { assign(c.*section.*member, v); };
    field.fetch = [section, member](const Config& c) { return as_value(c.*section.*member); };
  }
}

// Ties one member of a record field to its member of the record's struct R.
template <class R>
struct MemberBinding {
  std::string name;
  Value default_value;
  std::function<void(R&, const Value&)> store;
  std::function<Value(const R&)> fetch;
};

template <class R, class T>
MemberBinding<R> bind_member(const FieldSpec& spec, T R::*member) {
  MemberBinding<R> b{std::string(spec.name), spec.default_value, {}, {}};
  if constexpr (std::is_enum_v<T>) {
    b.store = [member, choices = spec.choices](R& r, const Value& v) {
      const auto it = std::find(choices.begin(), choices.end(), std::get<std::string>(v));
      if (it == choices.end()) throw std::invalid_argument("unchecked enum value stored");
      r.*member = static_cast<T>(it - choices.begin());
    };
    b.fetch = [member, choices = spec.choices](const R& r) {
      return Value(std::string(choices.at(static_cast<std::size_t>(r.*member))));
    };
  } else {
    b.store = [member](R& r, const Value& v) { assign(r.*member, v); };
    b.fetch = [member](const R& r) { return as_value(r.*member); };
  }
  return b;
}

// A struct from a record; a member the record lacks (made by hand, not by the loader) keeps its
// default.
template <class R>
R from_record(const std::vector<MemberBinding<R>>& bindings, const Record& record) {
  R r{};
  for (const MemberBinding<R>& b : bindings) {
    const auto it = record.values.find(b.name);
    b.store(r, it == record.values.end() ? b.default_value : it->second);
  }
  return r;
}

template <class R>
Record to_record(const std::vector<MemberBinding<R>>& bindings, const R& r) {
  Record record;
  for (const MemberBinding<R>& b : bindings) record.values.emplace(b.name, b.fetch(r));
  return record;
}

// Connects a kRecordList row to a list of structs, or a kRecord row to an optional struct, with
// one member pointer per row of field.members, in the same order.
template <class S, class L, class R, class... T>
inline void bind_records(FieldSpec& field, S Config::*section, L S::*list, T R::*... members) {
  if (field.members.size() != sizeof...(T)) {
    throw std::logic_error("record " + field.path() + ": members and bindings differ");
  }
  std::size_t i = 0;
  const std::vector<MemberBinding<R>> b = {bind_member(field.members[i++], members)...};
  field.store = [section, list, b](Config& c, const Value& v) {
    L& out = c.*section.*list;
    out = L{};
    for (const Record& record : std::get<std::vector<Record>>(v)) {
      if constexpr (std::is_same_v<L, std::optional<R>>) {
        out = from_record(b, record);
      } else {
        out.push_back(from_record(b, record));
      }
    }
  };
  field.fetch = [section, list, b](const Config& c) {
    std::vector<Record> records;
    const L& in = c.*section.*list;
    if constexpr (std::is_same_v<L, std::optional<R>>) {
      if (in) records.push_back(to_record(b, *in));
    } else {
      for (const R& r : in) records.push_back(to_record(b, r));
    }
    return Value(std::move(records));
  };
}

// Connects a list section's one row (zones, lines) to its list in Config, with one member pointer
// per row of field.members, in the same order.
template <class R, class... T>
void bind_list_section(FieldSpec& field, std::vector<R> Config::*list, T R::*... members) {
  if (field.members.size() != sizeof...(T)) {
    throw std::logic_error("list section " + field.path() + ": members and bindings differ");
  }
  std::size_t i = 0;
  const std::vector<MemberBinding<R>> b = {bind_member(field.members[i++], members)...};
  field.store = [list, b](Config& c, const Value& v) {
    (c.*list).clear();
    for (const Record& record : std::get<std::vector<Record>>(v)) {
      (c.*list).push_back(from_record(b, record));
    }
  };
  field.fetch = [list, b](const Config& c) {
    std::vector<Record> records;
    for (const R& r : c.*list) records.push_back(to_record(b, r));
    return Value(std::move(records));
  };
}

// Adds one section's rows to the table, each in the section and bound to its member of the
// section's struct S, so that a row names neither: add({.name = "uri", ...}, &SourceConfig::uri).
template <class S>
struct SectionAdder {
  std::vector<FieldSpec>& rows;
  std::string_view section;
  S Config::*member;

  template <class T>
  void operator()(FieldSpec field, T S::*field_member) const {
    field.section = section;
    bind(field, member, field_member);
    rows.push_back(std::move(field));
  }

  // A kRecord or kRecordList row: one member pointer of the record's struct per row of
  // field.members, in the same order.
  template <class L, class R, class... T>
  void records(FieldSpec field, L S::*list, T R::*... members) const {
    field.section = section;
    bind_records(field, member, list, members...);
    rows.push_back(std::move(field));
  }
};

// A rule of text rows that must not be empty.
inline std::string require_text(const Value& v) {
  return std::get<std::string>(v).empty() ? "is empty: set a value" : "";
}

}  // namespace yolo::config::rows
