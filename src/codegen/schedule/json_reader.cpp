// The document-level half of schedule reading, shared by the GEMM and the attention parsers.
#include "json_reader.hpp"

#include <cdna4/attention.hpp>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace cdna4::detail {

bool valid_name(const std::string& name) {
  if (name.empty() || name.size() > 128) return false;
  if (!(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

std::string read_name(const Reader& r, const json& root) {
  const json& name = r.need(root, "", "name", "a kernel name");
  if (!name.is_string() || !valid_name(name.get<std::string>()))
    r.fail("name", "expected a kernel name made of letters, digits and '_' (not starting with a digit), got " + Reader::got(name));
  return name.get<std::string>();
}

json parse_document(std::string_view text, const std::string& file) {
  if (text.size() > kMaxScheduleBytes)  // text from anywhere, as a file's size is checked before reading
    throw ScheduleError(file, "", fmt::format("larger than {} bytes", kMaxScheduleBytes));
  check_json_structure(text, file);
  json root;
  try {
    root = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    const auto pos = what.find("parse error");
    throw ScheduleError(file, "", fmt::format("invalid JSON at {}: {}", line_and_column(text, e.byte),
                                              pos == std::string::npos ? what : what.substr(pos)));
  } catch (const json::exception& e) {  // e.g. a number too large for a double
    throw ScheduleError(file, "", fmt::format("invalid JSON: {}", e.what()));
  }
  Reader(file).object(root, "(top level)");
  return root;
}

std::string read_schedule_text(const std::string& path) {
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
  return text.str();
}

std::string kind_of(const Reader& r, const json& root) {
  const json* kind = r.find(root, "kind");
  if (!kind) return "gemm";
  return r.choice<std::string>(*kind, "kind", {{"gemm", "gemm"}, {"attention", "attention"}});
}

}  // namespace cdna4::detail

namespace cdna4 {

std::string schedule_kind(std::string_view json_text, const std::string& file) {
  return detail::kind_of(detail::Reader(file), detail::parse_document(json_text, file));
}

}  // namespace cdna4
