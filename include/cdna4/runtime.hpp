#pragma once
// Loading and launching code objects: on a real gfx950 through the ROCm HSA
// runtime, or anywhere through the gfx950 emulator, with the same bytes.
//
//   auto dev = cdna4::Device::open("emulator");
//   auto kernel = cdna4::Kernel::from_file("k.hsaco");
//   cdna4::Buffer a = dev.alloc(bytes);
//   a.upload(host.data(), bytes);
//   auto stats = dev.launch(kernel, {blocks}, {256}, {a, b, c, n});
#include <atomic>
#include <functional>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "cdna4/code_object.hpp"
#include "cdna4/error.hpp"
#include "cdna4/model_report.hpp"
#include "cdna4/race_report.hpp"
#include "cdna4/vocabulary.hpp"

namespace cdna4 {

// The release, "MAJOR.MINOR.PATCH" (CMake's project version).
const char* version();

namespace detail {
class Allocation;
class Backend;
}  // namespace detail

struct Dim3 {
  uint32_t x = 1, y = 1, z = 1;
  Dim3() = default;
  Dim3(uint32_t x_, uint32_t y_ = 1, uint32_t z_ = 1) : x(x_), y(y_), z(z_) {}
  uint32_t operator[](int i) const { return i == 0 ? x : i == 1 ? y : z; }
};

// A code object and the kernel in it that launches use. Cheap to copy.
class Kernel {
 public:
  // `name` picks a kernel; empty means "the only kernel" (an error if there are several).
  static Kernel from_hsaco(std::vector<uint8_t> hsaco, const std::string& name = "");
  static Kernel from_file(const std::string& path, const std::string& name = "");

  const std::string& name() const;
  const std::vector<uint8_t>& hsaco() const;
  const CodeObject& code_object() const;
  const KernelInfo& info() const;

 private:
  struct State;
  std::shared_ptr<const State> state_;
};

// Device memory. On the emulator it is host memory; on HSA it is memory of the
// GPU agent. Copies share the allocation, which is freed with the last copy.
class Buffer {
 public:
  Buffer() = default;
  size_t size() const;
  uint64_t address() const;  // the address a kernel sees
  void upload(const void* data, size_t bytes, size_t offset = 0);
  void download(void* data, size_t bytes, size_t offset = 0) const;
  void fill_zero();

  template <class T>
  void upload(const std::vector<T>& values) {
    upload(values.data(), values.size() * sizeof(T));
  }
  template <class T>
  std::vector<T> download() const {
    std::vector<T> values(size() / sizeof(T));
    download(values.data(), values.size() * sizeof(T));
    return values;
  }

 private:
  friend class Device;
  explicit Buffer(std::shared_ptr<detail::Allocation> allocation) : alloc_(std::move(allocation)) {}
  std::shared_ptr<detail::Allocation> alloc_;
};

// One explicit kernel argument, matched in order against the kernel's metadata
// arguments that are not hidden_*: a Buffer or pointer fills a global_buffer
// (8 bytes), a scalar or raw bytes fill a by_value argument of exactly its size.
class Arg {
 public:
  enum class Kind { Pointer, Value };

  Arg(const Buffer& buffer) : kind_(Kind::Pointer), address_(buffer.address()), buffer_(buffer) {}
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Arg(T value) : kind_(Kind::Value), bytes_(sizeof(T)) {
    std::memcpy(bytes_.data(), &value, sizeof(T));
  }
  static Arg pointer(uint64_t address);
  static Arg bytes(std::vector<uint8_t> raw);

  Kind kind() const { return kind_; }
  uint64_t address() const { return address_; }
  const std::vector<uint8_t>& value() const { return bytes_; }

 private:
  Arg(Kind kind) : kind_(kind) {}
  Kind kind_;
  uint64_t address_ = 0;
  std::vector<uint8_t> bytes_;
  Buffer buffer_;  // keeps a passed buffer alive for the launch
};

// A kernarg segment given as bytes, for kernels whose metadata lists no
// arguments or takes one opaque block: these are the explicit arguments, and
// the launch lays out the hidden arguments the metadata describes after them.
//
//   KernargBlock k(352);
//   k.pointer(0, c).pointer(16, a).put<uint32_t>(80, m);
class KernargBlock {
 public:
  explicit KernargBlock(size_t size = 0) : bytes_(size, 0) {}
  explicit KernargBlock(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}
  size_t size() const { return bytes_.size(); }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

  // Each throws cdna4::Error when [offset, offset + n) is not inside the block.
  KernargBlock& put(size_t offset, const void* data, size_t n);
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  KernargBlock& put(size_t offset, T value) {
    return put(offset, &value, sizeof(T));
  }
  KernargBlock& pointer(size_t offset, const Buffer& buffer);  // keeps the buffer alive
  KernargBlock& pointer(size_t offset, uint64_t address);

 private:
  std::vector<uint8_t> bytes_;
  std::vector<Buffer> buffers_;
};

// What a launch does when the emulator reports races.
enum class OnRace {
  Throw,   // launch throws RaceError (the default: a race is a wrong program)
  Report,  // launch returns them in LaunchStats::races
};

enum class GridUnit {
  Workgroups,  // grid counts workgroups (the default)
  WorkItems,   // grid counts work-items (HSA/OpenCL style); may end in a partial workgroup
};

// How far a launch is: after every workgroup the emulator finishes.
struct LaunchProgress {
  uint64_t workgroups_done = 0, workgroups_total = 0;
  double elapsed_seconds = 0;
};

struct LaunchOptions {
  uint32_t dynamic_lds = 0;  // LDS bytes on top of the kernel's fixed size
  GridUnit grid_unit = GridUnit::Workgroups;
  OnRace on_race = OnRace::Throw;
  // Emulator only: override the device's settings for this launch.
  std::optional<uint64_t> seed;
  std::optional<bool> instant_completion;
  std::optional<bool> timed;
  std::optional<uint64_t> max_instructions;  // see EmulatorConfig
  std::optional<double> time_limit_seconds;
  // Set to true from another thread to stop the launch; it then throws
  // LimitError naming where each stopped.
  const std::atomic<bool>* cancel = nullptr;
  // Emulator: called after each workgroup, one call at a time (from the worker
  // threads), with the count done so far; keep it short.
  std::function<void(const LaunchProgress&)> on_progress;
};

struct LaunchStats {
  double seconds = 0;             // kernel time (HSA: dispatch timestamps when available)
  uint64_t instructions = 0;      // emulator: wave-instructions executed
  uint64_t mfma_macs = 0;         // emulator: MFMA multiply-accumulates
  // Emulator, with OnRace::Report: one report per (kind, rule, pc), the first
  // occurrence with its count; at most EmulatorConfig::max_races groups, the
  // occurrences of further groups counted in dropped_races.
  std::vector<RaceReport> races;
  uint64_t dropped_races = 0;
  std::optional<ModelReport> model;  // the "model" device: modeled gfx950 time
};

class RaceError : public Error {
 public:
  RaceError(const std::string& message, std::vector<RaceReport> races)
      : Error(message), races_(std::move(races)) {}
  const std::vector<RaceReport>& races() const { return races_; }

 private:
  std::vector<RaceReport> races_;
};

struct EmulatorConfig {
  bool instant_completion = false;  // memory completes at issue: fast, finds no races
  uint64_t seed = 1;                // seeds the random completion delays
  uint32_t max_delay = 64;          // max extra issue slots before a memory op completes
  // Waves issue in turn, one instruction each, and memory completes after
  // gfx950's latencies: deterministic, races still reported. For kernels whose
  // results depend on timing (docs/emulator.md, "Lockstep mode").
  bool timed = false;
  unsigned threads = 0;             // host threads running workgroups; 0 = all cores
  size_t max_races = 16;            // race / hazard groups kept per launch (LaunchStats::races)
  // Bounds on one launch; hitting one throws LimitError naming the workgroup,
  // wave and pc. 0 means no limit.
  uint64_t max_instructions = uint64_t(1) << 36;  // wave-instructions (about 7e10)
  double time_limit_seconds = 600;                // wall-clock seconds
  // Model device: run only the workgroups the timing model simulates (one CU's
  // worth), so large grids are modeled in seconds; the other workgroups'
  // outputs are left unwritten.
  bool model_only = false;
  // Model device: fill ModelReport::timeline (per wave: MFMAs, memory
  // operations in flight, waits, barriers) for a timeline view.
  bool model_timeline = false;
  // Model device: host bytes the recorded wave-instruction traces, their copies
  // and the timeline may hold at once; past it the launch throws LimitError.
  // 0 means no limit.
  uint64_t max_trace_bytes = uint64_t(2) << 30;
  // How MFMAs add their products (docs/emulator.md, "MFMA arithmetic policies"):
  // the fp32 FMA chain in k order (default) or CDNA3's measured fused groups.
  MfmaPolicy mfma_policy = MfmaPolicy::fp32_fma_chain_k_order;
};

// An instruction of a kernel the emulator cannot execute; occurrences with the
// same opcode and reason are one entry.
struct UnsupportedInstruction {
  std::string opcode;       // LLVM opcode name, e.g. "V_SIN_F32_e32_vi"; "<invalid>" if undecodable
  std::string disassembly;  // of the first occurrence
  std::string reason;
  uint64_t first_pc = 0;    // byte offset into .text of the first occurrence
  uint32_t count = 0;
};

// Decodes the kernel without running it and lists what the emulator would stop
// at: the instructions reachable from the entry (fall-through and branches) that
// it cannot execute, in order of first appearance. Empty when it can run them all.
std::vector<UnsupportedInstruction> emulator_unsupported(const Kernel& kernel);

class Device {
 public:
  static Device emulator(const EmulatorConfig& config = {});
  // The first gfx950 agent of the ROCm runtime; throws cdna4::Error saying
  // which runtime libraries were tried or which agents were found.
  static Device hsa();
  // Runs kernels on the emulator (same results) and models their gfx950 time
  // (LaunchStats::model, docs/model.md).
  static Device model(const EmulatorConfig& config = {});
  // "emulator", "model" or "hsa".
  static Device open(const std::string& name, const EmulatorConfig& config = {});

  const std::string& name() const;
  Buffer alloc(size_t bytes);
  // Synchronous: returns when the kernel has finished.
  LaunchStats launch(const Kernel& kernel, Dim3 grid, Dim3 block, const std::vector<Arg>& args,
                     const LaunchOptions& options = {});
  // The same with the explicit arguments as raw bytes.
  LaunchStats launch(const Kernel& kernel, Dim3 grid, Dim3 block, const KernargBlock& kernarg,
                     const LaunchOptions& options = {});

 private:
  explicit Device(std::shared_ptr<detail::Backend> backend) : backend_(std::move(backend)) {}
  std::shared_ptr<detail::Backend> backend_;
};

}  // namespace cdna4
