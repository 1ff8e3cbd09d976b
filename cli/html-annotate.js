// html-annotate.js - the source view of pcprof's HTML page (cli/out-html-annotate.c
// embeds this file as a string and writes the listings as JSON into
// <script id="ann-data">; docs/formats.md "HTML" describes it).  A click
// (or Enter) on a frame of the flame graph or a row of the function table
// opens its function's source lines with their samples and shares, as
// `pcprof annotate FUNC` prints them; Esc or the close button closes it.
// A click (or Enter or Space) on a cold stretch ("… 12 lines …") shows
// the lines or instructions hidden there, and another hides them again.
// Every name and line of source reaches the page through textContent,
// never as markup.
(function () {
	'use strict';
	const el = (id) => document.getElementById(id);
	const A = JSON.parse(el('ann-data').textContent);
	const D = JSON.parse(el('fg-data').textContent);
	const box = el('ann');
	const pct = (n, of) => of ? (100 * n / of).toFixed(2) : '0.00';
	const add = (parent, tag, text, cls) => {
		const e = document.createElement(tag);
		if (text !== undefined)
			e.textContent = text;
		if (cls)
			e.className = cls;
		parent.appendChild(e);
		return e;
	};
	let shown = -1;

	function close() {
		box.hidden = true;
		shown = -1;
	}

	function why(fn, a) {
		if (!a)
			return 'It has no samples in its own code: its time is in the functions it ' +
				'calls (see its callees).';
		if (a.why === 'top')
			return 'Its listing is not in this page: only the ' + A.top + ' functions with ' +
				'most samples in their code and those above ' + A.share + '% of all are ' +
				'(pcprof annotate shows every function).';
		if (a.why === 'size')
			return 'Its listing is not in this page: the listings reached the page\u2019s size ' +
				'bound (pcprof annotate shows every function).';
		return '';
	}

	const bound = 'it keeps at most ' + A.budget + ' MB of listings';

	// what a listing cut to fit the page's bound leaves out ("cut" of
	// out-html-annotate.c's fn_text: [context, sampled lines, their
	// samples, 1 without the instructions])
	function cut(c) {
		const out = [c[0] >= A.context ? 'the lines of its cold stretches' : c[0] ? 'all but ' +
			c[0] + ' line' + (c[0] === 1 ? '' : 's') + ' around each sampled line' :
			'every line without samples'];
		if (c[1])
			out.push(c[1] + ' sampled line' + (c[1] === 1 ? '' : 's') + ' with ' + c[2] +
				' sample' + (c[2] === 1 ? '' : 's') + ', those with fewest (in the rows ' +
				'\u201c\u2026 N lines, M of them with samples \u2026\u201d)');
		if (c[3])
			out.push('its instructions');
		return 'Not all of this listing is in this page (' + bound + '): it leaves out ' +
			out.join(', ') + '; pcprof annotate shows the whole function.';
	}

	function open(fn) {
		const a = A.fns[fn];
		const mod = D.fmod[fn] >= 0 ? D.mods[D.fmod[fn]] : '[unknown]';
		box.replaceChildren();
		const x = add(box, 'button', '\u00d7', 'close');
		x.type = 'button';
		x.setAttribute('aria-label', 'close the source view');
		x.addEventListener('click', close);
		let title = 'Source of ' + D.fns[fn] + (a && a.inl ? ' [inline]' : '') + ' (' + mod + ')';
		if (a)
			title += ': ' + a.s + ' samples in its code, ' + pct(a.s, D.total) + '% of all' +
				(a.self !== undefined && a.self !== a.s ?
					' (' + (a.s - a.self) + ' in code inlined into it)' : '');
		add(box, 'h3', title);
		const w = why(fn, a);
		if (w) {
			add(box, 'p', w, 'why');
			box.hidden = false;
			shown = fn;
			return;
		}
		if (a.asm || a.asmwhy) { // the tabs: source lines, instructions
			const tabs = add(box, 'div', undefined, 'tabs');
			tabs.setAttribute('role', 'tablist');
			for (const [k, label] of [['source', 'source lines'], ['asm', 'instructions']]) {
				const b = add(tabs, 'button', label, 'tab');
				b.type = 'button';
				b.dataset.tab = k;
				b.setAttribute('role', 'tab');
				b.setAttribute('aria-selected', String(k === 'source'));
				b.addEventListener('click', () => {
					for (const o of tabs.children)
						o.setAttribute('aria-selected', String(o === b));
					el('ann-source').hidden = k !== 'source';
					el('ann-asm').hidden = k !== 'asm';
				});
			}
		}
		if (a.cut)
			add(box, 'p', cut(a.cut), 'why');
		instructions(a);
		const { body, row, counts } = listing(box, 'source', 'line', a);
		body.parentNode.id = 'ann-source';
		for (const f of a.files) {
			fileRow(body, f.p);
			if (f.miss)
				row('note', ['', '', '', '',
					'(source file not found: its lines are shown without their text)']);
			if (f.newer)
				row('note', ['', '', '', '', '(note: ' + f.newer + ')']);
			for (const r of f.r) {
				if (!r[0] && r[4]) { // [0, first line, lines, 0, sampled lines, samples]
					row('gap', counts(r[5]).concat(['\u2026', '\u2026 ' + r[2] + ' line' +
						(r[2] === 1 ? '' : 's') + ', ' + r[4] + ' of them with samples, not in ' +
						'this page: ' + bound + ' (pcprof annotate shows them) \u2026']));
					continue;
				}
				if (!r[0]) { // [0, first line, lines, [texts]]
					gap(row, r[2], 'line', 'pcprof annotate --context shows them', r[3] &&
						((at) => r[3].map((t, i) => {
							const tr = row('cold', counts(0).concat([String(r[1] + i), t]), at + i);
							tr.dataset.line = String(r[1] + i);
							return tr;
						})));
					continue;
				}
				const tr = row(r[1] && r[1] * 10 >= a.s ? 'hot' : '', counts(r[1]).concat(
					[String(r[0]), r.length > 2 ? r[2] : '']));
				tr.dataset.line = String(r[0]);
			}
		}
		if (a.nol) {
			const tr = row('', counts(a.nol).concat(['?\u003f', a.nomod ?
				'(outside every mapped file: no lines, no instructions)' :
				'(no line information: the module has no DWARF lines here, stripped or ' +
				'built without -g; see its instructions)']));
			tr.dataset.line = 'none';
		}
		box.hidden = false;
		box.scrollTop = 0;
		shown = fn;
	}

	// A table of a's rows under parent, with the columns samples, fn%,
	// all%, KEY, and the text; row(class, cells, at) adds one (at the end,
	// or as row number at), counts(n) gives its first three cells.
	function listing(parent, cls, key, a) {
		const t = add(parent, 'table', undefined, cls);
		const head = t.createTHead().insertRow();
		for (const c of ['samples', 'fn%', 'all%', key, cls === 'asm' ? 'instruction' : 'source'])
			add(head, 'th', c);
		const body = t.createTBody();
		const row = (rc, cells, at) => {
			const tr = body.insertRow(at === undefined ? -1 : at);
			if (rc)
				tr.className = rc;
			cells.forEach((c, i) => {
				const td = tr.insertCell();
				td.textContent = c;
				td.className = i < 4 ? 'n' : 'text';
			});
			return tr;
		};
		const counts = (n) => n ? [String(n), pct(n, a.s), pct(n, D.total)] : ['', '', ''];
		return { body, row, counts };
	}
	function fileRow(body, text, at) {
		const th = add(body.insertRow(at === undefined ? -1 : at), 'th', text);
		th.parentNode.className = 'file';
		th.colSpan = 5;
		return th.parentNode;
	}

	// A cold stretch of n lines or instructions (what) as a row, after
	// the rows so far; if its rows are in the page, make(at) inserts them
	// from row number at and returns them, for the row's "… n lines …" to
	// show and hide (a role=button: click, Enter or Space); else the row
	// says that they are not and what shows them.  While they are shown,
	// a file row just after them that repeats the file row above is
	// hidden.
	function gap(row, n, what, elsewhere, make) {
		const tr = row('gap', ['', '', '', '\u2026', '']);
		const label = n + ' ' + what + (n === 1 ? '' : 's');
		if (!n)
			return;
		if (!make) {
			tr.cells[4].textContent = '\u2026 ' + label + ', not in this page: ' + elsewhere +
				' \u2026';
			return;
		}
		const b = add(tr.cells[4], 'span', undefined, 'more');
		b.tabIndex = 0;
		b.setAttribute('role', 'button');
		let rows = null;
		const set = (open) => {
			b.setAttribute('aria-expanded', String(open));
			b.textContent = open ? '\u25b4 hide these ' + label : '\u2026 ' + label + ' \u2026';
			if (!rows)
				return;
			for (const r of rows)
				r.hidden = !open;
			const next = rows.length ? rows[rows.length - 1].nextElementSibling : null;
			if (!next || next.className !== 'file')
				return;
			let p = next.previousElementSibling;
			while (p && (p.hidden || p.className !== 'file'))
				p = p.previousElementSibling;
			next.hidden = open && p !== null && p.textContent === next.textContent;
		};
		const toggle = () => {
			if (!rows)
				rows = make(tr.sectionRowIndex + 1);
			set(b.getAttribute('aria-expanded') !== 'true');
		};
		b.addEventListener('click', toggle);
		b.addEventListener('keydown', (e) => {
			if (e.key === 'Enter' || e.key === ' ') {
				e.preventDefault();
				toggle();
			}
		});
		set(false);
	}

	// the instructions (as `pcprof annotate --asm` prints them), hidden
	// until their tab is chosen
	function instructions(a) {
		const holder = add(box, 'div', undefined, 'asm');
		holder.id = 'ann-asm';
		holder.hidden = true;
		if (!a.asm) {
			add(holder, 'p', a.asmwhy ? 'No instructions: ' + a.asmwhy + '.' : '', 'why');
			return;
		}
		const { body, row, counts } = listing(holder, 'asm', 'address', a);
		for (const r of a.asm) {
			if (r[0] === 0) { // [0, instructions, ["address text" or ["file:line", "text"]]]
				gap(row, r[1], 'instruction', 'pcprof annotate --asm shows them', r[2] &&
					((at) => r[2].map((c, i) => {
						if (typeof c !== 'string')
							return fileRow(body, c[0] + (c.length > 1 ? '  ' + c[1] : ''), at + i);
						const sp = c.indexOf(' ');
						const tr = row('cold', counts(0).concat([c.slice(0, sp) + ':',
							c.slice(sp + 1)]), at + i);
						tr.dataset.addr = c.slice(0, sp);
						return tr;
					})));
			} else if (r[0] === 1) {
				fileRow(body, r[1] + (r.length > 2 ? '  ' + r[2] : ''));
			} else {
				const tr = row(r[1] && r[1] * 10 >= a.s ? 'hot' : '', counts(r[1]).concat(
					[r[0] + ':', r[2]]));
				tr.dataset.addr = r[0];
			}
		}
		if (a.asmout)
			row('', counts(a.asmout).concat(['', '(at addresses outside the function\u2019s extent)']));
		if (a.asmend)
			row('', ['', '', '', '', '(the function\u2019s end is unknown: shown up to its last ' +
				'sampled instruction)']);
	}

	function pick(e) {
		if (e.type === 'keydown' && e.key !== 'Enter' && e.key !== ' ')
			return;
		const t = e.target.closest && e.target.closest('g.frame[data-fn], table.functions tr[data-fn]');
		if (!t)
			return;
		const fn = Number(t.getAttribute('data-fn'));
		if (fn >= 0 && D.fkind[fn] === 0)
			open(fn);
		else
			close();
	}
	document.addEventListener('click', pick);
	document.addEventListener('keydown', pick);
	document.addEventListener('keydown', (e) => {
		if (e.key === 'Escape' && shown >= 0)
			close();
	});
})();
