# SPDX-License-Identifier: GPL-2.0
# How the project builds BPF programs, for every Makefile that does:
# tests/, bench/, demo/ and cc-tools/. Set top, OUT and VMLINUX (the
# kernel the objects are for, whose BTF becomes $(OUT)/vmlinux.h), then
# include this; a rule compiles with $(bpf_cc).
#
# BPF_DEFINES: -D options for every object (make bench's portable set).

# the including Makefile's first rule, not this file's
.DEFAULT_GOAL := all

CLANG ?= clang
BPFTOOL ?= bpftool
# -mcpu=v3 as upstream's selftests: with clang 14 and the default CPU the
# verifier rejects some congestion controls.
BPF_CFLAGS := -O2 -g -target bpf -mcpu=v3 -Wall -Werror -I$(OUT) -I$(top)/bpf $(BPF_DEFINES)
bpf_cc = $(CLANG) $(BPF_CFLAGS) -c $< -o $@

# The C side: the shared test library and libbpf.
LIB_SRCS := $(wildcard $(top)/lib/*.c)
LIB_HDRS := $(wildcard $(top)/lib/*.h)
CFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter -Werror -I$(OUT) -I$(top)
LDLIBS := -lbpf -lelf -lz -lpthread
# mainline's libbpf 1.5 from 'make clients', for what only newer user
# space drives (struct_ops links)
CLIENTS := $(top)/build/clients
MAINLINE_CFLAGS := -I$(CLIENTS)/libbpf/include -I$(CLIENTS)/src/tools/include/uapi
MAINLINE_LIBS := $(CLIENTS)/libbpf/libbpf.a -lelf -lz -lpthread

$(OUT)/vmlinux.h: $(VMLINUX)
	@mkdir -p $(@D)
	$(BPFTOOL) btf dump file $< format c > $@.tmp && mv $@.tmp $@

$(OUT)/%.skel.h: $(OUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $* > $@.tmp && mv $@.tmp $@

# The examples in bpf/, as a user builds them; and as links
# (.struct_ops.link, on mainline's libbpf), with Reno's next version for
# make demo's roll-out, which keeps 0.7 of cwnd on a loss.
$(OUT)/%.bpf.o: $(top)/bpf/%.bpf.c $(top)/bpf/tcp_ca.h $(OUT)/vmlinux.h
	$(bpf_cc)

$(OUT)/%_link.bpf.o: $(top)/bpf/%.bpf.c $(top)/bpf/tcp_ca.h $(OUT)/vmlinux.h
	$(bpf_cc) -DSTRUCT_OPS_LINK

$(OUT)/reno_v2_link.bpf.o: $(top)/bpf/reno.bpf.c $(top)/bpf/tcp_ca.h $(OUT)/vmlinux.h
	$(bpf_cc) -DSTRUCT_OPS_LINK -DRENO_BETA=717

.SECONDARY:
