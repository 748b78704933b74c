# struct-ops: BPF STRUCT_OPS as a kernel patch series on Debian's
# linux-source-6.1. This Makefile is the front door; 'make help' lists it.
SHELL := /bin/bash
.DEFAULT_GOAL := help

# where the kernels are built: tools/lib.sh says it
kernel_out = $(shell top=$(CURDIR); . tools/lib.sh; kernel_out $(1))
DEBUG_VMLINUX := $(call kernel_out,debug)/vmlinux
RELEASE_VMLINUX := $(call kernel_out,release)/vmlinux
ANCHOR_BZIMAGE := $(call kernel_out,anchor)/arch/x86/boot/bzImage
DEMO := build/demo

help:
	@echo "struct-ops — main targets:"
	@echo "  make demo            build the release kernel, boot it, run BPF and native CCs side by side"
	@echo "  make test            build the debug kernel and the tests, run the suite in QEMU"
	@echo "  make bench [QUICK=1] benchmarks on the release kernel -> bench/results/<date>.md"
	@echo "  make cc SRC=my_cc.bpf.c [BASE=cubic] [LINK=bottleneck|loopback] [KERNEL=release|debug]"
	@echo "                       your CC against BASE in the guest: a table, calls per op, a cwnd plot"
	@echo "  make shell           an interactive guest on the debug kernel"
	@echo "  make tests           build the guest-side tests only (tools/vm -- build/tests/bin/NAME runs one)"
	@echo "kernel workflow (build/linux is a git tree: base + patches/):"
	@echo "  make tree            create build/linux from Debian's source + patches/series"
	@echo "  make reset-tree      re-create build/linux from patches/ (keeps unexported work safe)"
	@echo "  make export          export build/linux's commits base..HEAD to patches/"
	@echo "  make kernel          build the debug kernel (KASAN, kmemleak, lockdep)"
	@echo "  make kernel-release  build the release kernel (benchmarks)"
	@echo "  make kernel-anchor   build the anchor: the tree without the series, upstream 6.1 (benchmarks)"
	@echo "  make check-prefixes  build every prefix of the series (slow)"
	@echo "  make boot-loop [N=60] [JOBS=1]  boot the debug kernel N times (JOBS at a time), fail on any splat"
	@echo "  make checkpatch      checkpatch --strict on patches/"
	@echo "  make check           sparse + W=1 on the files the series touches (new warnings fail)"
	@echo "  make deps            install the Debian packages everything needs"
	@echo "  make clients         build mainline's libbpf 1.5 and bpftool 7.5 (linux-source-6.12) into build/clients"
	@echo "  make clean           remove the kernels' objects and what the tests, demo and benchmarks built"

deps:
	@tools/deps

clients: deps
	@tools/build-clients

tree: deps
	@tools/setup-tree

reset-tree: deps
	@tools/setup-tree --reset

export:
	@tools/export-series

kernel: tree
	@tools/build-kernel debug

kernel-release: tree
	@tools/build-kernel release

kernel-anchor: tree
	@tools/build-anchor

tests: kernel clients
	@echo "==> tests: building guest test programs"
	@$(MAKE) -s -C tests VMLINUX=$(DEBUG_VMLINUX)

test: tests
	@tests/run

demo: kernel-release clients
	@echo "==> demo: building bpf/{dctcp,cubic,reno}.bpf.c (Reno also as two versions of a link), demo-roll and cc-move against the release kernel's BTF"
	@$(MAKE) -s -C demo OUT=$(CURDIR)/$(DEMO)/obj VMLINUX=$(RELEASE_VMLINUX)
	@echo "==> demo: booting the release kernel in QEMU (about 2 minutes under TCG)"
	@rm -rf $(DEMO)/out
	@tools/vm --release --timeout 900 --out $(DEMO)/out $(if $(DEMO_SECONDS),--env DEMO_SECONDS=$(DEMO_SECONDS)) -- demo/run-guest $(DEMO)/obj $(DEMO)/out || \
		{ echo "error: the demo failed in the guest (above); 'make test' runs the same pieces one by one"; exit 1; }
	@echo "==> demo: done; the table is $(DEMO)/out/table.txt, the cwnd plots $(DEMO)/out/cwnd-*.png"

# your own CC against a native one: SRC=path/to/my_cc.bpf.c [BASE=cubic]
# [LINK=bottleneck|loopback] [KERNEL=release|debug]. The kernel is built if
# there is none, not re-checked (kbuild takes 30 s to find nothing to do):
# after a kernel change, 'make kernel-release' (or 'make kernel') first.
CC_KERNEL := $(or $(KERNEL),release)
cc: $(if $(wildcard $(call kernel_out,$(CC_KERNEL))/arch/x86/boot/bzImage),,$(if $(filter debug,$(CC_KERNEL)),kernel,kernel-release))
	@demo/cc "$(SRC)" "$(or $(BASE),cubic)" "$(or $(LINK),bottleneck)" "$(CC_KERNEL)"

BENCH_RAW := build/bench/raw
BENCH_MD := bench/results/$(shell date +%F)$(if $(filter 1,$(QUICK)),-quick).md

# $(call bench_boot,KERNEL OPTION,ANCHOR 0|1,RAW DIR): bench/run-guest in
# one instruction-counted boot, its raw results to RAW DIR. The guest's
# clock counts instructions, but the timeout is the host's: a full run
# beside a make test ran past an hour, about three times its quiet time.
bench_boot = tools/vm $(1) --icount --timeout 7200 --out $(3) --env QUICK=$(QUICK) --env ANCHOR=$(2) -- \
	bench/run-guest build/bench/bin $(3) || \
	{ echo "error: a benchmark failed in the guest (above); its raw output is in $(3)"; exit 1; }

bench: kernel-release kernel-anchor clients
	@echo "==> bench: building the benchmarks and BPF objects against the release kernel"
	@$(MAKE) -s -C bench VMLINUX=$(RELEASE_VMLINUX)
	@rm -rf $(BENCH_RAW)
	@echo "==> bench: booting the release kernel in QEMU, instruction-counted ($(if $(filter 1,$(QUICK)),about 5,about 20) minutes)"
	@mkdir -p $(BENCH_RAW)/anchor
	@$(call bench_boot,--release,0,$(BENCH_RAW))
	@echo "==> bench: booting the anchor, upstream 6.1, for the same workloads ($(if $(filter 1,$(QUICK)),about 3,about 10) minutes)"
	@$(call bench_boot,--kernel $(ANCHOR_BZIMAGE),1,$(BENCH_RAW)/anchor)
	@echo "==> bench: writing $(BENCH_MD)"
	@mkdir -p bench/results
	@python3 -m bench.report $(BENCH_RAW) $(BENCH_MD)

shell: kernel
	@tools/vm --shell

check-prefixes: tree
	@tools/check-prefixes

boot-loop: kernel
	@JOBS=$(or $(JOBS),1) tools/boot-loop $(or $(N),60)

check: kernel
	@tools/check-kernel

checkpatch: tree
	@cd build/linux && PATH=/usr/bin:$$PATH ./scripts/checkpatch.pl --strict --terse \
		$(addprefix $(CURDIR)/patches/,$(shell cat patches/series))

clean:
	rm -rf $(call kernel_out,debug) $(call kernel_out,release) $(call kernel_out,anchor) build/tests build/vm build/demo build/bench build/cc

.PHONY: help deps clients tree reset-tree export kernel kernel-release kernel-anchor tests test demo cc bench shell \
	check-prefixes boot-loop checkpatch check clean
