#pragma once
// Where every value of the GEMM kernel lives: SGPRs, VGPRs, AGPRs.
#include <vector>

#include "cdna4/gemm.hpp"
#include "cdna4/schedule.hpp"
#include "codegen/gemm/row_swizzle.hpp"
#include "codegen/schedule/geometry.hpp"
#include "codegen/isa/instruction.hpp"

namespace cdna4::codegen {

struct GemmGeometry {
  int waves, wave_grid_m, wave_grid_n;
  int wave_m, wave_n;        // C rows / cols per wave
  int mfma_m, mfma_n, mfma_k;
  int mfma_regs;             // accumulator registers per MFMA tile (4 or 16)
  int kpacks;                // tile_k / mfma_k
  int blocks_m, blocks_n;    // MFMA tiles per wave along M / N
  int parts_a, parts_b;      // G2S parts per operand tile
  int lds_buffers;
  int register_versions;     // S2R register copies (k mod versions)
  int lane_elements;         // K elements of one MFMA operand per lane
  // A and B each: their widths may differ (fp8 x fp4).
  struct OperandLayout {
    int element_bits;
    int fragment_regs;       // VGPRs of one MFMA operand per lane
    // Pieces (8-, 16- and 4-bit types): 16-byte pieces of a fragment, each 1 KiB of LDS per 64 lanes.
    int chunks;
    int chunk_elements;      // K elements in 16 bytes
    // Rows (6-bit types): the tile as [kpack][row][row_bytes], read with three ds_read_b64.
    bool row_major;
    int row_bytes;           // K bytes of one row in one kpack
    // K-major (A "t", B "n"): a part as [k][part rows], k_row_bytes a k, read
    // with ds_read_b64_tr_b{16,8} (entry.cpp, "K-major rows").
    bool k_major;
    // K contiguous, 4 to 16 bits: the tile as its rows of tile_row_bytes, 16-byte
    // unit u of row r at position u ^ swizzle(r) (entry.cpp, "Swizzled rows").
    bool swizzled_rows;
    int tile_row_bytes;
    int swizzle_rows;        // rows that share one swizzle value (256 / tile_row_bytes, at least 1)
    int swizzle_mask;        // swizzle values: min(units per row, 16) - 1
    RowSwizzle row_swizzle{};  // which bits of (r / swizzle_rows) each swizzle bit XORs (row_swizzle.hpp)
    // K-major: rows of a part, bytes of its k row, and the k bits of the swizzle.
    int part_rows = 0, k_row_bytes = 0;
    int k_swizzle_bits[4] = {};  // unit bit first_swizzle_unit_bit + i = bit k_swizzle_bits[i] of k
    int k_swizzle_count = 0, first_swizzle_unit_bit = 0;
  };
  OperandLayout layout[2];
  const OperandLayout& of(Operand op) const { return layout[int(op)]; }
  bool equal_widths() const { return layout[0].element_bits == layout[1].element_bits; }
  int fragment_regs(Operand op) const { return of(op).fragment_regs; }

  static GemmGeometry of(const Schedule& s);
};

struct RegisterPlan {
  // SGPRs
  isa::Reg kernarg{isa::RegFile::s, 0, 2};
  isa::Reg wg_x{isa::RegFile::s, 2}, wg_y{isa::RegFile::s, 3};
  isa::Reg desc_a{isa::RegFile::s, 4, 4}, desc_b{isa::RegFile::s, 8, 4}, desc_c{isa::RegFile::s, 12, 4};
  isa::Reg wave{isa::RegFile::s, 16};        // wave index in the workgroup
  isa::Reg wave_chunk{isa::RegFile::s, 17};  // wave * 1024: this wave's chunk inside a G2S part
  isa::Reg k_base{isa::RegFile::s, 18};      // iteration i * tile_k (elements)
  isa::Reg trips{isa::RegFile::s, 19};       // loop trips left
  isa::Reg tmp{isa::RegFile::s, 20, 4};      // scratch
  isa::Reg ptr_a{isa::RegFile::s, 24, 2}, ptr_b{isa::RegFile::s, 26, 2}, ptr_c{isa::RegFile::s, 28, 2};
  isa::Reg tile_m0{isa::RegFile::s, 30}, tile_n0{isa::RegFile::s, 31};
  isa::Reg wave_m{isa::RegFile::s, 32}, wave_n{isa::RegFile::s, 33};
  // Per pipeline stage: K left after the stage's tile, and the tile's byte offset
  // along K in A and in B (one register when both step K by equal element sizes).
  int stage_regs = 2;
  isa::Reg stage_k_left(int stage) const { return {isa::RegFile::s, uint16_t(34 + stage_regs * stage)}; }
  isa::Reg stage_k_bytes(int stage, Operand op) const {
    return {isa::RegFile::s, uint16_t(35 + stage_regs * stage + (stage_regs == 3 && op == Operand::b))};
  }
  // MX scales (scaled schedules): descriptors, pointers, the tile's first scale
  // block (A) and that x N (B).
  isa::Reg scale_desc_a, scale_desc_b, scale_ptr_a, scale_ptr_b, scale_block_a, scale_block_b;
  // Batched kernels: the hardware's workgroup id z arrives in s4 (after the
  // kernarg pointer and ids x, y), which desc_a overwrites; entry copies it here.
  isa::Reg wg_z_in{isa::RegFile::s, 4}, batch_index;
  // Fused epilogue: C input and bias descriptors and pointers, alpha and beta.
  isa::Reg desc_c_in, desc_bias, ptr_c_in, ptr_bias, alpha, beta;
  int sgprs = 0;

  // VGPRs
  isa::Reg tid{isa::RegFile::v, 0}, lane{isa::RegFile::v, 1};
  isa::Reg lane_row{isa::RegFile::v, 2}, lane_kgroup{isa::RegFile::v, 3};  // lane % mfma_m, lane / mfma_m
  isa::Reg addr_tmp{isa::RegFile::v, 4, 2};
  // Constants in VGPRs: v_cndmask_b32 with VCC may not also read a literal.
  isa::Reg out_of_range{isa::RegFile::v, 6}, no_column{isa::RegFile::v, 7};
  int first_lds_addr = 8;    // [operand][slot]
  int first_g2s_addr = 0;    // [operand part]: global byte offset of the lane's 16 bytes at k = 0
  int first_g2s_kcol = 0;    // [operand part]: lane's k column, or INT_MAX when its row is outside
  int first_fragment = 0;    // [version][operand][kpack][block] x 4
  int first_scale = 0;       // scaled: lane base A, lane base B, address, then [tile parity][kpack] the blocks' A and B scale bytes
  int vgprs = 0;
  int agprs = 0;

  isa::Reg lds_addr(Operand op, int slot, int lds_buffers) const;
  isa::Reg g2s_addr(Operand op, int part, const GemmGeometry& g) const;
  isa::Reg g2s_kcol(Operand op, int part, const GemmGeometry& g) const;
  isa::Reg fragment(const GemmGeometry& g, int version, Operand op, int kpack, int block) const;
  isa::Reg accumulator(const GemmGeometry& g, int block_m, int block_n) const;
  isa::Reg scale_base(Operand op) const { return {isa::RegFile::v, uint16_t(first_scale + int(op))}; }
  isa::Reg scale_addr() const { return {isa::RegFile::v, uint16_t(first_scale + 2)}; }
  // Two versions (tile parity): the next tile's scales load while the MFMAs read this tile's.
  isa::Reg scale_value(const GemmGeometry& g, Operand op, int version, int kpack, int block) const {
    const int per_kpack = g.blocks_m + g.blocks_n;
    return {isa::RegFile::v, uint16_t(first_scale + 3 + (version * g.kpacks + kpack) * per_kpack +
                                      (op == Operand::a ? block : g.blocks_m + block))};
  }

  // Throws cdna4::Error naming the budget that does not fit.
  static RegisterPlan make(const Schedule& s, const GemmGeometry& g, bool batched);
};

}  // namespace cdna4::codegen
