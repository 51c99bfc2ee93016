// Schedule JSON parser: every error names the file, the JSON path and what was expected.
#include <cdna4/schedule.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "codegen/schedule/schedule_internal.hpp"
#include "json_limits.hpp"

namespace cdna4 {
namespace {

using json = nlohmann::json;

template <typename T>
using Choices = std::vector<std::pair<std::string, T>>;

// The names of E's rows that `keep` accepts, as the choices of a field.
template <typename E, typename Keep = decltype(vocabulary::every_row)>
Choices<E> choices_of(Keep keep = vocabulary::every_row) {
  Choices<E> out;
  for (const auto& row : vocabulary::Vocabulary<E>::rows)
    if (keep(row)) out.emplace_back(row.name, row.value);
  return out;
}

// The names of some values of E, in the given order.
template <typename E>
Choices<E> choices_of(std::initializer_list<E> values) {
  Choices<E> out;
  for (E value : values) out.emplace_back(to_string(value), value);
  return out;
}

// Output types, as the element types they are.
Choices<DataType> output_types() {
  Choices<DataType> out;
  for (const auto& row : vocabulary::kOutTypes) out.emplace_back(row.name, row.type);
  return out;
}

bool mfma_operand(const vocabulary::DataTypeRow& row) { return row.element.has_value(); }

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& message) const {
    throw ScheduleError(file_, path, message);
  }

  static std::string got(const json& v) { return detail::json_excerpt(v); }

  void only_fields(const json& obj, const std::string& path,
                   std::initializer_list<const char*> allowed) const {
    for (auto it = obj.begin(); it != obj.end(); ++it) {
      if (std::find_if(allowed.begin(), allowed.end(),
                       [&](const char* a) { return it.key() == a; }) != allowed.end())
        continue;
      std::string list;
      for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
      fail(join(path, it.key()), fmt::format("unknown field (allowed here: {})", list));
    }
  }

  const json& object(const json& v, const std::string& path) const {
    if (!v.is_object()) fail(path, "expected a JSON object, got " + got(v));
    return v;
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }

  const json* find(const json& obj, const char* key) const {
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  }

  const json& need(const json& obj, const std::string& path, const char* key,
                   const char* what) const {
    const json* v = find(obj, key);
    if (!v) fail(join(path, key), fmt::format("missing; expected {}", what));
    return *v;
  }

  int integer(const json& v, const std::string& path, int lo, int hi) const {
    if (!v.is_number_integer())
      fail(path, fmt::format("expected an integer in {}..{}, got {}", lo, hi, got(v)));
    const auto value = v.get<long long>();
    if (value < lo || value > hi)  // shown as written: 2^63 read as a long long is negative
      fail(path, fmt::format("expected an integer in {}..{}, got {}", lo, hi, got(v)));
    return static_cast<int>(value);
  }

  std::optional<int> optional_integer(const json& obj, const std::string& path, const char* key,
                                      int lo, int hi) const {
    const json* v = find(obj, key);
    if (!v) return std::nullopt;
    return integer(*v, join(path, key), lo, hi);
  }

  template <typename T>
  T choice(const json& v, const std::string& path, Choices<T> choices) const {
    std::string list;
    for (const auto& [name, value] : choices) list += (list.empty() ? "\"" : ", \"") + std::string(name) + "\"";
    if (v.is_string())
      for (const auto& [name, value] : choices)
        if (v.get<std::string>() == name) return value;
    fail(path, fmt::format("expected one of {}, got {}", list, got(v)));
  }

 private:
  std::string file_;
};

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 128) return false;
  if (!(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

void read_types(const Reader& r, const json& root, Schedule& s) {
  const json* types = r.find(root, "types");
  if (!types) return;
  r.object(*types, "types");
  r.only_fields(*types, "types", {"a", "b", "acc", "c"});
  if (const json* v = r.find(*types, "a")) s.type_a = r.choice<DataType>(*v, "types.a", choices_of<DataType>(mfma_operand));
  if (const json* v = r.find(*types, "b")) s.type_b = r.choice<DataType>(*v, "types.b", choices_of<DataType>(mfma_operand));
  if (const json* v = r.find(*types, "acc")) s.type_acc = r.choice<DataType>(*v, "types.acc", choices_of({DataType::f32}));
  if (const json* v = r.find(*types, "c")) s.type_c = r.choice<DataType>(*v, "types.c", output_types());
}

// The MFMA must take the operand types: bf16 and f16 kinds both operands of
// their type, f8f6f4 kinds any of the 8-, 6- and 4-bit formats for each.
void check_types(const Reader& r, const Schedule& s) {
  const gfx950::MfmaInfo& mfma = detail::mfma_info(s.mfma);
  for (Operand op : {Operand::a, Operand::b}) {
    const DataType type = operand_type(s, op);
    const gfx950::Element e = *detail::mfma_element(type);
    if (gfx950::takes(mfma, e)) continue;
    std::string fits;
    for (const vocabulary::MfmaKindRow& kind : vocabulary::kMfmaKinds)
      if (gfx950::takes(*kind.info, e)) fits += (fits.empty() ? "" : ", ") + std::string(kind.name);
    r.fail(op == Operand::a ? "types.a" : "types.b",
           fmt::format("{} does not take {} operands ({}); for {} use {}", mfma.mnemonic, to_string(type),
                       mfma.f8f6f4 ? "it takes fp8, bf8, fp6, bf6 or fp4"
                                   : fmt::format("it takes {} x {}", gfx950::element_info(mfma.element).name,
                                                 gfx950::element_info(mfma.element).name),
                       to_string(type), fits));
  }
}

// "scale": {"a": "e8m0", "b": "e8m0"}, present exactly with a scaled MFMA.
void read_scale(const Reader& r, const json& root, Schedule& s) {
  const bool mfma_scaled = detail::mfma_info(s.mfma).scaled;
  const json* scale = r.find(root, "scale");
  if (scale) {
    r.object(*scale, "scale");
    r.only_fields(*scale, "scale", {"a", "b"});
    for (const char* operand : {"a", "b"})
      r.choice<std::string>(r.need(*scale, "scale", operand, "\"e8m0\""), std::string("scale.") + operand,
                            {{"e8m0", "e8m0"}});
    if (!mfma_scaled)
      r.fail("scale", fmt::format("{} takes no scales; MX-scaled operands need v_mfma_scale_f32_16x16x128_f8f6f4 "
                                  "or v_mfma_scale_f32_32x32x64_f8f6f4", to_string(s.mfma)));
  } else if (mfma_scaled) {
    r.fail("scale", fmt::format("missing; {} reads E8M0 scales: give \"scale\": {{\"a\": \"e8m0\", \"b\": \"e8m0\"}}",
                                to_string(s.mfma)));
  }
  s.scaled = mfma_scaled;
}

// "epilogue": {"c": "f32"|"bf16"|"f16"|"none", "bias": "none"|"m"|"n",
// "bias_type": "f32"|"bf16", "activation": a name in common/activations.hpp}.
void read_epilogue(const Reader& r, const json& root, Schedule& s) {
  const json* e = r.find(root, "epilogue");
  if (!e) return;
  r.object(*e, "epilogue");
  r.only_fields(*e, "epilogue", {"c", "bias", "bias_type", "activation"});
  Epilogue ep;
  if (const json* v = r.find(*e, "c")) {
    Choices<std::optional<DataType>> c_types = {{"none", std::nullopt}};
    for (const auto& [name, type] : output_types()) c_types.emplace_back(name, type);
    ep.c = r.choice<std::optional<DataType>>(*v, "epilogue.c", c_types);
  }
  if (const json* v = r.find(*e, "bias")) ep.bias = r.choice<BiasDim>(*v, "epilogue.bias", choices_of<BiasDim>());
  if (const json* v = r.find(*e, "bias_type"))
    ep.bias_type = r.choice<DataType>(*v, "epilogue.bias_type", choices_of({DataType::f32, DataType::bf16}));
  if (const json* v = r.find(*e, "activation"))
    ep.activation = r.choice<Activation>(*v, "epilogue.activation", choices_of<Activation>());
  s.epilogue = ep;
}

// Kernel-level geometry: everything downstream (parts, kpacks, halves) relies on it.
void check_geometry(const Reader& r, const Schedule& s) {
  check_types(r, s);
  const MfmaShape m = mfma_shape(s.mfma);
  if (s.tile_k % m.k != 0)
    r.fail("tile.k", fmt::format("expected a multiple of {} (the K of one {}), got {}", m.k, m.mnemonic, s.tile_k));
  const int wm = s.tile_m / s.wave_grid_m, wn = s.tile_n / s.wave_grid_n;
  if (s.tile_m % s.wave_grid_m != 0 || wm % (2 * m.m) != 0)
    r.fail("tile.m", fmt::format("expected a multiple of wave_grid.m * 2 * {} = {} so each wave's M half is whole MFMA blocks, got {}",
                                 m.m, s.wave_grid_m * 2 * m.m, s.tile_m));
  if (s.tile_n % s.wave_grid_n != 0 || wn % (2 * m.n) != 0)
    r.fail("tile.n", fmt::format("expected a multiple of wave_grid.n * 2 * {} = {} so each wave's N half is whole MFMA blocks, got {}",
                                 m.n, s.wave_grid_n * 2 * m.n, s.tile_n));
  for (Operand o : {Operand::a, Operand::b}) {
    const int rows = o == Operand::a ? s.tile_m : s.tile_n;
    const int bytes = operand_tile_bytes(s, o);
    const char* path = o == Operand::a ? "tile.m" : "tile.n";
    if (lds_row_major(s, o)) {  // parts are byte ranges of whole 16-byte row pieces
      if (bytes % part_bytes(s) != 0)
        r.fail(path, fmt::format("the {} tile ({} x {} {} = {} bytes) must split into whole G2S parts of waves * 1024 = "
                                 "{} bytes", to_string(o), rows, s.tile_k, to_string(operand_type(s, o)),
                                 bytes, part_bytes(s)));
      continue;
    }
    if (bytes % part_bytes(s) != 0 || rows % (bytes / part_bytes(s)) != 0)
      r.fail(path, fmt::format("the {} tile ({} x {} {} = {} bytes) must split into whole G2S parts of waves * 1024 = {} bytes "
                               "along its {} dimension", to_string(o), rows, s.tile_k,
                               to_string(operand_type(s, o)), bytes, part_bytes(s),
                               o == Operand::a ? "M" : "N"));
  }
}

ScheduleOp read_op(const Reader& r, const Schedule& s, const json& v, const std::string& path) {
  r.object(v, path);
  ScheduleOp op;
  op.kind = r.choice<OpKind>(r.need(v, path, "op", "the op kind"), path + ".op", choices_of<OpKind>());
  switch (op.kind) {
    case OpKind::g2s: r.only_fields(v, path, {"op", "operand", "part", "stage", "order", "phase", "vmcnt", "lgkmcnt"}); break;
    case OpKind::s2r: r.only_fields(v, path, {"op", "operand", "kpack", "m_half", "n_half", "stage", "order", "phase", "vmcnt", "lgkmcnt"}); break;
    case OpKind::mfma: r.only_fields(v, path, {"op", "kpack", "m_half", "n_half", "stage", "order", "phase", "vmcnt", "lgkmcnt"}); break;
    case OpKind::setprio: r.only_fields(v, path, {"op", "prio", "stage", "order", "phase", "vmcnt", "lgkmcnt"}); break;
    case OpKind::barrier:
    case OpKind::wait: r.only_fields(v, path, {"op", "stage", "order", "phase", "vmcnt", "lgkmcnt"}); break;
  }
  op.stage = r.integer(r.need(v, path, "stage", "an integer in 0..15"), path + ".stage", 0, 15);
  op.order = r.integer(r.need(v, path, "order", "a unique integer in 0..65535"), path + ".order", 0, 65535);
  op.phase = r.optional_integer(v, path, "phase", 0, 255).value_or(0);
  op.vmcnt = r.optional_integer(v, path, "vmcnt", 0, 65535);
  op.lgkmcnt = r.optional_integer(v, path, "lgkmcnt", 0, 65535);
  if (op.kind == OpKind::g2s || op.kind == OpKind::s2r)
    op.operand = r.choice<Operand>(r.need(v, path, "operand", "\"a\" or \"b\""), path + ".operand", choices_of<Operand>());
  if (op.kind == OpKind::g2s) {
    const int parts = g2s_parts(s, op.operand);
    op.part = r.integer(r.need(v, path, "part", "a G2S part index"), path + ".part", 0, parts - 1);
  }
  if (op.kind == OpKind::s2r || op.kind == OpKind::mfma) {
    op.kpack = r.optional_integer(v, path, "kpack", 0, kpacks(s) - 1);
    op.m_half = r.optional_integer(v, path, "m_half", 0, 1);
    op.n_half = r.optional_integer(v, path, "n_half", 0, 1);
    if (op.kind == OpKind::s2r && op.operand == Operand::a && op.n_half)
      r.fail(path + ".n_half", "not allowed on an s2r of operand a (A is split along M: use m_half)");
    if (op.kind == OpKind::s2r && op.operand == Operand::b && op.m_half)
      r.fail(path + ".m_half", "not allowed on an s2r of operand b (B is split along N: use n_half)");
  }
  if (op.kind == OpKind::setprio)
    op.prio = r.integer(r.need(v, path, "prio", "an integer in 0..3"), path + ".prio", 0, 3);
  if (op.kind == OpKind::wait && !op.vmcnt && !op.lgkmcnt)
    r.fail(path, "a wait op needs vmcnt, lgkmcnt or both");
  return op;
}

int default_lds_buffers(const Schedule& s) {
  if (s.num_stages) return *s.num_stages;
  int first_g2s = 1 << 20, last_s2r = -1;
  for (const ScheduleOp& op : s.ops) {
    if (op.kind == OpKind::g2s) first_g2s = std::min(first_g2s, op.stage);
    if (op.kind == OpKind::s2r) last_s2r = std::max(last_s2r, op.stage);
  }
  return std::max(1, last_s2r - first_g2s + 1);
}

// 4096 ops of about 100 bytes each fit many times over.
constexpr uintmax_t kMaxScheduleBytes = uintmax_t(16) << 20;

}  // namespace

Schedule parse_schedule(std::string_view text, const std::string& file) {
  const Reader r(file);
  if (text.size() > kMaxScheduleBytes)  // text from anywhere, as a file's size is checked before reading
    throw ScheduleError(file, "", fmt::format("larger than {} bytes", kMaxScheduleBytes));
  detail::check_json_structure(text, file);
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    const auto pos = what.find("parse error");
    throw ScheduleError(file, "", fmt::format("invalid JSON at {}: {}", detail::line_and_column(text, e.byte),
                                              pos == std::string::npos ? what : what.substr(pos)));
  } catch (const json::exception& e) {  // e.g. a number too large for a double
    throw ScheduleError(file, "", fmt::format("invalid JSON: {}", e.what()));
  }
  r.object(root, "(top level)");
  r.only_fields(root, "", {"name", "target", "types", "layout", "tile", "waves", "wave_grid", "mfma",
                           "lds_buffers", "pingpong_groups", "workgroup_order", "num_stages", "ops", "scale",
                           "epilogue"});
  Schedule s;
  const json& name = r.need(root, "", "name", "a kernel name");
  if (!name.is_string() || !valid_name(name.get<std::string>()))
    r.fail("name", "expected a kernel name made of letters, digits and '_' (not starting with a digit), got " + Reader::got(name));
  s.name = name.get<std::string>();
  s.target = r.choice<std::string>(r.need(root, "", "target", "\"gfx950\""), "target", {{"gfx950", "gfx950"}});
  read_types(r, root, s);
  if (const json* v = r.find(root, "layout"))
    s.layout = r.choice<Layout>(*v, "layout", choices_of<Layout>());
  const json& tile = r.object(r.need(root, "", "tile", "{\"m\": .., \"n\": .., \"k\": ..}"), "tile");
  r.only_fields(tile, "tile", {"m", "n", "k"});
  s.tile_m = r.integer(r.need(tile, "tile", "m", "an integer"), "tile.m", 16, 1024);
  s.tile_n = r.integer(r.need(tile, "tile", "n", "an integer"), "tile.n", 16, 1024);
  s.tile_k = r.integer(r.need(tile, "tile", "k", "an integer"), "tile.k", 16, 1024);
  const json& waves = r.need(root, "", "waves", "4 or 8");
  s.waves = r.integer(waves, "waves", 4, 8);
  if (s.waves != 4 && s.waves != 8) r.fail("waves", fmt::format("expected 4 or 8, got {}", s.waves));
  if (const json* grid = r.find(root, "wave_grid")) {
    r.object(*grid, "wave_grid");
    r.only_fields(*grid, "wave_grid", {"m", "n"});
    s.wave_grid_m = r.integer(r.need(*grid, "wave_grid", "m", "an integer"), "wave_grid.m", 1, 8);
    s.wave_grid_n = r.integer(r.need(*grid, "wave_grid", "n", "an integer"), "wave_grid.n", 1, 8);
    if (s.wave_grid_m * s.wave_grid_n != s.waves)
      r.fail("wave_grid", fmt::format("expected m * n == waves ({}), got {} x {}", s.waves, s.wave_grid_m, s.wave_grid_n));
  } else {
    s.wave_grid_m = 2;
    s.wave_grid_n = s.waves / 2;
  }
  s.mfma = r.choice<MfmaKind>(r.need(root, "", "mfma", "an MFMA instruction"), "mfma", choices_of<MfmaKind>());
  if (const json* v = r.find(root, "pingpong_groups")) {
    s.pingpong_groups = r.integer(*v, "pingpong_groups", 1, 2);
  }
  if (const json* order = r.find(root, "workgroup_order")) {
    r.object(*order, "workgroup_order");
    r.only_fields(*order, "workgroup_order", {"xcds", "group_m"});
    if (const json* v = r.find(*order, "xcds")) {
      s.workgroup_order.xcds = r.integer(*v, "workgroup_order.xcds", 1, 8);
      if (s.workgroup_order.xcds != 1 && s.workgroup_order.xcds != 8)
        r.fail("workgroup_order.xcds", fmt::format("expected 1 or 8 (gfx950's XCDs), got {}", s.workgroup_order.xcds));
    }
    if (const json* v = r.find(*order, "group_m")) s.workgroup_order.group_m = r.integer(*v, "workgroup_order.group_m", 1, 64);
  }
  read_scale(r, root, s);
  read_epilogue(r, root, s);
  check_geometry(r, s);

  const json* stages = r.find(root, "num_stages");
  const json* ops = r.find(root, "ops");
  if (stages && ops) r.fail("num_stages", "give either num_stages (the planner writes the ops) or ops, not both");
  if (!stages && !ops) r.fail("ops", "missing; expected an ops array or num_stages");
  if (stages) s.num_stages = r.integer(*stages, "num_stages", 1, 8);
  if (ops) {
    if (!ops->is_array() || ops->empty()) r.fail("ops", "expected a non-empty array of ops, got " + Reader::got(*ops));
    if (ops->size() > 4096) r.fail("ops", fmt::format("expected at most 4096 ops, got {}", ops->size()));
    for (size_t i = 0; i < ops->size(); ++i)
      s.ops.push_back(read_op(r, s, (*ops)[i], fmt::format("ops[{}]", i)));
  }
  if (const json* v = r.find(root, "lds_buffers"))
    s.lds_buffers = r.integer(*v, "lds_buffers", 1, 8);
  else
    s.lds_buffers = default_lds_buffers(s);
  return s;
}

Schedule load_schedule(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status)) {
    if (!std::filesystem::is_regular_file(status)) throw ScheduleError(path, "", "not a regular file");
    if (std::filesystem::file_size(path, ec) > kMaxScheduleBytes)
      throw ScheduleError(path, "", fmt::format("larger than {} bytes", kMaxScheduleBytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScheduleError(path, "", "cannot open the schedule file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_schedule(text.str(), path);
}

}  // namespace cdna4
