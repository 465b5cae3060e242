#!/usr/bin/env bash
# A fleet's Prometheus (make check, no guest): the rules in
# deploy/prometheus/wsr-rules.yml pass promtool check rules, each
# tests/prometheus/*.yml passes promtool test rules (a test a file, named
# after its behaviour), and a real Prometheus server scrapes two wsr-host
# balance processes as two hosts and answers the queries docs/fleet.md
# shows.  promtool and prometheus are Debian's prometheus package's,
# unpacked into the cache by vmtests/get-promtool.sh and never installed;
# the server runs from a temporary folder on a free port, and stops with
# the test.
#
#   prometheus-test.sh --guest-exposition FILE
#
# instead serves FILE, a guest's "wsr metrics" (vmtests/check.sh takes it
# from the console of the guest test that prints one), through Debian's
# node_exporter's textfile collector (vmtests/get-node-exporter.sh) to
# the same server, and checks that every sample arrives as it was.
#
# Prints "PASS name" / "FAIL name: reason"; exits non-zero if one fails.
set -u
. "$(dirname "$0")/lib.sh"
. "$WSR_ROOT/tests/testlib.sh"
BUILD=${BUILD:-$WSR_ROOT/build}
RULES=$WSR_ROOT/deploy/prometheus/wsr-rules.yml
guest_exposition=""
if [ "${1:-}" = --guest-exposition ] && [ $# = 2 ]; then
	guest_exposition=$2
elif [ $# != 0 ]; then
	die "usage: prometheus-test.sh [--guest-exposition FILE]"
fi
failed=0

check() {
	verdict "$1" "${2:-}"
	[ -z "${2:-}" ] || failed=$((failed + 1))
}

d=$(mktemp -d "${TMPDIR:-/tmp}/wsr-prometheus.XXXXXX")
pids=()
# shellcheck disable=SC2317 # run by the trap
cleanup() {
	local p
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
	rm -rf "$d"
}
trap cleanup EXIT

if ! promtool=$("$WSR_ROOT"/vmtests/get-promtool.sh 2>"$d/get.err"); then
	check rules_pass_promtool_check "no promtool: $(tail -n 1 "$d/get.err")"
	exit 1
fi

free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# query PROMQL: the API's result as "labels value" lines, sorted
query() {
	curl -sf --max-time 5 --data-urlencode "query=$1" "http://127.0.0.1:$pport/api/v1/query" |
		python3 -c '
import json, sys
r = json.load(sys.stdin)["data"]["result"]
for s in r:
    m = s["metric"]
    print(",".join("%s=%s" % (k, m[k]) for k in sorted(m) if k != "__name__"), s["value"][1])
' | LC_ALL=C sort
}

# start_prometheus: the server on $pport with $d/prometheus.yml, ready;
# else a reason in $why
start_prometheus() {
	local prometheus
	prometheus=$(dirname "$promtool")/prometheus
	ready() { curl -sf --max-time 1 "http://127.0.0.1:$pport/-/ready" >/dev/null; }
	if [ ! -x "$prometheus" ]; then
		why="no prometheus beside $promtool"
		return
	fi
	mkdir "$d/data"
	"$prometheus" --config.file="$d/prometheus.yml" --storage.tsdb.path="$d/data" \
		--web.listen-address="127.0.0.1:$pport" --log.level=warn >"$d/prometheus.out" 2>&1 &
	pids+=($!)
	wait_until 60 ready ||
		why="prometheus not ready in 60 s: $(tail -n 2 "$d/prometheus.out" | tr '\n' ' ')"
}

# A guest's exposition as node_exporter's textfile collector serves it
# (the cron line of docs/formats.md writes it there), scraped as job
# wsr-guest-node: every sample of the file is in Prometheus with its
# labels (the memcg's escapes undone) and its value, and the collector
# took the file without an error
if [ -n "$guest_exposition" ]; then
	why="" pport=$(free_port) nport=$(free_port)
	mkdir "$d/textfile"
	if ! [ -s "$guest_exposition" ] || ! grep -q '^wsr_' "$guest_exposition"; then
		why="no wsr_ sample in $guest_exposition"
	elif ! exporter=$("$WSR_ROOT"/vmtests/get-node-exporter.sh 2>"$d/get.err"); then
		why="no node_exporter: $(tail -n 1 "$d/get.err")"
	else
		cp "$guest_exposition" "$d/textfile/wsr.prom"
		"$exporter" --collector.disable-defaults --collector.textfile \
			--collector.textfile.directory="$d/textfile" \
			--web.listen-address="127.0.0.1:$nport" >"$d/exporter.out" 2>&1 &
		pids+=($!)
		cat >"$d/prometheus.yml" <<-CONF
		global:
		  scrape_interval: 1s
		  evaluation_interval: 1s
		rule_files: ['$RULES']
		scrape_configs:
		  - job_name: wsr-guest-node
		    static_configs:
		      - targets: ['127.0.0.1:$nport']
		CONF
		start_prometheus
	fi
	# shellcheck disable=SC2317 # run by wait_until
	scraped() { [ -n "$(query 'node_textfile_scrape_error{job="wsr-guest-node"}')" ]; }
	if [ -z "$why" ] && ! wait_until 30 scraped; then
		why="the collector was not scraped in 30 s: $(tail -n 2 "$d/exporter.out" | tr '\n' ' ')"
	elif [ -z "$why" ]; then
		err=$(query 'node_textfile_scrape_error{job="wsr-guest-node"}' | awk '{ print $NF }')
		[ "$err" = 0 ] ||
			why="the textfile collector refused the file: $(grep -i textfile "$d/exporter.out" | tail -n 2 | tr '\n' ' ')"
		curl -sf --max-time 5 --data-urlencode 'query={__name__=~"wsr_.*",job="wsr-guest-node"}' \
			"http://127.0.0.1:$pport/api/v1/query" >"$d/got.json" || why="${why}the query failed; "
		# the file's samples, parsed as the text format says, against the server's
		cat >"$d/compare.py" <<'PY'
import json, re, sys


def unescape(v):
    return re.sub(r'\\(.)', lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), v)


want = {}
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    if not line.startswith("wsr_"):
        continue
    m = re.match(r'([a-z_]+)\{(.*)\} (\S+)$', line.rstrip("\n"))
    labels = tuple(sorted((k, unescape(v)) for k, v in
                          re.findall(r'([a-z_]+)="((?:[^"\\]|\\.)*)"', m.group(2))))
    want[(m.group(1),) + labels] = float(m.group(3))
got = {}
for r in json.load(open(sys.argv[2]))["data"]["result"]:
    l = dict(r["metric"])
    name = l.pop("__name__")
    for k in ("job", "instance"):
        l.pop(k, None)
    got[(name,) + tuple(sorted(l.items()))] = float(r["value"][1])
if want != got:
    miss = [k for k in want if k not in got][:2]
    extra = [k for k in got if k not in want][:2]
    diff = [k for k in want if k in got and want[k] != got[k]][:2]
    print("%d samples in the file, %d in Prometheus; missing %s, extra %s, values differ %s"
          % (len(want), len(got), miss, extra, diff), end="")
PY
		why=$why$(python3 "$d/compare.py" "$guest_exposition" "$d/got.json")
		[ -n "$why" ] || echo "  the file's $(grep -c '^wsr_' "$guest_exposition") samples in Prometheus as written"
	fi
	check guest_metrics_reach_prometheus_through_the_textfile_collector "$why"
	[ "$failed" = 0 ]
	exit
fi

why=""
"$promtool" check rules "$RULES" >"$d/check.out" 2>&1 ||
	why="$(grep -v '^Checking' "$d/check.out" | head -n 3 | tr '\n' ' ')"
check rules_pass_promtool_check "$why"

# one verdict a test file: its name is the behaviour it holds the rules to
for f in "$WSR_ROOT"/tests/prometheus/*.yml; do
	why=""
	(cd "$(dirname "$f")" && "$promtool" test rules "$(basename "$f")") >"$d/test.out" 2>&1 ||
		why="$(grep -v '^Unit Testing' "$d/test.out" | head -c 600 | tr '\n' ' ' | tr -s ' ')"
	check "$(basename "$f" .yml)" "$why"
done

# A fake QEMU for balance: the greeting, the answers balance reads (the
# RAM, a balloon that stays where this says, guest stats), and, if asked
# to, a working-set report for each working-set-request with the bins
# balance configured, all of it in the first bin but COLD bytes in the
# last, and a PSI "some" total that grows by SOME of the wall time
cat >"$d/fakeqemu.py" <<'PY'
import json, socket, sys, time
sock, ram, actual, reports, hot, cold, some = sys.argv[1:8]
ram, actual, hot, cold, some = int(ram), int(actual), int(hot), int(cold), float(some)
srv = socket.socket(socket.AF_UNIX)
srv.bind(sock)
srv.listen(1)
start = time.monotonic()
while True:
    conn, _ = srv.accept()
    conn.sendall(b'{"QMP": {"version": {}, "capabilities": []}}\r\n')
    buf, bins, dec = "", [1000, 5000, 10000, 60000], json.JSONDecoder()
    while True:
        try:
            data = conn.recv(65536)
        except OSError:
            break
        if not data:
            break
        buf += data.decode()
        while buf.strip():
            try:
                cmd, end = dec.raw_decode(buf.lstrip())
            except ValueError:
                break
            buf = buf.lstrip()[end:]
            ex, ret, event = cmd.get("execute"), {}, None
            if ex == "query-memory-size-summary":
                ret = {"base-memory": ram}
            elif ex == "query-balloon":
                ret = {"actual": actual}
            elif ex == "qom-get":
                ret = {"stats": {"stat-free-memory": 64 << 20, "stat-available-memory": 256 << 20},
                       "last-update": int(time.time())}
            elif ex == "working-set-config":
                bins = cmd["arguments"]["intervals"]
            elif ex == "working-set-request" and reports == "1":
                us = int((time.monotonic() - start) * 1e6)
                b = [{"idle-age-ms": ms, "anon-bytes": hot if i == 0 else 0, "file-bytes": 0}
                     for i, ms in enumerate(bins)]
                b.append({"idle-age-ms": 9223372036854775807, "anon-bytes": cold, "file-bytes": 0})
                event = {"event": "WORKING_SET_EVENT", "timestamp": {"seconds": 1, "microseconds": 0},
                         "data": {"cause": "request", "data-age-ms": 100,
                                  "incomplete": False, "anon-reclaimable": True, "reclaim-seq": 0,
                                  "mem-some-us": int(us * some), "mem-full-us": 0,
                                  "nodes": [{"node-id": 0, "bins": b}]}}
            try:
                conn.sendall((json.dumps({"return": ret}) + "\r\n").encode())
                if event:
                    conn.sendall((json.dumps(event) + "\r\n").encode())
            except OSError:
                break
    conn.close()
PY

# fake_vm NAME RAM_MIB ACTUAL_MIB REPORTS HOT_MIB COLD_MIB SOME: a fake
# QEMU serving $d/NAME.sock
fake_vm() {
	python3 "$d/fakeqemu.py" "$d/$1.sock" $(($2 << 20)) $(($3 << 20)) "$4" $(($5 << 20)) \
		$(($6 << 20)) "$7" >"$d/$1.fake.out" 2>&1 &
	pids+=($!)
}

# Two hosts: host-a runs default_web (a KubeVirt VMI's domain name: 1 GiB,
# 256 MiB in its balloon, reports with 100 MiB hot and 300 MiB cold, 10%
# of its time stalled) and silent (its balloon programs not attached: 512
# MiB, 128 in the balloon, no report); host-b runs instance-00000001 (an
# OpenStack domain name: 2 GiB, 512 MiB in its balloon, reports).
# --policy none: balance sets no target, so the balloons stay as given.
why=""
aport=$(free_port) bport=$(free_port) pport=$(free_port)
fake_vm default_web 1024 768 1 100 300 0.1
fake_vm silent 512 384 0 0 0 0
fake_vm instance-00000001 2048 1536 1 50 0 0
sockets() { [ -S "$d/default_web.sock" ] && [ -S "$d/silent.sock" ] && [ -S "$d/instance-00000001.sock" ]; }
wait_until 10 sockets || why="the fake QEMUs did not start: $(cat "$d"/*.fake.out | head -n 3 | tr '\n' ' ')"
"$BUILD/wsr-host" balance --policy none --metrics "127.0.0.1:$aport" \
	--vm "default_web=$d/default_web.sock" --vm "silent=$d/silent.sock" >"$d/host-a.out" 2>&1 &
hosta=$!
pids+=("$hosta")
"$BUILD/wsr-host" balance --policy none --metrics "127.0.0.1:$bport" \
	--vm "instance-00000001=$d/instance-00000001.sock" >"$d/host-b.out" 2>&1 &
hostb=$!
pids+=("$hostb")
# the fleet's scrape config as docs/fleet.md has it: instance is the
# host's name
cat >"$d/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: ['$RULES']
scrape_configs:
  - job_name: wsr-host
    static_configs:
      - targets: ['127.0.0.1:$aport', '127.0.0.1:$bport']
    relabel_configs:
      - source_labels: [__address__]
        regex: '127\.0\.0\.1:$aport'
        target_label: instance
        replacement: host-a
      - source_labels: [__address__]
        regex: '127\.0\.0\.1:$bport'
        target_label: instance
        replacement: host-b
EOF
[ -n "$why" ] || start_prometheus
# both hosts scraped, and a rate over more than one report of each
two_rates() { [ "$(query 'count(vm:wsr_memory_some:rate5m)' | awk '{ print $NF }')" = 2 ]; }
if [ -z "$why" ] && ! wait_until 60 two_rates; then
	why="no pressure rate for two VMs in 60 s: $(query 'up' | tr '\n' ' ')"
fi
if [ -z "$why" ]; then
	# every query docs/fleet.md shows runs (their block under "### Queries")
	awk '/^### Queries$/ { q = 1; next } q && /^```$/ { if (n++) exit; next } q && n && !/^#/' \
		"$WSR_ROOT/docs/fleet.md" >"$d/queries"
	[ "$(wc -l <"$d/queries")" -ge 5 ] || why="fewer than 5 queries under docs/fleet.md's Queries; "
	while read -r q; do
		curl -sf --max-time 5 --data-urlencode "query=$q" "http://127.0.0.1:$pport/api/v1/query" |
			grep -q '"status":"success"' || why="${why}docs/fleet.md's query fails: $q; "
	done <"$d/queries"
	grep -qxF 'node:wsr_memory_saved_bytes:sum' "$d/queries" &&
		grep -qxF 'sum by (instance, vm) (wsr_working_set_bytes{idle_le_ms=~"1000|5000|10000"})' "$d/queries" ||
		why="${why}docs/fleet.md does not show the queries checked below; "
	# per host, the memory the balloons hold: 256 + 128 MiB, 512 MiB
	got=$(query 'node:wsr_memory_saved_bytes:sum')
	want="instance=host-a,job=wsr-host,node=host-a $((384 << 20))
instance=host-b,job=wsr-host,node=host-b $((512 << 20))"
	[ "$got" = "$want" ] || why="memory saved per host: '$got', not '$want'; "
	# memory idle for at most 10 s, per VM of the fleet
	got=$(query 'sum by (instance, vm) (wsr_working_set_bytes{idle_le_ms=~"1000|5000|10000"})')
	want="instance=host-a,vm=default_web $((100 << 20))
instance=host-b,vm=instance-00000001 $((50 << 20))"
	[ "$got" = "$want" ] || why="${why}hot memory per VM: '$got', not '$want'; "
	# the pressure under KubeVirt's labels (its value is the last 5
	# minutes', of which there are seconds here: 0 while the samples are
	# of one report), and, once 8 s of reports are in, 10% of
	# default_web's time over them
	got=$(query 'vm:wsr_memory_some:rate5m{node="host-a"}')
	[[ "$got" == "instance=host-a,job=wsr-host,name=web,namespace=default,node=host-a,vm=default_web "[0-9]* ]] ||
		why="${why}default_web's recorded pressure: '$got', not under name=web,namespace=default; "
	pressure() {
		got=$(query 'rate(wsr_guest_memory_some_seconds_total{vm="default_web"}[8s])')
		awk -v l="$got" 'BEGIN { split(l, f, " "); exit !(f[2] > 0.05 && f[2] < 0.15) }'
	}
	wait_until 30 pressure || why="${why}default_web's pressure over 8 s: '$got', not about 0.1; "
	# the VM that never reports: its alert pending (10 minutes to fire)
	got=$(query 'ALERTS{alertname="WsrBalloonProgramsNotAttached"}')
	[[ "$got" == *"alertstate=pending"*"vm=silent"* ]] && [ "$(wc -l <<<"$got")" = 1 ] ||
		why="${why}not-attached alerts: '$got', not silent's alone; "
	# a host whose wsr-host stops: up 0, and its alert pending
	kill "$hostb"
	wait "$hostb" 2>/dev/null
	host_down() { [ -n "$(query 'ALERTS{alertname="WsrHostDown",instance="host-b"}')" ]; }
	if ! wait_until 20 host_down; then
		why="${why}no WsrHostDown for host-b 20 s after its wsr-host stopped: up is $(query 'up' | tr '\n' ' ')"
	fi
	got=$(query 'up{job="wsr-host"}')
	[ "$got" = "instance=host-a,job=wsr-host 1
instance=host-b,job=wsr-host 0" ] || why="${why}up: '$got'"
fi
[ -z "$why" ] || why="$why (host-a: $(tail -n 2 "$d/host-a.out" | tr '\n' ' '))"
check prometheus_scrapes_two_balance_hosts_and_answers_the_fleet_queries "$why"
kill "$hosta" 2>/dev/null
[ "$failed" = 0 ]
