// SPDX-License-Identifier: Apache-2.0
// report.md from a FieldReport (field_report_markdown, declared in cli/report/field_report.h): one
// function per section of the file.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <sstream>

#include "cli/report/field_report.h"
#include "text/format.h"
#include "text/time_format.h"

namespace yolo::cli {

namespace {

using nlohmann::json;

// Thread decisions listed one by one in report.md; the rest are counted.
constexpr std::size_t kDecisionsListed = 20;

// The field log's times (seconds since the epoch) as the report's tables show them.
std::string utc_text(double seconds) {
  return text::readable_utc(std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::duration<double>(seconds))));
}

// "car 3, bus 1" from counts by label (`pick` takes the number from each); "-" for none.
template <class Map, class Pick>
std::string by_label_text(const Map& counts, Pick pick) {
  std::string text;
  for (const auto& [label, count] : counts) {
    const long long n = pick(count);
    if (n > 0) text += (text.empty() ? "" : ", ") + label + " " + std::to_string(n);
  }
  return text.empty() ? "-" : text;
}

// Table cells: a name with '|' would break the row.
std::string cell_text(std::string text) {
  std::replace(text.begin(), text.end(), '|', '/');
  return text;
}

// The title line: when, where, how much was read.
void header(std::ostringstream& md, const FieldReport& r, const std::vector<std::string>& sources) {
  md << "# Field report\n\n"
     << "From " << utc_text(r.first) << " to " << utc_text(r.last) << " UTC ("
     << text::duration_text(r.last - r.first) << ") on "
     << (r.hosts.empty() ? "?" : text::joined(r.hosts, ", ")) << ": " << r.interval_lines
     << " interval lines and " << r.event_lines << " events from " << text::joined(sources, ", ")
     << ".\n\n";
}

// The floors the logs recorded, "0.950" or "0.950, then 0.990" when a reload changed it.
std::string floors_text(const FieldReport& r) {
  std::vector<std::string> values;
  for (const auto& f : r.floors) {
    std::string v = text::fixed(f.min_map50, 3);
    if (values.empty() || values.back() != v) values.push_back(std::move(v));
  }
  return text::joined(values, ", then ");
}

// The precision table and, for two precisions, their ratios.
void precisions(std::ostringstream& md, const FieldReport& r) {
  const bool checks = std::any_of(r.precisions.begin(), r.precisions.end(), [](const auto& p) {
    return p.agreement_min.has_value() || p.int8_checks.has_value();
  });
  md << "## Precisions\n\n"
     << "Intervals with frames only. p90: the intervals' p90, weighted by their frames. "
        "Temperature: the hottest zone, mean over time / highest. W: the mean of the intervals' "
        "power; mJ/frame: their energy over their frames. Throttled: time with any Pi throttle "
        "condition now.";
  if (checks) {
    md << " INT8 agreement: the live INT8 checks' agreement with FP32 over their window at the "
          "intervals' ends, lowest / median / last; checks: how many ran in the intervals.";
    if (!r.floors.empty()) {
      md << " The floor (model.auto_min_map50, as the logs record it): " << floors_text(r) << ".";
    }
  }
  md << "\n\n"
     << "| precision | model | running | frames | FPS | p90 inference ms | p90 capture to result "
        "ms | temp C mean / max | clock MHz | W | mJ/frame | throttled | frames per thread count "
        "|"
     << (checks ? " INT8 agreement min / median / last | checks |" : "") << "\n"
     << "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
     << (checks ? " --- | --- |" : "") << "\n";
  for (const auto& p : r.precisions) {
    std::string threads;
    for (const auto& [t, n] : p.frames_by_threads) {
      char cell[48];
      std::snprintf(
          cell, sizeof cell, "%s%d: %.0f %%", threads.empty() ? "" : ", ", t,
          p.frames > 0 ? 100.0 * static_cast<double>(n) / static_cast<double>(p.frames) : 0.0);
      threads += cell;
    }
    std::string throttled = "n/a";
    if (p.throttle_known_s > 0) {
      throttled = text::duration_text(p.throttled_s) + " (" +
                  text::fixed(100 * p.throttled_s / p.throttle_known_s, 0) + " %)";
    }
    const std::string temp =
        p.temp_mean_c ? text::fixed(p.temp_mean_c, 1) + " / " + text::fixed(p.temp_max_c, 1)
                      : "n/a";
    md << "| " << p.precision << " | " << text::joined(p.models, ", ") << " | "
       << text::duration_text(p.seconds) << " | " << p.frames << " | " << text::fixed(p.fps, 2)
       << " | " << text::fixed(p.inference_p90_ms, 2) << " | "
       << text::fixed(p.end_to_end_p90_ms, 2) << " | " << temp << " | "
       << text::fixed(p.clock_mean_mhz, 0) << " | " << text::fixed(p.power_w, 2) << " | "
       << text::fixed(p.energy_per_frame_mj, 1) << " | " << throttled << " | "
       << (threads.empty() ? "n/a" : threads) << " |";
    if (checks) {
      const std::string agreement = p.agreement_min ? text::fixed(p.agreement_min, 3) + " / " +
                                                          text::fixed(p.agreement_median, 3) +
                                                          " / " + text::fixed(p.agreement_last, 3)
                                                    : "n/a";
      md << " " << agreement << " | "
         << (p.int8_checks ? std::to_string(*p.int8_checks) : std::string("n/a")) << " |";
    }
    md << "\n";
  }
  if (r.precisions.size() == 2) {
    const auto& a = r.precisions[0];
    const auto& b = r.precisions[1];
    if (a.fps > 0 && b.fps > 0) {
      md << "\n"
         << b.precision << " / " << a.precision << ": FPS " << text::fixed(b.fps / a.fps, 2) << "x";
      if (a.inference_p90_ms && b.inference_p90_ms && *b.inference_p90_ms > 0) {
        md << ", p90 inference speedup "
           << text::fixed(*a.inference_p90_ms / *b.inference_p90_ms, 2) << "x";
      }
      if (a.energy_per_frame_mj && b.energy_per_frame_mj && *a.energy_per_frame_mj > 0) {
        md << ", energy per frame "
           << text::fixed(*b.energy_per_frame_mj / *a.energy_per_frame_mj, 2) << "x";
      }
      md << ".\n";
    }
  }
}

// A daemon of several cameras: each camera's detection rate and skips.
void cameras_section(std::ostringstream& md, const FieldReport& r) {
  if (r.cameras.empty()) return;
  md << "\n## Cameras\n\n| camera | frames detected | detection fps | turns skipped | skipped "
        "fps |\n| --- | --- | --- | --- | --- |\n";
  for (const CameraSummary& c : r.cameras) {
    const auto per_s = [&](long long n) {
      return c.seconds > 0 ? text::fixed(static_cast<double>(n) / c.seconds, 2) : "n/a";
    };
    md << "| " << c.name << " | " << c.frames << " | " << per_s(c.frames) << " | " << c.skipped
       << " | " << per_s(c.skipped) << " |\n";
  }
}

// The plots, each with its caption.
void plots_section(std::ostringstream& md,
                   const std::vector<std::pair<std::string, std::string>>& plots) {
  if (!plots.empty()) {
    md << "\n## Plots\n\n";
    for (const auto& [file, caption] : plots) md << "![" << caption << "](" << file << ")\n\n";
  }
}

// The thread-count decisions, the latest listed.
void decisions(std::ostringstream& md, const FieldReport& r) {
  md << "## Thread-count decisions\n\n";
  if (r.decisions.empty()) {
    md << "None.\n";
  } else {
    std::map<std::string, int> kinds;
    for (const auto& d : r.decisions) ++kinds[d.kind];
    std::string counts;
    for (const auto& [kind, n] : kinds) {
      counts += (counts.empty() ? "" : ", ") + kind + " " + std::to_string(n);
    }
    md << r.decisions.size() << " decisions (" << counts << ")";
    const std::size_t from =
        r.decisions.size() > kDecisionsListed ? r.decisions.size() - kDecisionsListed : 0;
    md << (from > 0 ? "; the last " + std::to_string(kDecisionsListed) : std::string()) << ":\n\n"
       << "| time (UTC) | threads | kind | reason |\n| --- | --- | --- | --- |\n";
    for (std::size_t k = from; k < r.decisions.size(); ++k) {
      const auto& d = r.decisions[k];
      std::string reason = d.reason;
      std::replace(reason.begin(), reason.end(), '|', '/');
      md << "| " << utc_text(d.time) << " | " << d.from << " -> " << d.to << " | " << d.kind
         << " | " << reason << " |\n";
    }
  }
}

// The precision switches.
void swaps(std::ostringstream& md, const FieldReport& r) {
  md << "\n## Precision switches\n\n";
  if (r.swaps.empty()) {
    md << "None.\n";
  } else {
    md << "| time (UTC) | from | to | frames lost | longest gap between results ms |\n"
       << "| --- | --- | --- | --- | --- |\n";
    for (const auto& s : r.swaps) {
      auto cell = [](const json& v) { return v.is_null() ? std::string("n/a") : v.dump(); };
      // INT8 files made from an FP32 one keep its name: the precision tells them apart.
      md << "| " << utc_text(s.at("time").get<double>()) << " | "
         << s.at("from_model").get<std::string>() << " " << s.at("from").get<std::string>() << " | "
         << s.at("to_model").get<std::string>() << " " << s.at("to").get<std::string>() << " | "
         << cell(s.at("frames_lost")) << " | " << cell(s.at("gap_ms")) << " |\n";
    }
  }
}

// precision: auto's decisions.
void choices(std::ostringstream& md, const FieldReport& r) {
  if (!r.choices.empty()) {
    md << "\n## Precision chosen by measurement (precision: auto)\n\n"
       << "| time (UTC) | chose | FP32 ms (threads) | INT8 ms (threads) | INT8 speedup | mAP50 "
          "| why |\n| --- | --- | --- | --- | --- | --- | --- |\n";
    for (const auto& c : r.choices) {
      auto figure = [](const json& v, int decimals) {
        return text::fixed(v.is_number() ? std::optional(v.get<double>()) : std::nullopt, decimals);
      };
      auto at = [&](const char* ms, const char* threads) {
        return figure(c.at(ms), 1) + " (" + figure(c.at(threads), 0) + ")";
      };
      std::string reason = c.at("reason").get<std::string>();
      std::replace(reason.begin(), reason.end(), '|', '/');
      md << "| " << utc_text(c.at("time").get<double>()) << " | "
         << c.at("precision").get<std::string>() << " | " << at("fp32_ms", "fp32_threads") << " | "
         << at("int8_ms", "int8_threads") << " | " << figure(c.at("speedup"), 2) << "x | "
         << figure(c.at("map50"), 3) << " | " << reason << " |\n";
    }
  }
}

// The live INT8 checks' events: drift acted on or over, checks that cannot run or are starved.
void int8_checks(std::ostringstream& md, const FieldReport& r) {
  if (!r.int8_events.empty()) {
    md << "\n## INT8 checks' events\n\n"
       << "| time (UTC) | event | phase | action | what |\n| --- | --- | --- | --- | --- |\n";
    for (const auto& e : r.int8_events) {
      auto or_dash = [](const std::string& t) { return t.empty() ? std::string("-") : t; };
      md << "| " << utc_text(e.time) << " | " << e.event << " | " << or_dash(e.phase) << " | "
         << or_dash(e.action) << " | " << cell_text(e.message) << " |\n";
    }
  }
}

// Crossings per line and entries and loiters per zone.
void tracked_objects(std::ostringstream& md, const FieldReport& r) {
  if (r.object_events > 0) {
    md << "\n## Tracked objects\n\n"
       << r.object_events
       << " object events. Crossings of each line by direction (its \"in\" side as configured), "
          "and entries into and loiter events in each zone, by class.\n\n";
    if (!r.crossings.empty()) {
      md << "| camera | line | in | out | in by class | out by class |\n"
         << "| --- | --- | --- | --- | --- | --- |\n";
      for (const auto& c : r.crossings) {
        md << "| " << cell_text(c.camera) << " | " << cell_text(c.line) << " | " << c.in << " | "
           << c.out << " | "
           << cell_text(by_label_text(c.by_label, [](const auto& n) { return n.first; })) << " | "
           << cell_text(by_label_text(c.by_label, [](const auto& n) { return n.second; }))
           << " |\n";
      }
      md << "\n";
    }
    if (!r.zones.empty()) {
      md << "| camera | zone | entries | loiter events | entries by class |\n"
         << "| --- | --- | --- | --- | --- |\n";
      for (const auto& z : r.zones) {
        md << "| " << cell_text(z.camera) << " | " << cell_text(z.zone) << " | " << z.entries
           << " | " << z.loiters << " | "
           << cell_text(by_label_text(z.entries_by_label, [](long long n) { return n; })) << " |\n";
      }
    }
  }
}

// The times the logs have no line for.
void gaps(std::ostringstream& md, const FieldReport& r) {
  if (!r.gaps.empty()) {
    md << "\n## Gaps\n\n| from (UTC) | to (UTC) | length |\n| --- | --- | --- |\n";
    for (const auto& g : r.gaps) {
      md << "| " << utc_text(g.start) << " | " << utc_text(g.end) << " | "
         << text::duration_text(g.end - g.start) << " |\n";
    }
  }
}

// What the logs could not tell.
void missing(std::ostringstream& md, const FieldReport& r) {
  md << "\n## What these logs do not tell\n\n";
  if (r.missing.empty()) md << "Nothing missing.\n";
  for (const auto& m : r.missing) md << "- " << m << "\n";
}

}  // namespace

std::string field_report_markdown(const FieldReport& r,
                                  const std::vector<std::pair<std::string, std::string>>& plots,
                                  const std::vector<std::string>& sources) {
  std::ostringstream md;
  header(md, r, sources);
  precisions(md, r);
  cameras_section(md, r);
  plots_section(md, plots);
  decisions(md, r);
  swaps(md, r);
  choices(md, r);
  int8_checks(md, r);
  tracked_objects(md, r);
  gaps(md, r);
  missing(md, r);
  return md.str();
}

}  // namespace yolo::cli
