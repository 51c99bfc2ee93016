#pragma once
// A schedule from what a Python caller passes.
#include <pybind11/pybind11.h>

#include "cdna4/attention.hpp"
#include "cdna4/schedule.hpp"

namespace cdna4::python {

// A cdna4jit.Schedule; a dict (the schedule's JSON form, every value JSON: no
// NaN or infinity); a str whose first non-blank character is '{' (JSON text);
// or a path: any other str, bytes or os.PathLike. Anything else raises
// ScheduleError saying what is accepted.
Schedule schedule_from(const pybind11::handle& source);
// An attention schedule from a dict, JSON text or a path, as above.
AttentionSchedule attention_schedule_from(const pybind11::handle& source);

}  // namespace cdna4::python
