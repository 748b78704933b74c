// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "rawcc.h"
#include "sys.h"

int tca_member(const char *name)
{
	return vmlinux_member_index(TCA, name);
}

void raw_put_prog(struct raw_cc *r, const char *m, int fd)
{
	__u32 off;

	if (!vmlinux_field(TCA, m, &off, NULL))
		*(__u64 *)(r->value + r->data + off) = fd;
}

void raw_put_bytes(struct raw_cc *r, const char *m, const void *p, size_t n)
{
	__u32 off;

	if (!vmlinux_field(TCA, m, &off, NULL))
		memcpy(r->value + r->data + off, p, n);
}

/* The value of a complete congestion control named name. */
void raw_reset(struct raw_cc *r, const char *name)
{
	char n[16] = { 0 };

	memset(r->value, 0, sizeof(r->value));
	strncpy(n, name, sizeof(n) - 1);
	raw_put_bytes(r, "name", n, sizeof(n));
	raw_put_prog(r, "ssthresh", r->ssthresh);
	raw_put_prog(r, "undo_cwnd", r->undo);
	raw_put_prog(r, "cong_avoid", r->cong_avoid);
}

int raw_open_map(struct raw_cc *r)
{
	memset(r, 0, sizeof(*r));
	r->map = create_struct_ops_map(TCA, NULL, &r->vsize);
	if (r->map < 0 || vmlinux_field("bpf_struct_ops_tcp_congestion_ops", "data",
					&r->data, NULL))
		return -1;
	return 0;
}

int raw_load_progs(struct raw_cc *r)
{
	int tid = vmlinux_struct_id(TCA);

	r->ssthresh = load_trivial_prog(BPF_PROG_TYPE_STRUCT_OPS, tid, tca_member("ssthresh"),
					"GPL", 2, NULL, 0);
	r->undo = load_trivial_prog(BPF_PROG_TYPE_STRUCT_OPS, tid, tca_member("undo_cwnd"),
				    "GPL", 2, NULL, 0);
	r->cong_avoid = load_trivial_prog(BPF_PROG_TYPE_STRUCT_OPS, tid,
					  tca_member("cong_avoid"), "GPL", 0, NULL, 0);
	r->cong_control = load_trivial_prog(BPF_PROG_TYPE_STRUCT_OPS, tid,
					    tca_member("cong_control"), "GPL", 0, NULL, 0);
	return r->ssthresh < 0 || r->undo < 0 || r->cong_avoid < 0 ||
	       r->cong_control < 0 ? -1 : 0;
}

int raw_open(struct raw_cc *r)
{
	return raw_open_map(r) ? -1 : raw_load_progs(r);
}

void raw_close(struct raw_cc *r)
{
	close(r->ssthresh);
	close(r->undo);
	close(r->cong_avoid);
	close(r->cong_control);
	close(r->map);
}

int raw_update(struct raw_cc *r)
{
	return struct_ops_update(r->map, r->value);
}

__u32 raw_state(struct raw_cc *r)
{
	struct struct_ops_header h;

	return struct_ops_header(r->map, &h) ? ~0U : h.state;
}

void raw_prog_ids(const struct raw_cc *r, __u32 ids[RAW_NPROGS])
{
	ids[0] = prog_id(r->ssthresh);
	ids[1] = prog_id(r->undo);
	ids[2] = prog_id(r->cong_avoid);
	ids[3] = prog_id(r->cong_control);
}

int raw_value_prog_ids(int map_fd, __u32 ids[RAW_NPROGS])
{
	static const char * const members[RAW_NPROGS] = {
		"ssthresh", "undo_cwnd", "cong_avoid", "cong_control",
	};
	char value[4096];
	__u32 data, off;
	int i;

	if (struct_ops_lookup(map_fd, value))
		return -errno;
	if (vmlinux_field("bpf_struct_ops_tcp_congestion_ops", "data", &data, NULL))
		return -ENOENT;
	for (i = 0; i < RAW_NPROGS; i++) {
		if (vmlinux_field(TCA, members[i], &off, NULL))
			return -ENOENT;
		ids[i] = *(__u64 *)(value + data + off);
	}
	return 0;
}
