// SPDX-License-Identifier: Apache-2.0
#include "cli/common/csv_table.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace yolo::cli {

namespace {

void flatten_into(const nlohmann::json& value, const std::string& key, CsvRow& row) {
  if (value.is_object()) {
    for (const auto& [name, item] : value.items()) {
      flatten_into(item, key.empty() ? name : key + "." + name, row);
    }
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      flatten_into(value[i], key + "." + std::to_string(i), row);
    }
  } else if (value.is_string()) {
    row[key] = value.get<std::string>();
  } else if (value.is_null()) {
    row[key] = "";
  } else {
    row[key] = value.dump();
  }
}

bool is_digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// Text order, except that runs of digits compare by their value.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (is_digit(a[i]) && is_digit(b[j])) {
      std::size_t i_end = i, j_end = j;
      while (i_end < a.size() && is_digit(a[i_end])) ++i_end;
      while (j_end < b.size() && is_digit(b[j_end])) ++j_end;
      // Leading zeros do not count.
      while (i < i_end - 1 && a[i] == '0') ++i;
      while (j < j_end - 1 && b[j] == '0') ++j;
      const std::string_view run_a(a.data() + i, i_end - i), run_b(b.data() + j, j_end - j);
      if (run_a.size() != run_b.size()) return run_a.size() < run_b.size();
      if (run_a != run_b) return run_a < run_b;
      i = i_end;
      j = j_end;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  if ((a.size() - i) != (b.size() - j)) return (a.size() - i) < (b.size() - j);
  return a < b;
}

}  // namespace

CsvRow flatten(const nlohmann::json& object) {
  CsvRow row;
  flatten_into(object, "", row);
  return row;
}

std::string csv_field(std::string_view text) {
  const bool quote = text.find_first_of(",\"\r\n") != std::string_view::npos ||
                     (!text.empty() && (text.front() == ' ' || text.back() == ' '));
  if (!quote) return std::string(text);
  std::string field = "\"";
  for (char c : text) {
    if (c == '"') field += '"';
    field += c;
  }
  return field + "\"";
}

void write_csv(std::ostream& out, const std::vector<CsvRow>& rows,
               const std::vector<std::string>& first) {
  std::set<std::string> all;
  for (const auto& row : rows) {
    for (const auto& [key, cell] : row) all.insert(key);
  }
  std::vector<std::string> columns;
  for (const auto& key : first) {
    if (all.erase(key) > 0) columns.push_back(key);
  }
  std::vector<std::string> rest(all.begin(), all.end());
  std::sort(rest.begin(), rest.end(), natural_less);
  columns.insert(columns.end(), rest.begin(), rest.end());

  for (std::size_t c = 0; c < columns.size(); ++c) {
    out << (c ? "," : "") << csv_field(columns[c]);
  }
  out << '\n';
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const auto it = row.find(columns[c]);
      out << (c ? "," : "") << (it == row.end() ? "" : csv_field(it->second));
    }
    out << '\n';
  }
}

}  // namespace yolo::cli
