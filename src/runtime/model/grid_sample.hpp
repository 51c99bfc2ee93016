#pragma once
// Grids whose workgroups differ (causal attention, split-K, ragged edges,
// persistent kernels): which workgroups the model traces in full, the cost it
// then estimates for every workgroup of the grid, and how long the dispatcher
// takes to run them all (docs/model.md "Grids whose workgroups differ").
#include <array>
#include <cstdint>
#include <map>
#include <vector>

namespace cdna4::model {

struct GridShape {
  std::array<uint32_t, 3> size{1, 1, 1};  // workgroups along x, y, z
  uint64_t count() const { return uint64_t(size[0]) * size[1] * size[2]; }
  uint64_t linear(const std::array<uint32_t, 3>& at) const {
    return at[0] + uint64_t(size[0]) * (at[1] + uint64_t(size[1]) * at[2]);
  }
  std::array<uint32_t, 3> position(uint64_t linear) const {
    return {uint32_t(linear % size[0]), uint32_t(linear / size[0] % size[1]),
            uint32_t(linear / (uint64_t(size[0]) * size[1]))};
  }
};

// The workgroups traced in full, linear ids in increasing order, 0 first:
// every workgroup of a small grid; otherwise, along each dimension that has
// more than one workgroup, evenly spaced positions from the first to the last
// (the other coordinates 0), `param::kGridSamples` in all.
std::vector<uint64_t> sample_workgroups(const GridShape& grid);

// One quantity (cycles, MFMA pipe clocks, bytes) known at the sampled
// workgroups and estimated at every other: exact where sampled; elsewhere the
// value at the origin plus, per dimension, what moving along that dimension
// alone changes (linear between the sampled positions), kept within the
// sampled range.
class GridEstimate {
 public:
  GridEstimate(const GridShape& grid, const std::map<uint64_t, double>& sampled);
  double at(uint64_t linear) const;
  double total() const;  // over the whole grid
  bool uniform() const { return lowest_ == highest_; }
  double lowest() const { return lowest_; }
  double highest() const { return highest_; }

 private:
  double along(int dim, uint32_t position) const;
  GridShape grid_;
  std::map<uint64_t, double> sampled_;
  std::array<std::vector<std::pair<uint32_t, double>>, 3> axis_;  // (position, value) with the others at 0
  double origin_ = 0, lowest_ = 0, highest_ = 0;
};

// Clocks until the last workgroup ends when the grid is dispatched in linear
// order, workgroup i to XCD i mod `xcds`, and within its XCD to the first of
// `slots_per_xcd` workgroup slots that frees (CUs x workgroups per CU), each
// workgroup holding its slot for `cycles` of it.
double dispatch_makespan(const GridEstimate& cycles, uint64_t workgroups, uint32_t xcds, uint64_t slots_per_xcd);

}  // namespace cdna4::model
