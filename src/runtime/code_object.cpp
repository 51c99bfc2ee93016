// HSA code object reader: ELF through LLVM's Object library, the metadata note
// through LLVM's MsgPack document.
#include "cdna4/code_object.hpp"

#include <cstring>

#include <fmt/format.h>
#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackDocument.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>

#include "cdna4/error.hpp"

namespace cdna4 {

namespace {

using ELF = llvm::object::ELF64LE;
constexpr uint32_t kDescriptorBytes = 64;

std::string message(llvm::Error e) { return llvm::toString(std::move(e)); }

template <typename T>
T take(llvm::Expected<T> v, const char* what) {
  if (!v) throw Error(fmt::format("code object: {}: {}", what, message(v.takeError())));
  return std::move(*v);
}

template <typename T>
T load(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

void decode_descriptor(const uint8_t* d, KernelInfo& k) {
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
}

uint32_t get_uint(llvm::msgpack::MapDocNode& map, const char* key) {
  auto it = map.find(map.getDocument()->getNode(key));
  if (it == map.end()) return 0;
  auto& node = it->second;
  if (node.getKind() == llvm::msgpack::Type::UInt) return uint32_t(node.getUInt());
  if (node.getKind() == llvm::msgpack::Type::Int) return uint32_t(node.getInt());
  throw Error(fmt::format("code object: metadata field {} is not an integer", key));
}

std::string get_string(llvm::msgpack::MapDocNode& map, const char* key) {
  auto it = map.find(map.getDocument()->getNode(key));
  if (it == map.end() || it->second.getKind() != llvm::msgpack::Type::String) return {};
  return it->second.getString().str();
}

void read_kernel_metadata(llvm::msgpack::MapDocNode& md, KernelInfo& k) {
  k.md_kernarg_size = get_uint(md, ".kernarg_segment_size");
  k.md_kernarg_align = get_uint(md, ".kernarg_segment_align");
  k.md_group_segment_fixed_size = get_uint(md, ".group_segment_fixed_size");
  k.md_private_segment_fixed_size = get_uint(md, ".private_segment_fixed_size");
  k.sgpr_count = get_uint(md, ".sgpr_count");
  k.vgpr_count = get_uint(md, ".vgpr_count");
  k.agpr_count = get_uint(md, ".agpr_count");
  k.wavefront_size = get_uint(md, ".wavefront_size");
  k.max_flat_workgroup_size = get_uint(md, ".max_flat_workgroup_size");
  auto args = md.find(md.getDocument()->getNode(".args"));
  if (args == md.end()) return;
  if (args->second.getKind() != llvm::msgpack::Type::Array)
    throw Error("code object: metadata .args is not an array");
  for (auto& a : args->second.getArray()) {
    if (a.getKind() != llvm::msgpack::Type::Map) throw Error("code object: metadata argument is not a map");
    auto& m = a.getMap();
    k.args.push_back(KernelArg{get_string(m, ".name"), get_string(m, ".value_kind"),
                               get_string(m, ".address_space"), get_uint(m, ".offset"), get_uint(m, ".size")});
  }
}

}  // namespace

CodeObject CodeObject::read(std::span<const uint8_t> bytes) {
  if (bytes.empty()) throw Error("code object: empty input");
  llvm::StringRef data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  auto elf = take(llvm::object::ELFObjectFile<ELF>::create(llvm::MemoryBufferRef(data, "hsaco")), "not a valid ELF64");
  const auto& file = elf.getELFFile();
  const auto& header = file.getHeader();
  if (header.e_machine != llvm::ELF::EM_AMDGPU)
    throw Error(fmt::format("code object: ELF machine {} is not AMDGPU", unsigned(header.e_machine)));
  if (header.e_type != llvm::ELF::ET_DYN)
    throw Error("code object: not a linked code object (ELF type is not ET_DYN); link it first");

  CodeObject co;
  const uint8_t abi_version = header.e_ident[llvm::ELF::EI_ABIVERSION];
  if (abi_version >= llvm::ELF::ELFABIVERSION_AMDGPU_HSA_V4)
    co.code_object_version_ = abi_version + 2;  // V4 is encoded as 2, V5 as 3, V6 as 4
  const auto sections = take(file.sections(), "bad section table");

  // .text and the section holding each kernel descriptor.
  for (const auto& sec : sections) {
    const auto name = take(file.getSectionName(sec), "bad section name");
    if (name == ".text") {
      auto content = take(file.getSectionContents(sec), "cannot read .text");
      co.text_.assign(content.begin(), content.end());
      co.text_address_ = sec.sh_addr;
    }
  }
  if (co.text_.empty()) throw Error("code object: no .text section");

  // Metadata note (NT_AMDGPU_METADATA, msgpack).
  llvm::msgpack::Document doc;
  bool have_metadata = false;
  for (const auto& sec : sections) {
    if (sec.sh_type != llvm::ELF::SHT_NOTE) continue;
    llvm::Error err = llvm::Error::success();
    for (const auto& note : file.notes(sec, err)) {
      if (note.getName() != "AMDGPU" || note.getType() != llvm::ELF::NT_AMDGPU_METADATA) continue;
      auto desc = note.getDescAsStringRef(4);
      if (!doc.readFromBlob(desc, /*Multi=*/false))
        throw Error("code object: the AMDGPU metadata note is not valid msgpack");
      have_metadata = true;
    }
    if (err) throw Error("code object: bad note section: " + message(std::move(err)));
  }
  if (!have_metadata) throw Error("code object: no AMDGPU metadata note (NT_AMDGPU_METADATA)");
  {
    llvm::raw_string_ostream os(co.metadata_yaml_);
    doc.toYAML(os);
  }
  auto& root = doc.getRoot();
  if (root.getKind() != llvm::msgpack::Type::Map) throw Error("code object: metadata root is not a map");
  auto& root_map = root.getMap();
  co.target_ = get_string(root_map, "amdhsa.target");
  auto kernels = root_map.find(doc.getNode("amdhsa.kernels"));
  if (kernels == root_map.end() || kernels->second.getKind() != llvm::msgpack::Type::Array)
    throw Error("code object: metadata has no amdhsa.kernels list");

  // Kernel descriptors: symbols named "<kernel>.kd".
  for (auto& km : kernels->second.getArray()) {
    if (km.getKind() != llvm::msgpack::Type::Map) throw Error("code object: kernel metadata is not a map");
    auto& m = km.getMap();
    KernelInfo k;
    k.name = get_string(m, ".name");
    const std::string symbol = get_string(m, ".symbol");
    read_kernel_metadata(m, k);
    bool found = false;
    for (const auto& sym : elf.symbols()) {
      auto sym_name = take(sym.getName(), "bad symbol name");
      if (sym_name != symbol) continue;
      const uint64_t addr = take(sym.getAddress(), "bad symbol address");
      const auto sec = take(sym.getSection(), "bad symbol section");
      if (sec == elf.section_end()) throw Error("code object: descriptor " + symbol + " is undefined");
      auto content = take(sec->getContents(), "cannot read the descriptor's section");
      const uint64_t off = addr - sec->getAddress();
      if (off + kDescriptorBytes > content.size())
        throw Error("code object: descriptor " + symbol + " lies outside its section");
      const auto* d = reinterpret_cast<const uint8_t*>(content.data()) + off;
      decode_descriptor(d, k);
      const int64_t entry = int64_t(addr) + load<int64_t>(d + 16);
      if (entry < int64_t(co.text_address_) || uint64_t(entry) >= co.text_address_ + co.text_.size())
        throw Error("code object: kernel " + k.name + " has its entry point outside .text");
      k.entry_offset = uint64_t(entry) - co.text_address_;
      k.descriptor_offset = int64_t(addr) - int64_t(co.text_address_);
      found = true;
      break;
    }
    if (!found) throw Error(fmt::format("code object: kernel {} has no descriptor symbol '{}'", k.name, symbol));
    co.kernels_.push_back(std::move(k));
  }
  if (co.kernels_.empty()) throw Error("code object: no kernels");
  return co;
}

const KernelInfo& CodeObject::kernel(const std::string& name) const {
  for (const auto& k : kernels_)
    if (k.name == name) return k;
  std::string names;
  for (const auto& k : kernels_) names += (names.empty() ? "" : ", ") + k.name;
  throw Error(fmt::format("code object has no kernel '{}' (it has: {})", name, names));
}

}  // namespace cdna4
