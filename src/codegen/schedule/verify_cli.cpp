// `cdna4-asmgen --verify FILE.json`: verdict, then the planned schedule as JSON.
#include <ostream>

#include "schedule_internal.hpp"

namespace cdna4 {

int run_verify_cli(const std::string& path, std::ostream& out) {
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
  return report.accepted() ? 0 : 3;  // the tools' "check failed"
}

}  // namespace cdna4
