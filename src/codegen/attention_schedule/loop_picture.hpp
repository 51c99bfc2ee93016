#pragma once
// A text picture of one KV-block iteration of an attention schedule: its ops by
// phase in emission order, each with the block it works on (t = i - stage) and
// the s_waitcnt before it; runs of one op over consecutive parts or kpacks are
// drawn as one line.
#include <cdna4/attention.hpp>

#include <string>

namespace cdna4::detail {

std::string attention_loop_picture(const AttentionSchedule& planned);

}  // namespace cdna4::detail
