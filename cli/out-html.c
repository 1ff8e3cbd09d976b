/*
 * out-html.c - one self-contained HTML page (no network, no other file):
 * the call stacks as an interactive flame graph, then the modules' shares
 * as one stacked bar, the top functions as bars coloured by module, each
 * module's text as a heat strip (where in the address space the samples
 * fell), and the function table beside them.  The pictures but the flame
 * graph are inline SVG written here; the flame graph is drawn in the
 * browser by cli/html-flame.js (built in as a string) from the call tree
 * written here as JSON.  docs/formats.md "HTML" lists the classes and the
 * data a reader or a test can rely on.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "util.h"

#define TOP_BARS   20  /* functions drawn as bars */
#define TOP_ROWS   200 /* functions in the table */
#define TOP_STRIPS 8   /* modules drawn as heat strips */
#define CELLS      128 /* cells per heat strip */

/* Module colours: distinct hues that read on white and on dark grey. */
static const char *const palette[] = {
	"#d9480f", "#1c7ed6", "#2b8a3e", "#9c36b5", "#e67700", "#0b7285", "#c2255c", "#5c940d",
};
#define NPALETTE (sizeof palette / sizeof palette[0])

static const char *const style =
	":root{--fg:#1d1d1f;--bg:#fff;--muted:#6b6b70;--line:#e3e3e8;--track:#f1f1f4;"
	"--cold:#f4f4f7}\n"
	"@media (prefers-color-scheme:dark){:root{--fg:#e8e8ea;--bg:#17171a;--muted:#9a9aa2;"
	"--line:#34343a;--track:#232328;--cold:#202024}}\n"
	"body{margin:0;padding:24px 32px;font:14px/1.45 system-ui,-apple-system,'Segoe UI',"
	"sans-serif;color:var(--fg);background:var(--bg)}\n"
	"h1{font-size:20px;margin:0 0 4px}h2{font-size:15px;margin:22px 0 8px}\n"
	".cmd{font-family:ui-monospace,monospace;color:var(--muted);margin:0 0 12px;"
	"word-break:break-all}\n"
	".facts{display:flex;flex-wrap:wrap;gap:6px 28px;margin:0}.facts div{display:flex;"
	"flex-direction:column}.facts dt{color:var(--muted);font-size:12px}.facts dd{margin:0;"
	"font-weight:600}\n"
	".grid{display:grid;grid-template-columns:minmax(0,620px) minmax(0,1fr);gap:32px;"
	"align-items:start}\n"
	"@media (max-width:1100px){.grid{grid-template-columns:minmax(0,1fr)}}\n"
	"svg{display:block;max-width:100%;height:auto}svg text{fill:var(--fg);font:12px "
	"ui-monospace,monospace}svg text.muted{fill:var(--muted)}\n"
	".track{fill:var(--track)}.cold{fill:var(--cold)}\n"
	"figure{margin:0 0 14px}figcaption{font-size:13px;margin-bottom:4px}"
	"figcaption .path{color:var(--muted);font-size:12px;word-break:break-all}\n"
	".swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:6px}\n"
	"table{border-collapse:collapse;width:100%;font-size:13px}th{text-align:left;"
	"color:var(--muted);font-weight:500;border-bottom:1px solid var(--line);padding:4px 8px}"
	"td{padding:3px 8px;border-bottom:1px solid var(--line);vertical-align:top}"
	"td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
	"td.fn{font-family:ui-monospace,monospace;overflow-wrap:anywhere}"
	"tr[data-fn]{cursor:pointer}tr[data-fn]:hover,tr[data-fn]:focus{background:var(--track)}"
	".src{color:var(--muted);font:12px system-ui,sans-serif;margin-top:1px}\n"
	".flame{margin:8px 0 20px}.controls{display:flex;flex-wrap:wrap;gap:6px 16px;"
	"align-items:center;margin-bottom:6px;font-size:13px}.controls input,.controls select,"
	".controls button,.crumbs button{font:inherit;color:inherit;background:var(--track);"
	"border:1px solid var(--line);border-radius:4px;padding:2px 8px}"
	".match{font-weight:600}.crumbs{font-size:12px;min-height:22px;margin-bottom:4px}"
	".crumbs button{font:12px ui-monospace,monospace;padding:0 6px}\n"
	".fg{width:100%;overflow:hidden}svg.flamegraph{max-width:none}"
	".frame{cursor:pointer}.frame rect{stroke:var(--bg);stroke-width:.5}"
	".frame text{fill:#111;font:11px ui-monospace,monospace;pointer-events:none}"
	".frame.above rect{opacity:.55}.frame.root rect{fill:var(--line)}"
	".frame.root text{fill:var(--fg)}"
	".frame.marker rect{fill:var(--cold);stroke:var(--muted);stroke-dasharray:3 2}"
	".frame.marker text,.frame.other text{fill:var(--muted);font-style:italic}"
	".frame.match rect{fill:#f03e9a}.frame:focus{outline:none}"
	".frame:focus rect{stroke:var(--fg);stroke-width:2}\n"
	".tip{position:fixed;z-index:2;max-width:560px;padding:6px 9px;border-radius:4px;"
	"background:var(--fg);color:var(--bg);font-size:12px;pointer-events:none;"
	"overflow-wrap:anywhere}.tip b{font-family:ui-monospace,monospace}\n"
	".hint{color:var(--muted);font-size:12px;margin:4px 0}"
	".calls{display:flex;flex-wrap:wrap;gap:8px 32px}.calls h3{flex-basis:100%;"
	"font:600 14px ui-monospace,monospace;margin:8px 0 0;overflow-wrap:anywhere}"
	".calls table{width:auto;min-width:280px}.calls caption{text-align:left;"
	"color:var(--muted);font-size:12px}\n"
	".notes{color:var(--muted);font-size:13px;white-space:pre-wrap}footer{margin-top:28px;"
	"color:var(--muted);"
	"font-size:12px}\n";

static const char *mod_color(const struct model *f, const uint32_t *rank, uint32_t mod)
{
	if (mod == MODEL_NO_MOD || rank[mod] >= NPALETTE)
		return "#868e96";
	(void)f;
	return palette[rank[mod]];
}

static double pct(const struct model *f, uint64_t n)
{
	return f->total ? 100.0 * (double)n / (double)f->total : 0.0;
}

/* At most max characters of t as shown (escaped), with an ellipsis if
 * cut; never in the middle of a character. */
static void text_cut(FILE *s, const char *t, size_t max)
{
	char *c = text_dup(t);
	size_t at = 0, n = 0;
	uint32_t cp;
	while (c[at] && n < max - 1) {
		at += utf8_char(c + at, &cp); /* text_dup's output is valid UTF-8 */
		n++;
	}
	if (c[at] && c[at + utf8_char(c + at, &cp)]) {
		c = xrealloc(c, at + sizeof "\u2026");
		strcpy(c + at, "\u2026");
	}
	out_html_safe(s, c);
	free(c);
}

static void facts(FILE *s, const struct model *f)
{
	char *engines = model_distinct(f, false), *rates = model_distinct(f, true);
	fputs("<dl class=\"facts\">", s);
	fprintf(s, "<div><dt>processes</dt><dd>%zu</dd></div>", f->nprocs);
	fputs("<div><dt>engine</dt><dd>", s);
	out_html_str(s, engines);
	fputs("</dd></div><div><dt>rate</dt><dd>", s);
	out_html_str(s, rates);
	fputs("</dd></div>", s);
	free(engines);
	free(rates);
	fprintf(s, "<div><dt>samples</dt><dd>%" PRIu64 "</dd></div>", f->total);
	fprintf(s, "<div><dt>sampled time</dt><dd>%.2f s</dd></div>", f->total_seconds);
	if (f->cpu_ns) {
		fprintf(s, "<div><dt>CPU time</dt><dd>%.2f s</dd></div>", (double)f->cpu_ns / 1e9);
		fprintf(s, "<div><dt>achieved rate</dt><dd>%.1f Hz</dd></div>",
			model_achieved_hz(f));
	}
	fprintf(s, "<div><dt>lost</dt><dd>%" PRIu64 "</dd></div>", f->lost);
	fputs("</dl>\n", s);
}

/* The modules' shares side by side in one bar, with a legend. */
static void module_bar(FILE *s, const struct model *f, const uint32_t *mods, size_t n,
		       const uint32_t *rank)
{
	const double W = 600;
	fputs("<h2>Modules</h2>\n", s);
	fprintf(s,
		"<svg class=\"modules\" width=\"%.0f\" height=\"%zu\" viewBox=\"0 0 %.0f %zu\" "
		"role=\"img\" aria-label=\"share of samples per module\">\n",
		W, 30 + 18 * n, W, 30 + 18 * n);
	fprintf(s,
		"<rect class=\"track\" x=\"0\" y=\"0\" width=\"%.0f\" height=\"18\" rx=\"3\"/>\n",
		W);
	double x = 0;
	for (size_t i = 0; i < n; i++) {
		const struct model_mod *m = &f->mods[mods[i]];
		double w = W * pct(f, m->samples) / 100.0;
		fprintf(s,
			"<rect class=\"module\" x=\"%.2f\" y=\"0\" width=\"%.2f\" height=\"18\" "
			"fill=\"%s\"><title>",
			x, w, mod_color(f, rank, mods[i]));
		out_html_str(s, m->name);
		fprintf(s, ": %.1f%%</title></rect>\n", pct(f, m->samples));
		x += w;
	}
	for (size_t i = 0; i < n; i++) {
		const struct model_mod *m = &f->mods[mods[i]];
		double y = 28 + 18 * (double)i;
		fprintf(s,
			"<rect x=\"0\" y=\"%.0f\" width=\"10\" height=\"10\" rx=\"2\" "
			"fill=\"%s\"/>",
			y, mod_color(f, rank, mods[i]));
		fprintf(s, "<text x=\"16\" y=\"%.0f\">", y + 9);
		text_cut(s, m->name, 48);
		fprintf(s, "</text><text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%.1f%%</text>\n",
			W, y + 9, pct(f, m->samples));
	}
	fputs("</svg>\n", s);
}

static void function_bars(FILE *s, const struct model *f, const uint32_t *fns, size_t n,
			  const uint32_t *rank)
{
	if (n > TOP_BARS)
		n = TOP_BARS;
	const double W = 600, LABEL = 236, BAR = 300, ROW = 20;
	double top = n ? pct(f, f->fns[fns[0]].samples) : 0;
	fputs("<h2>Top functions</h2>\n", s);
	fprintf(s,
		"<svg class=\"bars\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"role=\"img\" aria-label=\"top functions by share of samples\">\n",
		W, ROW * (double)n, W, ROW * (double)n);
	for (size_t i = 0; i < n; i++) {
		const struct model_fn *fn = &f->fns[fns[i]];
		double y = ROW * (double)i, p = pct(f, fn->samples);
		double w = top > 0 ? BAR * p / top : 0;
		if (w < 1)
			w = 1;
		fputs("<g class=\"bar\"><title>", s);
		out_html_str(s, fn->label);
		fputs(" (", s);
		out_html_str(s, model_mod_name(f, fn->mod));
		fprintf(s, "): %" PRIu64 " samples, %.2f%%</title>", fn->samples, p);
		fprintf(s, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">", LABEL - 8, y + 14);
		text_cut(s, fn->label, 30);
		fprintf(s,
			"</text><rect class=\"track\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" "
			"height=\"14\" rx=\"2\"/>",
			LABEL, y + 3, BAR);
		fprintf(s,
			"<rect class=\"fill\" x=\"%.0f\" y=\"%.0f\" width=\"%.2f\" height=\"14\" "
			"rx=\"2\" fill=\"%s\"/>",
			LABEL, y + 3, w, mod_color(f, rank, fn->mod));
		fprintf(s, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">%.1f%%</text></g>\n", W,
			y + 14, p);
	}
	fputs("</svg>\n", s);
}

/* One module's text as CELLS cells, each shaded by its samples; the three
 * hottest functions marked below it. */
static void heat_strip(FILE *s, const struct model *f, uint32_t m, const uint32_t *fns, size_t nf,
		       const uint32_t *rank)
{
	const struct model_mod *mod = &f->mods[m];
	const double W = 600, H = 22;
	uint64_t lo = mod->text_lo, hi = mod->text_hi;
	/* a pc beyond the recorded text span (bad segments) widens it */
	for (size_t i = 0; i < f->npcs; i++)
		if (f->pcs[i].mod == m && f->pcs[i].samples) {
			if (f->pcs[i].addr < lo || hi <= lo)
				lo = f->pcs[i].addr;
			if (f->pcs[i].addr >= hi)
				hi = f->pcs[i].addr + 1;
		}
	double span = (double)(hi - lo);
	uint64_t cells[CELLS] = { 0 };
	uint32_t cellfn[CELLS];
	uint64_t cellfn_n[CELLS] = { 0 };
	for (size_t i = 0; i < f->npcs; i++) {
		const struct model_pc *p = &f->pcs[i];
		if (p->mod != m || !p->samples)
			continue;
		size_t c = (size_t)((double)(p->addr - lo) / span * CELLS);
		if (c >= CELLS)
			c = CELLS - 1;
		cells[c] += p->samples;
		if (p->samples > cellfn_n[c]) {
			cellfn_n[c] = p->samples;
			cellfn[c] = p->fn;
		}
	}
	uint64_t max = 1;
	for (int c = 0; c < CELLS; c++)
		if (cells[c] > max)
			max = cells[c];

	fputs("<figure><figcaption>", s);
	fprintf(s, "<span class=\"swatch\" style=\"background:%s\"></span><b>",
		mod_color(f, rank, m));
	out_html_str(s, mod->name);
	fprintf(s,
		"</b> %.1f%% &middot; text 0x%" PRIx64 "&ndash;0x%" PRIx64
		" &middot; <span class=\"path\">",
		pct(f, mod->samples), lo, hi);
	out_html_str(s, mod->path);
	fputs("</span></figcaption>\n", s);

	/* the three hottest functions of the module, marked under the strip */
	uint32_t marks[3];
	int nm = 0;
	for (size_t i = 0; i < nf && nm < 3; i++)
		if (f->fns[fns[i]].mod == m)
			marks[nm++] = fns[i];
	double h = H + 6 + 16.0 * nm;
	fprintf(s,
		"<svg class=\"strip\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		"role=\"img\" aria-label=\"samples across the text of ",
		W, h, W, h);
	out_html_str(s, mod->name);
	fputs("\">\n", s);
	double cw = W / CELLS;
	for (int c = 0; c < CELLS; c++) {
		double x = cw * c;
		uint64_t a = lo + (uint64_t)(span * c / CELLS);
		if (!cells[c]) {
			fprintf(s,
				"<rect class=\"cell cold\" x=\"%.2f\" y=\"0\" width=\"%.2f\" "
				"height=\"%.0f\"/>",
				x, cw + 0.05, H);
			continue;
		}
		/* square-root shading: one sample stays visible next to 10000 */
		double t = sqrt((double)cells[c] / (double)max);
		fprintf(s,
			"<rect class=\"cell hot\" x=\"%.2f\" y=\"0\" width=\"%.2f\" "
			"height=\"%.0f\" "
			"fill=\"%s\" fill-opacity=\"%.2f\"><title>0x%" PRIx64 ": %" PRIu64
			" samples, mostly ",
			x, cw + 0.05, H, mod_color(f, rank, m), 0.15 + 0.85 * t, a, cells[c]);
		out_html_str(s, f->fns[cellfn[c]].label);
		fputs("</title></rect>\n", s);
	}
	/* Leader lines from the strip down to one label row each.  A line
	 * runs down past the rows above its own, so choose the order of the
	 * rows and the side of each label (left or right of its line) such
	 * that no label is crossed by a later row's line and all fit: at most
	 * 3! orders x 2^3 sides to try.  If none works, rightmost mark first
	 * with labels to the right, which never crosses but may be clipped. */
	double mx[3], est[3];
	char pcs[3][16];
	for (int i = 0; i < nm; i++) {
		const struct model_fn *fn = &f->fns[marks[i]];
		mx[i] = W * (double)(fn->start - lo) / span;
		if (mx[i] < 0 || mx[i] > W)
			mx[i] = 0;
		snprintf(pcs[i], sizeof pcs[i], " %.1f%%", pct(f, fn->samples));
		size_t len = (size_t)text_width(fn->label);
		est[i] = 7.3 * (double)((len > 40 ? 40 : len) + strlen(pcs[i]));
	}
	static const int perms[6][3] = { { 0, 1, 2 }, { 0, 2, 1 }, { 1, 0, 2 },
					 { 1, 2, 0 }, { 2, 0, 1 }, { 2, 1, 0 } };
	int order[3] = { 0, 1, 2 }, sides = 0, found = 0;
	for (int p = 0; p < 6 && !found; p++) {
		if (nm < 3 && (perms[p][0] >= nm || perms[p][1] >= nm))
			continue;
		for (int sm = 0; sm < (1 << nm) && !found; sm++) {
			bool ok = true;
			for (int r = 0; r < nm && ok; r++) {
				int k = perms[p][r];
				bool left = sm >> r & 1;
				double a = left ? mx[k] - 4 - est[k] : mx[k] + 4;
				double b = a + est[k];
				ok = a >= 0 && b <= W;
				for (int q = r + 1; q < nm && ok; q++) {
					double x = mx[perms[p][q]];
					ok = x < a - 3 || x > b + 3;
				}
			}
			if (ok) {
				memcpy(order, perms[p], sizeof order);
				sides = sm;
				found = 1;
			}
		}
	}
	if (!found) {
		for (int i = 0; i < nm; i++)
			order[i] = i;
		for (int i = 1; i < nm; i++)
			for (int j = i; j > 0 && mx[order[j]] > mx[order[j - 1]]; j--) {
				int t = order[j];
				order[j] = order[j - 1];
				order[j - 1] = t;
			}
	}
	for (int r = 0; r < nm; r++) {
		int k = order[r];
		const struct model_fn *fn = &f->fns[marks[k]];
		bool left = sides >> r & 1;
		double x = mx[k], y = H + 4 + 16.0 * r;
		double tx = left ? x - 4 - est[k] : x + 4;
		fprintf(s,
			"<path d=\"M%.2f %.0fV%.0fH%.2f\" fill=\"none\" stroke=\"%s\" "
			"stroke-width=\"1.5\"/>",
			x, H, y + 7, left ? x - 2 : x + 2, mod_color(f, rank, m));
		fprintf(s, "<text x=\"%.2f\" y=\"%.0f\">", tx, y + 11);
		text_cut(s, fn->label, 40);
		fprintf(s, "%s</text>\n", pcs[k]);
	}
	fputs("</svg></figure>\n", s);
}

/* fnix: per function, its index in the flame graph's data + 1 (0: not
 * there), so that a click on its row can select it there. */
static void table(FILE *s, const struct model *f, const uint32_t *fns, size_t n,
		  const uint32_t *rank, const uint32_t *fnix)
{
	size_t shown = n > TOP_ROWS ? TOP_ROWS : n;
	fputs("<h2>Functions</h2>\n<table class=\"functions\"><thead><tr><th>#</th><th>self%</th>"
	      "<th>total%</th><th>samples</th><th>seconds</th><th>function, module, source</th>"
	      "</tr></thead><tbody>\n",
	      s);
	for (size_t i = 0; i < shown; i++) {
		const struct model_fn *fn = &f->fns[fns[i]];
		if (fnix && fnix[fns[i]])
			fprintf(s, "<tr data-fn=\"%" PRIu32 "\" tabindex=\"0\">", fnix[fns[i]] - 1);
		else
			fputs("<tr>", s);
		fprintf(s,
			"<td class=\"n\">%zu</td><td class=\"n\">%.2f</td><td class=\"n\">%.2f"
			"</td><td class=\"n\">%" PRIu64 "</td><td class=\"n\">%.2f</td>"
			"<td class=\"fn\">",
			i + 1, pct(f, fn->samples), pct(f, fn->total), fn->samples, fn->seconds);
		out_html_str(s, fn->label);
		fprintf(s,
			"<div class=\"src\"><span class=\"swatch\" style=\"background:%s\"></span>",
			mod_color(f, rank, fn->mod));
		out_html_str(s, model_mod_name(f, fn->mod));
		if (fn->file) {
			fputs(" &middot; ", s);
			out_html_str(s, basename(fn->file));
			fprintf(s, ":%d", fn->line);
		}
		fputs("</div></td></tr>\n", s);
	}
	fputs("</tbody></table>\n", s);
	if (n > shown)
		fprintf(s,
			"<p class=\"notes\">%zu more functions: <code>pcprof report</code> lists "
			"them all.</p>\n",
			n - shown);
}

/* ---- the flame graph's data --------------------------------------------------
 *
 * The call tree by function path (a path's locations merged, as in
 * `report --tree`) as compact JSON for cli/html-flame.js:
 *   {"total": samples of the selected processes (the 100% of every share),
 *    "fns": [label...], "fmod": [module index or -1...],
 *    "fkind": [0 function, 1 [unknown]/[truncated] marker, 2 merged...],
 *    "mods": [name...], "mcol": [colour...],
 *    "nodes": [fn, total, self, children, ...]}   (preorder, roots only at
 * the top: the page adds the root "all")
 * A node whose total is below MERGE_DIV-th of all samples (0.05%) is
 * merged with its small siblings and all their descendants into one node
 * "[other]" under their parent, whose self and total are their sum: the
 * page stays small (per depth at most MERGE_DIV nodes, each with at most
 * one [other] child) whatever the profile, at the price of the exact
 * callers of tiny calls, which the table and `pcprof report --callers`
 * still give. */
#define MERGE_DIV 2000

struct ftree {
	const struct model *f;
	struct model_ftree tree; /* what the pointers below point into */
	uint32_t *canon;         /* model_fn_stacks */
	uint64_t *total, *self;  /* per canonical node */
	uint32_t *first, *kids;  /* children of node n: kids[first[n]..first[n+1]) */
	const uint32_t *roots;   /* the tree's kids of nnodes */
	size_t nroots;
	uint32_t *fnix;   /* fn -> index in "fns" + 1 */
	uint32_t *fnlist; /* "fns" in order */
	size_t nfns;
	/* the timeline (tl_note): 1 + the JSON index of each node written,
	 * and of each node's [other] child (index nnodes: the roots') */
	uint32_t *tl_node, *tl_other, tl_count;
	uint32_t *order; /* with a diff: the nodes written, preorder ([other]: UINT32_MAX) */
	size_t norder;
};

static void ftree_build(struct ftree *t, const struct model *f)
{
	memset(t, 0, sizeof *t);
	t->f = f;
	model_ftree(f, &t->tree);
	t->canon = t->tree.canon;
	t->total = t->tree.total;
	t->self = t->tree.self;
	t->first = t->tree.first;
	t->kids = t->tree.kids;
	t->roots = t->kids + t->first[f->nnodes];
	t->nroots = t->first[f->nnodes + 1] - t->first[f->nnodes];
	t->fnix = xcalloc(f->nfns + 1, sizeof *t->fnix);
	t->fnlist = xmalloc((f->nfns + 1) * sizeof *t->fnlist);
}

static void ftree_free(struct ftree *t)
{
	model_ftree_free(&t->tree);
	free(t->fnix);
	free(t->fnlist);
}

/* The timeline's map from model nodes to the flame graph's JSON nodes,
 * while timeline() has one: node k was written (other false), or the
 * [other] node that holds k and its merged siblings was (other true). */
static void tl_note(struct ftree *t, uint32_t k, bool other)
{
	size_t n = t->f->nnodes;
	if (!t->tl_node)
		return;
	uint32_t p = t->f->nodes[k].parent;
	if (!other)
		t->tl_node[k] = ++t->tl_count;
	else
		t->tl_other[p == MODEL_NO_NODE ? n : t->canon[p]] = ++t->tl_count;
}

static bool tiny(const struct ftree *t, uint64_t n)
{
	return n * MERGE_DIV < t->f->total;
}

static uint32_t fn_index(struct ftree *t, uint32_t fn)
{
	if (!t->fnix[fn]) {
		t->fnlist[t->nfns] = fn;
		t->fnix[fn] = (uint32_t)++t->nfns;
	}
	return t->fnix[fn] - 1;
}

/* One list of siblings being written (ftree_write): list[0..big) are
 * written one by one, each followed by its subtree, and list[big..n),
 * the tiny ones, as one [other] node of rest samples after them. */
struct sibs {
	const uint32_t *list;
	size_t n, big, i;
	uint64_t rest;
};

static struct sibs sibs(const struct ftree *t, const uint32_t *list, size_t n)
{
	struct sibs v = { list, n, 0, 0, 0 };
	while (v.big < n && !tiny(t, t->total[list[v.big]]))
		v.big++;
	for (size_t i = v.big; i < n; i++)
		v.rest += t->total[list[i]];
	return v;
}

/* Nodes list[0..n) (siblings, most first) and their subtrees, preorder.
 * Not recursive: the tree is as deep as the deepest recorded stack, which
 * a data file does not bound (a crafted one of 100,000 frames overflowed
 * the C stack), so the path from the root is a stack on the heap. */
static void ftree_write(FILE *s, struct ftree *t, const uint32_t *list, size_t n, bool *comma)
{
	size_t top = 0, cap = 64;
	struct sibs *path = xmalloc(cap * sizeof *path);
	path[0] = sibs(t, list, n);
	for (;;) {
		struct sibs *v = &path[top];
		if (v->i < v->big) {
			uint32_t k = v->list[v->i++];
			const uint32_t *kids = t->kids + t->first[k];
			size_t nk = t->first[k + 1] - t->first[k], shown = 0;
			while (shown < nk && !tiny(t, t->total[kids[shown]]))
				shown++;
			fprintf(s, "%s%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%zu", *comma ? "," : "",
				fn_index(t, t->f->pcs[t->f->nodes[k].pc].fn), t->total[k],
				t->self[k], shown + (shown < nk));
			tl_note(t, k, false);
			*comma = true;
			if (t->order)
				t->order[t->norder++] = k;
			if (top + 1 == cap)
				path = xrealloc(path, (cap *= 2) * sizeof *path);
			path[++top] = sibs(t, kids, nk);
			continue;
		}
		if (v->rest) {
			/* the merged node's fn is the one past the functions: "[other]" */
			fprintf(s, "%s-1,%" PRIu64 ",%" PRIu64 ",0", *comma ? "," : "", v->rest,
				v->rest);
			tl_note(t, v->list[v->big], true);
			*comma = true;
			if (t->order)
				t->order[t->norder++] = UINT32_MAX;
		}
		if (top-- == 0)
			break;
	}
	free(path);
}

/* ---- a diff's colours (pcprof diff --html, cmd-diff.c) ------------------------
 *
 * The page of NEW, each frame coloured by the change of its total share
 * since BASE.  A frame is matched in BASE by its call path: the functions
 * from the root to it, each by label and module name (as cmd-diff.c
 * matches rows), hashed along the path; nodes of BASE whose paths hash
 * alike hold disjoint samples (one node per depth per stack), so their
 * totals add up.  "delta" holds, per node of "nodes" in order, the change
 * in % of all samples and its standard error (the noise of two
 * proportions, as in pcprof-diff(1)), null for an [other] node. */
static struct {
	const struct model *base;
	const char *name;  /* BASE's file name */
	uint64_t *h, *tot; /* BASE's path hashes, sorted, with their samples */
	size_t n;
	double max; /* largest |change| beyond noise, in % */
} diff;

static uint64_t fn_key_hash(const struct model *f, uint32_t fn, uint64_t h)
{
	const struct model_fn *x = &f->fns[fn];
	const char *m = model_mod_name(f, x->mod);
	h = hash_bytes(x->label, strlen(x->label) + 1, h);
	h = hash_bytes(&x->inlined, 1, h);
	return hash_bytes(m, strlen(m) + 1, h);
}

/* Per node of f, the hash of its path of functions (nodes: parents first). */
static uint64_t *path_hashes(const struct model *f)
{
	uint64_t *h = xmalloc((f->nnodes + 1) * sizeof *h);
	for (size_t i = 0; i < f->nnodes; i++) {
		uint32_t p = f->nodes[i].parent;
		h[i] = fn_key_hash(f, f->pcs[f->nodes[i].pc].fn,
				   p == MODEL_NO_NODE ? HASH_INIT : h[p]);
	}
	return h;
}

static const uint64_t *sort_h;
static int by_hash(const void *a, const void *b)
{
	uint64_t x = sort_h[*(const uint32_t *)a], y = sort_h[*(const uint32_t *)b];
	return x < y ? -1 : x > y;
}

/* BASE's samples per path hash. */
static void diff_base_paths(void)
{
	const struct model *b = diff.base;
	size_t n = b->nnodes;
	uint64_t *h = path_hashes(b), *tot = xcalloc(n + 1, sizeof *tot);
	for (size_t i = 0; i < b->nhits; i++)
		tot[b->hits[i].node] += b->hits[i].count;
	for (size_t i = n; i-- > 0;)
		if (b->nodes[i].parent != MODEL_NO_NODE)
			tot[b->nodes[i].parent] += tot[i];
	uint32_t *ix = xmalloc((n + 1) * sizeof *ix);
	for (size_t i = 0; i < n; i++)
		ix[i] = (uint32_t)i;
	sort_h = h;
	qsort(ix, n, sizeof *ix, by_hash);
	diff.h = xmalloc((n + 1) * sizeof *diff.h);
	diff.tot = xmalloc((n + 1) * sizeof *diff.tot);
	diff.n = 0;
	for (size_t i = 0; i < n; i++) {
		if (diff.n && diff.h[diff.n - 1] == h[ix[i]]) {
			diff.tot[diff.n - 1] += tot[ix[i]];
			continue;
		}
		diff.h[diff.n] = h[ix[i]];
		diff.tot[diff.n++] = tot[ix[i]];
	}
	free(ix);
	free(tot);
	free(h);
}

static uint64_t diff_base_total(uint64_t h)
{
	size_t lo = 0, hi = diff.n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (diff.h[mid] < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < diff.n && diff.h[lo] == h ? diff.tot[lo] : 0;
}

/* The change of node k's share since BASE (in %) and its standard error. */
static void diff_node(const struct ftree *t, const uint64_t *h, uint32_t k, double *d, double *se)
{
	double n1 = (double)diff.base->total, n2 = (double)t->f->total;
	double p1 = n1 > 0 ? (double)diff_base_total(h[k]) / n1 : 0;
	double p2 = n2 > 0 ? (double)t->total[k] / n2 : 0;
	*d = 100 * (p2 - p1);
	*se = 100 * sqrt((n1 > 0 ? p1 * (1 - p1) / n1 : 0) + (n2 > 0 ? p2 * (1 - p2) / n2 : 0));
}

/* Before the page is written: BASE's paths, room for the written order,
 * and the colour scale (the largest change beyond noise). */
static void diff_prepare(struct ftree *t)
{
	const struct model *f = t->f;
	diff_base_paths();
	t->order = xmalloc((2 * f->nnodes + 2) * sizeof *t->order);
	t->norder = 0;
	uint64_t *h = path_hashes(f);
	diff.max = 0;
	for (size_t k = 0; k < f->nnodes; k++) {
		double d, se;
		if (t->canon[k] != k || !t->total[k])
			continue;
		diff_node(t, h, (uint32_t)k, &d, &se);
		if (fabs(d) > 3 * se && fabs(d) > diff.max)
			diff.max = fabs(d);
	}
	free(h);
}

static void diff_data(FILE *s, struct ftree *t)
{
	uint64_t *h = path_hashes(t->f);
	fputs(",\n\"delta\":[", s);
	for (size_t i = 0; i < t->norder; i++) {
		double d, se;
		if (t->order[i] == UINT32_MAX) {
			fprintf(s, "%snull,null", i ? "," : "");
			continue;
		}
		diff_node(t, h, t->order[i], &d, &se);
		fprintf(s, "%s%.4f,%.4f", i ? "," : "", d, se);
	}
	fprintf(s, "],\n\"dmax\":%.4f", diff.max);
	free(h);
}

/* What the colours mean, above the flame graph. */
static void diff_legend(FILE *s)
{
	fputs("<section class=\"legend\" id=\"diff-legend\"><h2>Change since ", s);
	out_html_str(s, diff.name);
	fprintf(s, "</h2>\n<p class=\"hint\">Base: %" PRIu64 " samples of <span class=\"cmd\">",
		diff.base->total);
	out_html_str(s, diff.base->prof->command);
	fprintf(s, "</span>.  Each frame of this profile is coloured by the change of its total "
		   "share since the base: "
		   "<span class=\"swatch\" style=\"background:hsl(215,75%%,48%%)\"></span>shrank "
		   "<span class=\"swatch\" style=\"background:#c8c8ce\"></span>within noise (3 "
		   "standard errors) "
		   "<span class=\"swatch\" style=\"background:hsl(0,75%%,48%%)\"></span>grew; ");
	if (diff.max > 0)
		fprintf(s, "the deepest colour is a change of %.2f%% of all samples.", diff.max);
	else
		fputs("no frame changed beyond noise.", s);
	fputs("  Frames gone since the base are not drawn: <code>pcprof diff</code> lists "
	      "them.</p></section>\n",
	      s);
}

static void diff_free(struct ftree *t)
{
	free(diff.h);
	free(diff.tot);
	free(t->order);
	t->order = NULL;
}

static void flame_data(FILE *s, struct ftree *t, const uint32_t *rank)
{
	const struct model *f = t->f;
	fprintf(s, "{\"total\":%" PRIu64 ",\"nodes\":[", f->total);
	bool comma = false;
	ftree_write(s, t, t->roots, t->nroots, &comma);
	fputs("],\n\"fns\":[", s);
	for (size_t i = 0; i < t->nfns; i++) {
		char *l = text_dup(f->fns[t->fnlist[i]].label);
		fputs(i ? ",\"" : "\"", s);
		out_json_html_str(s, l);
		fputc('"', s);
		free(l);
	}
	fputs("],\n\"fmod\":[", s);
	for (size_t i = 0; i < t->nfns; i++) {
		uint32_t m = f->fns[t->fnlist[i]].mod;
		fprintf(s, "%s%ld", i ? "," : "", m == MODEL_NO_MOD ? -1L : (long)m);
	}
	fputs("],\n\"fkind\":[", s);
	for (size_t i = 0; i < t->nfns; i++)
		fprintf(s, "%s%d", i ? "," : "", f->fns[t->fnlist[i]].marker);
	fputs("],\n\"mods\":[", s);
	for (size_t i = 0; i < f->nmods; i++) {
		char *l = text_dup(f->mods[i].name);
		fputs(i ? ",\"" : "\"", s);
		out_json_html_str(s, l);
		fputc('"', s);
		free(l);
	}
	fputs("],\n\"mcol\":[", s);
	for (size_t i = 0; i < f->nmods; i++)
		fprintf(s, "%s\"%s\"", i ? "," : "", mod_color(f, rank, (uint32_t)i));
	fputc(']', s);
	if (diff.base)
		diff_data(s, t);
	fprintf(s, ",\n\"merge\":%g}", 100.0 / MERGE_DIV);
}

static const char flame_js[] =
#include "html-flame.inc"
	;

/* The flame graph: its controls, the picture cli/html-flame.js draws from
 * the data, and the caller/callee tables of the selected function. */
static void flame(FILE *s, struct ftree *t, const uint32_t *rank)
{
	fputs("<section class=\"flame\" id=\"flame\">\n<h2>Call stacks</h2>\n"
	      "<div class=\"controls\" role=\"toolbar\">"
	      "<button type=\"button\" id=\"fg-mode\" aria-pressed=\"false\">icicle</button>"
	      "<label>colour <select id=\"fg-colour\"><option value=\"module\">by module</option>"
	      "<option value=\"name\">by name</option></select></label>"
	      "<label>search <input id=\"fg-search\" type=\"search\" size=\"24\" "
	      "placeholder=\"regex or text\" autocomplete=\"off\"></label>"
	      "<span id=\"fg-match\" class=\"match\" aria-live=\"polite\"></span>"
	      "<button type=\"button\" id=\"fg-reset\">reset zoom</button></div>\n"
	      "<nav class=\"crumbs\" id=\"fg-crumbs\" aria-label=\"zoom path\"></nav>\n"
	      "<div class=\"fg\" id=\"fg\"><noscript>The flame graph needs JavaScript; the "
	      "tables below do not.</noscript></div>\n"
	      "<div class=\"tip\" id=\"fg-tip\" role=\"tooltip\" hidden></div>\n"
	      "<p class=\"hint\">Click a frame to zoom into it and to show its function&rsquo;s "
	      "callers and callees, or a row of the function table to find its frames; Esc "
	      "resets.  Frames below ",
	      s);
	fprintf(s, "%g%% of all samples are merged into one [other] frame per caller.</p>\n",
		100.0 / MERGE_DIV);
	fputs("<div class=\"calls\" id=\"fg-calls\" hidden></div>\n"
	      "<script type=\"application/json\" id=\"fg-data\">",
	      s);
	flame_data(s, t, rank);
	fprintf(s, "</script>\n<script>\n%s</script>\n</section>\n", flame_js);
}

/* ---- the timeline above the flame graph -------------------------------------
 *
 * Each thread's samples over time, and the flame graph's samples per
 * time slot, as JSON for cli/html-flame.js (docs/formats.md "HTML"):
 *   {"slot": seconds per slot, "t0": seconds at slot 0, "n": slots,
 *    "untimed": samples with no time,
 *    "threads": [pid, tid, "name", samples per second of a whole CPU,
 *                [slot, samples, ...]]... (most samples first; past TL_ROWS
 *                one row "N more threads" with pid 0),
 *    "cells": [flame node index, slot, samples, ...]}
 * A flame node index counts the quadruples of fg-data's "nodes" from 0,
 * [other] nodes included.  At most TL_SLOTS slots (whole buckets each);
 * a thread's row is its samples per slot over what a whole CPU gives.
 */
#define TL_SLOTS 400
#define TL_ROWS  32 /* threads drawn, most samples first; the rest are one row */

/* The JSON index of the flame node that holds canonical node c. */
static uint32_t tl_index(const struct ftree *t, uint32_t c)
{
	const struct model *f = t->f;
	while (!t->tl_node[c]) {
		uint32_t p = f->nodes[c].parent;
		if (p == MODEL_NO_NODE)
			return t->tl_other[f->nnodes] - 1;
		p = t->canon[p];
		if (t->tl_node[p])
			return t->tl_other[p] - 1;
		c = p;
	}
	return t->tl_node[c] - 1;
}

/* One (a, b, slot) with its samples: (proc, thread) rows, or (flame node,
 * unused) cells; sorted and summed so that each is written once. */
struct tl_cell {
	uint32_t a, b, slot;
	uint64_t n;
};

static int tl_cmp(const void *x, const void *y)
{
	const struct tl_cell *p = x, *q = y;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	if (p->b != q->b)
		return p->b < q->b ? -1 : 1;
	return p->slot < q->slot ? -1 : p->slot > q->slot;
}

/* Sort v[0..n) and sum equal keys; returns the new count. */
static size_t tl_merge(struct tl_cell *v, size_t n)
{
	qsort(v, n, sizeof *v, tl_cmp);
	size_t out = 0;
	for (size_t i = 0; i < n; i++) {
		if (out && !tl_cmp(&v[out - 1], &v[i]))
			v[out - 1].n += v[i].n;
		else
			v[out++] = v[i];
	}
	return out;
}

/* A thread's row: where its cells are, its samples. */
struct tl_row {
	size_t at, len;
	uint64_t samples;
};

static int tl_row_cmp(const void *x, const void *y)
{
	const struct tl_row *p = x, *q = y;
	if (p->samples != q->samples)
		return p->samples > q->samples ? -1 : 1;
	return p->at < q->at ? -1 : p->at > q->at;
}

/* The threads' rows, most samples first; past TL_ROWS, one row for the
 * rest ("N more threads", pid and tid 0, at the first one's rate). */
static void tl_threads(FILE *s, const struct model *f, const struct tl_cell *v, size_t nv,
		       uint32_t n)
{
	struct tl_row *rows = xmalloc((nv ? nv : 1) * sizeof *rows);
	size_t nrows = 0;
	for (size_t i = 0; i < nv; i++) {
		if (!i || v[i].a != v[i - 1].a || v[i].b != v[i - 1].b)
			rows[nrows++] = (struct tl_row){ i, 0, 0 };
		rows[nrows - 1].len++;
		rows[nrows - 1].samples += v[i].n;
	}
	qsort(rows, nrows, sizeof *rows, tl_row_cmp);
	uint64_t *rest = xcalloc(n, sizeof *rest);
	for (size_t r = 0; r < nrows; r++) {
		const struct tl_cell *c = &v[rows[r].at];
		const struct pp_process *p = f->procs[c->a].p;
		if (r >= TL_ROWS) {
			for (size_t k = 0; k < rows[r].len; k++)
				rest[c[k].slot] += c[k].n;
			continue;
		}
		char *name = text_dup(p->threads[c->b].name);
		fprintf(s, "%s[%d,%d,\"", r ? "," : "", (int)p->pid, (int)p->threads[c->b].tid);
		out_json_html_str(s, name);
		fprintf(s, "\",%u,[", p->hz);
		free(name);
		for (size_t k = 0; k < rows[r].len; k++)
			fprintf(s, "%s%u,%" PRIu64, k ? "," : "", c[k].slot, c[k].n);
		fputs("]]", s);
	}
	if (nrows > TL_ROWS) {
		fprintf(s, ",[0,0,\"%zu more threads\",%u,[", nrows - TL_ROWS,
			f->procs[v[rows[0].at].a].p->hz);
		bool comma = false;
		for (uint32_t k = 0; k < n; k++)
			if (rest[k]) {
				fprintf(s, "%s%u,%" PRIu64, comma ? "," : "", k, rest[k]);
				comma = true;
			}
		fputs("]]", s);
	}
	free(rest);
	free(rows);
}

static void timeline(FILE *s, struct ftree *t)
{
	const struct model *f = t->f;
	uint32_t first = UINT32_MAX, last = 0;
	uint64_t untimed = 0;
	for (size_t i = 0; i < f->nhits; i++) {
		uint32_t tm = f->hits[i].time;
		if (tm == PP_NO_TIME)
			untimed += f->hits[i].count;
		else {
			first = tm < first ? tm : first;
			last = tm > last ? tm : last;
		}
	}
	/* A diff's colours are of the whole runs: no period to pick there. */
	if (!f->prof->bucket_ns || first > last || diff.base)
		return;
	/* the flame graph's nodes as cli/html-flame.js will number them */
	FILE *null = fopen("/dev/null", "w");
	if (!null)
		return;
	t->tl_node = xcalloc(f->nnodes + 1, sizeof *t->tl_node);
	t->tl_other = xcalloc(f->nnodes + 1, sizeof *t->tl_other);
	t->tl_count = 0;
	bool comma = false;
	size_t norder = t->norder; /* a diff's record of the nodes: the real write's */
	ftree_write(null, t, t->roots, t->nroots, &comma);
	t->norder = norder;
	fclose(null);
	uint32_t per = (last - first) / TL_SLOTS + 1, n = (last - first) / per + 1;
	double w = (double)f->prof->bucket_ns / 1e9;
	fputs("<section class=\"timeline\" id=\"timeline\">\n<h2>CPU over time</h2>\n"
	      "<style>.tl-rows{width:100%;cursor:crosshair;user-select:none}"
	      ".tl-rows .bar{fill:#1c7ed6}.tl-rows .sel{fill:#f03e9a;fill-opacity:.18;"
	      "stroke:#f03e9a}.tl-rows text{font:11px ui-monospace,monospace}</style>\n"
	      "<div class=\"controls\">period <input id=\"tl-from\" size=\"6\" "
	      "aria-label=\"from (s)\">&ndash;<input id=\"tl-to\" size=\"6\" "
	      "aria-label=\"to (s)\"> s <button type=\"button\" id=\"tl-apply\">show</button>"
	      "<button type=\"button\" id=\"tl-clear\">whole run</button>"
	      "<span id=\"tl-info\" class=\"match\" aria-live=\"polite\"></span></div>\n"
	      "<div id=\"tl\"></div>\n<p class=\"hint\">Each thread&rsquo;s CPU use "
	      "(samples per slot against what a whole CPU gives).  Drag across it to show "
	      "only that period in the flame graph below.</p>\n"
	      "<script type=\"application/json\" id=\"tl-data\">",
	      s);
	fprintf(s, "{\"slot\":%.6g,\"t0\":%.6g,\"n\":%u,\"untimed\":%" PRIu64 ",\"threads\":[",
		per * w, (first - 1) * w, n, untimed);
	struct tl_cell *v = xmalloc((f->nhits ? f->nhits : 1) * sizeof *v);
	size_t nv = 0;
	for (size_t i = 0; i < f->nhits; i++) {
		const struct model_hit *h = &f->hits[i];
		if (h->time != PP_NO_TIME && h->thread != UINT32_MAX)
			v[nv++] = (struct tl_cell){ h->proc, h->thread, (h->time - first) / per,
						    h->count };
	}
	tl_threads(s, f, v, tl_merge(v, nv), n);
	fputs("],\n\"cells\":[", s);
	nv = 0;
	for (size_t i = 0; i < f->nhits; i++) {
		const struct model_hit *h = &f->hits[i];
		if (h->time != PP_NO_TIME)
			v[nv++] = (struct tl_cell){ tl_index(t, t->canon[h->node]), 0,
						    (h->time - first) / per, h->count };
	}
	nv = tl_merge(v, nv);
	for (size_t i = 0; i < nv; i++)
		fprintf(s, "%s%u,%u,%" PRIu64, i ? "," : "", v[i].a, v[i].slot, v[i].n);
	free(v);
	fputs("]}</script>\n</section>\n", s);
	free(t->tl_node);
	free(t->tl_other);
	t->tl_node = t->tl_other = NULL;
	t->tl_count = 0;
}

static int write_html(const struct model *f, const char *out, char *err, size_t errlen)
{
	struct ofile *o = ofile_open(out, err, errlen);
	if (!o)
		return -1;
	FILE *s = ofile_stream(o);
	size_t nm, nf;
	struct ftree tree;
	uint32_t *mods = model_sorted_mods(f, MODEL_SORT_SAMPLES, &nm);
	uint32_t *fns = model_sorted_fns(f, MODEL_SORT_SAMPLES, &nf);
	/* colour rank of each module: by samples */
	uint32_t *rank = xcalloc(f->nmods, sizeof *rank);
	for (uint32_t i = 0; i < f->nmods; i++)
		rank[i] = UINT32_MAX;
	for (size_t i = 0; i < nm; i++)
		rank[mods[i]] = (uint32_t)i;

	/* the policy forbids every fetch, so that even a name that got through
	 * as markup could load nothing */
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
	      "<meta name=\"viewport\" "
	      "content=\"width=device-width,initial-scale=1\">\n<title>pcprof: ",
	      s);
	out_html_str(s, f->prof->command);
	fprintf(s,
		"</title>\n<style>\n%s</style></head>\n<body>\n<header><h1>pcprof %s</h1>\n"
		"<p class=\"cmd\">",
		style, diff.base ? "diff" : "profile");
	out_html_str(s, f->prof->command);
	fputs("</p>\n", s);
	facts(s, f);
	fputs("</header>\n", s);
	if (!nf) {
		fputs("<p>No samples.</p>\n", s);
	} else {
		ftree_build(&tree, f);
		if (diff.base) {
			diff_prepare(&tree);
			diff_legend(s);
		}
		timeline(s, &tree);
		flame(s, &tree, rank);
		out_html_annotate(s, f, tree.fnix);
		fputs("<main class=\"grid\"><section class=\"pictures\">\n", s);
		module_bar(s, f, mods, nm, rank);
		function_bars(s, f, fns, nf, rank);
		fputs("<h2>Where the samples fell in each module&rsquo;s code</h2>\n", s);
		for (size_t i = 0; i < nm && i < TOP_STRIPS; i++)
			heat_strip(s, f, mods[i], fns, nf, rank);
		fputs("</section>\n<section class=\"table\">\n", s);
		table(s, f, fns, nf, rank, tree.fnix);
		if (diff.base)
			diff_free(&tree);
		ftree_free(&tree);
		fputs("</section></main>\n", s);
	}
	/* the symbolization notes belong on the page, and on stderr as usual */
	char *notes = model_notes_text(f, true);
	if (*notes) {
		fputs("<pre class=\"notes\">", s);
		out_html_safe(s, notes);
		fputs("</pre>\n", s);
		fputs(notes, stderr);
	}
	free(notes);
	fprintf(s,
		"<footer>pcprof %s &middot; percentages are of all %" PRIu64
		" samples &middot; seconds are samples divided by the sampling rate</footer>\n"
		"</body></html>\n",
		PCPROF_VERSION, f->total);
	free(rank);
	free(mods);
	free(fns);
	return ofile_close(o, err, errlen);
}

const struct out_format out_html = {
	.name = "html",
	.help = "one self-contained HTML page: flame graph, pictures and the table",
	.default_out = "pcprof.html",
	.write = write_html,
};

int out_html_diff(const struct model *base, const char *base_name, const struct model *f,
		  const char *out, char *err, size_t errlen)
{
	diff.base = base;
	diff.name = base_name;
	int r = write_html(f, out, err, errlen);
	diff.base = NULL;
	return r;
}
