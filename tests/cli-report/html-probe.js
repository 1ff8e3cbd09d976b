// html-probe.js - appended (in a <script>) to a copy of the exported page by
// t-export-html.sh: measures what chromium actually laid out and adds the
// results to the DOM as "probe KEY VALUE" lines, for --dump-dom.
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
	const pre = document.createElement('pre');
	pre.id = 'probe';
	pre.textContent = '\n' + out.join('\n') + '\n';
	document.body.appendChild(pre);
})();
