#include "codegen/kernel_build.hpp"

#include <cctype>

#include "common/limits.hpp"

namespace cdna4::codegen {

double ms_since(BuildClock::time_point t) {
  return std::chrono::duration<double, std::milli>(BuildClock::now() - t).count();
}

std::string kernel_symbol(const std::string& prefix, const std::string& schedule_name, const CompileOptions& options) {
  if (!options.kernel_name.empty()) return options.kernel_name;
  std::string name = prefix + schedule_name;
  for (char& ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '_') ch = '_';
  return name;
}

Bytes assemble_and_link(const isa::Code& code, const KernelSpec& spec, const std::string& assembly,
                        const CompileOptions& options, CompileStats& st) {
  auto t = BuildClock::now();
  const Bytes object = options.text_assembly ? assemble(assembly, spec.name + ".s")
                                             : assemble_code(code, spec, spec.name + ".s");
  st.assemble_ms = ms_since(t);
  t = BuildClock::now();
  Bytes hsaco = link_hsaco(object);
  st.link_ms = ms_since(t);
  return hsaco;
}

void fill_code_stats(const isa::Code& code, const KernelSpec& spec, int waves_per_workgroup, CompileStats& st) {
  st.instructions = int(code.instruction_count());
  st.mfma = 0;
  for (const auto& l : code.lines) st.mfma += l.kind == isa::Line::Kind::instruction && isa::is_mfma(l.inst);
  st.vgprs = int(spec.next_free_vgpr());
  st.agprs = int(spec.agprs);
  st.sgprs = int(spec.sgprs);
  st.lds_bytes = int(spec.lds_bytes);
  const gfx950::Occupancy o = gfx950::occupancy(st.vgprs, st.lds_bytes, waves_per_workgroup);
  st.waves_per_simd = o.waves_per_simd;
  st.occupancy_limit = o.limit;
}

}  // namespace cdna4::codegen
