// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-host balance --connect alone: the running domains libvirt's thread
 * lists every second (virt_list_domains()), one a line: a domain that
 * starts is managed, one that stops and is down is let go.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "libwsr.h"
#include "balance-state.h"
#include "virt.h"

/* a running domain the listing named: managed from now on (a free slot, or a new one) */
static void list_add(struct balance *b, const char *name)
{
	struct balance_vm *a;
	struct vm *v;
	unsigned int i;

	for (i = 0; i < b->cfg->nr_vms && !b->vms[i].removed; i++)
		;
	if (i == BALANCE_MAX_VMS) {
		info_msg("domain %s: skipped: balance manages %d VMs at most", name, BALANCE_MAX_VMS);
		return;
	}
	a = &b->cfg_vms->vms[i];
	memset(a, 0, sizeof(*a));
	snprintf(a->name, sizeof(a->name), "%.63s", name);
	snprintf(a->sock, sizeof(a->sock), "%.63s", name);
	a->libvirt = 1;
	v = &b->vms[i];
	memset(v, 0, sizeof(*v));
	v->arg = a;
	v->q.fd = -1;
	v->k = b->cfg->k;
	v->found = v->listed = 1;
	if (i == b->cfg->nr_vms)
		b->cfg_vms->nr_vms++;
	say(v, "%s", "found running");
}

/*
 * One line of the listing: a running domain (added when new), "." at its
 * end (a found domain not in it, and down, is let go), "!REASON" when it
 * failed (nothing let go on it: a restarting daemon lists nothing)
 */
static void list_line(struct balance *b, const char *line)
{
	unsigned int i;
	size_t k;

	if (line[0] == '!') {
		if (strcmp(line + 1, b->list.err))
			info_msg("libvirt: %s", line + 1);
		snprintf(b->list.err, sizeof(b->list.err), "%.255s", line + 1);
		return;
	}
	if (strcmp(line, ".")) {
		for (i = 0; i < b->cfg->nr_vms; i++)
			if (!b->vms[i].removed && !strcmp(b->vms[i].arg->name, line)) {
				b->vms[i].listed = 1;
				return;
			}
		/* a metrics label and a log word: the names --vm takes */
		for (k = 0; line[k] && strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					       "0123456789_.-", line[k]); k++)
			;
		if (line[k] || k >= sizeof(b->vms[0].arg->name))
			info_msg("domain %s: skipped: its name is not one of letters, digits, '_', "
				 "'.' and '-', at most 63", line);
		else
			list_add(b, line);
		return;
	}
	b->list.err[0] = 0;
	for (i = 0; i < b->cfg->nr_vms; i++) {
		struct vm *v = &b->vms[i];

		if (v->found && !v->removed && !v->listed && v->state == VM_DOWN) {
			say(v, "%s", "not running: let go");
			qmp_close(&v->q);
			v->removed = 1;
		}
		v->listed = 0;
	}
}

/* what the listing thread wrote; a name too long for the buffer is dropped */
void list_io(struct balance *b)
{
	char *nl;
	ssize_t n;

	n = read(b->list.fd, b->list.buf + b->list.len, sizeof(b->list.buf) - 1 - b->list.len);
	if (n <= 0)
		return;
	b->list.len += n;
	b->list.buf[b->list.len] = 0;
	while ((nl = strchr(b->list.buf, '\n'))) {
		*nl = 0;
		list_line(b, b->list.buf);
		b->list.len -= nl + 1 - b->list.buf;
		memmove(b->list.buf, nl + 1, b->list.len + 1);
	}
	if (b->list.len == sizeof(b->list.buf) - 1)
		b->list.len = 0;
}

/* the listing's thread started, every second: 1, said, when it cannot be */
int list_start(struct balance *b)
{
	b->list.fd = virt_list_domains(b->cfg->connect, 1000, b->list.err, sizeof(b->list.err));
	if (b->list.fd < 0) {
		err_msg("balance: %s", b->list.err);
		return 1;
	}
	b->list.err[0] = 0;
	info_msg("balancing every running domain of %s whose balloon has working-set on",
		 b->cfg->connect);
	return 0;
}
