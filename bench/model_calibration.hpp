#pragma once
// bench_model --calibration (docs/model.md "Calibration protocol"): every
// published MI355X point whose code object the user built or fetched, marked
// calibration or held-out; the model's three fitted parameters refitted on the
// calibration points only (the kernels run once, the fit recomposes their
// reports); errors of both sets with those values, and a leave-one-size-out
// refit for the fit's stability.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cdna4/model_report.hpp"
#include "runtime/model/device_model.hpp"

namespace bench {

// reference: a published figure that does not time the modeled code object
// (printed beside it, neither fitted nor counted as held out).
enum class Role { calibration, held_out, reference };

struct Shape {
  int64_t m, n, k;
};

// One published figure and the run that models it.
struct PublishedPoint {
  std::string kernel;
  int64_t size;  // the size a leave-one-size-out run groups by (M = N = K, or M)
  Shape shape;
  double tflops;
  Role role;
  std::function<cdna4::ModelReport()> run;
  std::optional<cdna4::ModelReport> report;  // after the run; empty if it failed
  std::string error;
};

inline double modeled_tflops(const PublishedPoint& p, const cdna4::model::Fitted& f) {
  const double flops = 2.0 * double(p.shape.m) * double(p.shape.n) * double(p.shape.k);
  return flops / cdna4::model::recompose_seconds(*p.report, f) / 1e12;
}

inline std::string shape_cells(const PublishedPoint& p) {
  const Shape& s = p.shape;
  return s.m == s.n && s.n == s.k ? fmt::format("{}^3", s.m) : fmt::format("{}x{}x{}", s.m, s.n, s.k);
}

inline const char* role_name(Role r) {
  return r == Role::calibration ? "calibration" : r == Role::held_out ? "held-out" : "reference (another kernel)";
}

inline double relative_error(const PublishedPoint& p, const cdna4::model::Fitted& f) {
  return modeled_tflops(p, f) / p.tflops - 1;
}

// Least squares of log(modeled / published) over `use`, by coordinate descent:
// each parameter in turn, scanned on a log scale within [value / 8, value x 8]
// and refined by ternary search around the best step. A parameter no point
// depends on keeps its value.
inline cdna4::model::Fitted fit(const std::vector<const PublishedPoint*>& use, cdna4::model::Fitted start) {
  using Fitted = cdna4::model::Fitted;
  auto cost = [&](const Fitted& f) {
    double c = 0;
    for (const PublishedPoint* p : use) c += std::pow(std::log(modeled_tflops(*p, f) / p->tflops), 2);
    return c;
  };
  double Fitted::*members[] = {&Fitted::mac_energy_16bit, &Fitted::mac_energy_8bit, &Fitted::launch_seconds};
  Fitted f = start;
  for (int sweep = 0; sweep < 8; ++sweep)
    for (double Fitted::*m : members) {
      auto at = [&](double x) {
        Fitted t = f;
        t.*m = std::exp(x);
        return cost(t);
      };
      // A scan first: the cost is flat where another term bounds every point.
      constexpr int kSteps = 96;
      const double lo = std::log(f.*m / 8), step = std::log(64.0) / kSteps;
      int best = kSteps / 2;
      for (int i = 0; i <= kSteps; ++i)
        if (at(lo + i * step) < at(lo + best * step) - 1e-15) best = i;
      double a = lo + (best - 1) * step, b = lo + (best + 1) * step;
      for (int i = 0; i < 40; ++i) {
        const double x = a + (b - a) / 3, y = b - (b - a) / 3;
        (at(x) <= at(y) ? b : a) = at(x) <= at(y) ? y : x;
      }
      if (at((a + b) / 2) < cost(f)) f.*m = std::exp((a + b) / 2);
    }
  return f;
}

inline std::string fitted_cells(const cdna4::model::Fitted& f) {
  return fmt::format("{:.3f} pJ | {:.3f} pJ | {:.2f} us", f.mac_energy_16bit * 1e12, f.mac_energy_8bit * 1e12,
                     f.launch_seconds * 1e6);
}

inline std::string largest_stalls(const cdna4::ModelStallShares& s) {
  std::vector<std::pair<double, const char*>> shares{{s.vmcnt, "vmcnt"},         {s.lgkmcnt, "lgkmcnt"},
                                                     {s.barrier, "barrier"},     {s.mfma_dependency, "mfma_dep"},
                                                     {s.mfma_busy, "mfma_busy"}, {s.issue, "issue"},
                                                     {s.other, "other"},         {s.issued, "issued"}};
  std::sort(shares.rbegin(), shares.rend());
  return fmt::format("{} {:.0f}, {} {:.0f}, {} {:.0f}", shares[0].second, 100 * shares[0].first, shares[1].second,
                     100 * shares[1].first, shares[2].second, 100 * shares[2].first);
}

inline void print_calibration(std::vector<PublishedPoint>& points) {
  using cdna4::model::Fitted;
  for (PublishedPoint& p : points) {
    try {
      p.report = p.run();
    } catch (const std::exception& e) {
      const std::string what = e.what();
      p.error = what.substr(0, what.find('\n'));
    }
  }
  std::vector<const PublishedPoint*> calibration;
  for (const PublishedPoint& p : points)
    if (p.report && p.role == Role::calibration) calibration.push_back(&p);
  const Fitted shipped{};
  const Fitted fitted = fit(calibration, shipped);
  fmt::print("fitted on {} calibration points: | 16-bit MAC energy | 8-bit MAC energy | launch latency |\n",
             calibration.size());
  fmt::print("|---|---|---|---|\n| this fit | {} |\n| parameters.hpp | {} |\n\n", fitted_cells(fitted),
             fitted_cells(shipped));
  fmt::print("| kernel | shape | role | published TFLOP/s | modeled TFLOP/s | error | bound | L2 hits | latency "
             "(clocks) | top stalls (% of wave time) | modeled us (launch + kernel) |\n"
             "|---|---|---|---|---|---|---|---|---|---|---|\n");
  double worst[3] = {0, 0, 0};
  for (const PublishedPoint& p : points) {
    const char* role = role_name(p.role);
    if (!p.report) {
      fmt::print("| {} | {} | {} | {:.1f} | error: {} | | | | | | |\n", p.kernel, shape_cells(p), role, p.tflops, p.error);
      continue;
    }
    const double err = relative_error(p, fitted);
    worst[int(p.role)] = std::max(worst[int(p.role)], std::abs(err));
    fmt::print("| {} | {} | {} | {:.1f} | {:.1f} | {:+.1f}% | {} | {:.0f}% | {} | {} | {:.2f} |\n", p.kernel,
               shape_cells(p), role, p.tflops, modeled_tflops(p, fitted), 100 * err, p.report->bound, 100 * p.report->l2_hit_rate,
               p.report->global_latency, largest_stalls(p.report->stalls),
               1e6 * cdna4::model::recompose_seconds(*p.report, fitted));
  }
  fmt::print("\nlargest |error|: calibration {:.1f}%, held-out {:.1f}% (reference rows, not counted: {:.1f}%)\n\n",
             100 * worst[0], 100 * worst[1], 100 * worst[2]);

  std::vector<int64_t> sizes;
  for (const PublishedPoint* p : calibration) sizes.push_back(p->size);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  fmt::print("leave one size out (refit without the calibration points of that size; error over every other point "
             "not in the refit):\n\n| left out | 16-bit MAC energy | 8-bit MAC energy | launch latency | largest "
             "|error| of the points outside the refit | the left-out calibration points |\n|---|---|---|---|---|---|\n");
  for (int64_t left : sizes) {
    std::vector<const PublishedPoint*> use;
    for (const PublishedPoint* p : calibration)
      if (p->size != left) use.push_back(p);
    const Fitted f = fit(use, fitted);
    double largest = 0;
    std::string left_out;  // the calibration points of this size, now held out
    for (const PublishedPoint& p : points) {
      if (!p.report || p.role == Role::reference || std::find(use.begin(), use.end(), &p) != use.end()) continue;
      largest = std::max(largest, std::abs(relative_error(p, f)));
      if (p.role == Role::calibration && p.size == left)
        left_out += fmt::format("{}{} {:+.1f}%", left_out.empty() ? "" : ", ", p.kernel, 100 * relative_error(p, f));
    }
    fmt::print("| {}^3 | {} | {:.1f}% | {} |\n", left, fitted_cells(f), 100 * largest, left_out);
  }
}

}  // namespace bench
