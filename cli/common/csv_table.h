// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <map>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace yolo::cli {

// One table row: column name -> cell text.
using CsvRow = std::map<std::string, std::string>;

// The leaves of a JSON object as a row: nested keys joined with '.' (latency_ms.inference.p50),
// array items by index (input.0, input.1); strings as they are, numbers and booleans as JSON
// writes them, null as an empty cell. Empty objects and arrays give no column.
CsvRow flatten(const nlohmann::json& object);

// `text` as one CSV field: quoted (with quotes doubled) when it holds a comma, a quote, a line
// break or leading or trailing space (RFC 4180).
std::string csv_field(std::string_view text);

// Writes `rows` as CSV under one header, the union of their columns: the `first` columns that
// occur, in that order, then the rest sorted (numbers within names by value, so cpu_busy.10 comes
// after cpu_busy.9). A row lacking a column gets an empty cell.
void write_csv(std::ostream& out, const std::vector<CsvRow>& rows,
               const std::vector<std::string>& first);

}  // namespace yolo::cli
