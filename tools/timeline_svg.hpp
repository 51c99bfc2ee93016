#pragma once
// --timeline FILE.svg: one or two steady-state loop trips of the modeled CU as
// a self-contained SVG (no scripts, fonts or stylesheets): a row per wave,
// grouped by SIMD, so the ping-pong offset and the interleave show at a glance.
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "cdna4/model_report.hpp"
#include "model_output.hpp"
#include "steady_state.hpp"

namespace cdna4::tools {

// Text for SVG content and attributes. Bytes outside printable ASCII become '?':
// control characters are not allowed in XML 1.0 and names may not be UTF-8.
inline std::string xml_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += (c >= 0x20 && c < 0x7f) ? c : '?';
    }
  }
  return out;
}

struct SliceStyle {
  const char* id;  // the rectangles' class, for tests and for searching the file
  const char* name;
  const char* color;
  int track;  // 0 MFMA, 1 waits, 2 global memory, 3 LDS
};

inline SliceStyle slice_style(ModelSliceKind kind) {
  switch (kind) {
    case ModelSliceKind::mfma: return {"mfma", "MFMA (pipe busy)", "#2563eb", 0};
    case ModelSliceKind::global_load: return {"global_load", "global load in flight", "#16a34a", 2};
    case ModelSliceKind::global_store: return {"global_store", "global store in flight", "#9333ea", 2};
    case ModelSliceKind::lds: return {"lds", "LDS op in flight", "#ea580c", 3};
    case ModelSliceKind::wait_vmcnt: return {"wait_vmcnt", "wait vmcnt", "#dc2626", 1};
    case ModelSliceKind::wait_lgkmcnt: return {"wait_lgkmcnt", "wait lgkmcnt", "#ca8a04", 1};
    case ModelSliceKind::barrier: return {"barrier", "barrier", "#6b7280", 1};
    case ModelSliceKind::mfma_dependency: return {"mfma_dependency", "wait MFMA result", "#db2777", 1};
  }
  return {"unknown", "?", "#000000", 1};
}

inline uint64_t axis_step(uint64_t span) {  // 1, 2 or 5 x 10^k: at most 10 ticks
  for (uint64_t power = 1;; power *= 10)
    for (uint64_t f : {1, 2, 5})
      if (span / (power * f) <= 10) return power * f;
}

inline std::string timeline_svg(const ModelReport& m, const std::string& title) {
  constexpr double kLeft = 190, kPlot = 1190, kWidth = kLeft + kPlot + 20;
  constexpr double kRowsTop = 104, kPitch = 44, kGroupGap = 10;
  constexpr double kTrackY[] = {2, 18, 27, 33}, kTrackH[] = {14, 7, 5, 5};
  const TimelineWindow w = steady_state_window(m);
  const double span = double(std::max<uint64_t>(1, w.end - w.begin));
  auto x = [&](uint64_t t) { return kLeft + double(t - w.begin) * kPlot / span; };

  // A row for every wave of the timeline (also those idle in the window), by SIMD.
  using WaveKey = std::tuple<uint32_t, uint32_t, uint32_t>;  // SIMD, workgroup, wave
  struct Box {
    ModelSliceKind kind;
    uint64_t begin, end;
    uint32_t pc, count;
  };
  std::map<WaveKey, std::vector<Box>> rows;
  for (const ModelSlice& s : m.timeline) rows[{s.simd, s.workgroup, s.wave}];

  // Slices clipped to the window; back-to-back slices of a kind merge into one
  // box (memory ones only when they do not overlap: overlap shows as darker).
  std::vector<const ModelSlice*> shown;
  for (const ModelSlice& s : m.timeline)
    if (s.end > w.begin && s.begin < w.end) shown.push_back(&s);
  std::stable_sort(shown.begin(), shown.end(), [](auto a, auto b) { return a->begin < b->begin; });
  std::map<std::pair<WaveKey, ModelSliceKind>, size_t> last;  // index of the last box of a kind in a row
  const uint64_t merge_gap = uint64_t(span / kPlot / 2);
  for (const ModelSlice* s : shown) {
    const WaveKey key{s->simd, s->workgroup, s->wave};
    std::vector<Box>& boxes = rows[key];
    const uint64_t begin = std::max(s->begin, w.begin), end = std::min(s->end, w.end);
    auto found = last.find({key, s->kind});
    if (found != last.end()) {
      Box& b = boxes[found->second];
      if ((slice_style(s->kind).track < 2 || begin >= b.end) && begin <= b.end + merge_gap) {
        b.end = std::max(b.end, end), ++b.count;
        continue;
      }
    }
    last[{key, s->kind}] = boxes.size();
    boxes.push_back({s->kind, begin, end, s->pc, 1});
  }

  std::string bands, body;
  double y = kRowsTop;
  for (auto it = rows.begin(); it != rows.end(); ++it) {
    const auto [simd, wg, wave] = it->first;
    if (it == rows.begin() || std::get<0>(std::prev(it)->first) != simd) {
      if (it != rows.begin()) y += kGroupGap;
      const auto waves = std::count_if(it, rows.end(), [&](const auto& r) { return std::get<0>(r.first) == simd; });
      if (simd % 2 == 0)
        bands += fmt::format("<rect x=\"0\" y=\"{:.1f}\" width=\"{}\" height=\"{:.1f}\" fill=\"#f1f5f9\"/>\n", y - 4,
                             kWidth, double(waves) * kPitch + 4);
    }
    body += fmt::format("<g id=\"simd-{0}-wg-{1}-wave-{2}\">\n<text x=\"8\" y=\"{3:.1f}\" font-size=\"12\">SIMD {0} / "
                        "wg {1} wave {2}</text>\n",
                        simd, wg, wave, y + 15);
    for (const Box& b : it->second) {
      const SliceStyle style = slice_style(b.kind);
      body += fmt::format(
          "<rect class=\"{}\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\"{}><title>{}: "
          "clocks {}-{}, pc 0x{:x}{}</title></rect>\n",
          style.id, x(b.begin), y + kTrackY[style.track], std::max(0.6, x(b.end) - x(b.begin)),
          kTrackH[style.track], style.color, style.track >= 2 ? " fill-opacity=\"0.35\"" : "", style.name, b.begin,
          b.end, b.pc, b.count > 1 ? fmt::format(" ({} slices)", b.count) : "");
    }
    body += "</g>\n";
    y += kPitch;
  }
  const double rows_bottom = y;

  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1:.0f}\" viewBox=\"0 0 {0} {1:.0f}\" "
      "font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n",
      kWidth, rows_bottom + 48);
  svg += fmt::format("<text x=\"8\" y=\"22\" font-size=\"16\" font-weight=\"bold\">modeled gfx950 timeline: {}</text>\n",
                     xml_escape(title));
  const std::string what =
      m.timeline.empty() ? "the timeline is empty"
      : w.steady_state
          ? fmt::format("one CU, modeled clocks {}-{}: loop trips {}-{} of {} (a trip ends when wg {} wave {} is back at "
                        "the MFMA at pc 0x{:x})",
                        w.begin, w.end, w.first_trip + 1, w.first_trip + w.trip_starts.size() - 1, w.trips,
                        w.workgroup, w.wave, w.loop_pc)
          : fmt::format("one CU, modeled clocks {}-{}: the whole run (no MFMA repeats)", w.begin, w.end);
  svg += fmt::format("<text x=\"8\" y=\"42\" font-size=\"12\">{}</text>\n", xml_escape(what));
  const ModelSliceKind kinds[] = {ModelSliceKind::mfma,         ModelSliceKind::global_load,
                                  ModelSliceKind::global_store, ModelSliceKind::lds,
                                  ModelSliceKind::wait_vmcnt,   ModelSliceKind::wait_lgkmcnt,
                                  ModelSliceKind::barrier,      ModelSliceKind::mfma_dependency};
  for (size_t i = 0; i < std::size(kinds); ++i) {
    const SliceStyle style = slice_style(kinds[i]);
    const double lx = 8 + double(i % 4) * 190, ly = 56 + double(i / 4) * 18;
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"11\" fill=\"{}\"{}/><text x=\"{}\" y=\"{}\" "
                       "font-size=\"12\">{}</text>\n",
                       lx, ly, style.color, style.track >= 2 ? " fill-opacity=\"0.5\"" : "", lx + 19, ly + 10,
                       style.name);
  }
  svg += fmt::format("<text x=\"{}\" y=\"66\" font-size=\"11\" fill=\"#374151\">per wave, top to bottom: MFMA pipe; "
                     "waits; global memory; LDS</text>\n<text x=\"{}\" y=\"84\" font-size=\"11\" fill=\"#374151\">"
                     "memory operations are translucent: darker = more in flight</text>\n",
                     8 + 4 * 190, 8 + 4 * 190);
  svg += bands;

  // Time axis and grid lines under the rows, trip boundaries over them.
  const uint64_t step = axis_step(uint64_t(span));
  for (uint64_t t = (w.begin + step - 1) / step * step; t <= w.end; t += step) {
    svg += fmt::format("<line x1=\"{0:.2f}\" x2=\"{0:.2f}\" y1=\"{1}\" y2=\"{2:.1f}\" stroke=\"#cbd5e1\" "
                       "stroke-width=\"0.5\"/><text x=\"{0:.2f}\" y=\"{3:.1f}\" font-size=\"11\" "
                       "text-anchor=\"middle\">{4}</text>\n",
                       x(t), kRowsTop - 4, rows_bottom + 4, rows_bottom + 18, t);
  }
  svg += body;
  for (uint64_t t : w.trip_starts)
    svg += fmt::format("<line x1=\"{0:.2f}\" x2=\"{0:.2f}\" y1=\"{1}\" y2=\"{2:.1f}\" stroke=\"#111827\" "
                       "stroke-dasharray=\"5 3\"/>\n",
                       x(t), kRowsTop - 8, rows_bottom + 4);
  svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" font-size=\"12\" text-anchor=\"middle\">modeled clocks of the "
                     "CU ({:.1f} GHz); dashed: loop-trip boundaries</text>\n</svg>\n",
                     kLeft + kPlot / 2, rows_bottom + 38, m.clock_hz / 1e9);
  return svg;
}

}  // namespace cdna4::tools
