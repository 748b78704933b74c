// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdbool.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "cc.h"
#include "test.h"

const char *test_file(const char *name)
{
	static char path[PATH_MAX];
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n < 0)
		return name;
	exe[n] = '\0';
	/* build/tests/bin/<test> -> build/tests/<name> */
	snprintf(path, sizeof(path), "%s/../%s", dirname(exe), name);
	return path;
}

/*
 * Every object and link not closed yet, so that a subtest that fails
 * half-way leaves no congestion control registered for the next one.
 */
#define MAX_OPEN 16
static struct bpf_object *open_objs[MAX_OPEN];
static struct {
	struct bpf_link *link;
	struct bpf_object *obj;
} open_links[MAX_OPEN];

static void track_obj(struct bpf_object *obj, bool add)
{
	int i;

	for (i = 0; i < MAX_OPEN; i++) {
		if (open_objs[i] == (add ? NULL : obj)) {
			open_objs[i] = add ? obj : NULL;
			return;
		}
	}
}

static void track_link(struct bpf_link *link, struct bpf_object *obj)
{
	int i;

	for (i = 0; i < MAX_OPEN; i++) {
		if (!open_links[i].link) {
			open_links[i].link = link;
			open_links[i].obj = obj;
			return;
		}
	}
}

/*
 * Unregister what obj registered (NULL: everything) before its maps'
 * fds close: libbpf 1.1's struct_ops link deletes through the map's fd.
 */
static void destroy_links(struct bpf_object *obj, struct bpf_link *only)
{
	int i;

	for (i = 0; i < MAX_OPEN; i++) {
		if (!open_links[i].link || (obj && open_links[i].obj != obj) ||
		    (only && open_links[i].link != only))
			continue;
		bpf_link__destroy(open_links[i].link);
		open_links[i].link = NULL;
	}
}

static void cc_close_all(void)
{
	int i;

	destroy_links(NULL, NULL);
	for (i = 0; i < MAX_OPEN; i++) {
		bpf_object__close(open_objs[i]);
		open_objs[i] = NULL;
	}
}

__attribute__((constructor)) static void cc_cleanup_after_each(void)
{
	test_after_each = cc_close_all;
}

/* The first struct_ops map of obj. */
static struct bpf_map *struct_ops_map(struct bpf_object *obj)
{
	struct bpf_map *map;

	bpf_object__for_each_map(map, obj)
		if (bpf_map__type(map) == BPF_MAP_TYPE_STRUCT_OPS)
			return map;
	return NULL;
}

static int cc_open_file(struct bpf_cc *cc, const char *obj, const char *name)
{
	char file[64];

	memset(cc, 0, sizeof(*cc));
	cc->name = name;
	snprintf(file, sizeof(file), "%s.bpf.o", obj);
	cc->obj = bpf_object__open_file(test_file(file), NULL);
	if (!cc->obj)
		return -errno;
	track_obj(cc->obj, true);
	return 0;
}

static int cc_load(struct bpf_cc *cc)
{
	int err = bpf_object__load(cc->obj);

	if (err) {
		cc_close(cc);
		return err;
	}
	cc->ops = struct_ops_map(cc->obj);
	if (!cc->ops) {
		cc_close(cc);
		return -ENOENT;
	}
	return 0;
}

int cc_open(struct bpf_cc *cc, const char *obj, const char *name)
{
	int err = cc_open_file(cc, obj, name);

	return err ? err : cc_load(cc);
}

int cc_attach_map(struct bpf_cc *cc, struct bpf_map *map)
{
	struct bpf_link *link = bpf_map__attach_struct_ops(map);

	if (!link)
		return -errno;
	track_link(link, cc->obj);
	if (map == cc->ops)
		cc->link = link;
	return 0;
}

int cc_attach(struct bpf_cc *cc)
{
	return cc_attach_map(cc, cc->ops);
}

void cc_detach(struct bpf_cc *cc)
{
	if (cc->link)
		destroy_links(cc->obj, cc->link);
	cc->link = NULL;
}

void cc_close(struct bpf_cc *cc)
{
	if (!cc->obj)
		return;
	destroy_links(cc->obj, NULL);
	cc->link = NULL;
	track_obj(cc->obj, false);
	bpf_object__close(cc->obj);
	cc->obj = NULL;
}

/* libbpf's map for section sec: "<start of the object name><sec>". */
static struct bpf_map *internal_map(struct bpf_object *obj, const char *sec)
{
	struct bpf_map *map;
	const char *name;
	size_t n, len = strlen(sec);

	bpf_object__for_each_map(map, obj) {
		name = bpf_map__name(map);
		n = strlen(name);
		if (bpf_map__is_internal(map) && n >= len &&
		    !strcmp(name + n - len, sec))
			return map;
	}
	return NULL;
}

/*
 * Find var in section .bss, .data or .rodata: its map and offset. The
 * values go through the map's fd, as libbpf 1.1 only mmaps them for
 * skeletons; .rodata is written before the load, when it is still data.
 */
static int find_var(struct bpf_cc *cc, const char *var, struct bpf_map **map,
		    __u32 *off)
{
	static const char * const secs[] = { ".bss", ".data", ".rodata" };
	struct btf *btf = bpf_object__btf(cc->obj);
	const struct btf_var_secinfo *vs;
	const struct btf_type *t;
	unsigned int s;
	int id, i;

	for (s = 0; s < sizeof(secs) / sizeof(secs[0]); s++) {
		id = btf__find_by_name_kind(btf, secs[s], BTF_KIND_DATASEC);
		if (id < 0)
			continue;
		t = btf__type_by_id(btf, id);
		vs = btf_var_secinfos(t);
		for (i = 0; i < btf_vlen(t); i++, vs++) {
			const struct btf_type *v = btf__type_by_id(btf, vs->type);

			if (strcmp(btf__name_by_offset(btf, v->name_off), var))
				continue;
			*map = internal_map(cc->obj, secs[s]);
			*off = vs->offset;
			return *map ? 0 : -ENOENT;
		}
	}
	return -ENOENT;
}

static int access_var(struct bpf_cc *cc, const char *var, void *buf,
		      size_t size, bool write)
{
	struct bpf_map *map;
	char *value;
	int err, zero = 0;
	__u32 off;

	err = find_var(cc, var, &map, &off);
	if (err) {
		fprintf(stderr, "%s: no global %s\n", cc->name, var);
		return err;
	}
	value = calloc(1, bpf_map__value_size(map));
	if (!value)
		return -ENOMEM;
	err = bpf_map_lookup_elem(bpf_map__fd(map), &zero, value);
	if (!err && write) {
		memcpy(value + off, buf, size);
		err = bpf_map_update_elem(bpf_map__fd(map), &zero, value, 0);
	} else if (!err) {
		memcpy(buf, value + off, size);
	}
	free(value);
	return err ? -errno : 0;
}

int cc_open_const(struct bpf_cc *cc, const char *obj, const char *name,
		  const char *var, const void *val, size_t size)
{
	const void *initial;
	struct bpf_map *map;
	size_t map_size;
	char *data;
	__u32 off;
	int err;

	err = cc_open_file(cc, obj, name);
	if (err)
		return err;
	err = find_var(cc, var, &map, &off);
	initial = err ? NULL : bpf_map__initial_value(map, &map_size);
	data = initial && off + size <= map_size ? malloc(map_size) : NULL;
	if (data) {
		memcpy(data, initial, map_size);
		memcpy(data + off, val, size);
		err = bpf_map__set_initial_value(map, data, map_size);
		free(data);
	} else if (!err) {
		err = -EINVAL;
	}
	if (err) {
		cc_close(cc);
		return err;
	}
	return cc_load(cc);
}

int cc_read(struct bpf_cc *cc, const char *var, void *buf, size_t size)
{
	return access_var(cc, var, buf, size, false);
}

int cc_write(struct bpf_cc *cc, const char *var, const void *buf, size_t size)
{
	return access_var(cc, var, (void *)buf, size, true);
}

__u64 cc_u64(struct bpf_cc *cc, const char *var)
{
	__u64 v = 0;

	cc_read(cc, var, &v, sizeof(v));
	return v;
}

__u32 cc_u32(struct bpf_cc *cc, const char *var)
{
	__u32 v = 0;

	cc_read(cc, var, &v, sizeof(v));
	return v;
}

/* Every callback of the examples counts itself in a u64 "<op>_calls". */
__u64 cc_callbacks(struct bpf_cc *cc)
{
	struct btf *btf = bpf_object__btf(cc->obj);
	const struct btf_var_secinfo *vs;
	const struct btf_type *t;
	const char *name;
	__u64 sum = 0;
	int id, i;
	size_t n;

	id = btf ? btf__find_by_name_kind(btf, ".bss", BTF_KIND_DATASEC) : -1;
	if (id < 0)
		return 0;
	t = btf__type_by_id(btf, id);
	vs = btf_var_secinfos(t);
	for (i = 0; i < btf_vlen(t); i++, vs++) {
		name = btf__name_by_offset(btf, btf__type_by_id(btf, vs->type)->name_off);
		n = strlen(name);
		if (vs->size == sizeof(__u64) && n > 6 && !strcmp(name + n - 6, "_calls"))
			sum += cc_u64(cc, name);
	}
	return sum;
}
