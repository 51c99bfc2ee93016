#pragma once
// What the lowering needs of an attention schedule, checked before it plans
// or lowers: sizes, parts, LDS, op fields.
#include "cdna4/attention.hpp"

namespace cdna4::codegen::attention {

// Throws ScheduleError (JSON path and message) for a schedule the lowering
// cannot build: dim 64 / 128, waves 4 / 8, block_q = 16 * waves, block_k 32 /
// 64 / 128, whole G2S parts, LDS that fits, ops with parts and kpacks in range.
void check_attention_schedule(const AttentionSchedule& schedule);

}  // namespace cdna4::codegen::attention
