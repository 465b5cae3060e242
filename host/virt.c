// SPDX-License-Identifier: GPL-2.0
/*
 * wsr-host through libvirt (see virt.h): a thread per domain connection
 * that serves QMP on a socket pair from libvirt's C API (balance's
 * records instead: virt-said.c), and the connection's events.
 *
 * The commands go to QEMU's monitor through virDomainQemuMonitorCommand,
 * but for three that libvirt must see, so that its view of the domain
 * stays true: the balloon's target (virDomainSetMemoryFlags), the stats
 * period (virDomainSetMemoryStatsPeriod) and the stats themselves
 * (virDomainMemoryStats), whose replies the commands get in QEMU's own
 * form.
 * QEMU's events come through virConnectDomainQemuMonitorEventRegister,
 * and the domain's end and reboots through virConnectDomainEventRegisterAny.
 *
 * libvirt's calls have no time-out of their own: each connection's calls
 * are made by its own thread, and the peer (balance's loop, a command)
 * keeps its deadlines on the socket.  A peer that gave up closes its end;
 * the thread ends when its call returns.  libvirt's events are dispatched
 * by one thread for the process (virEventRunDefaultImpl), which writes
 * each event without waiting: a peer that does not read loses its
 * connection, not the others' events.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <libvirt/libvirt.h>
#include <libvirt/libvirt-qemu.h>
#include <libvirt/virterror.h>
#include "libwsr.h"
#include "qmp.h"
#include "virt.h"
#include "virt-bridge.h"

static pthread_once_t loop_once = PTHREAD_ONCE_INIT;
static int loop_err;

/* libvirt's errors are told by the replies, not printed where they happen */
static void quiet(void *opaque, virErrorPtr e)
{
	(void)opaque;
	(void)e;
}

static void *event_loop(void *arg)
{
	(void)arg;
	for (;;)
		if (virEventRunDefaultImpl() < 0)
			usleep(100000);
	return NULL;
}

/* libvirt's default event loop, for events and keepalives: once a process */
static void loop_start(void)
{
	pthread_t t;

	/* libvirt prints every error to stderr unless told otherwise */
	virSetErrorFunc(NULL, quiet);
	loop_err = virEventRegisterDefaultImpl() < 0 ||
		   pthread_create(&t, NULL, event_loop, NULL) || pthread_detach(t);
}

/* the event loop running (started by the first caller): 0, or -1 with @err */
int bridge_loop_ready(char *err, size_t err_len)
{
	pthread_once(&loop_once, loop_start);
	if (loop_err)
		snprintf(err, err_len, "cannot start libvirt's event loop");
	return loop_err ? -1 : 0;
}

void bridge_put(void *opaque)
{
	struct bridge *b = opaque;

	if (__atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL))
		return;
	close(b->fd);
	pthread_mutex_destroy(&b->wlock);
	free(b->uri);
	free(b->domain);
	free(b->device);
	free(b);
}

/*
 * One message and its newline; @wait 0 (the event thread): what the
 * socket does not take at once ends the connection, which a peer that
 * stopped reading has lost anyway
 */
static void send_line(struct bridge *b, const char *s, int wait)
{
	size_t len = strlen(s), off = 0;
	int flags = MSG_NOSIGNAL | (wait ? 0 : MSG_DONTWAIT), pass;
	ssize_t n;

	pthread_mutex_lock(&b->wlock);
	for (pass = 0; pass < 2; pass++) {
		const char *p = pass ? "\n" : s;
		size_t l = pass ? 1 : len;

		for (off = 0; off < l; off += n) {
			n = send(b->fd, p + off, l - off, flags);
			if (n < 0 && errno == EINTR) {
				n = 0;
				continue;
			}
			if (n <= 0) {
				shutdown(b->fd, SHUT_RDWR);
				goto out;
			}
		}
	}
out:
	pthread_mutex_unlock(&b->wlock);
}

void bridge_desc(char *desc, size_t len, const char *what)
{
	if (!strncmp(what, "skipped: ", 9))
		snprintf(desc, len, "%s", what);
	else
		snprintf(desc, len, "libvirt: %s: %s", what, virGetLastErrorMessage());
}

/* {"error":{"class":"GenericError","desc":bridge_desc()'s}} */
static char *error_reply(const char *what)
{
	struct json_object *o = json_object_new_object(), *e = json_object_new_object();
	char desc[512];
	char *s;

	bridge_desc(desc, sizeof(desc), what);
	json_object_object_add(e, "class", json_object_new_string("GenericError"));
	json_object_object_add(e, "desc", json_object_new_string(desc));
	json_object_object_add(o, "error", e);
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return s;
}

static char *return_reply(struct json_object *ret)
{
	struct json_object *o = json_object_new_object();
	char *s;

	json_object_object_add(o, "return", ret ? ret : json_object_new_object());
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return s;
}

static void on_qemu_event(virConnectPtr conn, virDomainPtr dom, const char *event,
			  long long seconds, unsigned int micros, const char *details, void *opaque)
{
	struct json_object *o, *ts;

	(void)conn;
	(void)dom;
	if (((struct bridge *)opaque)->said) {
		bridge_said_event(opaque, event, details);
		return;
	}
	o = json_object_new_object();
	ts = json_object_new_object();
	json_object_object_add(o, "event", json_object_new_string(event));
	if (details)
		json_object_object_add(o, "data", json_tokener_parse(details));
	json_object_object_add(ts, "seconds", json_object_new_int64(seconds));
	json_object_object_add(ts, "microseconds", json_object_new_int64(micros));
	json_object_object_add(o, "timestamp", ts);
	send_line(opaque, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), 0);
	json_object_put(o);
}

/* an event of the bridge's own, as QEMU's are sent */
static void send_event(struct bridge *b, const char *event, const char *reason)
{
	struct json_object *o = json_object_new_object(), *data = json_object_new_object();
	struct json_object *ts = json_object_new_object();
	struct timespec now;

	clock_gettime(CLOCK_REALTIME, &now);
	json_object_object_add(data, "reason", json_object_new_string(reason));
	json_object_object_add(o, "event", json_object_new_string(event));
	json_object_object_add(o, "data", data);
	json_object_object_add(ts, "seconds", json_object_new_int64(now.tv_sec));
	json_object_object_add(ts, "microseconds", json_object_new_int64(now.tv_nsec / 1000));
	json_object_object_add(o, "timestamp", ts);
	send_line(b, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), 0);
	json_object_put(o);
}

/*
 * The domain stopped or crashed: said (the only word that it is gone),
 * then its QMP closes, as QEMU's socket would.  An undefined domain may
 * still run (a running one becomes transient): not a stop.
 */
static int on_lifecycle(virConnectPtr conn, virDomainPtr dom, int event, int detail, void *opaque)
{
	struct bridge *b = opaque;

	(void)conn;
	(void)dom;
	(void)detail;
	if (event == VIR_DOMAIN_EVENT_STOPPED || event == VIR_DOMAIN_EVENT_CRASHED) {
		if (b->said)
			bridge_said(b, SAID_STOPPED);
		else
			send_event(b, VIRT_EVENT_STOPPED,
				   event == VIR_DOMAIN_EVENT_STOPPED ? "stopped" : "crashed");
		shutdown(b->fd, SHUT_RDWR);
	}
	return 0;
}

/* the guest reset: as QEMU's RESET, for a peer that configures the guest again */
static int on_reboot(virConnectPtr conn, virDomainPtr dom, void *opaque)
{
	(void)conn;
	(void)dom;
	if (((struct bridge *)opaque)->said)
		bridge_said(opaque, SAID_RESET);
	else
		send_event(opaque, "RESET", "libvirt-reboot");
	return 0;
}

/* libvirt's connection closed (the daemon stopped): so does ours */
static void on_close(virConnectPtr conn, int reason, void *opaque)
{
	struct bridge *b = opaque;

	(void)conn;
	(void)reason;
	shutdown(b->fd, SHUT_RDWR);
}

/*
 * The balloon at @b->device has working-set on: NULL, or why not in
 * @why ("skipped: ...")
 */
static const char *ws_device(struct bridge *b, char *why, size_t len)
{
	struct json_object *cmd = json_object_new_object(), *args = json_object_new_object();
	struct json_object *r = NULL, *ret;
	char *reply = NULL;
	const char *desc = NULL;
	int on = 0;

	json_object_object_add(cmd, "execute", json_object_new_string("qom-get"));
	json_object_object_add(args, "path", json_object_new_string(b->device));
	json_object_object_add(args, "property", json_object_new_string("working-set"));
	json_object_object_add(cmd, "arguments", args);
	if (virDomainQemuMonitorCommand(b->dom, json_object_to_json_string(cmd), &reply, 0) < 0) {
		desc = virGetLastErrorMessage();
	} else if ((r = json_tokener_parse(reply)) && json_object_object_get_ex(r, "return", &ret)) {
		on = json_object_get_boolean(ret);
		desc = "working-set is off";
	} else {
		desc = r ? qmp_error_desc(r) : NULL;
	}
	if (!on)
		snprintf(why, len, "skipped: no balloon with working-set=on at %s (%s)", b->device,
			 desc ? desc : "no reply");
	json_object_put(r);
	json_object_put(cmd);
	free(reply);
	return on ? NULL : why;
}

/* the connection, the domain, the events: NULL, or what failed */
const char *bridge_attach(struct bridge *b, char *why, size_t len)
{
	if (!(b->conn = virConnectOpen(b->uri)))
		return "cannot connect";
	/* a daemon that stops answering is a closed connection in 15 s */
	virConnectSetKeepAlive(b->conn, 5, 3);
	if (!(b->dom = virDomainLookupByName(b->conn, b->domain)))
		return "no such domain";
	if (virDomainIsActive(b->dom) != 1)
		return "domain not running";
	__atomic_add_fetch(&b->refs, 4, __ATOMIC_ACQ_REL);
	if (virConnectRegisterCloseCallback(b->conn, on_close, b, bridge_put) < 0) {
		__atomic_sub_fetch(&b->refs, 4, __ATOMIC_ACQ_REL);
		return "cannot watch the connection";
	}
	b->ev_id = virConnectDomainQemuMonitorEventRegister(b->conn, b->dom, NULL, on_qemu_event,
							     b, bridge_put, 0);
	if (b->ev_id < 0) {
		__atomic_sub_fetch(&b->refs, 3, __ATOMIC_ACQ_REL);
		return "cannot register for QEMU's events";
	}
	b->life_id = virConnectDomainEventRegisterAny(b->conn, b->dom,
						       VIR_DOMAIN_EVENT_ID_LIFECYCLE,
						       VIR_DOMAIN_EVENT_CALLBACK(on_lifecycle),
						       b, bridge_put);
	if (b->life_id < 0) {
		__atomic_sub_fetch(&b->refs, 2, __ATOMIC_ACQ_REL);
		return "cannot register for the domain's events";
	}
	b->reboot_id = virConnectDomainEventRegisterAny(b->conn, b->dom,
							 VIR_DOMAIN_EVENT_ID_REBOOT,
							 VIR_DOMAIN_EVENT_CALLBACK(on_reboot),
							 b, bridge_put);
	if (b->reboot_id < 0) {
		__atomic_sub_fetch(&b->refs, 1, __ATOMIC_ACQ_REL);
		return "cannot register for the domain's reboots";
	}
	/* a domain stopped between the lookup and the registration */
	if (virDomainIsActive(b->dom) != 1)
		return "domain not running";
	return b->device ? ws_device(b, why, len) : NULL;
}

void bridge_detach(struct bridge *b)
{
	if (b->reboot_id >= 0)
		virConnectDomainEventDeregisterAny(b->conn, b->reboot_id);
	if (b->life_id >= 0)
		virConnectDomainEventDeregisterAny(b->conn, b->life_id);
	if (b->ev_id >= 0)
		virConnectDomainQemuMonitorEventDeregister(b->conn, b->ev_id);
	if (b->dom)
		virDomainFree(b->dom);
	if (b->conn) {
		virConnectUnregisterCloseCallback(b->conn, on_close);
		virConnectClose(b->conn);
	}
}

/* the integer at @key of @args: 0, or -1 */
static int arg_int(struct json_object *args, const char *key, long long *v)
{
	struct json_object *o;

	if (!json_object_object_get_ex(args, key, &o) || !json_object_is_type(o, json_type_int))
		return -1;
	*v = json_object_get_int64(o);
	return 0;
}

static const char *arg_str(struct json_object *args, const char *key)
{
	struct json_object *o;

	if (!json_object_object_get_ex(args, key, &o) || !json_object_is_type(o, json_type_string))
		return NULL;
	return json_object_get_string(o);
}

/*
 * qom-get guest-stats as QEMU answers it, from virDomainMemoryStats (KiB
 * back to QEMU's bytes; what the guest did not give is absent there, -1
 * here, as QEMU has it)
 */
static char *stats_reply(struct bridge *b)
{
	static const struct { int tag; const char *name; unsigned long long mult; } map[] = {
		{ VIR_DOMAIN_MEMORY_STAT_SWAP_IN, "stat-swap-in", 1024 },
		{ VIR_DOMAIN_MEMORY_STAT_SWAP_OUT, "stat-swap-out", 1024 },
		{ VIR_DOMAIN_MEMORY_STAT_MAJOR_FAULT, "stat-major-faults", 1 },
		{ VIR_DOMAIN_MEMORY_STAT_MINOR_FAULT, "stat-minor-faults", 1 },
		{ VIR_DOMAIN_MEMORY_STAT_UNUSED, "stat-free-memory", 1024 },
		{ VIR_DOMAIN_MEMORY_STAT_AVAILABLE, "stat-total-memory", 1024 },
		{ VIR_DOMAIN_MEMORY_STAT_USABLE, "stat-available-memory", 1024 },
		{ VIR_DOMAIN_MEMORY_STAT_DISK_CACHES, "stat-disk-caches", 1024 },
	};
	virDomainMemoryStatStruct st[VIR_DOMAIN_MEMORY_STAT_NR];
	struct json_object *ret, *stats;
	long long upd = 0;
	unsigned int i;
	int n, j;

	n = virDomainMemoryStats(b->dom, st, VIR_DOMAIN_MEMORY_STAT_NR, 0);
	if (n < 0)
		return error_reply("virDomainMemoryStats");
	ret = json_object_new_object();
	stats = json_object_new_object();
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		long long v = -1;

		for (j = 0; j < n; j++)
			if (st[j].tag == map[i].tag)
				v = (long long)(st[j].val * map[i].mult);
		json_object_object_add(stats, map[i].name, json_object_new_int64(v));
	}
	for (j = 0; j < n; j++)
		if (st[j].tag == VIR_DOMAIN_MEMORY_STAT_LAST_UPDATE)
			upd = (long long)st[j].val;
	json_object_object_add(ret, "stats", stats);
	json_object_object_add(ret, "last-update", json_object_new_int64(upd));
	return return_reply(ret);
}

/*
 * QEMU's reply as it goes to a client that gave no "id": libvirt's has
 * libvirt's own (@reply freed)
 */
static char *without_id(char *reply)
{
	struct json_object *o = json_tokener_parse(reply);
	char *s;

	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "id", NULL)) {
		json_object_put(o);
		return reply;
	}
	json_object_object_del(o, "id");
	s = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	free(reply);
	return s;
}

/* the reply to one command, as QEMU would send it */
static char *dispatch(struct bridge *b, const struct qmp_msg *m)
{
	struct json_object *args = NULL;
	const char *exe = arg_str(m->obj, "execute"), *prop;
	char *cmd, *reply = NULL;
	long long v;

	json_object_object_get_ex(m->obj, "arguments", &args);
	prop = args ? arg_str(args, "property") : NULL;
	if (!exe)
		return strdup("{\"error\":{\"class\":\"GenericError\",\"desc\":\"no execute\"}}");
	/* libvirt negotiated the capabilities when it started QEMU */
	if (!strcmp(exe, "qmp_capabilities"))
		return return_reply(NULL);
	if (!strcmp(exe, "balloon") && args && !arg_int(args, "value", &v) && v > 0)
		return virDomainSetMemoryFlags(b->dom, (unsigned long)(v >> 10),
					       VIR_DOMAIN_AFFECT_LIVE) ?
		       error_reply("virDomainSetMemoryFlags") : return_reply(NULL);
	if (!strcmp(exe, "qom-set") && prop && !strcmp(prop, "guest-stats-polling-interval") &&
	    !arg_int(args, "value", &v) && v >= 0 && v <= 0x7fffffff)
		return virDomainSetMemoryStatsPeriod(b->dom, (int)v, VIR_DOMAIN_AFFECT_LIVE) ?
		       error_reply("virDomainSetMemoryStatsPeriod") : return_reply(NULL);
	if (!strcmp(exe, "qom-get") && prop && !strcmp(prop, "guest-stats"))
		return stats_reply(b);
	cmd = strndup(m->raw, qmp_msg_text_len(m));
	if (!cmd)
		return NULL;
	if (virDomainQemuMonitorCommand(b->dom, cmd, &reply, 0) < 0)
		reply = error_reply("virDomainQemuMonitorCommand");
	free(cmd);
	return reply ? without_id(reply) : NULL;
}

/* serve one peer: the greeting, then a reply per command until either end closes */
static void *serve(void *arg)
{
	struct bridge *b = arg;
	const struct qmp_msg *m;
	struct qmp_stream s;
	const char *why;
	char buf[4096], *r, skip[384];
	ssize_t n;
	int rc;

	why = bridge_attach(b, skip, sizeof(skip));
	if (why) {
		r = error_reply(why);
		if (r)
			send_line(b, r, 1);
		free(r);
		goto out;
	}
	send_line(b, "{\"QMP\":{\"version\":{},\"capabilities\":[],\"via\":\"libvirt\"}}", 1);
	if (qmp_stream_init(&s))
		goto out;
	s.max = CMD_MAX;
	for (;;) {
		n = read(b->fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || qmp_stream_feed(&s, buf, (size_t)n))
			break;
		while ((rc = qmp_stream_next(&s, &m)) > 0) {
			r = dispatch(b, m);
			if (!r)
				break;
			send_line(b, r, 1);
			free(r);
		}
		if (rc < 0)
			break;
	}
	qmp_stream_free(&s);
out:
	shutdown(b->fd, SHUT_RDWR);
	bridge_detach(b);
	bridge_put(b);
	return NULL;
}

int bridge_open(const char *uri, const char *domain, const char *device, int said,
		void *(*serve)(void *), char *err, size_t err_len)
{
	struct bridge *b;
	pthread_t t;
	int sv[2];

	if (bridge_loop_ready(err, err_len))
		return -1;
	if (socketpair(AF_UNIX, (said ? SOCK_SEQPACKET : SOCK_STREAM) | SOCK_CLOEXEC, 0, sv)) {
		snprintf(err, err_len, "socketpair: %s", strerror(errno));
		return -1;
	}
	b = calloc(1, sizeof(*b));
	if (!b || !(b->uri = strdup(uri)) || !(b->domain = strdup(domain)) ||
	    (device && !(b->device = strdup(device))))
		goto oom;
	b->fd = sv[1];
	b->refs = 1;
	b->said = said;
	b->ev_id = b->life_id = b->reboot_id = -1;
	pthread_mutex_init(&b->wlock, NULL);
	if (pthread_create(&t, NULL, serve, b)) {
		pthread_mutex_destroy(&b->wlock);
		goto oom;
	}
	pthread_detach(t);
	return sv[0];
oom:
	if (b) {
		free(b->uri);
		free(b->domain);
		free(b->device);
	}
	free(b);
	close(sv[0]);
	close(sv[1]);
	snprintf(err, err_len, "out of memory");
	return -1;
}

int virt_open(const char *uri, const char *domain, const char *device, int nonblock,
	      char *err, size_t err_len)
{
	int fd = bridge_open(uri, domain, device, 0, serve, err, err_len);

	if (fd >= 0 && nonblock)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	return fd;
}
