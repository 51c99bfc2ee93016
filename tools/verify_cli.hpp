#pragma once
// `cdna4-asmgen --verify FILE.json`: the verdict, then the planned schedule as
// JSON (an attention schedule: its loop picture first); returns 0 when the
// schedule is accepted, 3 when the verifier rejects it (the tools' "check
// failed"), 1 when it cannot be read.
#include <ostream>
#include <string>

#include "cdna4/attention.hpp"
#include "cdna4/schedule.hpp"
#include "codegen/attention_schedule/loop_picture.hpp"
#include "codegen/schedule/json_reader.hpp"

namespace cdna4::tools {

inline int print_verdict(const std::string& path, const VerifyReport& report, std::ostream& out) {
  if (report.accepted()) {
    out << path << ": " << report.summary() << "\n";
  } else {
    out << path << ": rejected (" << report.findings.size() << " problem"
        << (report.findings.size() == 1 ? "" : "s") << ")\n" << report.summary();
  }
  return report.accepted() ? 0 : 3;
}

// Attention schedules are verified as written: explicit ops (num_stages alone
// has nothing to verify until the planner writes the ops).
inline int run_attention_verify_cli(const std::string& path, std::ostream& out) {
  AttentionSchedule s;
  try {
    s = load_attention_schedule(path);
    if (s.ops.empty())
      throw Error(path + ": num_stages only; --verify checks an attention schedule's explicit ops (give \"ops\")");
  } catch (const Error& e) {
    out << path << ": rejected: " << e.what() << "\n";
    return 1;
  }
  const int status = print_verdict(path, verify(s), out);
  out << detail::attention_loop_picture(s) << to_json(s);
  return status;
}

inline int run_verify_cli(const std::string& path, std::ostream& out) {
  Schedule planned;
  try {
    if (schedule_kind(detail::read_schedule_text(path), path) == "attention") return run_attention_verify_cli(path, out);
    planned = plan(load_schedule(path));
  } catch (const Error& e) {
    out << path << ": rejected: " << e.what() << "\n";
    return 1;
  }
  const int status = print_verdict(path, verify(planned), out);
  out << to_json(planned);
  return status;
}

}  // namespace cdna4::tools
