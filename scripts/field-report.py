#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Plots of a yolo-edge field report.

    field-report.py TIMELINE_JSON OUT_DIR

`yolo-edge report` writes TIMELINE_JSON (the daemon's field-log intervals and events, already
read, ordered and checked) and runs this script with Debian's python3-matplotlib; no network.
It writes into OUT_DIR:
  performance.png  FPS, inference latency (p50, p90) and inference threads per precision over
                   time, with the thread-count decisions and the precision switches marked; when
                   the logs have the live INT8 checks' agreement, a panel of it under FPS with the
                   floor (model.auto_min_map50) where the logs record it; int8_drift events marked
                   in every plot
  device.png       temperature, clock and throttling over time (when the logs have any of them)
  power.png        power and energy per frame per precision over time (when the logs have power)
Exit status: 0 done, 2 bad arguments or input, 3 matplotlib is not installed.
"""

import json
import math
import sys
from datetime import datetime, timezone

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.dates as mdates
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
except ImportError as error:
    print(
        f"field-report.py: matplotlib is missing ({error}); install Debian's: "
        "sudo apt install python3-matplotlib",
        file=sys.stderr,
    )
    sys.exit(3)

COLORS = {"fp32": "#1f5fa8", "int8": "#e07b00"}
OTHER_COLOR = "#7a7a7a"
THROTTLE_COLOR = "#d62728"
# int8_drift events by the phase they entered: acted on (warned, fp32) or agreeing again.
DRIFT_COLORS = {"agrees": "#2ca02c"}
DRIFT_COLOR = "#c2185b"
FLOOR_COLOR = "#333333"
# Wide enough for a README column, with text that stays legible there.
FIGURE_WIDTH_IN = 8.0
DPI = 100
DECISION_MARKERS = {
    "settle": ("v", "#2ca02c", "settle"),
    "explore": (".", "#555555", "explore"),
    "fixed": ("s", "#8c564b", "fixed"),
}
# restart, drift, recheck, throttled, abandon: report.md names each.
OTHER_DECISION = ("x", "#9467bd", "explore again")
# Beyond this many intervals (days of logs) points are drawn as lines only.
MAX_MARKED_POINTS = 400
# Room above the data for a one-row legend, as a share of the data's top.
HEADROOM = 1.35


def when(seconds):
    return datetime.fromtimestamp(seconds, tz=timezone.utc)


def color_of(precision):
    return COLORS.get(precision, OTHER_COLOR)


def series(intervals, key, precision=None):
    """Times (interval midpoints) and values of one field, NaN where the line breaks: a gap, an
    interval of another precision, or a missing value."""
    xs, ys = [], []
    for row in intervals:
        if row["gap_before"] and xs:
            xs.append(when(row["start"]))
            ys.append(math.nan)
        value = row.get(key)
        if precision is not None and row["precision"] != precision:
            value = None
        if precision is not None and row["frames"] == 0:
            value = None
        xs.append(when((row["start"] + row["end"]) / 2))
        ys.append(math.nan if value is None else float(value))
    return xs, ys


def has(intervals, key):
    return any(row.get(key) is not None for row in intervals)


def style_time_axis(ax):
    locator = mdates.AutoDateLocator(tz=timezone.utc)
    ax.xaxis.set_major_locator(locator)
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator, tz=timezone.utc))
    ax.set_xlabel("time (UTC)")


def mark_switches(axes, swaps):
    for ax in axes:
        for swap in swaps:
            ax.axvline(when(swap["time"]), color="#444444", linestyle=":", linewidth=1.2)


def mark_choices(axes, choices):
    """precision: auto's decisions, a dashed line in the chosen precision's colour."""
    for ax in axes:
        for c in choices:
            ax.axvline(when(c["time"]), color=color_of(c["precision"]), linestyle="--",
                       linewidth=1.4)


def drift_events(data):
    return [e for e in data.get("int8_events", []) if e["event"] == "int8_drift"]


def drift_color(phase):
    return DRIFT_COLORS.get(phase, DRIFT_COLOR)


def mark_drift(axes, data):
    """int8_drift events, a dash-dot line: acted on (warned, fp32) or agreeing again."""
    for ax in axes:
        for e in drift_events(data):
            ax.axvline(when(e["time"]), color=drift_color(e["phase"]), linestyle="-.",
                       linewidth=1.4)


def shade_throttling(axes, intervals):
    for ax in axes:
        for row in intervals:
            if row.get("throttled"):
                ax.axvspan(when(row["start"]), when(row["end"]), color=THROTTLE_COLOR,
                           alpha=0.15, linewidth=0)


def legend_on_top(ax, handles, ncol=4):
    """A one-row legend above the data, which keeps clear of the lines below it."""
    if not handles:
        return
    bottom, top = ax.get_ylim()
    ax.set_ylim(bottom, bottom + (top - bottom) * HEADROOM)
    ax.legend(handles=handles, loc="upper left", ncol=ncol, fontsize=8, framealpha=0.9)


def note(ax, text):
    ax.text(0.5, 0.5, text, transform=ax.transAxes, ha="center", va="center", color="#666666")
    ax.set_yticks([])


def per_precision(ax, data, key, label_suffix="", linestyle="-", linewidth=1.6, marker=None):
    if len(data["intervals"]) > MAX_MARKED_POINTS:
        marker = None
    handles = []
    for precision in data["precisions"]:
        xs, ys = series(data["intervals"], key, precision)
        if all(math.isnan(y) for y in ys):
            continue
        (line,) = ax.plot(xs, ys, color=color_of(precision), linestyle=linestyle,
                          linewidth=linewidth, marker=marker, markersize=3,
                          label=precision + label_suffix)
        handles.append(line)
    return handles


def per_precision_and_idle(ax, data, key):
    """Per precision, and in grey the intervals without frames (a device reading still)."""
    handles = per_precision(ax, data, key, marker="o")
    idle = [r for r in data["intervals"] if r["frames"] == 0 or r["precision"] is None]
    xs, ys = series(idle, key)
    if any(not math.isnan(y) for y in ys):
        handles += ax.plot(xs, ys, color=OTHER_COLOR, linestyle="none", marker="o",
                           markersize=3 if len(idle) <= MAX_MARKED_POINTS else 1,
                           label="no frames")
    return handles


def threads_panel(ax, data):
    for row in data["intervals"]:
        if row["threads"] is None:
            continue
        ax.hlines(row["threads"], when(row["start"]), when(row["end"]),
                  color=color_of(row["precision"]), linewidth=3)
    seen = {}
    for d in data["decisions"]:
        marker, color, label = DECISION_MARKERS.get(d["kind"], OTHER_DECISION)
        ax.plot([when(d["time"])], [d["to"]], linestyle="none", marker=marker, color=color,
                markersize=8 if marker != "." else 6, zorder=3)
        seen[label] = Line2D([], [], linestyle="none", marker=marker, color=color,
                             label="decision: " + label)
    counts = [r["threads"] for r in data["intervals"] if r["threads"] is not None]
    counts += [d["to"] for d in data["decisions"]]
    if counts:
        ax.set_ylim(0.5, max(counts) + 0.5)
        ax.set_yticks(range(1, max(counts) + 1))
    else:
        note(ax, "no thread count in these logs")
    ax.set_ylabel("inference\nthreads")
    return list(seen.values())


def switch_handle(data):
    handles = []
    if data["swaps"]:
        handles.append(Line2D([], [], color="#444444", linestyle=":", linewidth=1.2,
                              label="precision switch"))
    for precision in sorted({c["precision"] for c in data.get("choices", [])}):
        handles.append(Line2D([], [], color=color_of(precision), linestyle="--", linewidth=1.4,
                              label=f"auto chose {precision.upper()}"))
    for phase in sorted({e["phase"] for e in drift_events(data)}):
        handles.append(Line2D([], [], color=drift_color(phase), linestyle="-.", linewidth=1.4,
                              label=f"INT8 drift: {phase}"))
    return handles


def title(data, what):
    hosts = ", ".join(data["hosts"]) or "unknown host"
    return f"{what} ({hosts})"


def finish(fig, axes, data, what, path):
    """Grid, time axis under the last panel, title over the first, saved and closed."""
    mark_switches(axes, data["swaps"])
    mark_choices(axes, data.get("choices", []))
    mark_drift(axes, data)
    for ax in axes:
        ax.grid(True, alpha=0.3)
    style_time_axis(axes[-1])
    axes[0].set_title(title(data, what))
    fig.align_ylabels()
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)


def agreement_panel(ax, data):
    """The live INT8 checks' agreement with FP32 at each interval's end, coloured by the precision
    running, and the floor (model.auto_min_map50) where the logs record it."""
    handles = per_precision(ax, data, "int8_agreement", " running", marker="o")
    values = [r["int8_agreement"] for r in data["intervals"] if r.get("int8_agreement") is not None]
    floors = []
    for f in data.get("floors", []):
        if f["min_map50"] not in floors:
            floors.append(f["min_map50"])
    for floor in floors:
        handles.append(ax.axhline(floor, color=FLOOR_COLOR, linestyle=(0, (6, 3)), linewidth=1.2,
                                  label=f"floor {floor:.3f} (auto_min_map50)"))
    low = min(values + floors)
    # Agreement lives near 1: an axis from 0 would flatten what matters; one from a little under
    # the lowest value (or the floor) shows it, and says so by not starting at 0.
    ax.set_ylim(max(0.0, math.floor((low - 0.02) * 20) / 20), 1.0)
    ax.set_ylabel("INT8 agreement\nwith FP32 (mAP50)")
    return handles


def performance_plot(data, path):
    agreement = has(data["intervals"], "int8_agreement")
    if agreement:
        fig, (fps_ax, agr_ax, lat_ax, thr_ax) = plt.subplots(
            4, 1, figsize=(FIGURE_WIDTH_IN, 8.8), sharex=True,
            gridspec_kw={"height_ratios": [3, 3, 3, 2]})
    else:
        fig, (fps_ax, lat_ax, thr_ax) = plt.subplots(
            3, 1, figsize=(FIGURE_WIDTH_IN, 6.6), sharex=True,
            gridspec_kw={"height_ratios": [3, 3, 2]})
    handles = per_precision(fps_ax, data, "fps", marker="o")
    fps_ax.set_ylabel("FPS (frames/s)")
    fps_ax.set_ylim(bottom=0)
    legend_on_top(fps_ax, handles + switch_handle(data))
    p90 = per_precision(lat_ax, data, "inference_p90_ms", " p90")
    p50 = per_precision(lat_ax, data, "inference_p50_ms", " p50", linestyle="--", linewidth=1.0)
    lat_ax.set_ylabel("inference\nlatency (ms)")
    lat_ax.set_ylim(bottom=0)
    legend_on_top(lat_ax, p90 + p50)
    legend_on_top(thr_ax, threads_panel(thr_ax, data))
    if agreement:
        legend_on_top(agr_ax, agreement_panel(agr_ax, data))
        # The legend's room above 1 is no agreement: no ticks there.
        agr_ax.set_yticks([t for t in agr_ax.get_yticks() if agr_ax.get_ylim()[0] <= t <= 1.0])
        finish(fig, (fps_ax, agr_ax, lat_ax, thr_ax), data,
               "Frames, INT8 agreement, inference latency and threads by precision", path)
    else:
        finish(fig, (fps_ax, lat_ax, thr_ax), data,
               "Frames, inference latency and threads by precision", path)


def device_plot(data, path):
    intervals = data["intervals"]
    fig, (temp_ax, clock_ax) = plt.subplots(2, 1, figsize=(FIGURE_WIDTH_IN, 4.8), sharex=True)
    temp_handles = []
    if has(intervals, "temp_c"):
        temp_handles = per_precision_and_idle(temp_ax, data, "temp_c")
        temp_ax.set_ylabel("hottest zone (°C)")
    else:
        note(temp_ax, "no temperature sensor in these logs")
    if has(intervals, "clock_mhz"):
        xs, ys = series(intervals, "clock_mhz")
        clock_ax.plot(xs, ys, color="#34495e", linewidth=1.6, label="CPU clock")
        clock_ax.set_ylabel("CPU clock (MHz)")
        clock_ax.set_ylim(bottom=0)
    else:
        note(clock_ax, "no clock reading in these logs")
    handles = []
    if has(intervals, "throttled"):
        shade_throttling((temp_ax, clock_ax), intervals)
        handles.append(Patch(color=THROTTLE_COLOR, alpha=0.15, label="throttled (Pi firmware)"))
    else:
        clock_ax.text(0.99, 0.04, "no throttle flags (not a Raspberry Pi)",
                      transform=clock_ax.transAxes, ha="right", va="bottom", fontsize=8,
                      color="#666666")
    if has(intervals, "temp_c"):
        legend_on_top(temp_ax, temp_handles + handles + switch_handle(data))
    finish(fig, (temp_ax, clock_ax), data, "Temperature, clock and throttling", path)


def power_plot(data, path):
    intervals = data["intervals"]
    fig, (power_ax, energy_ax) = plt.subplots(2, 1, figsize=(FIGURE_WIDTH_IN, 4.8), sharex=True)
    handles = per_precision_and_idle(power_ax, data, "power_w")
    power_ax.set_ylabel("power (W)")
    power_ax.set_ylim(bottom=0)
    legend_on_top(power_ax, handles + switch_handle(data))
    if has(intervals, "energy_per_frame_mj"):
        per_precision(energy_ax, data, "energy_per_frame_mj", marker="o")
        energy_ax.set_ylabel("energy per\nframe (mJ)")
        energy_ax.set_ylim(bottom=0)
    else:
        note(energy_ax, "no energy per frame (fewer than two energy readings per interval)")
    finish(fig, (power_ax, energy_ax), data, "Power and energy per frame by precision", path)


def main(argv):
    if len(argv) != 2:
        print("usage: field-report.py TIMELINE_JSON OUT_DIR", file=sys.stderr)
        return 2
    try:
        with open(argv[0], encoding="utf-8") as f:
            data = json.load(f)
        intervals = data["intervals"]
    except (OSError, ValueError, KeyError) as error:
        print(f"field-report.py: cannot read {argv[0]}: {error}", file=sys.stderr)
        return 2
    plt.rcParams.update({"font.size": 10, "axes.titlesize": 11, "legend.fontsize": 8})
    out = argv[1].rstrip("/")
    performance_plot(data, f"{out}/performance.png")
    if has(intervals, "temp_c") or has(intervals, "clock_mhz") or has(intervals, "throttled"):
        device_plot(data, f"{out}/device.png")
    if has(intervals, "power_w"):
        power_plot(data, f"{out}/power.png")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
