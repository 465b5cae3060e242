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
#include "libwsr.h"
#include "unit.h"

#ifndef WSR_BPF_DIR
#error "WSR_BPF_DIR: the folder of wsr.bpf.o and balloon.bpf.o"
#endif

static const char *const balloon_progs[] = { "wsr_balloon_reclaim", "wsr_balloon_request",
					     "wsr_balloon_request_hook" };

static bool in(const char *name, const char *const *names, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* a map the balloon object makes and pins, by the pin-name table; it reuses the others */
static bool balloon_map(const char *name)
{
	const struct wsr_pin_name *n = wsr_pin_find(name);

	return n && n->kind == WSR_PIN_MAP && n->balloon;
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
	char func[256];

	ASSERT_OK_PTR(obj, "open %s/wsr.bpf.o", WSR_BPF_DIR);
	ASSERT_OK(extern_func("wsr.bpf.o", func, sizeof(func)), "wsr.bpf.o's BTF");
	ASSERT_STREQ(func, "", "wsr.bpf.o's first extern function");
	bpf_object__for_each_program(prog, obj)
		ASSERT_FALSE(in(bpf_program__name(prog), balloon_progs, 3),
			     "wsr.bpf.o's program %s, a balloon program", bpf_program__name(prog));
	bpf_object__close(obj);
	return NULL;
}

static const char *balloon_object_holds_the_balloon(void)
{
	struct bpf_object *obj = open_obj("balloon.bpf.o");
	struct bpf_program *prog;
	unsigned int nr = 0;
	char func[256] = "";

	ASSERT_OK_PTR(obj, "open %s/balloon.bpf.o", WSR_BPF_DIR);
	extern_func("balloon.bpf.o", func, sizeof(func));
	bpf_object__for_each_program(prog, obj) {
		ASSERT_TRUE(in(bpf_program__name(prog), balloon_progs, 3),
			    "balloon.bpf.o's program %s, a balloon program",
			    bpf_program__name(prog));
		nr++;
	}
	bpf_object__close(obj);
	/* the driver's kfuncs */
	ASSERT_STRPREFIX(func, "bpf_virtio_balloon_ws_", "balloon.bpf.o's first extern function");
	ASSERT_EQ(nr, 3, "balloon.bpf.o's programs");
	return NULL;
}

static const char *shared_maps_match_the_estimators(void)
{
	struct bpf_object *est = open_obj("wsr.bpf.o"), *bal = open_obj("balloon.bpf.o");
	struct bpf_map *m, *e;
	unsigned int compared = 0;
	const char *name;

	ASSERT_OK_PTR(est, "open %s/wsr.bpf.o", WSR_BPF_DIR);
	ASSERT_OK_PTR(bal, "open %s/balloon.bpf.o", WSR_BPF_DIR);
	bpf_object__for_each_map(m, bal) {
		name = bpf_map__name(m);
		if (strchr(name, '.') || balloon_map(name))
			continue;
		e = bpf_object__find_map_by_name(est, name);
		ASSERT_OK_PTR(e, "map %s in wsr.bpf.o", name);
		ASSERT_EQ(bpf_map__type(m), bpf_map__type(e), "map %s's type", name);
		ASSERT_EQ(bpf_map__key_size(m), bpf_map__key_size(e), "map %s's key size", name);
		ASSERT_EQ(bpf_map__value_size(m), bpf_map__value_size(e), "map %s's value size",
			  name);
		ASSERT_EQ(bpf_map__max_entries(m), bpf_map__max_entries(e), "map %s's entries",
			  name);
		ASSERT_EQ(bpf_map__map_flags(m), bpf_map__map_flags(e), "map %s's flags", name);
		compared++;
	}
	bpf_object__close(est);
	bpf_object__close(bal);
	/* no shared map found is no match: the loop above then checked nothing */
	ASSERT_GE(compared, 1, "maps compared");
	return NULL;
}

/*
 * libwsr's pin-name table names each map an object makes, as that
 * object's, and no other map: "wsr unload" removes every pin, the balloon
 * object pins its own, and each watcher's ring is the object's
 * (bpf/reclaim_reports.bpf.h's WATCH_RING()s against WSR_MAX_WATCHERS).
 */
static const char *pin_names_are_the_objects_maps(void)
{
	struct bpf_object *obj[2] = { open_obj("wsr.bpf.o"), open_obj("balloon.bpf.o") };
	const struct wsr_pin_name *n;
	struct bpf_map *m;
	const char *name;
	unsigned int i, o;

	for (o = 0; o < 2; o++) {
		ASSERT_OK_PTR(obj[o], "open object %u in %s", o, WSR_BPF_DIR);
		bpf_object__for_each_map(m, obj[o]) {
			name = bpf_map__name(m);
			/* internal maps (.rodata, .bss), and the estimator's the balloon reuses */
			if (strchr(name, '.') || (o && !balloon_map(name)))
				continue;
			n = wsr_pin_find(name);
			ASSERT_OK_PTR(n, "the pin of object %u's map %s", o, name);
			ASSERT_EQ(n->kind, WSR_PIN_MAP, "the pin of object %u's map %s", o, name);
			ASSERT_EQ(n->balloon, o, "the object of map %s's pin", name);
		}
	}
	for (i = 0; i < wsr_nr_pin_names; i++) {
		n = &wsr_pin_names[i];
		if (n->kind == WSR_PIN_MAP)
			ASSERT_OK_PTR(bpf_object__find_map_by_name(obj[n->balloon], n->name),
				      "the map %s of object %u", n->name, n->balloon);
	}
	for (i = 0; i < WSR_MAX_WATCHERS; i++) {
		char ring[16];

		snprintf(ring, sizeof(ring), "watch%u", i);
		ASSERT_STREQ(wsr_pin_names[i].name, ring, "the pin of slot %u's ring", i);
	}
	bpf_object__close(obj[0]);
	bpf_object__close(obj[1]);
	return NULL;
}

/*
 * No hash map of either object is preallocated but the small ones: a
 * preallocated map takes every entry's memory when it is made, 16,384
 * entries of config, reports, live and reaccess once took 28 MiB of an
 * idle guest (docs/estimator.md, "What wsr costs a guest").
 */
static const char *big_hash_maps_are_not_preallocated(void)
{
	struct bpf_object *obj[2] = { open_obj("wsr.bpf.o"), open_obj("balloon.bpf.o") };
	unsigned int o, big = 0;
	struct bpf_map *m;

	for (o = 0; o < 2; o++) {
		ASSERT_OK_PTR(obj[o], "open object %u", o);
		bpf_object__for_each_map(m, obj[o]) {
			if (bpf_map__type(m) != BPF_MAP_TYPE_HASH ||
			    bpf_map__max_entries(m) <= WSR_MAX_WATCHERS)
				continue;
			ASSERT_TRUE(bpf_map__map_flags(m) & BPF_F_NO_PREALLOC,
				    "hash map %s of %u entries (object %u) is not preallocated",
				    bpf_map__name(m), bpf_map__max_entries(m), o);
			big++;
		}
	}
	bpf_object__close(obj[0]);
	bpf_object__close(obj[1]);
	/* config, reports, live, reaccess, vgens */
	ASSERT_GE(big, 5, "big hash maps found");
	return NULL;
}

static const struct unit_test tests[] = {
	{ "estimator_has_no_kfunc_nor_balloon_program", estimator_has_no_kfunc_nor_balloon_program },
	{ "balloon_object_holds_the_balloon", balloon_object_holds_the_balloon },
	{ "shared_maps_match_the_estimators", shared_maps_match_the_estimators },
	{ "pin_names_are_the_objects_maps", pin_names_are_the_objects_maps },
	{ "big_hash_maps_are_not_preallocated", big_hash_maps_are_not_preallocated },
};

UNIT_MAIN(tests)
