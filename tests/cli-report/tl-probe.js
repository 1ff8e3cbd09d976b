// tl-probe.js - appended (in a <script>) to a copy of an exported page by
// t-export-html-timeline.sh: drives the timeline above the flame graph in
// chromium and adds what it finds to the DOM as lines, for --dump-dom:
//   tl rows N                       thread rows drawn
//   tl row R NAME BARS              row R: its label, bars drawn
//   tl STEP INFO FRAMES             after a step: the info line and the
//                                   flame graph's frames "name:width" of
//                                   the frames at depth 1, widest first
// Steps, from the URL fragment ('&'-separated): drag=FROM-TO (seconds:
// pointer down at FROM, moved, up at TO over the rows), type=FROM-TO (the
// period fields and the show button), clear (the whole-run button).
// Every NAME and INFO is encodeURIComponent'ed.
(function () {
	const out = [];
	const enc = encodeURIComponent;
	const T = JSON.parse(document.getElementById('tl-data').textContent);
	const rows = [...document.querySelectorAll('#tl g.tl-thread')];
	out.push('tl rows ' + rows.length);
	rows.forEach((g, r) => out.push('tl row ' + r + ' ' + enc(g.querySelector('text').textContent) +
		' ' + g.querySelectorAll('rect.bar').length));
	const svg = () => document.querySelector('#tl svg');
	// the page's own geometry: 170 px of names, then T.n slots
	const xOf = (t) => {
		const r = svg().getBoundingClientRect();
		return r.left + 170 + (t - T.t0) / T.slot / T.n * (r.width - 170);
	};
	const frames = () => [...document.querySelectorAll('svg.flamegraph g.frame')]
		.filter((g) => g.dataset.depth === '1')
		.map((g) => [g.dataset.name, g.querySelector('rect').getBoundingClientRect().width])
		.sort((a, b) => b[1] - a[1]).map((f) => enc(f[0]) + ':' + f[1].toFixed(0));
	const report = (i) => out.push('tl ' + i + ' ' +
		enc(document.getElementById('tl-info').textContent || '-') + ' ' + frames().join(' '));
	const pointer = (type, x) => {
		const r = svg().getBoundingClientRect();
		document.getElementById('tl').dispatchEvent(new PointerEvent(type, {
			clientX: x, clientY: r.top + 5, bubbles: true, pointerId: 1 }));
	};
	report('start');
	location.hash.slice(1).split('&').filter((s) => s).forEach((st, i) => {
		const eq = st.indexOf('=');
		const op = eq < 0 ? st : st.slice(0, eq), arg = eq < 0 ? '' : st.slice(eq + 1);
		const [from, to] = arg.split('-').map(Number);
		if (op === 'drag') {
			pointer('pointerdown', xOf(from));
			pointer('pointermove', (xOf(from) + xOf(to)) / 2);
			pointer('pointerup', xOf(to));
		} else if (op === 'type') {
			document.getElementById('tl-from').value = String(from);
			document.getElementById('tl-to').value = String(to);
			document.getElementById('tl-apply').click();
		} else if (op === 'clear') {
			document.getElementById('tl-clear').click();
		} else {
			out.push('unknown-step ' + i + ' ' + enc(st));
		}
		report(i);
	});
	const pre = document.createElement('pre');
	pre.id = 'tl-probe';
	pre.textContent = '\n' + out.join('\n') + '\n';
	document.body.appendChild(pre);
})();
