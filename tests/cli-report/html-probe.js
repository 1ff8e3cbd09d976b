// html-probe.js - appended (in a <script>) to a copy of the exported page by
// t-export-html*.sh: measures what chromium actually laid out and adds the
// results to the DOM as "probe KEY VALUE" lines, for --dump-dom.
//
// The flame graph: the page's URL fragment lists steps, '&'-separated,
// done in order, each numbered from 0 (the step's number is the second
// field of what it prints):
//   draw           print the frames drawn
//   click=NAME@D   click the first frame (in document order) named NAME at
//                  depth D (the root "all" is depth 0), then print the
//                  frames and the caller/callee tables
//   enter=NAME@D   the same with the Enter key on the frame
//   tip=NAME@D     move the mouse over that frame, print the tooltip
//   row=NAME       click the function table's row of NAME, then print as
//                  for search, and the caller/callee tables
//   search=TEXT    type TEXT into the search box, print the match line and
//                  the frames
//   esc            press Escape
//   colour=KEY     choose colours by KEY (module or name), print the
//                  number of distinct fills of the functions' frames
//   icicle         press the flame/icicle button
//   paint          print each frame's fill (a diff's colours)
//   source         print the source view (see source() below)
//   asmtab         choose the source view's instructions tab
//   more=T.I       click the I-th (from 0) cold stretch's expander of the
//                  source view's table T (src or asm), then print "more
//                  STEP EXPANDED TABINDEX ROLE" of it
//   moreenter=T.I, morespace=T.I   the same with the Enter or Space key
// Lines: "fr STEP DEPTH X WIDTH Y CLASSES NAME", "calls STEP TITLE",
// "caller|callee STEP TOTAL% SAMPLES NAME", "match STEP TEXT", "tip STEP
// TEXT", "fills STEP N", "paint STEP DEPTH FILL NAME", where every NAME, TITLE and TEXT is
// encodeURIComponent'ed (no spaces); X, WIDTH and Y in CSS pixels.
function flame(put, out) {
	const fg = () => document.querySelector('svg.flamegraph');
	put('flame', fg() ? 1 : 0);
	if (!fg())
		return;
	const enc = encodeURIComponent;
	const frames = () => [...fg().querySelectorAll('g.frame')];
	const find = (spec) => {
		const at = spec.lastIndexOf('@');
		const name = spec.slice(0, at), depth = spec.slice(at + 1);
		return frames().find((g) => g.dataset.name === name && g.dataset.depth === depth);
	};
	const dump = (step) => {
		for (const g of frames()) {
			const r = g.querySelector('rect').getBoundingClientRect();
			const cls = g.getAttribute('class').split(' ').filter((c) => c !== 'frame');
			out.push(['fr', step, g.dataset.depth, r.x.toFixed(2), r.width.toFixed(2),
				r.y.toFixed(2), cls.join(',') || '-', enc(g.dataset.name)].join(' '));
		}
	};
	const calls = (step) => {
		const box = document.getElementById('fg-calls');
		const h = box.querySelector('h3');
		out.push('calls ' + step + ' ' + (box.hidden || !h ? '-' : enc(h.textContent)));
		for (const kind of ['caller', 'callee'])
			for (const tr of box.querySelectorAll('table.' + kind + 's tbody tr'))
				if (tr.cells.length === 3)
					out.push([kind, step, tr.cells[0].textContent, tr.cells[1].textContent,
						enc(tr.cells[2].textContent)].join(' '));
	};
	const match = (step) =>
		out.push('match ' + step + ' ' + enc(document.getElementById('fg-match').textContent));
	const steps = location.hash.slice(1).split('&').filter((s) => s).map(decodeURIComponent);
	steps.forEach((st, i) => {
		const eq = st.indexOf('=');
		const op = eq < 0 ? st : st.slice(0, eq), arg = eq < 0 ? '' : st.slice(eq + 1);
		if (op === 'draw') {
			dump(i);
		} else if (op === 'click' || op === 'enter' || op === 'tip') {
			const g = find(arg);
			if (!g) {
				out.push('missing ' + i + ' ' + enc(arg));
				return;
			}
			const r = g.querySelector('rect').getBoundingClientRect();
			const at = { bubbles: true, clientX: r.x + 2, clientY: r.y + 2 };
			if (op === 'tip') {
				g.dispatchEvent(new MouseEvent('mousemove', at));
				const tip = document.getElementById('fg-tip');
				out.push('tip ' + i + ' ' + (tip.hidden ? '-' : enc(tip.textContent)));
				return;
			}
			if (op === 'enter')
				g.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
			else
				g.dispatchEvent(new MouseEvent('click', at));
			dump(i);
			calls(i);
		} else if (op === 'row') {
			const tr = [...document.querySelectorAll('table.functions tbody tr')].find(
				(r) => r.querySelector('td.fn').firstChild.textContent === arg);
			if (!tr) {
				out.push('missing ' + i + ' ' + enc(arg));
				return;
			}
			tr.dispatchEvent(new MouseEvent('click', { bubbles: true }));
			match(i);
			dump(i);
			calls(i);
		} else if (op === 'search') {
			const box = document.getElementById('fg-search');
			box.value = arg;
			box.dispatchEvent(new Event('input', { bubbles: true }));
			match(i);
			dump(i);
		} else if (op === 'esc') {
			document.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
		} else if (op === 'colour') {
			const sel = document.getElementById('fg-colour');
			sel.value = arg;
			sel.dispatchEvent(new Event('change', { bubbles: true }));
			const fills = new Set(frames().filter((g) => !/root|marker|other/.test(
				g.getAttribute('class'))).map((g) => g.querySelector('rect').getAttribute('fill')));
			out.push('fills ' + i + ' ' + fills.size);
		} else if (op === 'paint') {
			for (const g of frames())
				out.push(['paint', i, g.dataset.depth, g.querySelector('rect').getAttribute(
					'fill').replace(/ /g, ''), enc(g.dataset.name)].join(' '));
		} else if (op === 'source') {
			source(i, out);
		} else if (op === 'asmtab') {
			const b = document.querySelector('#ann button.tab[data-tab=asm]');
			if (b)
				b.click();
			else
				out.push('missing ' + i + ' asmtab');
		} else if (op === 'more' || op === 'moreenter' || op === 'morespace') {
			const [t, k] = arg.split('.');
			const b = document.querySelectorAll('#ann-' + (t === 'asm' ? 'asm' : 'source') +
				' tr.gap .more')[Number(k)];
			if (!b) {
				out.push('missing ' + i + ' ' + enc(arg));
				return;
			}
			if (op === 'more')
				b.dispatchEvent(new MouseEvent('click', { bubbles: true }));
			else
				b.dispatchEvent(new KeyboardEvent('keydown', {
					key: op === 'moreenter' ? 'Enter' : ' ', bubbles: true, cancelable: true }));
			out.push(['more', i, b.getAttribute('aria-expanded'), b.tabIndex,
				b.getAttribute('role')].join(' '));
		} else if (op === 'icicle') {
			document.getElementById('fg-mode').click();
		} else {
			out.push('unknown-step ' + i + ' ' + enc(st));
		}
	});
}

// The source view (html-annotate.js), step "source": "srctitle STEP
// TITLE" ("-" when closed), "srcwhy STEP TEXT", per file "srcfile STEP
// PATH", per row "src STEP LINE SAMPLES FN% ALL% CLASS TEXT" (empty cells
// and classes as "-"; a cold stretch is LINE "…"; rows not displayed
// are left out), and the same of
// the instructions with "asm" for "src" (ADDRESS for LINE; "asmfile" the
// source line above a run of instructions), after "asmtab STEP SHOWN".
function source(step, out) {
	const box = document.getElementById('ann');
	const enc = encodeURIComponent;
	const h = box && box.querySelector('h3');
	out.push('srctitle ' + step + ' ' + (!box || box.hidden || !h ? '-' : enc(h.textContent)));
	if (!box || box.hidden)
		return;
	for (const p of box.querySelectorAll(':scope > p.why'))
		out.push('srcwhy ' + step + ' ' + enc(p.textContent));
	const rows = (sel, kind) => {
		for (const tr of box.querySelectorAll(sel + ' tbody tr')) {
			if (getComputedStyle(tr).display === 'none')
				continue;
			if (tr.className === 'file') {
				out.push(kind + 'file ' + step + ' ' + enc(tr.textContent));
				continue;
			}
			const c = [...tr.cells].map((td) => td.textContent);
			out.push([kind, step, c[3] || '-', c[0] || '-', c[1] || '-', c[2] || '-',
				tr.className || '-', enc(c[4])].join(' '));
		}
	};
	rows('#ann-source', 'src');
	// the instructions: "asmtab STEP SHOWN", then rows as above, kind "asm"
	const asm = document.getElementById('ann-asm');
	if (!asm)
		return;
	out.push('asmtab ' + step + ' ' + (asm.hidden ? 0 : 1));
	for (const p of asm.querySelectorAll('p.why'))
		out.push('asmwhy ' + step + ' ' + enc(p.textContent));
	rows('#ann-asm', 'asm');
}

(function () {
	const out = [];
	const put = (k, v) => out.push('probe ' + k + ' ' + v);
	const box = (e) => e.getBoundingClientRect();
	const bars = [...document.querySelectorAll('svg.bars rect.fill')];
	const w = bars.map((b) => box(b).width);
	put('bars', bars.length);
	put('bar_min_width', w.length ? Math.min(...w).toFixed(2) : 0);
	put('bar_widest', w.indexOf(Math.max(...w)));
	const title = document.querySelector('svg.bars g.bar title');
	put('bar_first', title ? title.textContent.split(' ')[0] : '-');
	const cells = [...document.querySelectorAll('svg.strip rect.cell.hot')];
	put('hot_cells', cells.length);
	put('hot_cells_drawn', cells.filter((c) => box(c).width > 0 && box(c).height > 0).length);
	put('strips', document.querySelectorAll('svg.strip').length);
	const mods = [...document.querySelectorAll('svg.modules rect.module')];
	put('module_bar_width', mods.reduce((a, m) => a + box(m).width, 0).toFixed(0));
	const fn = document.querySelector('table.functions tbody tr td.fn');
	put('table_first', fn ? fn.firstChild.textContent : '-');
	put('table_rows', document.querySelectorAll('table.functions tbody tr').length);
	const t = box(document.querySelector('table.functions'));
	const p = box(document.querySelector('section.pictures'));
	put('side_by_side', t.left >= p.right && t.top < p.bottom ? 1 : 0);
	put('resources', performance.getEntriesByType('resource').length);
	flame(put, out);
	// after the flame graph's steps: whatever they showed
	put('images', document.querySelectorAll('img').length);
	put('violations', (window.probeViolations || []).length);
	const pre = document.createElement('pre');
	pre.id = 'probe';
	pre.textContent = '\n' + out.join('\n') + '\n';
	document.body.appendChild(pre);
})();
