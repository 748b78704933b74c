/* SPDX-License-Identifier: GPL-2.0 */
/* Just enough instruction builders for hand-written test programs. */
#ifndef STRUCT_OPS_INSN_H
#define STRUCT_OPS_INSN_H

#include <linux/bpf.h>

#define I_MOV64_IMM(dst, v) \
	((struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = dst, .imm = v })
#define I_MOV64_REG(dst, src) \
	((struct bpf_insn){ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = dst, .src_reg = src })
#define I_ADD64_REG(dst, src) \
	((struct bpf_insn){ .code = BPF_ALU64 | BPF_ADD | BPF_X, .dst_reg = dst, .src_reg = src })
/* dst = *(size *)(src + off) */
#define I_LDX(size, dst, src, o) \
	((struct bpf_insn){ .code = BPF_LDX | BPF_MEM | (size), .dst_reg = dst, .src_reg = src, .off = o })
/* *(size *)(dst + off) = src */
#define I_STX(size, dst, src, o) \
	((struct bpf_insn){ .code = BPF_STX | BPF_MEM | (size), .dst_reg = dst, .src_reg = src, .off = o })
/* dst = map fd, as two instructions */
#define I_LD_MAP_FD(dst, fd) \
	((struct bpf_insn){ .code = BPF_LD | BPF_DW | BPF_IMM, .dst_reg = dst, \
			    .src_reg = BPF_PSEUDO_MAP_FD, .imm = fd }), \
	((struct bpf_insn){ 0 })
#define I_ADD64_IMM(dst, v) \
	((struct bpf_insn){ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = dst, .imm = v })
/* if dst == v, skip the next off instructions */
#define I_JEQ_IMM(dst, v, o) \
	((struct bpf_insn){ .code = BPF_JMP | BPF_JEQ | BPF_K, .dst_reg = dst, .off = o, .imm = v })
#define I_CALL(id) ((struct bpf_insn){ .code = BPF_JMP | BPF_CALL, .imm = id })
#define I_EXIT() ((struct bpf_insn){ .code = BPF_JMP | BPF_EXIT })
/* r2..r5 for bpf_{set,get}sockopt(r1, level, opt, r10 + off, len) */
#define I_SOCKOPT_ARGS(level, opt, off, len) \
	I_MOV64_IMM(BPF_REG_2, level), I_MOV64_IMM(BPF_REG_3, opt), \
	I_MOV64_REG(BPF_REG_4, BPF_REG_10), I_ADD64_IMM(BPF_REG_4, off), \
	I_MOV64_IMM(BPF_REG_5, len)

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
