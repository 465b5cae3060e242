// SPDX-License-Identifier: GPL-2.0
/*
 * The balloon kfuncs' arguments, field by field: struct wsr_balloon_config
 * and struct wsr_balloon_node (include/wsr.h) against the patched driver's
 * struct virtio_balloon_ws_bpf_config and struct virtio_balloon_ws_bpf_node
 * as the kernel make built describes them in its BTF (the module's, split
 * off vmlinux's; vmlinux's when the driver is built in).  The driver checks
 * only their sizes: a field moved within the same size would pass it.
 */
#include <glob.h>
#include <stddef.h>
#include <stdlib.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "wsr.h"
#include "unit.h"

#ifndef WSR_KERNEL_PATH
#error "WSR_KERNEL_PATH: the file that names the built kernel's folder ($(BUILD)/kernel.path)"
#endif

struct field {
	const char *name;
	size_t off, size;
};

#define FIELD(type, f)	{ #f, offsetof(struct type, f), sizeof(((struct type *)0)->f) }

/* ours, in the order and with the names of the driver's */
static const struct field config_fields[] = {
	FIELD(wsr_balloon_config, refresh_ms), FIELD(wsr_balloon_config, report_ms),
	FIELD(wsr_balloon_config, intervals_ms), FIELD(wsr_balloon_config, num_bins),
	FIELD(wsr_balloon_config, reserved), FIELD(wsr_balloon_config, configs),
	FIELD(wsr_balloon_config, requests), FIELD(wsr_balloon_config, answered),
};

static const struct field node_fields[] = {
	FIELD(wsr_balloon_node, node_id), FIELD(wsr_balloon_node, reserved),
	FIELD(wsr_balloon_node, anon_bytes), FIELD(wsr_balloon_node, file_bytes),
};

static struct btf *vmlinux, *driver;

/* the built kernel's BTF of the balloon driver into @driver; NULL or why not */
static const char *driver_btf(void)
{
	char dir[4096], path[4200];
	FILE *f = fopen(WSR_KERNEL_PATH, "r");
	glob_t g;
	bool read;

	if (driver)
		return NULL;
	ASSERT_OK_PTR(f, "open %s (make builds the kernel first)", WSR_KERNEL_PATH);
	read = fgets(dir, sizeof(dir), f);
	fclose(f);
	ASSERT_TRUE(read, "the kernel's folder in %s", WSR_KERNEL_PATH);
	dir[strcspn(dir, "\n")] = 0;
	snprintf(path, sizeof(path), "%s/vmlinux", dir);
	vmlinux = btf__parse(path, NULL);
	ASSERT_OK_PTR(vmlinux, "the BTF of %s", path);
	snprintf(path, sizeof(path), "%s/modules/lib/modules/*/kernel/drivers/virtio/%s", dir,
		 "virtio_balloon.ko");
	if (glob(path, 0, NULL, &g) || !g.gl_pathc) {
		/* built in */
		globfree(&g);
		driver = vmlinux;
		return NULL;
	}
	driver = btf__parse_split(g.gl_pathv[0], vmlinux);
	snprintf(path, sizeof(path), "%s", g.gl_pathv[0]);
	globfree(&g);
	ASSERT_OK_PTR(driver, "the BTF of %s", path);
	return NULL;
}

/*
 * The driver's struct @name against ours (@size, @fields): the same size,
 * the same fields in the same order, each at our offset and of our size.
 */
static const char *same_layout(const char *name, size_t size, const struct field *fields,
			       unsigned int nr)
{
	const struct btf_member *m;
	const struct btf_type *t;
	const char *err = driver_btf();
	unsigned int i;
	int id;

	if (err)
		return err;
	id = btf__find_by_name_kind(driver, name, BTF_KIND_STRUCT);
	ASSERT_GT(id, 0, "struct %s in the driver's BTF", name);
	t = btf__type_by_id(driver, id);
	ASSERT_EQ(t->size, size, "struct %s's size, against ours", name);
	ASSERT_EQ(btf_vlen(t), nr, "struct %s's fields, against ours", name);
	m = btf_members(t);
	for (i = 0; i < nr; i++) {
		ASSERT_STREQ(btf__name_by_offset(driver, m[i].name_off), fields[i].name,
			     "struct %s's field %u", name, i);
		ASSERT_EQ(btf_member_bit_offset(t, i), fields[i].off * 8,
			  "struct %s's %s: its offset in bits, against ours", name, fields[i].name);
		ASSERT_EQ(btf__resolve_size(driver, m[i].type), fields[i].size,
			  "struct %s's %s: its size, against ours", name, fields[i].name);
	}
	return NULL;
}

static const char *balloon_config_is_the_drivers(void)
{
	return same_layout("virtio_balloon_ws_bpf_config", sizeof(struct wsr_balloon_config),
			   config_fields, sizeof(config_fields) / sizeof(config_fields[0]));
}

static const char *balloon_node_is_the_drivers(void)
{
	return same_layout("virtio_balloon_ws_bpf_node", sizeof(struct wsr_balloon_node),
			   node_fields, sizeof(node_fields) / sizeof(node_fields[0]));
}

static const struct unit_test tests[] = {
	{ "balloon_config_is_the_drivers", balloon_config_is_the_drivers },
	{ "balloon_node_is_the_drivers", balloon_node_is_the_drivers },
};

UNIT_MAIN(tests)
