# The balance benchmark's summary (vmtests/balance-bench.sh): reads one
# line per run, "POLICY key=value ...", and prints two Markdown tables,
# each cell the median over the policy's runs with the range in
# brackets.  ROLES (awk -v) names the set's four guests.
# Host memory is the sum of the four QEMUs' cgroup usage, averaged over
# the 2-s samples; "saved" is none-nofpr's (none without free page
# reporting) minus the run's, paired by round when none-nofpr ran in
# every round (else against its median), with its mean and 95%
# t-interval.  Throughput is relative to the median under none (with
# free page reporting).
function med(list,   a, n, i, j, x) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { x = a[j]; a[j] = a[j - 1]; a[j - 1] = x }
	lo = a[1]; hi = a[n]
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
# cell(P, K, SCALE, FMT): median and range of key K over P's runs
function cell(p, k, scale, fmt,   m) {
	if (!((p, k) in v)) return "-"
	m = med(v[p, k])
	if (scale == 0) return "-"
	if (lo == hi) return sprintf(fmt, m / scale)
	return sprintf(fmt " [" fmt "-" fmt "]", m / scale, lo / scale, hi / scale)
}
# tci(LIST): "mean ± half a 95% t-interval" of the numbers in LIST
function tci(list,   a, n, i, m, sd, t) {
	n = split(list, a, " ")
	if (!n) return "-"
	for (i = 1; i <= n; i++) m += a[i]
	m /= n
	if (n < 2) return sprintf("%.0f", m)
	for (i = 1; i <= n; i++) sd += (a[i] - m) ^ 2
	sd = sqrt(sd / (n - 1))
	# Student's t, two-sided 95%, for n - 1 degrees of freedom
	split("12.71 4.30 3.18 2.78 2.57 2.45 2.36 2.31 2.26 2.23", t, " ")
	return sprintf("%.0f ± %.0f", m, (n - 1 <= 10 ? t[n - 1] : 2.0) * sd / sqrt(n))
}
# paired(P, K, OUT): OUT for P's runs: none-nofpr's K less P's, run by
# run when both have as many runs, else against none-nofpr's median
function paired(p, k, out,   a, b, n, m, j, r) {
	if (!(("none-nofpr", k) in v) || !((p, k) in v)) return
	n = split(v[p, k], a, " ")
	m = split(v["none-nofpr", k], b, " ")
	r = med(v["none-nofpr", k])
	for (j = 1; j <= n; j++) v[p, out] = v[p, out] " " (n == m ? b[j] : r) - a[j]
}
# rel_best(P, S): S[P] over the largest S[] of the other policies with
# free page reporting ("-" when there is none above 0)
function rel_best(p, sv,   j, q, best) {
	if (!(p in sv) || p == "none-nofpr") return "-"
	best = ""
	for (j = 1; j <= np; j++) {
		q = order[j]
		if (q == p || q == "none-nofpr" || !(q in sv)) continue
		if (best == "" || sv[q] > best) best = sv[q]
	}
	return best > 0 ? sprintf("%.2f", sv[p] / best) : "-"
}
{
	p = $1
	if (!(p in seen)) { seen[p] = 1; order[++np] = p }
	runs[p]++
	for (i = 2; i <= NF; i++) {
		split($i, kv, "=")
		v[p, kv[1]] = v[p, kv[1]] " " kv[2]
	}
}
END {
	nr = split(roles, role, " ")
	# the baseline of "saved": none without free page reporting
	ref = ("none-nofpr", "host_mean_mib") in v ? med(v["none-nofpr", "host_mean_mib"]) : ""
	pref = ("none-nofpr", "pss_mean_mib") in v ? med(v["none-nofpr", "pss_mean_mib"]) : ""
	rref = ("none-nofpr", "ram_mean_mib") in v ? med(v["none-nofpr", "ram_mean_mib"]) : ""
	for (i = 1; i <= np; i++) {
		p = order[i]
		if (pref != "" && (p, "pss_mean_mib") in v) {
			n = split(v[p, "pss_mean_mib"], a, " ")
			for (j = 1; j <= n; j++) v[p, "saved_pss_mib"] = v[p, "saved_pss_mib"] " " pref - a[j]
		}
		# the same on the guest RAM mapped: without TCG's translated code
		if (rref != "" && (p, "ram_mean_mib") in v) {
			n = split(v[p, "ram_mean_mib"], a, " ")
			for (j = 1; j <= n; j++) v[p, "saved_ram_mib"] = v[p, "saved_ram_mib"] " " rref - a[j]
			saved_ram[p] = med(v[p, "saved_ram_mib"])
		}
		paired(p, "after_reclaim_mib", "saved_reclaim_mib")
		if (ref == "" || !((p, "host_mean_mib") in v)) continue
		paired(p, "host_mean_mib", "saved_mib")
		saved[p] = med(v[p, "saved_mib"])
	}
	print "| policy | runs | host, mean MiB | host, peak MiB | saved, mean MiB | saved, mean ± 95% | host after reclaim MiB | saved after reclaim, mean ± 95% | QEMU CPU s | saved / best other's | charged, not mapped MiB | Pss, mean MiB | saved by Pss MiB | guest RAM mapped MiB | saved in guest RAM MiB | saved in guest RAM / best other's | TCG code MiB | balloon actual, mean MiB | OOM kills | redis p99 ms |"
	print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for (i = 1; i <= np; i++) {
		p = order[i]
		printf "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", p, runs[p],
			cell(p, "host_mean_mib", 1, "%.0f"), cell(p, "host_peak_mib", 1, "%.0f"),
			cell(p, "saved_mib", 1, "%.0f"), tci(v[p, "saved_mib"]),
			cell(p, "after_reclaim_mib", 1, "%.0f"), tci(v[p, "saved_reclaim_mib"]),
			cell(p, "cpu_s", 1, "%.0f"), rel_best(p, saved), cell(p, "unmapped_mean_mib", 1, "%.0f"),
			cell(p, "pss_mean_mib", 1, "%.0f"), cell(p, "saved_pss_mib", 1, "%.0f"),
			cell(p, "ram_mean_mib", 1, "%.0f"), cell(p, "saved_ram_mib", 1, "%.0f"),
			rel_best(p, saved_ram), cell(p, "tcg_mean_mib", 1, "%.0f"),
			cell(p, "held_mean_mib", 1, "%.0f"), cell(p, "killed", 1, "%d"), cell(p, "p99_ms", 1, "%.1f")
	}
	print ""
	print "Host: the four QEMUs' cgroup usage; saved: none-nofpr's host memory minus the policy's (mean ± 95%: paired by round, Student's t). Host after reclaim: the four cgroups' usage after the host reclaimed each at the end of its workload, its memory still held (swap off for it, no limit lowered): what the host could not reuse. QEMU CPU s: the four QEMUs' user and system time. Charged, not mapped: the usage less anon mapped, page cache and kernel memory (near 0 with the QEMUs' transparent huge pages off; with them on, 4 KiB balloon pages discarded out of huge pages stay charged until the host reclaims). Saved by Pss: the same difference of the QEMUs' Pss. Guest RAM mapped: what is mapped of the guests' RAM; saved in guest RAM: none-nofpr's minus the policy's, which leaves out TCG's translated code (the QEMUs' executable mappings, which KVM would not have: bounded by --tcg-code-mib, 64 MiB each by default; up to 1 GiB each without, varying between runs of one policy by more than some policies save), both within Pss."
	# a committed host (--committed-mib): what the host paid for keeping
	# the guests within its limit, and the guest that fared worst
	committed = 0
	for (i = 1; i <= np; i++) if ((order[i], "host_oom_kill") in v) committed = 1
	if (committed) {
		print ""
		print "Committed host: the four QEMUs under one limit, the host swapping to a file. Host swap: what the four cgroups held in the host's swap, mean MiB; host swap-ins: the QEMUs' major faults over the run; worst guest: the lowest of the four guests' throughput relative to its median under none."
		print ""
		print "| policy | host swap, mean MiB | host swap, peak MiB | host swap-ins | host OOM kills | worst guest / none's | guest OOM kills |"
		print "|---|---|---|---|---|---|---|"
		for (i = 1; i <= np; i++) {
			p = order[i]
			# the worst guest of each run: the lowest throughput / none's
			n = split(v[p, "host_oom_kill"], a, " ")
			for (j = 1; j <= n; j++) {
				w = ""
				for (k = 1; k <= nr; k++) {
					r = role[k]
					tk = (p, "thr_" r) in v || r != "D" ? "thr_" r : "rps"
					if (!(("none", tk) in v)) continue
					# a guest that finished no unit of work ran at 0, not unmeasured
					if (!((p, tk) in v)) {
						x = 0
					} else {
						split(v[p, tk], ta, " ")
						x = ta[j] / med(v["none", tk])
					}
					if (w == "" || x < w) w = x
				}
				if (w != "") v[p, "worst"] = v[p, "worst"] " " w
			}
			printf "| %s | %s | %s | %s | %s | %s | %s |\n", p,
				cell(p, "hswap_mean_mib", 1, "%.0f"), cell(p, "hswap_peak_mib", 1, "%.0f"),
				cell(p, "hmajflt", 1, "%d"), cell(p, "host_oom_kill", 1, "%d"),
				cell(p, "worst", 1, "%.2f"), cell(p, "killed", 1, "%d")
		}
	}
	print ""
	print "Per guest: host is its QEMU's cgroup usage, Pss the QEMU's, balloon the guest's memory (RAM minus the balloon), means over the run in MiB; throughput relative to the median under none; promotions are major faults (swap-ins, mapped file read back) per minute, % of the role's known hot set (a read() served from disk is a refault, not a major fault), from the second minute on and without the 60 s after a phase change; PSI some: % of that time; T: working-set's idle threshold for the guest, in seconds, its mean over the run and its last value."
	print ""
	print "| policy | guest | host MiB | not mapped MiB | Pss MiB | guest RAM mapped MiB | balloon MiB | after reclaim MiB | QEMU CPU s | throughput / none's | per CPU s / none's | promotions %/min | PSI some % | major faults | refaults | T mean s | T last s |"
	print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for (i = 1; i <= np; i++) {
		p = order[i]
		for (j = 1; j <= nr; j++) {
			r = role[j]
			tk = (p, "thr_" r) in v || r != "D" ? "thr_" r : "rps"
			base = ("none", tk) in v ? med(v["none", tk]) : 0
			# throughput per CPU second of the guest's QEMU, run by run
			split(v[p, tk], ta, " "); k = split(v[p, "cpu_" r], ca, " ")
			for (m = 1; m <= k; m++) if (ca[m] > 0) v[p, "pcpu_" r] = v[p, "pcpu_" r] " " ta[m] / ca[m]
			if (!(("none", "pcpu_" r) in v)) {
				split(v["none", tk], ta, " "); k = split(v["none", "cpu_" r], ca, " ")
				for (m = 1; m <= k; m++) if (ca[m] > 0) v["none", "pcpu_" r] = v["none", "pcpu_" r] " " ta[m] / ca[m]
			}
			pbase = ("none", "pcpu_" r) in v ? med(v["none", "pcpu_" r]) : 0
			printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", p, r,
				cell(p, "host_" r, 1, "%.0f"), cell(p, "unmapped_" r, 1, "%.0f"), cell(p, "pss_" r, 1, "%.0f"),
				cell(p, "ram_" r, 1, "%.0f"), cell(p, "held_" r, 1, "%.0f"),
				cell(p, "reclaimed_" r, 1, "%.0f"), cell(p, "cpu_" r, 1, "%.0f"),
				cell(p, tk, base, "%.2f"), cell(p, "pcpu_" r, pbase, "%.2f"), cell(p, "promo_" r, 1, "%.3f"), cell(p, "psi_" r, 1, "%.2f"),
				cell(p, "majflt_" r, 1, "%d"), cell(p, "refault_" r, 1, "%d"),
				cell(p, "t_" r, 1, "%.0f"), cell(p, "tlast_" r, 1, "%.0f")
		}
	}
}
