// What the code-object reader, the kernarg builder and a launch refuse: metadata
// that is implausible for the hardware, a code object for another processor, a
// malformed MessagePack note, and a Kernel that was never loaded.
#include <catch2/catch.hpp>

#include "cdna4/runtime.hpp"
#include "code_object_mutants.hpp"
#include "codegen/assembler.hpp"
#include "emulator_test_kernel.hpp"
#include "runtime/kernarg.hpp"
#include "runtime/msgpack_value.hpp"
#include "support/errors.hpp"

using namespace cdna4;
using cdna4::test::error_of;

namespace {

// The emulator test kernel "k" (kernarg 64 bytes, two arguments) with `edit`
// applied to its metadata text.
std::vector<uint8_t> kernel_with(const std::string& from, const std::string& to) {
  std::string source = emutest::kernel_source("  s_endpgm\n");
  const std::string anchor = "    .kernarg_segment_align: 8\n";
  source.insert(source.find(anchor) + anchor.size(), R"(    .args:
      - { .name: a, .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }
      - { .name: n, .offset: 8, .size: 4, .value_kind: by_value }
)");
  if (!from.empty()) {
    REQUIRE(source.find(from) != std::string::npos);
    source.replace(source.find(from), from.size(), to);
  }
  return codegen::build_hsaco(source, "validation.s");
}

std::string read_error(const std::vector<uint8_t>& hsaco) {
  return error_of([&] { CodeObject::read(hsaco); });
}

void replace_bytes(std::vector<uint8_t>& bytes, const std::string& from, const std::string& to) {
  auto at = std::search(bytes.begin(), bytes.end(), from.begin(), from.end(),
                        [](uint8_t byte, char c) { return byte == uint8_t(c); });
  REQUIRE(at != bytes.end());
  std::copy(to.begin(), to.end(), at);
}

}  // namespace

TEST_CASE("code object: the unedited validation kernel loads", "[code-object]") {
  CodeObject co = CodeObject::read(kernel_with("", ""));
  CHECK(co.processor() == "gfx950");
  CHECK(co.kernel("k").args.size() == 2);
}

TEST_CASE("code object: implausible metadata is refused naming the field", "[code-object]") {
  CHECK_THAT(read_error(kernel_with(".kernarg_segment_size: 64", ".kernarg_segment_size: 4294967295")),
             Catch::Contains("kernel k: metadata .kernarg_segment_size is 4294967295; at most 4096"));
  CHECK_THAT(read_error(kernel_with(".max_flat_workgroup_size: 1024", ".max_flat_workgroup_size: 0")),
             Catch::Contains(".max_flat_workgroup_size is 0"));
  CHECK_THAT(read_error(kernel_with(".max_flat_workgroup_size: 1024", ".max_flat_workgroup_size: 2048")),
             Catch::Contains(".max_flat_workgroup_size is 2048; at most 1024"));
  CHECK_THAT(read_error(kernel_with(".wavefront_size: 64", ".wavefront_size: 48")),
             Catch::Contains(".wavefront_size is 48"));
  CHECK_THAT(read_error(kernel_with(".kernarg_segment_align: 8", ".kernarg_segment_align: 12")),
             Catch::Contains(".kernarg_segment_align is 12, not a power of two"));
  CHECK_THAT(read_error(kernel_with(".offset: 8, .size: 4", ".offset: 4, .size: 4")),
             Catch::Contains("argument #1 (n, by_value, 4 bytes at offset 4) overlaps argument #0 (a, "));
  CHECK_THAT(read_error(kernel_with(".offset: 8, .size: 4", ".offset: 62, .size: 4")),
             Catch::Contains("argument #1 (n, by_value, 4 bytes at offset 62) ends at byte 66, past the 64-byte"));
  CHECK_THAT(read_error(kernel_with(".offset: 8, .size: 4", ".offset: 8, .size: -4")),
             Catch::Contains("argument #1 .size is a negative integer, expected an unsigned integer"));
}

TEST_CASE("code object: metadata the assembler would not write is refused too", "[code-object]") {
  std::vector<uint8_t> no_size = kernel_with("", "");
  replace_bytes(no_size, "\xa5.size", "\xa5.sizf");
  CHECK_THAT(read_error(no_size), Catch::Contains("kernel k: metadata argument #0 has no .size"));
  std::vector<uint8_t> name_array = kernel_with("", "");
  replace_bytes(name_array, "\xa5.name\xa1n", "\xa5.name\x91n");  // "n" becomes [110]
  CHECK_THAT(read_error(name_array), Catch::Contains("kernel k: metadata argument #1 .name is an array, expected a string"));
  std::vector<uint8_t> no_symbol = kernel_with("", "");
  replace_bytes(no_symbol, "\xa7.symbol", "\xa7.symbox");
  CHECK_THAT(read_error(no_symbol), Catch::Contains("kernel k: metadata has no .symbol"));
}

TEST_CASE("code object: ELF and descriptor damage is refused naming the structure", "[code-object]") {
  const std::vector<uint8_t> good = kernel_with("", "");
  const auto d = test::descriptor_range(good, "k.kd");
  REQUIRE(d.end == d.begin + 64);
  auto put32 = [&](size_t at, uint32_t v) {
    std::vector<uint8_t> bytes = good;
    std::memcpy(bytes.data() + at, &v, 4);
    return bytes;
  };
  CHECK_THAT(read_error(put32(d.begin + 8, UINT32_MAX)),
             Catch::Contains("kernel k: descriptor kernarg_size is 4294967295 bytes; a kernarg segment holds at most 4096"));
  CHECK_THAT(read_error(put32(d.begin + 16, 0x40000000)), Catch::Contains("entry point"));
  CHECK_THAT(read_error(put32(d.begin + 16, 4)), Catch::Contains("lies outside .text"));
  CHECK_THAT(read_error(put32(40, 0x7ffffff0)), Catch::Contains("section header table"));
  std::vector<uint8_t> cut(good.begin(), good.begin() + good.size() / 2);
  CHECK_THAT(read_error(cut), Catch::StartsWith("code object: ELF: "));
}

TEST_CASE("code object: a code object for another processor loads but does not launch", "[code-object]") {
  const std::string with_target = "amdhsa.version: [ 1, 2 ]\namdhsa.target: amdgcn-amd-amdhsa--gfx950";
  std::vector<uint8_t> gfx942 = kernel_with("amdhsa.version: [ 1, 2 ]", with_target);
  gfx942[48] = 0x4c;  // EF_AMDGPU_MACH_AMDGCN_GFX942
  replace_bytes(gfx942, "amdgcn-amd-amdhsa--gfx950", "amdgcn-amd-amdhsa--gfx942");
  Kernel kernel = Kernel::from_hsaco(gfx942);
  CHECK(kernel.code_object().processor() == "gfx942");
  CHECK(kernel.code_object().target() == "amdgcn-amd-amdhsa--gfx942");
  Device dev = Device::emulator();
  Buffer out = dev.alloc(256);
  CHECK(error_of([&] { dev.launch(kernel, {1}, {64}, {out, 1u}); }) ==
        "kernel k: the code object is for gfx942 (target amdgcn-amd-amdhsa--gfx942); the emulator device runs gfx950 code only");

  std::vector<uint8_t> mismatch = kernel_with("amdhsa.version: [ 1, 2 ]", with_target);
  mismatch[48] = 0x4c;
  CHECK_THAT(read_error(mismatch), Catch::Contains("metadata amdhsa.target names gfx950, the ELF header gfx942"));
}

TEST_CASE("code object: a default-constructed Kernel is refused, not dereferenced", "[code-object]") {
  Kernel empty;
  const std::string expected = "empty Kernel: load one with Kernel::from_file or Kernel::from_hsaco first";
  CHECK(error_of([&] { (void)empty.name(); }) == expected);
  CHECK(error_of([&] { (void)empty.info(); }) == expected);
  CHECK(error_of([&] { (void)empty.hsaco(); }) == expected);
  CHECK(error_of([&] { (void)empty.code_object(); }) == expected);
  Device dev = Device::emulator();
  CHECK(error_of([&] { dev.launch(empty, {1}, {64}, std::vector<Arg>{}); }) == expected);
  CHECK(error_of([&] { dev.launch(empty, {1}, {64}, KernargBlock(8)); }) == expected);
}

TEST_CASE("kernarg: a hand-built KernelInfo is held to the same layout rules", "[code-object]") {
  KernelInfo k;
  k.name = "k";
  auto g = rt::dispatch_geometry(k, {1}, {64}, GridUnit::Workgroups);
  k.md_kernarg_size = UINT32_MAX;
  CHECK_THAT(error_of([&] { rt::build_kernarg(k, {}, g, {}); }),
             Catch::Contains("metadata .kernarg_segment_size is 4294967295 bytes"));
  CHECK_THAT(error_of([&] { rt::build_kernarg_block(k, KernargBlock(8), g, {}); }),
             Catch::Contains("metadata .kernarg_segment_size is 4294967295 bytes"));
  k.md_kernarg_size = 16;
  KernelArg a{"a", "global_buffer", "global", 0, 8}, b{"b", "by_value", "", 4, 8};
  k.args = {a, b};
  CHECK_THAT(error_of([&] { rt::build_kernarg(k, {Arg::pointer(1), uint64_t(2)}, g, {}); }),
             Catch::Contains("argument #1 (b, by_value, 8 bytes at offset 4) overlaps argument #0"));
  k.args.clear();
  CHECK_THAT(error_of([&] { rt::build_kernarg_block(k, KernargBlock(5000), g, {}); }),
             Catch::Contains("a kernarg block of 5000 bytes exceeds the 4096-byte limit"));
  CHECK_THAT(error_of([&] { rt::build_kernarg(k, {Arg::bytes(std::vector<uint8_t>(5000))}, g, {}); }),
             Catch::Contains("exceed the 4096-byte limit"));
}

TEST_CASE("metadata: MessagePack the reader refuses", "[code-object]") {
  auto error = [](std::vector<uint8_t> bytes) { return error_of([&] { msgpack::parse(bytes); }); };
  CHECK(error({0x81, 0xc2, 0x01}) == "metadata: map key is a boolean; metadata keys are strings at byte 1");
  CHECK(error({0x82, 0xa1, 'a', 0x01, 0xa1, 'a', 0x02}) == "metadata: duplicate map key 'a' at byte 4");
  CHECK(error({0xdd, 0xff, 0xff, 0xff, 0xff}) == "metadata: an array of 4294967295 elements in the 0 bytes left at byte 0");
  CHECK(error({0xd4, 0x01, 0x00}) == "metadata: unsupported MessagePack type 0xd4 at byte 0");
  CHECK(error({0x01, 0x02}) == "metadata: 1 bytes after the document, which ends at byte 1");
  CHECK(error({0xa5, 'a'}) == "metadata: 5 more bytes needed, the note ends at byte 1");
  std::vector<uint8_t> deep(40, 0x91);
  deep.push_back(0x01);
  CHECK(error(deep) == "metadata: nesting deeper than 32 at byte 32");
  const std::vector<uint8_t> doc = {0x82, 0xa1, 'a', 0x92, 0x01, 0xff, 0xa1, 'b', 0xa2, 'h', 'i'};
  const msgpack::Value v = msgpack::parse(doc);
  CHECK(msgpack::to_yaml(v) == "---\na:\n  - 1\n  - -1\nb:               hi\n...\n");
}
