// SPDX-License-Identifier: GPL-2.0
/*
 * The project's public headers each compile on their own: a file that
 * includes one and nothing else, compiled as make compiles wsr (the same
 * compiler and flags), with include/ and the generated uapi folder as its
 * only project folders.  A header that leans on one included before it
 * fails here, not in a program that happens to include another first.
 */
#include <stdio.h>
#include "unit.h"

#if !defined(WSR_CC) || !defined(WSR_CFLAGS) || !defined(WSR_SRC_ROOT) || !defined(WSR_UAPI)
#error "WSR_CC, WSR_CFLAGS, WSR_SRC_ROOT and WSR_UAPI: how make compiles"
#endif

/* compile "#include \"@header\"" alone: its exit status, the compiler's words in @out */
static int compile_alone(const char *header, char *out, size_t len)
{
	char cmd[2048];

	snprintf(cmd, sizeof(cmd), "printf '#include \"%s\"\\n' | %s %s -fsyntax-only -x c "
		 "-I'%s/include' -I'%s' - 2>&1", header, WSR_CC, WSR_CFLAGS, WSR_SRC_ROOT,
		 WSR_UAPI);
	return unit_run(cmd, out, len);
}

static const char *wsr_h_compiles_alone(void)
{
	char out[8192];

	ASSERT_EQ(compile_alone("wsr.h", out, sizeof(out)), 0, "wsr.h alone: %s", out);
	return NULL;
}

static const char *libwsr_h_compiles_alone(void)
{
	char out[8192];

	ASSERT_EQ(compile_alone("libwsr.h", out, sizeof(out)), 0, "libwsr.h alone: %s", out);
	return NULL;
}

static const struct unit_test tests[] = {
	{ "wsr_h_compiles_alone", wsr_h_compiles_alone },
	{ "libwsr_h_compiles_alone", libwsr_h_compiles_alone },
};

UNIT_MAIN(tests)
