#include "json_limits.hpp"

#include <cdna4/schedule.hpp>

#include <fmt/format.h>

#include <set>
#include <vector>

namespace cdna4::detail {
namespace {

using json = nlohmann::json;

// A SAX pass that keeps only the open containers: their keys so far (objects)
// or element count (arrays), which is also what names the current JSON path.
class StructureCheck : public nlohmann::json_sax<json> {
 public:
  StructureCheck(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override { return open(true); }
  bool start_array(std::size_t) override { return open(false); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }

  bool key(string_t& k) override {
    Frame& f = frames_.back();
    if (!f.keys.insert(k).second)
      throw ScheduleError(file_, path_with(k), fmt::format("duplicate key \"{}\" (each key may appear once per object)",
                                                           k.size() > 40 ? k.substr(0, 37) + "..." : k));
    f.key = k;
    return true;
  }

  bool parse_error(std::size_t byte, const std::string&, const nlohmann::detail::exception& e) override {
    std::string what = e.what();
    if (dynamic_cast<const json::parse_error*>(&e)) {
      const auto pos = what.find("parse error");
      throw ScheduleError(file_, "", fmt::format("invalid JSON at {}: {}", line_and_column(text_, byte),
                                                  pos == std::string::npos ? what : what.substr(pos)));
    }
    throw ScheduleError(file_, "", fmt::format("invalid JSON: {}", what));  // e.g. a number too large for a double
  }

 private:
  struct Frame {
    bool object = false;
    std::set<std::string> keys;
    std::string key;
    size_t elements = 0;
  };

  bool value() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().elements;
    return true;
  }
  bool open(bool object) {
    value();
    if (int(frames_.size()) >= kMaxJsonDepth)
      throw ScheduleError(file_, path().empty() ? "(top level)" : path(), fmt::format("nested deeper than {} levels", kMaxJsonDepth));
    frames_.push_back(Frame{object, {}, {}, 0});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return true;
  }

  // The path of the value being read, in the parser's notation: ops[3].stage.
  std::string path() const { return path_of(frames_.size()); }
  std::string path_with(const std::string& k) const {
    const std::string parent = path_of(frames_.size() - 1);
    return parent.empty() ? k : parent + "." + k;
  }
  std::string path_of(size_t open_frames) const {
    std::string out;
    for (size_t i = 0; i < open_frames; ++i) {
      const Frame& f = frames_[i];
      if (f.object && !f.key.empty()) out += (out.empty() ? "" : ".") + f.key;
      else if (!f.object && f.elements) out += fmt::format("[{}]", f.elements - 1);
    }
    return out;
  }

  std::string_view text_;
  const std::string& file_;
  std::vector<Frame> frames_;
};

// A string cut at `limit` bytes may end inside a UTF-8 sequence.
std::string dump(const json& v) { return v.dump(-1, ' ', false, json::error_handler_t::replace); }

void append_excerpt(const json& v, size_t limit, std::string& out) {
  if (out.size() > limit) return;
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    out += dump(json(s.size() > limit ? s.substr(0, limit) : s));
  } else if (v.is_object()) {
    out += '{';
    for (auto it = v.begin(); it != v.end() && out.size() <= limit; ++it) {
      if (it != v.begin()) out += ',';
      out += dump(json(it.key().size() > limit ? it.key().substr(0, limit) : it.key())) + ':';
      append_excerpt(it.value(), limit, out);
    }
    out += '}';
  } else if (v.is_array()) {
    out += '[';
    for (auto it = v.begin(); it != v.end() && out.size() <= limit; ++it) {
      if (it != v.begin()) out += ',';
      append_excerpt(*it, limit, out);
    }
    out += ']';
  } else {
    out += dump(v);
  }
}

}  // namespace

void check_json_structure(std::string_view text, const std::string& file) {
  StructureCheck check(text, file);
  json::sax_parse(text.begin(), text.end(), &check);
}

std::string json_excerpt(const nlohmann::json& v, size_t limit) {
  std::string out;
  append_excerpt(v, limit, out);
  if (out.size() > limit) out = out.substr(0, limit - 3) + "...";
  return out;
}

std::string line_and_column(std::string_view text, size_t byte) {
  size_t line = 1, column = 1;
  for (size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return fmt::format("line {} column {}", line, column);
}

}  // namespace cdna4::detail
