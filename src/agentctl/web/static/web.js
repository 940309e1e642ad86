// agentctl web: renders /api/state. Every value from the state is agent-written: it enters the page
// only as text nodes (textContent / createTextNode), never as markup, and never as a URL.
'use strict';
(function () {
  const SVG = 'http://www.w3.org/2000/svg';
  const MIN_BAR = 6; // px: the narrowest and lowest bar the timeline draws
  // Control characters, bidi controls, invisible formatting and lone surrogates: shown as ⟨U+XXXX⟩.
  const LINE_RX = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|[\ud800-\udfff]/u;
  const BLOCK_RX = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]|[\ud800-\udfff]/u;
  const $ = (id) => document.getElementById(id);
  let version = null;
  let state = null;
  let filesQuery = '';
  let historyQuery = '';
  let openTask = null;
  let chartData = null;

  function code(c) { return '⟨U+' + c.codePointAt(0).toString(16).toUpperCase().padStart(4, '0') + '⟩'; }

  // The value as nodes: plain runs as text, each special character as a marked ⟨U+XXXX⟩.
  function text(value, block) {
    const s = value === null || value === undefined ? '' : String(value);
    const frag = document.createDocumentFragment();
    const rx = new RegExp((block ? BLOCK_RX : LINE_RX).source, 'gu');
    let last = 0;
    for (const m of s.matchAll(rx)) {
      if (m.index > last) frag.appendChild(document.createTextNode(s.slice(last, m.index)));
      const mark = document.createElement('span');
      mark.className = 'esc';
      mark.textContent = code(m[0]);
      frag.appendChild(mark);
      last = m.index + m[0].length;
    }
    if (last < s.length) frag.appendChild(document.createTextNode(s.slice(last)));
    return frag;
  }
  function plain(value) { // for attributes (title): the same escapes, as a string
    return String(value === null || value === undefined ? '' : value).replace(new RegExp(LINE_RX.source, 'gu'), code);
  }
  function set(node, value, block) { node.replaceChildren(text(value, block)); return node; }
  function el(tag, cls, value) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (value !== undefined) node.appendChild(text(value));
    return node;
  }
  function parts(tag, list) { // one element of runs of text, each [value, class]; a path or a time kept whole
    const node = el(tag);
    for (const p of list) if (p) node.appendChild(p[1] ? el('span', p[1], p[0]) : text(p[0]));
    return node;
  }
  function row(cells, cls) {
    const tr = el('tr', cls);
    for (const c of cells) tr.appendChild(el('td', c[1] || '', c[0]));
    return tr;
  }
  function fill(table, rows, empty) {
    const body = table.tBodies[0];
    body.replaceChildren(...rows);
    if (!rows.length && empty) {
      const td = el('td', 'empty', empty);
      td.colSpan = 9;
      body.appendChild(el('tr')).appendChild(td);
    }
  }
  // One time format on the whole page: 24-hour ISO in the state's own time zone (the offset of the
  // server's times, as every time the CLI prints), never the browser's locale (no "09:15:08 PM").
  let offsetMin = 0;
  function offsetOf(iso) {
    const m = /([+-])(\d\d):(\d\d)$/.exec(String(iso || ''));
    return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
  }
  function clock(t, part) { // 'YYYY-MM-DD HH:MM:SS'; part 'time' gives HH:MM:SS, 'short' MM-DD HH:MM
    if (t === null || t === undefined || !isFinite(t)) return '';
    const s = new Date((t + offsetMin * 60) * 1000).toISOString();
    if (part === 'time') return s.slice(11, 19);
    if (part === 'short') return s.slice(5, 10) + ' ' + s.slice(11, 16);
    return s.slice(0, 10) + ' ' + s.slice(11, 19);
  }
  function span(seconds) {
    if (seconds === null || seconds === undefined || !isFinite(seconds)) return '—';
    const s = Math.max(0, Math.round(seconds));
    const h = Math.floor(s / 3600), m = Math.floor(s % 3600 / 60);
    return h ? h + 'h ' + String(m).padStart(2, '0') + 'm' : m ? m + 'm ' + (s % 60) + 's' : s + 's';
  }
  function shortTime(iso) { return iso ? String(iso).replace('T', ' ').slice(0, 19) : ''; }
  function isoText(s) { // an ISO time inside a text, in the page's one format
    return String(s === null || s === undefined ? '' : s).replace(/(\d{4}-\d\d-\d\d)T(\d\d:\d\d:\d\d)[+-]\d\d:\d\d/g, '$1 $2');
  }

  // -- the timeline: edits as bars, verify runs as marks, compactions as vertical lines, claims by agent
  function svg(tag, attrs, title) {
    const node = document.createElementNS(SVG, tag);
    for (const k in attrs) node.setAttribute(k, String(attrs[k]));
    if (title !== undefined) {
      const t = document.createElementNS(SVG, 'title');
      t.textContent = plain(title);
      node.appendChild(t);
    }
    return node;
  }
  function timeline(box, tl) {
    box.replaceChildren();
    if (!tl || !tl.edits) { box.appendChild(el('p', 'empty', 'no files log yet')); return; }
    const agents = Object.keys(tl.claims || {}).sort();
    // Drawn at the box's own width, one SVG unit a pixel: its labels are 11 px at any screen width.
    const W = Math.max(280, Math.round(box.clientWidth || 1000));
    const left = agents.length ? Math.min(80, Math.round(W * 0.2)) : 34, right = 10, top = 22;
    const barH = W < 500 ? 80 : 110, lane = 16;
    const H = top + barH + 22 + agents.length * lane + 6;
    const root = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': 'timeline' });
    const span0 = tl.end - tl.start || 1;
    const x = (t) => left + (W - left - right) * (t - tl.start) / span0;
    // Bars at least MIN_BAR px wide (neighbours summed on a narrow screen) and tall: never hairlines.
    const per = Math.max(1, Math.ceil(MIN_BAR / ((W - left - right) / tl.edits.length)));
    const edits = [];
    for (let i = 0; i < tl.edits.length; i += per) edits.push(tl.edits.slice(i, i + per).reduce((a, b) => a + b, 0));
    const barSpan = tl.bar * per;
    const max = Math.max(1, ...edits);
    const bw = (W - left - right) / edits.length;
    root.appendChild(svg('line', { x1: left, y1: top + barH, x2: W - right, y2: top + barH, class: 'grid' }));
    root.appendChild(svg('text', { x: 2, y: top + 10, class: 'axis' }, undefined)).textContent = String(max);
    edits.forEach((n, i) => {
      if (!n) return;
      const h = Math.max(MIN_BAR, barH * n / max);
      const t0 = tl.start + i * barSpan;
      root.appendChild(svg('rect', { x: left + i * bw, y: top + barH - h, width: Math.max(MIN_BAR, bw - 1), height: h, class: 'edits' },
        n + ' edit' + (n === 1 ? '' : 's') + ' from ' + clock(t0)));
    });
    for (const r of tl.runs || []) {
      root.appendChild(svg('circle', { cx: x(r.t), cy: 10, r: 5, class: r.ok ? 'pass' : 'fail' },
        'verify run ' + r.run + ' ' + (r.ok ? 'passed' : 'failed') + ' at ' + clock(r.t) + (r.text ? ': ' + r.text : '')));
    }
    for (const t of tl.compactions || []) {
      root.appendChild(svg('line', { x1: x(t), y1: 2, x2: x(t), y2: H - 4, class: 'comp' }, 'compaction at ' + clock(t)));
    }
    agents.forEach((a, i) => {
      const y = top + barH + 22 + i * lane;
      root.appendChild(svg('text', { x: 2, y: y + 10, class: 'axis' })).textContent = plain(a).slice(0, Math.max(4, Math.floor(left / 7) - 1));
      for (const t of tl.claims[a]) {
        root.appendChild(svg('rect', { x: x(t) - 2, y: y, width: 4, height: lane - 4, class: 'claim' }, a + ' claimed at ' + clock(t)));
      }
    });
    const fmt = tl.end - tl.start < 86400 ? 'time' : 'short';
    const marks = W < 420 ? [[tl.start, 'start'], [tl.end, 'end']]
      : [[tl.start, 'start'], [(tl.start + tl.end) / 2, 'middle'], [tl.end, 'end']];
    for (const [t, anchor] of marks) {
      root.appendChild(svg('text', { x: x(t), y: top + barH + 15, class: 'axis', 'text-anchor': anchor })).textContent = clock(t, fmt);
    }
    box.appendChild(root);
  }

  // -- the progress chart: DONE and TOTAL over time, compactions, verify runs, the projected finish
  function steps(pts, x, y, k) { // a step line through the points' field k
    let d = '';
    pts.forEach((p, i) => { d += (i ? ' H' + x(p[0]).toFixed(1) + ' V' : 'M' + x(p[0]).toFixed(1) + ' ') + y(p[k]).toFixed(1); });
    return d;
  }
  function chart(box, c) {
    box.replaceChildren();
    const note = $('chart-note');
    if (!c || !c.task) { set(note, ''); box.appendChild(el('p', 'empty', 'no task running')); return; }
    const W = Math.max(280, Math.round(box.clientWidth || 1000));
    const left = 34, right = 12, top = 20, plotH = W < 500 ? 140 : 180;
    const H = top + plotH + 24;
    const elapsed = Math.max(60, c.now - c.start);
    const fin = c.finish ? c.finish.t : null;
    const t1 = fin !== null ? Math.min(Math.max(fin, c.now), c.now + 3 * elapsed) : c.now; // a far finish leaves the chart at its edge
    const span0 = Math.max(1, t1 - c.start);
    const x = (t) => left + (W - left - right) * (Math.min(t, t1) - c.start) / span0;
    const ymax = Math.max(1, c.total, ...c.points.map((p) => p[2]));
    const y = (v) => top + plotH - plotH * v / ymax;
    const root = svg('svg', { viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': 'progress over time' });
    root.appendChild(svg('line', { x1: left, y1: top + plotH, x2: W - right, y2: top + plotH, class: 'grid' }));
    root.appendChild(svg('line', { x1: left, y1: top, x2: W - right, y2: top, class: 'grid' }));
    root.appendChild(svg('text', { x: left - 4, y: top + 4, class: 'axis', 'text-anchor': 'end' })).textContent = String(ymax);
    root.appendChild(svg('text', { x: left - 4, y: top + plotH + 4, class: 'axis', 'text-anchor': 'end' })).textContent = '0';
    const pts = c.points;
    const last = pts[pts.length - 1];
    root.appendChild(svg('path', { d: steps(pts, x, y, 1) + ' V' + y(0) + ' H' + x(pts[0][0]) + ' Z', class: 'area' }));
    root.appendChild(svg('path', { d: steps(pts, x, y, 2), class: 'total' }, 'TOTAL ' + last[2]));
    root.appendChild(svg('path', { d: steps(pts, x, y, 1), class: 'done' }, 'DONE ' + last[1] + ' of ' + last[2]));
    if (fin !== null) {
      root.appendChild(svg('line', { x1: x(c.now), y1: y(c.done), x2: x(fin), y2: fin <= t1 ? y(c.total) : y(c.done + (c.total - c.done) * (t1 - c.now) / Math.max(1, fin - c.now)), class: 'proj' },
        'projected finish ' + clock(fin)));
    }
    for (const t of c.compactions || []) {
      root.appendChild(svg('line', { x1: x(t), y1: top - 4, x2: x(t), y2: top + plotH, class: 'comp' }, 'compaction at ' + clock(t)));
    }
    for (const r of c.runs || []) {
      root.appendChild(svg('circle', { cx: x(r.t), cy: 8, r: 5, class: r.ok ? 'pass' : 'fail' },
        'verify run ' + r.run + ' ' + (r.ok ? 'passed' : 'failed') + ' at ' + clock(r.t)));
    }
    const fmt = t1 - c.start < 86400 ? 'time' : 'short';
    const marks = [[c.start, 'start', clock(c.start, fmt)]];
    if (fin !== null) marks.push([t1, 'end', (fin > t1 ? '→ ' : 'finish ') + clock(t1, fmt)]);
    marks.splice(1, 0, [c.now, fin === null ? 'end' : 'middle', 'now ' + clock(c.now, fmt)]);
    const CH = 6.8; // px a character of the 11 px monospace axis labels takes
    const room = (m) => { const w = m[2].length * CH, at = x(m[0]); return m[1] === 'start' ? [at, at + w] : m[1] === 'end' ? [at - w, at] : [at - w / 2, at + w / 2]; };
    for (const m of marks) {  // a label that would run into another is left out (the start and the finish are kept)
      const [a, b] = room(m);
      if (m[0] === c.now && marks.some((o) => o !== m && room(o)[0] < b + 8 && room(o)[1] > a - 8)) continue;
      root.appendChild(svg('text', { x: x(m[0]), y: top + plotH + 16, class: 'axis', 'text-anchor': m[1] })).textContent = m[2];
    }
    box.appendChild(root);
    set(note, fin !== null ? 'projected finish ' + clock(fin) + ' (in ' + span(fin - c.now) + ' at ' +
      (c.finish.rate || 0).toFixed(1) + ' entries/hour)' + (fin > t1 ? ', past the chart\'s edge' : '') : c.note);
  }

  // -- sections ---------------------------------------------------------------------------------
  function fileRows(list, current) {
    return list.map((f) => {
      const tr = row([[f.path, 'path'], [f.op], [Object.entries(f.ops || { [f.op]: f.count }).map(([k, v]) => k + ' ' + v).join(', ')],
        [shortTime(f.first), 'time'], [shortTime(f.last), 'time']]);
      if (current) tr.addEventListener('click', () => { fileEntries(tr, f.path); showDiff(f.path); });
      return tr;
    });
  }
  async function fileEntries(tr, path) { // every entry of one path: its operations and times
    const next = tr.nextElementSibling;
    if (next && next.classList.contains('entries')) { next.remove(); return; }
    const d = await get('/api/file?path=' + encodeURIComponent(path));
    const td = el('td', 'mono', d.entries.map((e) => shortTime(e[0]) + ' ' + e[1]).join('   ·   ') || 'no entry');
    td.colSpan = 5;
    const extra = el('tr', 'entries');
    extra.appendChild(td);
    tr.after(extra);
  }
  let diffPath = null;
  async function showDiff(path) { // the file's git diff since the task started, as text
    diffPath = path;
    const panel = $('diff-panel');
    panel.hidden = false;
    panel.scrollIntoView({ block: 'nearest' });
    set($('diff-path'), path);
    set($('diff-note'), 'loading…');
    $('diff').replaceChildren();
    const r = await fetch('/api/diff?path=' + encodeURIComponent(path), { credentials: 'same-origin', cache: 'no-store' });
    const d = await r.json();
    if (diffPath !== path) return;
    if (!r.ok) { set($('diff-note'), d.error || ('error ' + r.status)); return; }
    set($('diff-note'), d.note || ('against ' + String(d.base || '').slice(0, 12)));
    const pre = $('diff');
    for (const line of String(d.diff || '').split('\n')) {
      const c = line[0];
      const cls = /^(diff |index |--- |\+\+\+ |new file|deleted file|old mode|new mode|similarity|Binary)/.test(line) ? 'meta'
        : c === '+' ? 'add' : c === '-' ? 'del' : c === '@' ? 'hunk' : line.startsWith('… cut here') ? 'meta' : '';
      pre.appendChild(el('span', cls, line));
      pre.appendChild(document.createTextNode('\n'));
    }
  }
  function runRows(list) {
    return list.slice().reverse().map((e) => row([[shortTime(e.time).slice(5), 'time'], [e.event], [e.run], [e.text, 'path']], e.event));
  }
  function tried(list, node) {
    node.replaceChildren(...(list || []).map((t) => el('li', '', t)));
    if (!node.children.length) node.appendChild(el('li', 'empty', 'none'));
  }
  function renderProgress(d) {
    const t = d.task, p = d.progress;
    set($('task-id'), t.STATE === 'IDLE' ? '(none running)' : t.TASK_ID);
    set($('state'), t.STATE); $('state').className = 'badge ' + t.STATE;
    set($('runlevel'), (d.runlevel && d.runlevel.name) || '');
    set($('desc'), t.DESC || '');
    $('bar-fill').style.width = p.percent.toFixed(1) + '%';
    set($('done-total'), p.done + '/' + p.total + (p.total ? '  (' + Math.floor(p.percent) + '%)' : ''));
    set($('next'), t.NEXT || (t.STATE === 'IDLE' ? '' : '(none)'));
    const last = d.last;
    $('last').replaceChildren(last ? parts('span', [[last.what + ' '], [last.detail || '', 'path'], [' — '],
      [shortTime(last.time), 'nowrap'], last.t ? [' (' + span(d.now - last.t) + ' ago)'] : null]) : text('nothing yet'));
    set($('rate'), p.rate === null ? '—' : p.rate.toFixed(1) + ' entries/hour' + (p.elapsed ? ' over ' + span(p.elapsed) : ''));
    set($('eta'), p.eta === null ? '—' : span(p.eta));
    set($('evidence'), (d.verify.evidence && d.verify.evidence.line) || '');
    const s = d.session || {};
    set($('compactions'), s.COMPACTIONS ? s.COMPACTIONS + ' (last ' + shortTime(s.LAST_COMPACTION) + ')' : '0');
    const cost = (d.context || []).slice(-1)[0];
    set($('state-cost'), cost ? cost.state_chars + ' characters (~' + cost.state_tokens + ' tokens) of the new window'
      + (cost.before ? '; in use before: ' + cost.before + (cost.after ? ', after: ' + cost.after : '') + ' tokens' : '') : '—');
    set($('notes'), t.NOTES || '');
  }
  function renderVerify(v) {
    set($('verify-state'), v.STATE || 'IDLE'); $('verify-state').className = 'badge ' + (v.STATE || 'IDLE');
    set($('verify-command'), v.STATE === 'FAILED' ? '`' + (v.COMMAND || '') + '` exit ' + (v.EXIT_CODE || '?') : (v.commands || []).join(' ; '));
    set($('verify-last'), shortTime(v.LAST_RUN) || 'never');
    set($('verify-pass'), shortTime(v.LAST_PASS) || 'never');
    set($('verify-attempts'), v.ATTEMPTS || '0');
    set($('verify-errors'), v.STATE === 'FAILED' ? (v.errors || []).join('\n') : '', true);
    const rep = $('repeat');
    rep.hidden = !(v.REPEAT || v.SAME_ERROR);
    set(rep, v.REPEAT ? 'REPEATED: this failure is identical to ' + v.REPEAT + ' — do not try that again'
      : v.SAME_ERROR ? 'SAME ERROR as ' + v.SAME_ERROR + ', though the files changed' : '');
    tried(v.tried, $('tried'));
    fill($('runs'), runRows(v.runs || []), 'no run in this task yet');
  }
  function renderRules(list) {
    const box = $('constraints');
    box.replaceChildren(...list.map((r) => {
      const d = el('div', 'rule');
      d.appendChild(el('span', 'badge ' + r.priority, r.priority));
      d.appendChild(text(r.text));
      return d;
    }));
    if (!list.length) box.appendChild(el('p', 'empty', 'no constraints'));
  }
  function renderInterfaces(list) {
    const box = $('interfaces');
    box.replaceChildren(...list.map((i) => {
      const d = el('div', 'rule');
      const pending = i.old_uses > 0;
      const badge = d.appendChild(el('span', 'badge ' + (pending ? 'PENDING' : 'MIGRATED'), pending ? 'PENDING ' + i.old_uses : 'MIGRATED'));
      badge.title = plain(i.state || '');
      d.appendChild(text(i.name + ': ' + i.old + ' -> ' + i.new + (pending ? ' (' + i.state.replace(/^PENDING: /, '') + ')' : '')));
      return d;
    }));
    if (!list.length) box.appendChild(el('p', 'empty', 'no interface change recorded (old uses left: see the resume block)'));
  }
  function renderPlan(p) {
    $('plan-card').hidden = !p.tasks.length;
    set($('plan-head'), p.head || '');
    fill($('plan'), p.tasks.map((t) => {
      const tr = row([[t.id, 'path'], [t.state + (t.agent ? ' (' + t.agent + ')' : ''), 'nowrap'], [t.after.join(', ')],
        [t.waits_for.join(', ')], [t.desc]]);
      tr.className = 'plan-' + t.state + (t.id === p.running ? ' running' : '');
      if (t.id === p.running) tr.title = 'running in this copy';
      return tr;
    }), 'no plan');
  }
  function renderClaims(list, now) {
    fill($('claims'), list.map((c) => row([[c.path, 'path'], [c.agent, 'nowrap'], [shortTime(c.until), 'time'], [span(c.expires - now), 'nowrap']])), 'no live claim');
  }
  function renderViolations(list, vanished) {
    const box = $('violations');
    box.hidden = !list.length && !vanished.length;
    box.replaceChildren(...vanished.map((v) => el('div', '', isoText(v.line))), ...list.map((v) => parts('div', [['P0 VIOLATION: '], [v.path || '', 'path'], [' broke ' + (v.rule || '')],
      v.time ? [' at '] : null, v.time ? [shortTime(v.time), 'nowrap'] : null,
      v.restore ? [' — '] : null, v.restore ? [v.restore, 'path'] : null])));
  }
  function renderFiles(res) {
    fill($('files'), fileRows(res.shown, true), filesQuery ? 'no touched path matches' : 'no file touched yet');
    const f = state.files;
    set($('files-count'), filesQuery ? res.count + ' of ' + f.count + ' paths match'
      : f.count + ' paths, ' + f.lines + ' log entries' + (f.count > res.shown.length ? ' (newest ' + res.shown.length + ' shown; search for the rest)' : ''));
  }
  function historyRows(list) {
    return list.map((h) => {
      const t = h.task;
      const tr = row([[t.ID, 'path'], [shortTime(t.ENDED), 'time'], [t.DURATION, 'nowrap'], [t.ENTRIES], [t.FILES],
        [isoText(t.LAST_VERIFY) + (t.FORCED === 'forced' ? ' FORCED' : '')], [t.DESC + (h.matched && h.matched.length ? '  — matched ' + h.matched.join('; ') : '')]]);
      tr.addEventListener('click', () => showTask(t.ID));
      return tr;
    });
  }
  function renderHistory(res) {
    fill($('history'), historyRows(res.tasks), historyQuery ? 'no archived task matches' : 'no archived task yet');
    set($('history-count'), historyQuery ? res.tasks.length + ' match' : (state.history.count + (state.history.more ? '+' : '') + ' archived'));
  }

  function render(d) {
    state = d;
    offsetMin = offsetOf(d.generated);
    set($('project'), d.project);
    set($('generated'), shortTime(d.generated));
    const errs = $('errors');
    errs.hidden = !d.errors.length;
    errs.replaceChildren(...d.errors.map((e) => el('div', '', e)));
    renderViolations(d.violations || [], d.vanished || []);
    renderProgress(d);
    timeline($('timeline'), d.timeline);
    renderVerify(d.verify || {});
    renderRules(d.constraints);
    renderInterfaces(d.interfaces || []);
    renderPlan(d.plan || { tasks: [], head: '' });
    renderClaims(d.claims, d.now);
    set($('resume'), d.resume, true);
    set($('brief'), d.brief, true);
    if (filesQuery) searchFiles(); else renderFiles(d.files);
    if (historyQuery) searchHistory(); else renderHistory({ tasks: d.history.tasks.map((t) => ({ task: t, matched: [] })) });
    const p = d.progress, v = d.verify || {};
    const attention = (d.violations || []).length || (d.vanished || []).length || v.STATE === 'FAILED' || v.REPEAT || v.SAME_ERROR;
    document.title = (attention ? '⚠ ' : '') + (d.task.STATE === 'IDLE' ? '' : p.done + '/' + p.total + ' · ') + 'agentctl';
    document.body.dataset.version = d.version;
  }

  async function get(url) {
    const r = await fetch(url, { credentials: 'same-origin', cache: 'no-store' });
    if (!r.ok) throw new Error(url + ': ' + r.status);
    return r.json();
  }
  function live(on, why) {
    const p = $('live');
    p.className = 'pill ' + (on ? 'on' : 'off');
    p.textContent = on ? 'live' : why;
  }
  async function poll() {
    try {
      const v = await get('/api/version');
      if (v.version !== version) {
        const d = await get('/api/state');
        version = v.version;
        render(d);
        try { // the chart's own failure (a damaged file) is said in its heading; the rest stays live
          chartData = await get('/api/chart');
          chart($('chart'), chartData);
        } catch (e) {
          set($('chart-note'), 'chart unavailable: ' + e.message);
        }
      }
      live(true);
    } catch (e) {
      live(false, 'offline');
    }
    setTimeout(poll, 400);
  }
  async function searchFiles() {
    const q = filesQuery;
    const res = await get('/api/files?q=' + encodeURIComponent(q));
    if (q === filesQuery) renderFiles(res);
  }
  async function searchHistory() {
    const q = historyQuery;
    const res = await get('/api/history?q=' + encodeURIComponent(q));
    if (q === historyQuery) renderHistory(res);
  }
  async function showTask(id) {
    openTask = id;
    const d = await get('/api/task?id=' + encodeURIComponent(id));
    if (openTask !== id) return;
    const t = d.task, idx = d.index;
    $('detail').hidden = false;
    set($('detail-id'), id);
    const done = Number(t.DONE || 0), total = Number(t.TOTAL || 0);
    $('detail-fill').style.width = (total ? 100 * done / total : 0).toFixed(1) + '%';
    set($('detail-summary'), done + '/' + total + ' done in ' + (t.DURATION || '?') + ', ended ' + shortTime(t.ENDED) + ', verify ' +
      (idx.LAST_VERIFY || '') + ', ' + d.runs.passed + ' passed / ' + d.runs.failed + ' failed runs, ' + d.runs.repeated + ' repeated' +
      (idx.FORCED === 'forced' ? ', stopped with --force' : '') + ': ' + (t.DESC || ''));
    timeline($('detail-timeline'), d.timeline);
    tried(d.tried, $('detail-tried'));
    fill($('detail-runs'), runRows(d.runs_list || []), 'no run recorded');
    fill($('detail-files'), fileRows(d.files, false), 'no file recorded');
    fill($('detail-fields'), Object.entries(t).map(([k, v]) => row([[k], [v, 'path']])));
  }
  function debounce(fn) { let h = null; return () => { clearTimeout(h); h = setTimeout(fn, 150); }; }

  document.addEventListener('DOMContentLoaded', () => {
    $('files-q').addEventListener('input', debounce(() => { filesQuery = $('files-q').value; if (state) { if (filesQuery) searchFiles(); else renderFiles(state.files); } }));
    $('history-q').addEventListener('input', debounce(() => { historyQuery = $('history-q').value; if (state) searchHistory(); }));
    $('detail-close').addEventListener('click', () => { openTask = null; $('detail').hidden = true; });
    let width = window.innerWidth;
    window.addEventListener('resize', debounce(() => { // the timeline is drawn at its box's width
      if (!state || window.innerWidth === width) return;
      width = window.innerWidth;
      timeline($('timeline'), state.timeline);
      chart($('chart'), chartData);
    }));
    $('diff-close').addEventListener('click', () => { diffPath = null; $('diff-panel').hidden = true; });
    poll();
  });
})();
