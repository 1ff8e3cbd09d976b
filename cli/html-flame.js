// html-flame.js - the flame graph of pcprof's HTML page (cli/out-html.c
// embeds this file as a string and writes the call tree as JSON into
// <script id="fg-data">; docs/formats.md "HTML" describes both).  Every
// name reaches the page through textContent or setAttribute, never as
// markup.  No network, no storage, no timers.
(function () {
	'use strict';
	const el = (id) => document.getElementById(id);
	const host = el('fg');
	const D = JSON.parse(el('fg-data').textContent);
	const SVG = 'http://www.w3.org/2000/svg';
	const ROW = 18;    // px per frame row
	const MINW = 0.5;  // frames narrower than this (px) are not drawn
	const GREY = '#868e96';

	// ---- the tree: {fn, total, self, kids, parent, depth} ----
	const root = { fn: -2, total: 0, self: 0, kids: [], parent: null, depth: 0 };
	const raw = D.nodes;
	const byIndex = []; // the nodes in data order (the timeline's cells name them)
	const stack = [[root, Infinity]];
	for (let i = 0; i + 3 < raw.length; i += 4) {
		const top = stack[stack.length - 1];
		const n = { fn: raw[i], total: raw[i + 1], self: raw[i + 2], kids: [], parent: top[0],
			depth: top[0].depth + 1 };
		top[0].kids.push(n);
		byIndex.push(n);
		top[1]--;
		if (n.parent === root)
			root.total += n.total;
		if (raw[i + 3] > 0)
			stack.push([n, raw[i + 3]]);
		while (stack.length > 1 && stack[stack.length - 1][1] === 0)
			stack.pop();
	}
	let rows = 0; // depth of the deepest frame drawn: the picture's height

	const name = (fn) => fn === -2 ? 'all' : fn < 0 ? '[other]' : D.fns[fn];
	const modOf = (fn) => fn < 0 ? -1 : D.fmod[fn];
	const modName = (fn) => modOf(fn) < 0 ? (fn === -2 ? '' : '[unknown]') : D.mods[modOf(fn)];
	const kind = (fn) => fn === -2 ? 3 : fn < 0 ? 2 : D.fkind[fn];
	const pct = (v) => D.total ? (100 * v / D.total).toFixed(2) : '0.00';

	// ---- state ----
	let zoom = root;
	let icicle = false;
	let byName = false;
	let matched = new Set();
	const byDiff = diffInit();
	let diffShown = byDiff;

	// colours: the module's (as in the rest of the page) or a hash of the name
	function hash(s) {
		let h = 2166136261;
		for (let i = 0; i < s.length; i++)
			h = Math.imul(h ^ s.charCodeAt(i), 16777619);
		return h >>> 0;
	}
	function colour(n) {
		if (diffShown)
			return diffColour(n);
		const k = kind(n.fn);
		if (k !== 0)
			return GREY;
		if (byName) {
			const h = hash(name(n.fn));
			return 'hsl(' + (h % 360) + ',62%,' + (58 + (h >>> 9) % 14) + '%)';
		}
		const m = modOf(n.fn);
		return m >= 0 && D.mcol[m] ? D.mcol[m] : GREY;
	}

	// ---- drawing ----
	const tip = el('fg-tip');
	let svg = null;
	const shown = new Map(); // <g> -> node

	function frame(n, x, w, cls) {
		const g = document.createElementNS(SVG, 'g');
		const k = kind(n.fn);
		g.setAttribute('class', 'frame' + (k === 1 ? ' marker' : k === 2 ? ' other' : '') +
			(k === 3 ? ' root' : '') + (matched.has(n) ? ' match' : '') + cls);
		g.setAttribute('tabindex', '0');
		g.setAttribute('role', 'button');
		g.setAttribute('data-name', name(n.fn));
		g.setAttribute('data-depth', String(n.depth));
		g.setAttribute('data-fn', String(n.fn)); // for the source view (html-annotate.js)
		g.setAttribute('aria-label', name(n.fn) + ' ' + modName(n.fn) + ' ' + pct(n.total) + '%');
		const y = icicle ? n.depth * ROW : (rows - n.depth) * ROW;
		const r = document.createElementNS(SVG, 'rect');
		r.setAttribute('x', x.toFixed(2));
		r.setAttribute('y', String(y));
		r.setAttribute('width', Math.max(w - 0.5, 0.1).toFixed(2));
		r.setAttribute('height', String(ROW - 1));
		r.setAttribute('fill', colour(n));
		if (!byName && !diffShown && kind(n.fn) === 0) // neighbours of one module apart
			r.setAttribute('fill-opacity', (0.72 + (hash(name(n.fn)) % 29) / 100).toFixed(2));
		g.appendChild(r);
		const chars = Math.floor((w - 6) / 6.6);
		if (chars >= 3) {
			const t = document.createElementNS(SVG, 'text');
			t.setAttribute('x', (x + 3).toFixed(2));
			t.setAttribute('y', String(y + ROW - 5));
			const s = name(n.fn);
			t.textContent = s.length <= chars ? s : s.slice(0, chars - 1) + '\u2026';
			g.appendChild(t);
		}
		svg.appendChild(g);
		shown.set(g, n);
	}

	// No function here recurses down the tree: it is as deep as the
	// deepest recorded stack, and 100,000 frames overflowed the script's
	// stack.  Walks keep their path in an array instead.
	function draw() {
		const W = Math.max(host.clientWidth, 200);
		rows = zoom.depth;
		for (const todo = [zoom]; todo.length;) {
			const n = todo.pop();
			if (n.depth > rows)
				rows = n.depth;
			for (const k of n.kids)
				if (W * k.total / zoom.total >= MINW)
					todo.push(k);
		}
		shown.clear();
		svg = document.createElementNS(SVG, 'svg');
		svg.setAttribute('class', 'flamegraph');
		svg.setAttribute('width', String(W));
		svg.setAttribute('height', String((rows + 1) * ROW));
		svg.setAttribute('role', 'img');
		svg.setAttribute('aria-label', icicle ? 'icicle graph' : 'flame graph');
		for (let a = zoom.parent; a; a = a.parent)
			frame(a, 0, W, ' above');
		// in preorder, children left to right
		for (const todo = [[zoom, 0, W]]; todo.length;) {
			const [n, x, w] = todo.pop();
			frame(n, x, w, '');
			const put = [];
			let cx = x;
			for (const k of n.kids) {
				const kw = w * k.total / n.total;
				if (kw >= MINW)
					put.push([k, cx, kw]);
				cx += kw;
			}
			while (put.length)
				todo.push(put.pop());
		}
		host.replaceChildren(svg);
		crumbs();
	}

	function crumbs() {
		const nav = el('fg-crumbs');
		const path = [];
		for (let a = zoom; a; a = a.parent)
			path.unshift(a);
		nav.replaceChildren();
		path.forEach((a, i) => {
			if (i)
				nav.appendChild(document.createTextNode(' \u203a '));
			const b = document.createElement('button');
			b.type = 'button';
			b.textContent = name(a.fn);
			b.addEventListener('click', () => zoomTo(a));
			nav.appendChild(b);
		});
	}

	function zoomTo(n) {
		zoom = n;
		draw();
	}

	// ---- search ----
	// Highlight the frames for which test(node) holds; print their share
	// (a frame under a highlighted one counted once).
	function mark(test, what) {
		matched = new Set();
		let share = 0;
		for (const todo = [[root, false]]; todo.length;) {
			const [n, under] = todo.pop();
			const hit = n !== root && test(n);
			if (hit) {
				matched.add(n);
				if (!under)
					share += n.total;
			}
			for (const k of n.kids)
				todo.push([k, under || hit]);
		}
		el('fg-match').textContent = what + pct(share) + '% (' + matched.size + ' frames)';
		draw();
	}
	function search(q) {
		if (!q) {
			matched = new Set();
			el('fg-match').textContent = '';
			draw();
			return;
		}
		let test;
		try {
			const re = new RegExp(q);
			test = (s) => re.test(s);
		} catch (e) {
			test = (s) => s.indexOf(q) >= 0;
		}
		mark((n) => test(name(n.fn)), 'matched ');
	}

	// ---- callers and callees of one function, over all its frames ----
	// A row counts each sample once however often its edge recurs in the
	// stack, as `pcprof report --callers` does.
	function calls(fn) {
		const box = el('fg-calls');
		if (fn < 0) {
			box.hidden = true;
			return;
		}
		const callers = new Map(), callees = new Map(), on = new Map();
		let total = 0, self = 0, inside = 0;
		const add = (m, k, v) => m.set(k, (m.get(k) || 0) + v);
		// the path from the root: [node, next child, its keys]
		const path = [];
		const enter = (n) => {
			const keys = [];
			if (n !== root) {
				if (n.fn === fn) {
					const c = n.parent === root ? -3 : n.parent.fn;
					keys.push('r' + c);
					if (!on.get('r' + c))
						add(callers, c, n.total);
					if (!inside)
						total += n.total;
					self += n.self;
				}
				if (n.parent !== root && n.parent.fn === fn) {
					keys.push('e' + n.fn);
					if (!on.get('e' + n.fn))
						add(callees, n.fn, n.total);
				}
			}
			for (const k of keys)
				on.set(k, (on.get(k) || 0) + 1);
			if (n.fn === fn)
				inside++;
			path.push([n, 0, keys]);
		};
		for (enter(root); path.length;) {
			const top = path[path.length - 1];
			const n = top[0];
			if (top[1] < n.kids.length) {
				enter(n.kids[top[1]++]);
				continue;
			}
			path.pop();
			if (n.fn === fn)
				inside--;
			for (const k of top[2])
				on.set(k, on.get(k) - 1);
		}
		if (self)
			callees.set(-4, self);
		box.replaceChildren();
		const h = document.createElement('h3');
		h.textContent = name(fn) + ' (' + modName(fn) + '): total ' + pct(total) + '%, self ' +
			pct(self) + '%';
		box.appendChild(h);
		for (const [title, m, cls] of [['callers', callers, 'callers'], ['callees', callees, 'callees']]) {
			const t = document.createElement('table');
			t.className = cls;
			const head = t.createTHead().insertRow();
			for (const c of ['total%', 'samples', title === 'callers' ? 'caller' : 'callee']) {
				const th = document.createElement('th');
				th.textContent = c;
				head.appendChild(th);
			}
			const body = t.createTBody();
			const label = (k) => k === -3 ? '[root]' : k === -4 ? '[self]' : name(k);
			const rows = [...m.entries()].map(([k, v]) => [label(k), v])
				.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
			for (const [k, v] of rows) {
				const tr = body.insertRow();
				tr.insertCell().textContent = pct(v);
				tr.insertCell().textContent = String(v);
				tr.insertCell().textContent = k;
				tr.cells[0].className = tr.cells[1].className = 'n';
				tr.cells[2].className = 'fn';
			}
			if (!rows.length)
				body.insertRow().insertCell().textContent = 'none';
			const cap = t.createCaption();
			cap.textContent = title;
			box.appendChild(t);
		}
		box.hidden = false;
	}

	// ---- events ----
	function nodeOf(e) {
		const g = e.target.closest && e.target.closest('g.frame');
		return g ? shown.get(g) : null;
	}
	function pick(n) {
		zoomTo(n);
		calls(n.fn);
	}
	host.addEventListener('click', (e) => {
		const n = nodeOf(e);
		if (n)
			pick(n);
	});
	host.addEventListener('keydown', (e) => {
		const n = nodeOf(e);
		if (n && (e.key === 'Enter' || e.key === ' ')) {
			e.preventDefault();
			pick(n);
		}
	});
	function showTip(n, x, y) {
		tip.replaceChildren();
		const b = document.createElement('b');
		b.textContent = name(n.fn);
		tip.appendChild(b);
		const lines = [modName(n.fn), n.total + ' samples, total ' + pct(n.total) + '%',
			'self ' + n.self + ' samples, ' + pct(n.self) + '%'].concat(diffTip(n));
		for (const l of lines) {
			const d = document.createElement('div');
			d.textContent = l;
			tip.appendChild(d);
		}
		tip.hidden = false;
		tip.style.left = Math.min(x + 12, window.innerWidth - tip.offsetWidth - 8) + 'px';
		tip.style.top = (y + 14) + 'px';
	}
	host.addEventListener('mousemove', (e) => {
		const n = nodeOf(e);
		if (n)
			showTip(n, e.clientX, e.clientY);
		else
			tip.hidden = true;
	});
	host.addEventListener('mouseleave', () => { tip.hidden = true; });
	host.addEventListener('focusin', (e) => {
		const n = nodeOf(e);
		if (n) {
			const r = e.target.getBoundingClientRect();
			showTip(n, r.left, r.bottom - 14);
		}
	});
	host.addEventListener('focusout', () => { tip.hidden = true; });
	const mode = el('fg-mode');
	mode.addEventListener('click', () => {
		icicle = !icicle;
		mode.textContent = icicle ? 'flame' : 'icicle';
		mode.setAttribute('aria-pressed', String(icicle));
		draw();
	});
	el('fg-colour').addEventListener('change', (e) => {
		byName = e.target.value === 'name';
		diffShown = e.target.value === 'change';
		draw();
	});
	const box = el('fg-search');
	box.addEventListener('input', () => search(box.value));
	el('fg-reset').addEventListener('click', () => zoomTo(root));
	// a row of the function table: its frames highlighted, its callers
	// and callees shown
	function row(e) {
		const tr = e.target.closest && e.target.closest('table.functions tr[data-fn]');
		if (!tr || (e.type === 'keydown' && e.key !== 'Enter'))
			return;
		const fn = Number(tr.getAttribute('data-fn'));
		box.value = '';
		zoom = root;
		mark((n) => n.fn === fn, name(fn) + ': ');
		calls(fn);
		el('flame').scrollIntoView();
	}
	// (the table comes after this script: listen on the document)
	document.addEventListener('click', row);
	document.addEventListener('keydown', row);
	document.addEventListener('keydown', (e) => {
		if (e.key !== 'Escape')
			return;
		tip.hidden = true;
		if (box.value) {
			box.value = '';
			search('');
		}
		zoomTo(root);
	});
	// ---- a diff (pcprof diff --html): each frame's change since the base ----
	// D.delta holds per node, in the order of D.nodes, the change of its
	// total share (in % of all samples) and its standard error, null for
	// an [other] node; D.dmax the largest change beyond noise.  Returns
	// whether the page is a diff, and then colours by change from the start.
	function diffInit() {
		if (!Array.isArray(D.delta))
			return false;
		// the nodes in data order are the tree in preorder
		byIndex.forEach((k, i) => {
			k.delta = D.delta[2 * i];
			k.se = D.delta[2 * i + 1];
		});
		const sel = el('fg-colour');
		const o = document.createElement('option');
		o.value = 'change';
		o.textContent = 'by change';
		sel.insertBefore(o, sel.firstChild);
		sel.value = 'change';
		return true;
	}
	const NOISE = '#c8c8ce';
	function diffColour(n) {
		if (kind(n.fn) !== 0 || n.delta == null || Math.abs(n.delta) <= 3 * n.se)
			return kind(n.fn) === 0 ? NOISE : GREY;
		const t = Math.min(1, Math.abs(n.delta) / (D.dmax || 1));
		return 'hsl(' + (n.delta > 0 ? 0 : 215) + ',75%,' + (88 - 40 * t).toFixed(0) + '%)';
	}
	function diffTip(n) {
		if (!byDiff || n.delta == null)
			return [];
		return ['change ' + (n.delta >= 0 ? '+' : '') + n.delta.toFixed(2) + '% \u00b1 ' +
			n.se.toFixed(2) + (Math.abs(n.delta) > 3 * n.se ? '' : ' (within noise)')];
	}
	window.addEventListener('resize', draw);
	if (el('tl-data'))
		timeline(JSON.parse(el('tl-data').textContent));
	draw();

	// ---- the timeline above: each thread's CPU over time; a period
	// dragged across it (or typed) restricts the flame graph to the
	// samples of that period (the cells of tl-data) ----
	function timeline(T) {
		const wholeTotal = D.total;
		const orig = byIndex.map((n) => [n.self, n.total]);
		const box = el('tl'), info = el('tl-info');
		const LABEL = 170, H = 22; // px: names column, row height
		let svgT = null, sel = null, dragFrom = null;
		const W = () => Math.max(box.clientWidth, LABEL + 100) - LABEL;
		const slotAt = (x) => Math.min(T.n, Math.max(0, Math.round((x - LABEL) / W() * T.n)));
		const secs = (k) => T.t0 + k * T.slot;
		function drawRows() {
			svgT = document.createElementNS(SVG, 'svg');
			svgT.setAttribute('class', 'tl-rows');
			svgT.setAttribute('width', String(W() + LABEL));
			svgT.setAttribute('height', String(T.threads.length * H + 16));
			svgT.setAttribute('role', 'img');
			svgT.setAttribute('aria-label', 'CPU use per thread over time');
			const sw = W() / T.n;
			T.threads.forEach((th, r) => {
				const g = document.createElementNS(SVG, 'g');
				g.setAttribute('class', 'tl-thread');
				g.setAttribute('data-tid', String(th[1]));
				const t = document.createElementNS(SVG, 'text');
				t.setAttribute('x', '0');
				t.setAttribute('y', String(r * H + H - 7));
				t.textContent = th[0] ? th[0] + '/' + th[1] + ' ' + th[2] : th[2];
				g.appendChild(t);
				const full = th[3] * T.slot; // a whole CPU's samples per slot
				const cs = th[4]; // slot, samples, ...
				for (let i = 0; i + 1 < cs.length; i += 2) {
					const k = cs[i], c = cs[i + 1];
					const h = Math.max(1, Math.min(1, full > 0 ? c / full : 1) * (H - 3));
					const b = document.createElementNS(SVG, 'rect');
					b.setAttribute('class', 'bar');
					b.setAttribute('x', (LABEL + k * sw).toFixed(2));
					b.setAttribute('y', (r * H + H - 1 - h).toFixed(2));
					b.setAttribute('width', Math.max(sw - 0.3, 0.5).toFixed(2));
					b.setAttribute('height', h.toFixed(2));
					g.appendChild(b);
				}
				svgT.appendChild(g);
			});
			const axis = document.createElementNS(SVG, 'text');
			axis.setAttribute('x', String(LABEL));
			axis.setAttribute('y', String(T.threads.length * H + 12));
			axis.textContent = secs(0).toFixed(2) + ' s \u2026 ' + secs(T.n).toFixed(2) + ' s';
			svgT.appendChild(axis);
			if (sel) {
				const r = document.createElementNS(SVG, 'rect');
				r.setAttribute('class', 'sel');
				r.setAttribute('x', (LABEL + sel[0] * sw).toFixed(2));
				r.setAttribute('y', '0');
				r.setAttribute('width', ((sel[1] - sel[0]) * sw).toFixed(2));
				r.setAttribute('height', String(T.threads.length * H));
				svgT.appendChild(r);
			}
			box.replaceChildren(svgT);
		}
		// slots [a, b) only, or everything (a null)
		function restrict(a, b) {
			sel = a === null ? null : [a, b];
			if (a === null) {
				byIndex.forEach((n, i) => { n.self = orig[i][0]; n.total = orig[i][1]; });
				root.total = root.kids.reduce((t, k) => t + k.total, 0);
				D.total = wholeTotal;
				info.textContent = '';
			} else {
				byIndex.forEach((n) => { n.self = 0; });
				const c = T.cells;
				for (let i = 0; i + 2 < c.length; i += 3)
					if (c[i + 1] >= a && c[i + 1] < b && byIndex[c[i]])
						byIndex[c[i]].self += c[i + 2];
				// the nodes in data order: each after its parent
				byIndex.forEach((n) => { n.total = n.self; });
				root.total = 0;
				for (let i = byIndex.length; i-- > 0;)
					byIndex[i].parent.total += byIndex[i].total;
				D.total = root.total;
				info.textContent = secs(a).toFixed(2) + '\u2013' + secs(b).toFixed(2) + ' s: ' +
					root.total + ' samples' + (T.untimed ? ' (' + T.untimed +
					' without a time left out)' : '');
				el('tl-from').value = secs(a).toFixed(2);
				el('tl-to').value = secs(b).toFixed(2);
			}
			zoom = root;
			drawRows();
			draw();
		}
		box.addEventListener('pointerdown', (e) => {
			dragFrom = slotAt(e.clientX - box.getBoundingClientRect().left);
			try {
				box.setPointerCapture(e.pointerId);
			} catch (err) {
				// a pointer the page did not see go down: drag without capture
			}
		});
		box.addEventListener('pointermove', (e) => {
			if (dragFrom === null)
				return;
			const k = slotAt(e.clientX - box.getBoundingClientRect().left);
			sel = [Math.min(dragFrom, k), Math.max(dragFrom, k)];
			drawRows();
		});
		box.addEventListener('pointerup', (e) => {
			if (dragFrom === null)
				return;
			const k = slotAt(e.clientX - box.getBoundingClientRect().left);
			const a = Math.min(dragFrom, k), b = Math.max(dragFrom, k);
			dragFrom = null;
			if (b > a)
				restrict(a, b);
			else
				restrict(null);
		});
		el('tl-apply').addEventListener('click', () => {
			const f = parseFloat(el('tl-from').value), t = parseFloat(el('tl-to').value);
			const a = Math.max(0, Math.round(((isNaN(f) ? secs(0) : f) - T.t0) / T.slot));
			const b = Math.min(T.n, Math.round(((isNaN(t) ? secs(T.n) : t) - T.t0) / T.slot));
			if (b > a)
				restrict(a, b);
		});
		el('tl-clear').addEventListener('click', () => restrict(null));
		window.addEventListener('resize', drawRows);
		drawRows();
	}
})();
