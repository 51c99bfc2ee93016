#pragma once
// `cdna4-asmgen --verify FILE.json`: the verdict, then the planned schedule as
// JSON; returns 0 when the schedule is accepted, 3 when the verifier rejects it
// (the tools' "check failed"), 1 when it cannot be read.
#include <ostream>
#include <string>

#include "cdna4/schedule.hpp"

namespace cdna4::tools {

inline int run_verify_cli(const std::string& path, std::ostream& out) {
  Schedule planned;
  try {
    planned = plan(load_schedule(path));
  } catch (const Error& e) {
    out << path << ": rejected: " << e.what() << "\n";
    return 1;
  }
  const VerifyReport report = verify(planned);
  if (report.accepted()) {
    out << path << ": " << report.summary() << "\n";
  } else {
    out << path << ": rejected (" << report.findings.size() << " problem"
        << (report.findings.size() == 1 ? "" : "s") << ")\n" << report.summary();
  }
  out << to_json(planned);
  return report.accepted() ? 0 : 3;
}

}  // namespace cdna4::tools
