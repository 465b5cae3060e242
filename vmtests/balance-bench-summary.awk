# The balance benchmark's summary (vmtests/balance-bench.sh): reads one
# line per run, "POLICY key=value ...", and prints a Markdown table, each
# cell the median over the policy's runs with the range in brackets.
# Throughput is relative to the median of policy none; reclaimed memory
# is the guests' RAM (4 x 1024 MiB) minus what they held on average.
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
	return sprintf(fmt " [" fmt "-" fmt "]", m / scale, lo / scale, hi / scale)
}
{
	p = $1
	if (!(p in seen)) { seen[p] = 1; order[++np] = p }
	runs[p]++
	for (i = 2; i <= NF; i++) {
		split($i, kv, "=")
		v[p, kv[1]] = v[p, kv[1]] " " kv[2]
		if (kv[1] == "held_mean_mib") v[p, "reclaimed_mib"] = v[p, "reclaimed_mib"] " " 4096 - kv[2]
	}
}
END {
	split("thr_A thr_B thr_C rps", tk, " ")
	for (i in tk) base[tk[i]] = ("none", tk[i]) in v ? med(v["none", tk[i]]) : 0
	base_rec = ("available", "reclaimed_mib") in v ? med(v["available", "reclaimed_mib"]) : 0
	base_held = ("none", "held_mean_mib") in v ? med(v["none", "held_mean_mib"]) : 0
	print "| policy | runs | held, mean MiB | held / none's | held, peak MiB | reclaimed MiB | reclaimed / available's | OOM kills | A | B | C | redis rps | redis p99 ms | major faults | anon refaults |"
	print "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
	for (i = 1; i <= np; i++) {
		p = order[i]
		rel = base_rec > 0 && (p, "reclaimed_mib") in v ? sprintf("%.2f", med(v[p, "reclaimed_mib"]) / base_rec) : "-"
		hrel = base_held > 0 ? sprintf("%.2f", med(v[p, "held_mean_mib"]) / base_held) : "-"
		printf "| %s | %d | %s | %s | %s | %s | %s | %s |", p, runs[p],
			cell(p, "held_mean_mib", 1, "%.0f"), hrel, cell(p, "held_peak_mib", 1, "%.0f"),
			cell(p, "reclaimed_mib", 1, "%.0f"), rel, cell(p, "killed", 1, "%d")
		for (j = 1; j <= 4; j++)
			printf " %s |", cell(p, tk[j], base[tk[j]], "%.2f")
		printf " %s | %s | %s |\n", cell(p, "p99_ms", 1, "%.1f"),
			cell(p, "pgmajfault", 1, "%d"), cell(p, "refault_anon", 1, "%d")
	}
	print ""
	print "A, B, C: touches per second of hot-pass time, and redis rps: relative to the median under none; from each guest's second minute on."
}
