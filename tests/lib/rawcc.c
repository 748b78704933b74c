// SPDX-License-Identifier: GPL-2.0
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

int raw_open(struct raw_cc *r)
{
	int tid = vmlinux_struct_id(TCA);

	memset(r, 0, sizeof(*r));
	r->map = create_struct_ops_map(TCA, NULL, &r->vsize);
	if (r->map < 0 || vmlinux_field("bpf_struct_ops_tcp_congestion_ops", "data",
					&r->data, NULL))
		return -1;
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
