// HSA code object reader. Everything in the file is untrusted: the ELF
// structure is read through the bounds-checked elf::Image, the metadata note
// through a strict MessagePack parser, and every field used from the document
// is checked for type and range before it is stored. The document is printed
// (metadata_yaml) only once all of it has been accepted.
#include "cdna4/code_object.hpp"

#include <fmt/format.h>

#include <cstring>
#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "cdna4/error.hpp"
#include "runtime/elf_image.hpp"
#include "runtime/kernarg.hpp"
#include "runtime/msgpack_value.hpp"
#include "common/limits.hpp"

namespace cdna4 {
namespace {

using msgpack::Value;

constexpr uint16_t kMachineAmdgpu = 224;    // EM_AMDGPU
constexpr uint16_t kSharedObject = 3;       // ET_DYN
constexpr uint8_t kOsAbiHsa = 64;           // ELFOSABI_AMDGPU_HSA
constexpr uint32_t kNoteMetadata = 32;      // NT_AMDGPU_METADATA
constexpr uint32_t kMachMask = 0xff;        // EF_AMDGPU_MACH
constexpr uint64_t kMaxNoteBytes = 1u << 20;  // real notes are a few KiB; each byte may become a ~100-byte value
constexpr uint32_t kDescriptorBytes = 64;
constexpr uint32_t kDescriptorAlign = 64;
constexpr uint32_t kEntryAlign = 256;       // COMPUTE_PGM_LO holds the entry address / 256
// Plausibility bounds of the metadata: .vgpr_count counts the unified VGPR + AGPR file.
constexpr uint32_t kMaxWorkgroupSize = gfx950::kMaxWorkgroupSize;
constexpr uint32_t kMaxSgprs = gfx950::kMaxDeclaredSgprs, kMaxVgprs = gfx950::kRegistersPerLane,
                   kMaxAgprs = gfx950::kMaxAgprs;
constexpr uint64_t kMaxU32 = UINT32_MAX;

struct Mach {
  uint32_t id;
  const char* name;
};
constexpr Mach kMachs[] = {{0x02c, "gfx900"},  {0x02f, "gfx906"},  {0x030, "gfx908"},  {0x03f, "gfx90a"},
                           {0x040, "gfx940"},  {0x04b, "gfx941"},  {0x04c, "gfx942"},  {0x04f, "gfx950"},
                           {0x036, "gfx1030"}, {0x041, "gfx1100"}, {0x04e, "gfx1200"}, {0x04d, "gfx1201"},
                           {0x051, "gfx9-generic"}, {0x05f, "gfx9-4-generic"}};

std::string processor_name(uint32_t flags) {
  for (const Mach& m : kMachs)
    if (m.id == (flags & kMachMask)) return m.name;
  return fmt::format("unknown processor (EF_AMDGPU_MACH {:#x})", flags & kMachMask);
}

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// Typed, range-checked access to one metadata map; `where` names it in messages.
class Fields {
 public:
  Fields(const Value& map, std::string where) : map_(map), where_(std::move(where)) {
    if (map.kind != Value::Kind::Map) fail(fmt::format("is {}, expected a map", msgpack::describe(map.kind)));
  }
  void rename(std::string where) { where_ = std::move(where); }

  [[noreturn]] void fail(const std::string& what) const { throw Error(fmt::format("{} {}", where_, what)); }

  std::optional<uint64_t> number(const char* key, uint64_t max) const {
    const Value* v = map_.find(key);
    if (!v) return std::nullopt;
    if (v->kind != Value::Kind::UInt)
      fail(fmt::format("{} is {}, expected an unsigned integer", key, msgpack::describe(v->kind)));
    if (v->unsigned_integer > max) fail(fmt::format("{} is {}; at most {} is plausible", key, v->unsigned_integer, max));
    return v->unsigned_integer;
  }
  uint32_t number_or(const char* key, uint64_t max, uint32_t absent) const {
    return uint32_t(number(key, max).value_or(absent));
  }
  uint32_t required_number(const char* key, uint64_t max) const {
    auto v = number(key, max);
    if (!v) fail(fmt::format("has no {}", key));
    return uint32_t(*v);
  }
  std::optional<std::string> text(const char* key) const {
    const Value* v = map_.find(key);
    if (!v) return std::nullopt;
    if (v->kind != Value::Kind::String)
      fail(fmt::format("{} is {}, expected a string", key, msgpack::describe(v->kind)));
    return v->text;
  }
  std::string required_text(const char* key) const {
    auto v = text(key);
    if (!v || v->empty()) fail(fmt::format("has no {}", key));
    return *v;
  }
  const Value* array(const char* key) const {
    const Value* v = map_.find(key);
    if (v && v->kind != Value::Kind::Array)
      fail(fmt::format("{} is {}, expected an array", key, msgpack::describe(v->kind)));
    return v;
  }

 private:
  const Value& map_;
  std::string where_;
};

// "amdgcn-amd-amdhsa--gfx950[:sramecc+][:xnack-]": returns the processor.
std::string target_processor(const std::string& target) {
  const std::string prefix = "amdgcn-amd-amdhsa--";
  if (target.rfind(prefix, 0) != 0)
    throw Error(fmt::format("metadata amdhsa.target '{}' does not start with {}", target, prefix));
  const std::string rest = target.substr(prefix.size());
  const size_t colon = rest.find(':');
  const std::string processor = rest.substr(0, colon);
  for (size_t at = colon; at != std::string::npos;) {
    const size_t next = rest.find(':', at + 1);
    const std::string feature = rest.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
    if (feature.size() < 2 || (feature.back() != '+' && feature.back() != '-'))
      throw Error(fmt::format("metadata amdhsa.target '{}' has a malformed feature '{}'", target, feature));
    at = next;
  }
  return processor;
}

KernelArg read_arg(const Value& value, const std::string& kernel, size_t index) {
  Fields f(value, fmt::format("kernel {}: metadata argument #{}", kernel, index));
  KernelArg arg;
  arg.name = f.text(".name").value_or("");
  arg.value_kind = f.required_text(".value_kind");
  arg.address_space = f.text(".address_space").value_or("");
  arg.type_name = f.text(".type_name").value_or("");
  arg.offset = f.required_number(".offset", kMaxKernargSegmentBytes);
  arg.size = f.required_number(".size", kMaxKernargSegmentBytes);
  return arg;
}

KernelInfo read_kernel_metadata(const Value& value, size_t index) {
  Fields f(value, fmt::format("metadata kernel #{}", index));
  KernelInfo k;
  k.name = f.required_text(".name");
  f.rename(fmt::format("kernel {}: metadata", k.name));
  k.md_kernarg_size = f.number_or(".kernarg_segment_size", kMaxKernargSegmentBytes, 0);
  k.md_kernarg_align = f.number_or(".kernarg_segment_align", kMaxKernargSegmentBytes, 0);
  if (k.md_kernarg_align & (k.md_kernarg_align - 1))
    f.fail(fmt::format(".kernarg_segment_align is {}, not a power of two", k.md_kernarg_align));
  k.md_group_segment_fixed_size = f.number_or(".group_segment_fixed_size", kMaxU32, 0);
  k.md_private_segment_fixed_size = f.number_or(".private_segment_fixed_size", kMaxU32, 0);
  k.sgpr_count = f.number_or(".sgpr_count", kMaxSgprs, 0);
  k.vgpr_count = f.number_or(".vgpr_count", kMaxVgprs, 0);
  k.agpr_count = f.number_or(".agpr_count", kMaxAgprs, 0);
  k.wavefront_size = f.number_or(".wavefront_size", 64, 64);
  if (k.wavefront_size != 32 && k.wavefront_size != 64)
    f.fail(fmt::format(".wavefront_size is {}, expected 32 or 64", k.wavefront_size));
  if (auto size = f.number(".max_flat_workgroup_size", kMaxWorkgroupSize)) {
    if (*size == 0) f.fail(fmt::format(".max_flat_workgroup_size is 0; a workgroup has 1 to {} work-items", kMaxWorkgroupSize));
    k.max_flat_workgroup_size = uint32_t(*size);
  }
  if (const Value* args = f.array(".args"))
    for (size_t i = 0; i < args->items.size(); ++i) k.args.push_back(read_arg(args->items[i], k.name, i));
  return k;
}

// Decodes the 64-byte descriptor `symbol` names and checks where it points.
void read_descriptor(const elf::Image& image, const elf::Symbol& symbol, uint64_t text_address,
                     uint64_t text_size, KernelInfo& k) {
  const elf::Section& section = image.sections()[symbol.section];
  const auto content = image.contents(section);
  if (symbol.value < section.address || !elf::within(symbol.value - section.address, kDescriptorBytes, content.size()))
    throw Error(fmt::format("kernel {}: descriptor {} at {:#x} does not lie inside its section {}", k.name,
                            symbol.name, symbol.value, section.name));
  if (symbol.value % kDescriptorAlign != 0)
    throw Error(fmt::format("kernel {}: descriptor {} at {:#x} is not {}-byte aligned", k.name, symbol.name,
                            symbol.value, kDescriptorAlign));
  const uint8_t* d = content.data() + (symbol.value - section.address);
  k.group_segment_fixed_size = load<uint32_t>(d + 0);
  k.private_segment_fixed_size = load<uint32_t>(d + 4);
  k.kernarg_size = load<uint32_t>(d + 8);
  k.compute_pgm_rsrc3 = load<uint32_t>(d + 44);
  k.compute_pgm_rsrc1 = load<uint32_t>(d + 48);
  k.compute_pgm_rsrc2 = load<uint32_t>(d + 52);
  k.kernel_code_properties = load<uint16_t>(d + 56);
  k.vgpr_granule_count = k.compute_pgm_rsrc1 & 0x3f;
  k.sgpr_granule_count = (k.compute_pgm_rsrc1 >> 6) & 0xf;
  k.accum_offset = ((k.compute_pgm_rsrc3 & 0x3f) + 1) * 4;

  const int64_t entry_byte_offset = load<int64_t>(d + 16);
  int64_t entry = 0, descriptor_offset = 0;
  if (symbol.value > uint64_t(INT64_MAX) || text_address > uint64_t(INT64_MAX) ||
      __builtin_add_overflow(int64_t(symbol.value), entry_byte_offset, &entry) ||
      __builtin_sub_overflow(int64_t(symbol.value), int64_t(text_address), &descriptor_offset) || entry < 0 ||
      uint64_t(entry) < text_address || !elf::within(uint64_t(entry) - text_address, 1, text_size))
    throw Error(fmt::format("kernel {}: entry point (descriptor at {:#x}, offset {}) lies outside .text", k.name,
                            symbol.value, entry_byte_offset));
  if (entry % kEntryAlign != 0)
    throw Error(fmt::format("kernel {}: entry point {:#x} is not {}-byte aligned", k.name, entry, kEntryAlign));
  k.entry_offset = uint64_t(entry) - text_address;
  k.descriptor_offset = descriptor_offset;
}

const elf::Section& text_section(const elf::Image& image) {
  const elf::Section* text = nullptr;
  for (const auto& s : image.sections()) {
    if (s.name != ".text") continue;
    if (text) throw Error("more than one .text section");
    text = &s;
  }
  if (!text || text->size == 0) throw Error("no .text section");
  if (text->type != elf::kProgbits) throw Error(".text is not a SHT_PROGBITS section");
  return *text;
}

std::span<const uint8_t> metadata_note(const elf::Image& image) {
  std::optional<std::span<const uint8_t>> found;
  for (const auto& s : image.sections()) {
    if (s.type != elf::kNote) continue;
    for (const auto& note : image.notes(s)) {
      if (note.name != "AMDGPU" || note.type != kNoteMetadata) continue;
      if (found) throw Error("more than one AMDGPU metadata note");
      found = note.desc;
    }
  }
  if (!found) throw Error("no AMDGPU metadata note (NT_AMDGPU_METADATA)");
  if (found->size() > kMaxNoteBytes)
    throw Error(fmt::format("the metadata note has {} bytes; at most {} are accepted", found->size(), kMaxNoteBytes));
  return *found;
}

void check_header(const elf::Image& image) {
  if (image.machine() != kMachineAmdgpu)
    throw Error(fmt::format("ELF machine {} is not AMDGPU", image.machine()));
  if (image.type() != kSharedObject)
    throw Error("not a linked code object (ELF type is not ET_DYN); link it first");
  if (image.os_abi() != kOsAbiHsa)
    throw Error(fmt::format("ELF OS ABI {} is not AMDGPU_HSA ({}): not an HSA code object", image.os_abi(), kOsAbiHsa));
  if (image.abi_version() < 1 || image.abi_version() > 4)
    throw Error(fmt::format("ELF ABI version {} is not code object v3 to v6", image.abi_version()));
}

std::string read_target(const Fields& root, const std::string& processor) {
  auto target = root.text("amdhsa.target");
  if (!target) return "amdgcn-amd-amdhsa--" + processor;
  const std::string named = target_processor(*target);
  if (named != processor) throw Error(fmt::format("metadata amdhsa.target names {}, the ELF header {}", named, processor));
  return *target;
}

void check_version(const Fields& root) {
  const Value* v = root.array("amdhsa.version");
  if (v && (v->items.size() != 2 || v->items[0].kind != Value::Kind::UInt ||
            v->items[1].kind != Value::Kind::UInt || v->items[0].unsigned_integer != 1))
    throw Error("metadata amdhsa.version is not [1, minor]");
}

std::vector<KernelInfo> read_kernels(const elf::Image& image, const Fields& root, uint64_t text_address,
                                     uint64_t text_size) {
  const Value* list = root.array("amdhsa.kernels");
  if (!list || list->items.empty()) throw Error("metadata has no amdhsa.kernels");
  std::unordered_map<std::string, elf::Symbol> symbols;
  for (auto& sym : image.symbols()) symbols.try_emplace(sym.name, sym);
  std::vector<KernelInfo> kernels;
  std::unordered_set<std::string> names;
  for (size_t i = 0; i < list->items.size(); ++i) {
    KernelInfo k = read_kernel_metadata(list->items[i], i);
    if (!names.insert(k.name).second) throw Error(fmt::format("two kernels are named {}", k.name));
    const std::string symbol = Fields(list->items[i], "kernel " + k.name + ": metadata").required_text(".symbol");
    auto it = symbols.find(symbol);
    if (it == symbols.end()) throw Error(fmt::format("kernel {} has no descriptor symbol '{}'", k.name, symbol));
    read_descriptor(image, it->second, text_address, text_size, k);
    rt::check_kernarg_layout(k);
    kernels.push_back(std::move(k));
  }
  return kernels;
}

}  // namespace

CodeObject CodeObject::read(std::span<const uint8_t> bytes) try {
  if (bytes.empty()) throw Error("empty input");
  const elf::Image image(bytes);
  check_header(image);
  CodeObject co;
  co.code_object_version_ = image.abi_version() + 2u;  // V3 is encoded as 1, V4 as 2, ...
  co.processor_ = processor_name(image.flags());
  const elf::Section& text = text_section(image);
  const auto text_bytes = image.contents(text);
  co.text_.assign(text_bytes.begin(), text_bytes.end());
  co.text_address_ = text.address;

  const Value doc = msgpack::parse(metadata_note(image));
  const Fields root(doc, "metadata root");
  co.target_ = read_target(root, co.processor_);
  check_version(root);
  co.kernels_ = read_kernels(image, root, co.text_address_, co.text_.size());
  co.metadata_yaml_ = msgpack::to_yaml(doc);
  return co;
} catch (const Error& e) {
  throw Error(fmt::format("code object: {}", e.what()));
}

const KernelInfo& CodeObject::kernel(const std::string& name) const {
  for (const auto& k : kernels_)
    if (k.name == name) return k;
  std::string names;
  for (const auto& k : kernels_) names += (names.empty() ? "" : ", ") + k.name;
  throw Error(fmt::format("code object has no kernel '{}' (it has: {})", name, names));
}

}  // namespace cdna4
