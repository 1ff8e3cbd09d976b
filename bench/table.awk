# table.awk - medians of bench/run's runs, as Markdown tables.
#
#   awk -v threads="1 2" -v rates="100 1000 10000" -v profs="..." \
#       -v skips=SKIPS -f bench/table.awk RUNS
#
# SKIPS: a file of tab-separated lines "profiler threads|* rate|* reason"
# (read in BEGIN: it is often empty).
# RUNS: "RUN key=value ..." lines (a later key overrides an earlier one) and
# "FAIL prof= threads= rate= rep=" lines.
# Written for POSIX awk (mawk): no asort, no gensub.

function median(list,    n, v, i, j, x) {
	n = split(list, v, " ")
	if (n == 0)
		return ""
	for (i = 2; i <= n; i++) {
		x = v[i] + 0
		for (j = i - 1; j >= 1 && v[j] + 0 > x; j--)
			v[j + 1] = v[j]
		v[j + 1] = x
	}
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
# The smallest and the second smallest value of a list.
function low(list, k,    n, v, i, a, b) {
	n = split(list, v, " ")
	a = b = ""
	for (i = 1; i <= n; i++) {
		if (a == "" || v[i] + 0 < a) { b = a; a = v[i] + 0 }
		else if (b == "" || v[i] + 0 < b) b = v[i] + 0
	}
	return k == 1 ? a : b
}
function add(key, val) { vals[key] = vals[key] " " val; cnt[key]++ }
function absv(x) { return x < 0 ? -x : x }
function label(p) {
	if (p == "glibc") return "glibc profil (ITIMER_PROF)"
	if (p == "gperftools") return "gperftools libprofiler (ITIMER_PROF)"
	if (p == "perf-record") return "perf record -e cpu-clock:u"
	return "libprofil " p
}
function hz(r) { return r >= 1000 ? r / 1000 " kHz" : r " Hz" }
function skipreason(p, t, r,    i) {
	for (i = 1; i <= nskip; i++)
		if (sp[i] == p && (st[i] == "*" || st[i] == t) && (sr[i] == "*" || sr[i] == r))
			return sw[i]
	return ""
}
function lp(p) { return p != "glibc" && p != "gperftools" && p != "perf-record" }

BEGIN {
	while ((getline line < skips) > 0) {
		split(line, f, "\t")
		nskip++
		sp[nskip] = f[1]; st[nskip] = f[2]; sr[nskip] = f[3]; sw[nskip] = f[4]
	}
}
$1 == "FAIL" || $1 == "RUN" {
	delete kv
	for (i = 2; i <= NF; i++) {
		eq = index($i, "=")
		if (eq)
			kv[substr($i, 1, eq - 1)] = substr($i, eq + 1)
	}
	if ($1 == "FAIL") {
		failed[kv["prof"] SUBSEP kv["threads"] SUBSEP kv["rate"]]++
		next
	}
	nrun++
	for (k in kv)
		R[nrun, k] = kv[k]
	if (kv["prof"] == "none" || kv["prof"] == "none-lp") {
		bwall[kv["prof"], kv["threads"], kv["rep"]] = kv["wall"]
		bcpu[kv["prof"], kv["threads"], kv["rep"]] = kv["cpu"]
		add("wall" SUBSEP kv["prof"] SUBSEP kv["threads"], kv["wall"])
		add("bcpu" SUBSEP kv["prof"] SUBSEP kv["threads"], kv["cpu"])
	}
}
END {
	for (i = 1; i <= nrun; i++) {
		p = R[i, "prof"]
		if (p == "none" || p == "none-lp")
			continue
		t = R[i, "threads"]; r = R[i, "req"]; rep = R[i, "rep"]
		c = p SUBSEP t SUBSEP r
		base = lp(p) ? "none-lp" : "none"
		if ((base, t, rep) in bwall) {
			add("ratio" SUBSEP c, R[i, "wall"] / bwall[base, t, rep])
			add("cratio" SUBSEP c, R[i, "cpu"] / bcpu[base, t, rep])
			add("xcpu" SUBSEP c, (R[i, "cpu"] - bcpu[base, t, rep]) * 1e3)
		}
		add("cpu" SUBSEP c, R[i, "cpu"])
		add("ext" SUBSEP c, R[i, "ext"] - R[i, "wall"])
		denom = R[i, "cpu"] * R[i, "eff"]
		add("cap" SUBSEP c, R[i, "samples"] / denom)
		add("dcap" SUBSEP c, R[i, "signals"] / denom)
		add("sig" SUBSEP c, R[i, "signals"])
		add("eff" SUBSEP c, R[i, "eff"])
		add("sat" SUBSEP c, R[i, "sat"])
		hot = R[i, "n5"] + R[i, "n3"] + R[i, "n2"]
		if (hot > 0) {
			e = absv(R[i, "n5"] / hot - R[i, "t5"])
			x = absv(R[i, "n3"] / hot - R[i, "t3"]); if (x > e) e = x
			x = absv(R[i, "n2"] / hot - R[i, "t2"]); if (x > e) e = x
			add("err" SUBSEP c, 100 * e)
		}
	}

	nt = split(threads, T, " ")
	nr = split(rates, RT, " ")
	np = split(profs, P, " ")
	for (a = 1; a <= nt; a++) {
		t = T[a]
		printf "#### %d worker thread%s\n\n", t, t == 1 ? "" : "s"
		printf "Unprofiled wall (median): %.3f s (workload-glibc), %.3f s (workload-lp).\n\n",
			median(vals["wall" SUBSEP "none" SUBSEP t]), median(vals["wall" SUBSEP "none-lp" SUBSEP t])
		printf "| profiler |"
		for (b = 1; b <= nr; b++) printf " %s wall / cpu / capture / err |", hz(RT[b])
		printf "\n|---|"
		for (b = 1; b <= nr; b++) printf "---|"
		printf "\n"
		for (q = 1; q <= np; q++) {
			p = P[q]
			printf "| %s |", label(p)
			for (b = 1; b <= nr; b++) {
				r = RT[b]; c = p SUBSEP t SUBSEP r
				why = skipreason(p, t, r)
				if (why != "") {
					printf " skipped: %s |", why
					continue
				}
				if (!cnt["ratio" SUBSEP c]) {
					printf " no successful run |"
					continue
				}
				printf " %.3f / %.3f / %.3f / %.1f", median(vals["ratio" SUBSEP c]),
					median(vals["cratio" SUBSEP c]), median(vals["cap" SUBSEP c]),
					median(vals["err" SUBSEP c])
				if (lp(p) || p == "glibc")
					if (median(vals["sat" SUBSEP c]) > 0)
						printf " (saturated)"
				if (median(vals["eff" SUBSEP c]) + 0 != r + 0)
					printf " (at %d Hz)", median(vals["eff" SUBSEP c])
				if (failed[c])
					printf " (%d failed)", failed[c]
				printf " |"
			}
			printf "\n"
		}
		printf "\n"
	}

	# Cost per distinct sample at the highest rate.  Other jobs on the
	# machine only ever add CPU time to a run (cache and TLB pollution,
	# switches), so besides the paired median the least disturbed estimate
	# is the smallest worker CPU of the cell minus the smallest of its
	# baseline.  Its noise: the larger gap between the two smallest runs of
	# the cell or of the baseline.
	r = RT[nr]
	printf "#### Cost per sample at %s\n\n", hz(r)
	printf "| profiler | threads | distinct samples per worker CPU-s | distinct capture | extra worker CPU, ms: paired median / min - min | ns per distinct sample (min - min) |  wall outside the workload, s |\n"
	printf "|---|---|---|---|---|---|---|\n"
	for (q = 1; q <= np; q++) {
		p = P[q]
		for (a = 1; a <= nt; a++) {
			t = T[a]; c = p SUBSEP t SUBSEP r
			if (!cnt["ratio" SUBSEP c])
				continue
			d = median(vals["dcap" SUBSEP c])
			bl = vals["bcpu" SUBSEP (lp(p) ? "none-lp" : "none") SUBSEP t]
			xm = 1e3 * (low(vals["cpu" SUBSEP c], 1) - low(bl, 1))
			noise = 1e3 * (low(bl, 2) - low(bl, 1))
			x = 1e3 * (low(vals["cpu" SUBSEP c], 2) - low(vals["cpu" SUBSEP c], 1))
			if (x > noise)
				noise = x
			ns = "within noise"
			if (xm > noise)
				ns = sprintf("%.0f", xm * 1e6 / median(vals["sig" SUBSEP c]))
			nz = sprintf("noise %.1f", noise)
			if (cnt["cpu" SUBSEP c] < 2 || split(bl, v2, " ") < 2) {
				# one run: no spread to judge the difference by
				nz = "noise unknown"
				ns = sprintf("%.0f?", xm * 1e6 / median(vals["sig" SUBSEP c]))
			}
			printf "| %s | %d | %.0f | %.3f | %.1f / %.1f (%s) | %s | %.2f |\n",
				label(p), t, d * median(vals["eff" SUBSEP c]), d,
				median(vals["xcpu" SUBSEP c]), xm, nz, ns, median(vals["ext" SUBSEP c])
		}
	}
	printf "\n"
}
