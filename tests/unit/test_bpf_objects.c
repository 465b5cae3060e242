// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the two BPF objects' shape, opened with libbpf and not
 * loaded (no privilege, no guest): the estimator (wsr.bpf.o) calls no
 * kfunc, so that it loads without the virtio_balloon driver; the balloon
 * programs are in balloon.bpf.o alone; and every map the balloon object
 * reuses through its pin is declared as the estimator made it (libbpf
 * refuses a pin whose type or sizes differ, at the balloon's attach, in a
 * guest).
 */
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "unit.h"

#ifndef WSR_BPF_DIR
#error "WSR_BPF_DIR: the folder of wsr.bpf.o and balloon.bpf.o"
#endif

static const char *const balloon_progs[] = { "wsr_balloon_reclaim", "wsr_balloon_request",
					     "wsr_balloon_request_hook" };
/* the maps the balloon object makes and pins; it reuses the others */
static const char *const balloon_maps[] = { "balloon", "balloon_claim", "request_scratch" };

static bool in(const char *name, const char *const *names, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

static struct bpf_object *open_obj(const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", WSR_BPF_DIR, name);
	return bpf_object__open_file(path, NULL);
}

/*
 * Whether the BTF of object @name declares an extern function (a kfunc),
 * into @func.  The file's own BTF: libbpf's open rewrites the externs'.
 */
static int extern_func(const char *name, char *func, size_t len)
{
	char path[4096];
	struct btf *btf;
	__u32 id, n;

	snprintf(path, sizeof(path), "%s/%s", WSR_BPF_DIR, name);
	btf = btf__parse_elf(path, NULL);
	if (!btf)
		return -1;
	func[0] = 0;
	n = btf__type_cnt(btf);
	for (id = 1; id < n && !func[0]; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		/* a function's linkage is its vlen (btf_func_linkage() is newer) */
		if (btf_is_func(t) && btf_vlen(t) == BTF_FUNC_EXTERN)
			snprintf(func, len, "%s", btf__name_by_offset(btf, t->name_off));
	}
	btf__free(btf);
	return 0;
}

static const char *estimator_has_no_kfunc_nor_balloon_program(void)
{
	struct bpf_object *obj = open_obj("wsr.bpf.o");
	struct bpf_program *prog;
	const char *name, *ret = NULL;
	char func[256];

	CHECK(obj, "cannot open %s/wsr.bpf.o", WSR_BPF_DIR);
	if (extern_func("wsr.bpf.o", func, sizeof(func)) || func[0]) {
		bpf_object__close(obj);
		CHECK(0, "wsr.bpf.o: no BTF, or it declares the extern function %s", func);
	}
	bpf_object__for_each_program(prog, obj) {
		name = bpf_program__name(prog);
		if (in(name, balloon_progs, 3)) {
			/* the message before the close: the name is the object's */
			snprintf(unit_msg, sizeof(unit_msg),
				 "the balloon program %s is in wsr.bpf.o", name);
			ret = unit_msg;
			break;
		}
	}
	bpf_object__close(obj);
	return ret;
}

static const char *balloon_object_holds_the_balloon(void)
{
	struct bpf_object *obj = open_obj("balloon.bpf.o");
	struct bpf_program *prog;
	const char *name, *ret = NULL;
	unsigned int nr = 0;
	char func[256] = "";

	CHECK(obj, "cannot open %s/balloon.bpf.o", WSR_BPF_DIR);
	extern_func("balloon.bpf.o", func, sizeof(func));
	bpf_object__for_each_program(prog, obj) {
		name = bpf_program__name(prog);
		if (!in(name, balloon_progs, 3) && !ret) {
			snprintf(unit_msg, sizeof(unit_msg),
				 "balloon.bpf.o holds %s, not a balloon program", name);
			ret = unit_msg;
		}
		nr++;
	}
	bpf_object__close(obj);
	if (ret)
		return ret;
	CHECK(!strncmp(func, "bpf_virtio_balloon_ws_", 22),
	      "balloon.bpf.o declares no kfunc of the driver (first extern: \"%s\")", func);
	CHECK(nr == 3, "balloon.bpf.o holds %u programs, expected 3", nr);
	return NULL;
}

static const char *shared_maps_match_the_estimators(void)
{
	struct bpf_object *est = open_obj("wsr.bpf.o"), *bal = open_obj("balloon.bpf.o");
	const char *ret = NULL, *name;
	struct bpf_map *m, *e;

	if (!est || !bal) {
		snprintf(unit_msg, sizeof(unit_msg), "cannot open the objects in %s", WSR_BPF_DIR);
		ret = unit_msg;
		goto out;
	}
	bpf_object__for_each_map(m, bal) {
		name = bpf_map__name(m);
		if (strchr(name, '.') || in(name, balloon_maps, 3))
			continue;
		e = bpf_object__find_map_by_name(est, name);
		if (!e) {
			snprintf(unit_msg, sizeof(unit_msg), "map %s: not in wsr.bpf.o", name);
		} else if (bpf_map__type(e) != bpf_map__type(m) ||
			   bpf_map__key_size(e) != bpf_map__key_size(m) ||
			   bpf_map__value_size(e) != bpf_map__value_size(m) ||
			   bpf_map__max_entries(e) != bpf_map__max_entries(m) ||
			   bpf_map__map_flags(e) != bpf_map__map_flags(m)) {
			snprintf(unit_msg, sizeof(unit_msg),
				 "map %s: type %d key %u value %u entries %u flags %#x in the "
				 "balloon's object, %d %u %u %u %#x in the estimator's", name,
				 bpf_map__type(m), bpf_map__key_size(m), bpf_map__value_size(m),
				 bpf_map__max_entries(m), bpf_map__map_flags(m), bpf_map__type(e),
				 bpf_map__key_size(e), bpf_map__value_size(e),
				 bpf_map__max_entries(e), bpf_map__map_flags(e));
		} else {
			continue;
		}
		ret = unit_msg;
		break;
	}
out:
	bpf_object__close(est);
	bpf_object__close(bal);
	return ret;
}

static const struct unit_test tests[] = {
	{ "estimator_has_no_kfunc_nor_balloon_program", estimator_has_no_kfunc_nor_balloon_program },
	{ "balloon_object_holds_the_balloon", balloon_object_holds_the_balloon },
	{ "shared_maps_match_the_estimators", shared_maps_match_the_estimators },
};

UNIT_MAIN(tests)
