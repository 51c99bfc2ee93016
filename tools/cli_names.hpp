#pragma once
// Command-line values spelled as the vocabulary names them (src/vocabulary/rows.hpp):
// the value, or a usage error that lists what the flag takes ("--layout takes nn,
// nt, tn or tt"); `keep` narrows the rows a flag accepts.
#include <string_view>

#include <fmt/format.h>

#include "vocabulary/rows.hpp"

namespace cdna4::tools {

template <class E, class Failure, class Keep = decltype(vocabulary::every_row)>
E parse_named(std::string_view text, std::string_view flag, Keep keep = vocabulary::every_row) {
  const auto* row = vocabulary::find_row<E>(text);
  if (!row || !keep(*row)) throw Failure(fmt::format("{} takes {}", flag, vocabulary::names<E>(keep)));
  return row->value;
}

}  // namespace cdna4::tools
