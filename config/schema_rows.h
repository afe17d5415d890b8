// SPDX-License-Identifier: Apache-2.0
#pragma once

// What a section's file (config/sections/*.cpp) writes its rows with: one call a row, naming its
// key, its member, its default as a value of the member's C++ type, what else it has to say
// (Details) and its description, e.g.
//   add("conf", &DetectConfig::conf, 0.25, {.min = 0, .max = 1}, "Lowest score ...");
// The row's FieldType, its default as a Value, and the store and fetch between Value and the
// member all follow from the member's type, so a row states each fact once. Internal to config/.

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "config/schema.h"

namespace yolo::config::rows {

using Choices = std::vector<std::string_view>;

// What a row may say beyond its key, member, default and description; each part as in FieldSpec.
struct Details {
  double min = 0;
  double max = 0;
  Choices choices{};
  std::string (*rule)(const Value&) = nullptr;
  bool required = false;
};

// An enum's names (kThreadModeNames) as a row's choices.
template <std::size_t N>
Choices as_choices(const std::array<std::string_view, N>& names) {
  return {names.begin(), names.end()};
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
inline Value as_value(const std::vector<int>& v) {
  return std::vector<std::int64_t>(v.begin(), v.end());
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

// A list of enums, held by name (a kNameList with choices in the enum's order).
template <class T>
struct is_enum_list : std::false_type {};
template <class E>
struct is_enum_list<std::vector<E>> : std::is_enum<E> {};

template <class T>
inline constexpr bool kAlwaysFalse = false;

// The FieldType of a member of type T; records are rows of their own (records()).
template <class T>
constexpr FieldType field_type() {
  if constexpr (std::is_same_v<T, bool>) {
    return FieldType::kBool;
  } else if constexpr (std::is_same_v<T, int> || std::is_same_v<T, std::int64_t>) {
    return FieldType::kInt;
  } else if constexpr (std::is_same_v<T, double>) {
    return FieldType::kFloat;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return FieldType::kString;
  } else if constexpr (std::is_same_v<T, std::filesystem::path>) {
    return FieldType::kPath;
  } else if constexpr (std::is_enum_v<T>) {
    return FieldType::kEnum;
  } else if constexpr (std::is_same_v<T, std::vector<int>>) {
    return FieldType::kIntList;
  } else if constexpr (std::is_same_v<T, runtime::InputSize>) {
    return FieldType::kImageSize;
  } else if constexpr (std::is_same_v<T, FramePoint>) {
    return FieldType::kPoint;
  } else if constexpr (std::is_same_v<T, std::vector<FramePoint>>) {
    return FieldType::kPointList;
  } else if constexpr (std::is_same_v<T, std::vector<std::string>> || is_enum_list<T>::value) {
    return FieldType::kNameList;
  } else {
    static_assert(kAlwaysFalse<T>, "no FieldType holds a member of this type");
  }
}

// Enums are held by name: their position in the row's choices, which follow the enum's order.
inline std::size_t choice_index(const Choices& choices, const std::string& name) {
  const auto it = std::find(choices.begin(), choices.end(), name);
  if (it == choices.end()) throw std::invalid_argument("unchecked enum value stored");
  return static_cast<std::size_t>(it - choices.begin());
}

template <class T>
void from_value(T& out, const Value& v, const Choices& choices) {
  if constexpr (std::is_enum_v<T>) {
    out = static_cast<T>(choice_index(choices, std::get<std::string>(v)));
  } else if constexpr (is_enum_list<T>::value) {
    out.clear();
    for (const std::string& name : std::get<std::vector<std::string>>(v)) {
      out.push_back(static_cast<typename T::value_type>(choice_index(choices, name)));
    }
  } else {
    assign(out, v);
  }
}

template <class T>
Value to_value(const T& in, const Choices& choices) {
  if constexpr (std::is_enum_v<T>) {
    return std::string(choices.at(static_cast<std::size_t>(in)));
  } else if constexpr (is_enum_list<T>::value) {
    std::vector<std::string> names;
    for (const auto e : in) names.emplace_back(choices.at(static_cast<std::size_t>(e)));
    return names;
  } else {
    return as_value(in);
  }
}

// A row bound to its member of S: a section's struct, a record's, or Config itself (a list
// section). Its spec's store and fetch are left to whoever knows where S is in Config.
template <class S>
struct Member {
  FieldSpec spec;
  std::function<void(S&, const Value&)> store;
  std::function<Value(const S&)> fetch;
};

// The default is of the member's type (std::type_identity_t: deduced from the member alone, so
// 5 for a double is 5.0 and {} an empty list).
template <class S, class T>
Member<S> member(std::string_view name, T S::*m, const std::type_identity_t<T>& default_value,
                 Details d, std::string_view description) {
  Value fallback = to_value(default_value, d.choices);
  const Choices choices = d.choices;
  return {{.name = name,
           .type = field_type<T>(),
           .default_value = std::move(fallback),
           .min = d.min,
           .max = d.max,
           .choices = std::move(d.choices),
           .description = description,
           .rule = d.rule,
           .required = d.required},
          [m, choices](S& s, const Value& v) { from_value(s.*m, v, choices); },
          [m, choices](const S& s) { return to_value(s.*m, choices); }};
}
template <class S, class T>
Member<S> member(std::string_view name, T S::*m, const std::type_identity_t<T>& default_value,
                 std::string_view description) {
  return member(name, m, default_value, Details{}, description);
}

// A row of a struct nested in R (a camera's source) as a row of R: the nested struct's rows are
// written once and serve both where it is a section and where it is part of a record.
template <class R, class T>
Member<R> within(T R::*part, Member<T> m) {
  return {std::move(m.spec),
          [part, store = std::move(m.store)](R& r, const Value& v) { store(r.*part, v); },
          [part, fetch = std::move(m.fetch)](const R& r) { return fetch(r.*part); }};
}

// The struct of a record row's member: R of std::vector<R> (kRecordList) or std::optional<R>
// (kRecord).
template <class L>
struct record_of;
template <class R>
struct record_of<std::vector<R>> {
  using type = R;
  static constexpr FieldType kType = FieldType::kRecordList;
};
template <class R>
struct record_of<std::optional<R>> {
  using type = R;
  static constexpr FieldType kType = FieldType::kRecord;
};
template <class L>
using record_t = typename record_of<L>::type;

// A struct from a record; a member the record lacks (made by hand, not by the loader) keeps its
// default.
template <class R>
R from_record(const std::vector<Member<R>>& members, const Record& record) {
  R r{};
  for (const Member<R>& m : members) {
    const auto it = record.values.find(m.spec.name);
    m.store(r, it == record.values.end() ? m.spec.default_value : it->second);
  }
  return r;
}

template <class R>
Record to_record(const std::vector<Member<R>>& members, const R& r) {
  Record record;
  for (const Member<R>& m : members) record.values.emplace(m.spec.name, m.fetch(r));
  return record;
}

// A kRecord or kRecordList row, none by default; its members' specs describe the keys of each
// mapping (their store and fetch stay empty: this row stores them all).
template <class S, class L>
Member<S> records(std::string_view name, L S::*list, std::string_view description,
                  std::vector<Member<record_t<L>>> members) {
  using R = record_t<L>;
  Member<S> out{{.name = name,
                 .type = record_of<L>::kType,
                 .default_value = std::vector<Record>{},
                 .description = description},
                {},
                {}};
  for (const Member<R>& m : members) out.spec.members.push_back(m.spec);
  out.store = [list, members](S& s, const Value& v) {
    L& to = s.*list;
    to = L{};
    for (const Record& record : std::get<std::vector<Record>>(v)) {
      if constexpr (std::is_same_v<L, std::optional<R>>) {
        to = from_record(members, record);
      } else {
        to.push_back(from_record(members, record));
      }
    }
  };
  out.fetch = [list, members](const S& s) {
    std::vector<Record> values;
    const L& from = s.*list;
    if constexpr (std::is_same_v<L, std::optional<R>>) {
      if (from) values.push_back(to_record(members, *from));
    } else {
      for (const R& r : from) values.push_back(to_record(members, r));
    }
    return Value(std::move(values));
  };
  return out;
}

// Adds one section's rows to the table, each bound to its member of the section's struct S;
// schema.cpp sets their section from the section's spec.
template <class S>
struct SectionAdder {
  std::vector<FieldSpec>& rows;
  S Config::*section;

  template <class T>
  void operator()(std::string_view name, T S::*m, const std::type_identity_t<T>& default_value,
                  Details d, std::string_view description) const {
    push(member(name, m, default_value, std::move(d), description));
  }
  template <class T>
  void operator()(std::string_view name, T S::*m, const std::type_identity_t<T>& default_value,
                  std::string_view description) const {
    push(member(name, m, default_value, Details{}, description));
  }

  // A row made elsewhere (rows shared with a record, e.g. the source's with a camera's).
  void operator()(Member<S> row) const { push(std::move(row)); }

  template <class L>
  void records(std::string_view name, L S::*list, std::string_view description,
               std::vector<Member<record_t<L>>> members) const {
    push(rows::records(name, list, description, std::move(members)));
  }

 private:
  void push(Member<S> row) const {
    row.spec.store = [s = section, store = std::move(row.store)](Config& c, const Value& v) {
      store(c.*s, v);
    };
    row.spec.fetch = [s = section, fetch = std::move(row.fetch)](const Config& c) {
      return fetch(c.*s);
    };
    rows.push_back(std::move(row.spec));
  }
};

// A list section's one row (zones, lines): its name is empty, its records are Config's list.
template <class R>
void add_list_section(std::vector<FieldSpec>& rows, std::vector<R> Config::*list,
                      std::string_view description, std::vector<Member<R>> members) {
  Member<Config> row = records("", list, description, std::move(members));
  row.spec.store = std::move(row.store);
  row.spec.fetch = std::move(row.fetch);
  rows.push_back(std::move(row.spec));
}

// A rule of text rows that must not be empty.
inline std::string require_text(const Value& v) {
  return std::get<std::string>(v).empty() ? "is empty: set a value" : "";
}

}  // namespace yolo::config::rows
