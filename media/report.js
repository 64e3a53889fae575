// The session report page. Runs under a strict CSP (no inline code, no remote
// anything): it receives the report as JSON from the extension and builds the
// DOM with textContent only, so nothing from a transcript is ever parsed as HTML.
// @ts-check
(function () {
  const vscode = acquireVsCodeApi();
  const root = /** @type {HTMLElement} */ (document.getElementById('report'));
  const SVG = 'http://www.w3.org/2000/svg';

  /** @param {string} tag @param {string=} cls @param {string=} text */
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  /** @param {string} tag @param {Record<string, string | number>} attrs */
  function svg(tag, attrs) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    return e;
  }

  function section(title) {
    const s = el('section');
    s.appendChild(el('h2', undefined, title));
    return s;
  }

  function summary(data) {
    const dl = el('dl', 'summary');
    for (const item of data.summary) {
      const div = el('div');
      div.appendChild(el('dt', undefined, item.label));
      div.appendChild(el('dd', undefined, item.value));
      // Words a figure needs (why it is missing) in small type under it, not in the figure's large bold.
      if (item.note) div.appendChild(el('dd', 'note', item.note));
      dl.appendChild(div);
    }
    return dl;
  }

  function histogram(bins) {
    const s = section('Lag histogram');
    const total = bins.reduce((n, b) => n + b.count, 0);
    if (total === 0) {
      s.appendChild(el('p', 'muted', 'No lag measured yet: lags need the hook installed.'));
      return s;
    }
    const W = 640, H = 180, pad = 24, gap = 4;
    const max = Math.max(...bins.map((b) => b.count));
    const bw = (W - gap * (bins.length - 1)) / bins.length;
    const chart = svg('svg', { viewBox: `0 0 ${W} ${H + pad * 2}`, class: 'chart', role: 'img', 'aria-label': 'Lag histogram' });
    bins.forEach((b, i) => {
      const h = max === 0 ? 0 : Math.round((b.count / max) * H);
      const x = i * (bw + gap);
      const bar = svg('rect', { x, y: pad + H - h, width: bw, height: Math.max(h, b.count > 0 ? 1 : 0), class: b.from >= 2000 ? 'bar slow' : 'bar' });
      const tip = svg('title', {});
      tip.textContent = `${b.label}: ${b.count}`;
      bar.appendChild(tip);
      chart.appendChild(bar);
      const count = svg('text', { x: x + bw / 2, y: pad + H - h - 4, class: 'count' });
      count.textContent = b.count > 0 ? String(b.count) : '';
      chart.appendChild(count);
      const label = svg('text', { x: x + bw / 2, y: pad + H + 16, class: 'axis' });
      label.textContent = b.label;
      chart.appendChild(label);
    });
    s.appendChild(chart);
    return s;
  }

  function timeline(batches) {
    const s = section('Write batches');
    if (batches.length === 0) {
      s.appendChild(el('p', 'muted', 'No batch observed since the extension started.'));
      return s;
    }
    const W = 640, H = 80, pad = 16;
    const t0 = batches[0].observed_at;
    const t1 = batches[batches.length - 1].observed_at;
    const span = Math.max(1, t1 - t0);
    const maxLines = Math.max(...batches.map((b) => b.last_line - b.first_line + 1));
    const chart = svg('svg', { viewBox: `0 0 ${W} ${H + pad * 2}`, class: 'chart', role: 'img', 'aria-label': 'Write batches over time' });
    chart.appendChild(svg('line', { x1: 0, x2: W, y1: pad + H, y2: pad + H, class: 'baseline' }));
    for (const b of batches) {
      const lines = b.last_line - b.first_line + 1;
      const h = Math.max(2, Math.round((lines / maxLines) * H));
      const x = ((b.observed_at - t0) / span) * (W - 3);
      const bar = svg('rect', { x, y: pad + H - h, width: 3, height: h, class: 'batch' });
      const tip = svg('title', {});
      tip.textContent = `${new Date(b.observed_at).toISOString().slice(11, 23)} · lines ${b.first_line}–${b.last_line} · ${b.bytes} bytes`;
      bar.appendChild(tip);
      chart.appendChild(bar);
    }
    const from = svg('text', { x: 0, y: pad + H + 14, class: 'axis start' });
    from.textContent = new Date(t0).toISOString().slice(11, 19);
    const to = svg('text', { x: W, y: pad + H + 14, class: 'axis end' });
    to.textContent = new Date(t1).toISOString().slice(11, 19);
    chart.append(from, to);
    s.appendChild(chart);
    s.appendChild(el('p', 'muted', `${batches.length} batches; bar height = lines in the batch.`));
    return s;
  }

  /** Lags of the records read live, by type, beside the calls' (born: the mod's session.append, else the record's timestamp). */
  function recordLags(rows) {
    const s = section('Record lags (born → on disk)');
    if (rows.length === 0) {
      s.appendChild(el('p', 'muted', 'No record read live yet.'));
      return s;
    }
    const t = el('table');
    const head = el('tr');
    for (const h of ['Record type', 'Records', 'Born by', 'p50', 'p95', 'Max']) head.appendChild(el('th', undefined, h));
    t.appendChild(el('thead')).appendChild(head);
    const body = el('tbody');
    for (const r of rows) {
      const tr = el('tr');
      tr.appendChild(el('td', undefined, r.type));
      tr.appendChild(el('td', 'num', r.count));
      tr.appendChild(el('td', undefined, r.born_by));
      for (const v of [r.p50, r.p95, r.max]) tr.appendChild(el('td', 'num', v));
      body.appendChild(tr);
    }
    t.appendChild(body);
    s.appendChild(t);
    return s;
  }

  function table(rows) {
    const s = section(`Calls (${rows.length})`);
    if (rows.length === 0) {
      s.appendChild(el('p', 'muted', 'No call seen yet.'));
      return s;
    }
    const t = el('table');
    const head = el('tr');
    for (const h of ['Tool', 'Line', 'Record timestamp', 'Hook fired', 'On disk', 'Lag', 'Hooks', 'Shape', 'Wait outcome']) head.appendChild(el('th', undefined, h));
    t.appendChild(el('thead')).appendChild(head);
    const body = el('tbody');
    for (const r of rows) {
      const tr = el('tr', r.held ? 'held' : undefined);
      tr.title = r.tool_use_id;
      tr.appendChild(el('td', undefined, r.tool));
      const lineCell = el('td', 'num');
      if (r.held) lineCell.textContent = 'held';
      else {
        const a = el('a', undefined, r.line);
        a.setAttribute('href', '#');
        a.addEventListener('click', (ev) => {
          ev.preventDefault();
          vscode.postMessage({ type: 'openLine', line: Number(r.line), tool_use_id: r.tool_use_id });
        });
        lineCell.appendChild(a);
        // A subagent's call: its line is in the subagent's own transcript.
        if (r.file) lineCell.appendChild(el('span', 'muted', ` ${r.file}`));
      }
      tr.appendChild(lineCell);
      for (const v of [r.record_at, r.fired_at, r.on_disk]) tr.appendChild(el('td', 'mono', v));
      tr.appendChild(el('td', r.lag_ms !== null && r.lag_ms >= 2000 ? 'num slow' : 'num', r.lag));
      tr.appendChild(el('td', r.hooks.startsWith('denied') ? 'behind' : undefined, r.hooks));
      tr.appendChild(el('td', undefined, r.shape));
      tr.appendChild(el('td', r.wait.startsWith('behind') ? 'behind' : undefined, r.wait));
      body.appendChild(tr);
    }
    t.appendChild(body);
    s.appendChild(t);
    return s;
  }

  /** One row per wrapped hook's run (transcript-lag complete's hook_run events): each hook's share of a hold. */
  function hookRuns(rows) {
    const s = section(`Hook runs (${rows.length})`);
    if (rows.length === 0) {
      s.appendChild(el('p', 'muted', 'No hook run reported: hooks put behind transcript-lag complete (wrap-hooks) report each run.'));
      return s;
    }
    const t = el('table');
    const head = el('tr');
    for (const h of ['Tool', 'Line', 'Hook', 'Started', 'Ran', 'Share of hold', 'Decision', 'Transcript']) head.appendChild(el('th', undefined, h));
    t.appendChild(el('thead')).appendChild(head);
    const body = el('tbody');
    for (const r of rows) {
      const tr = el('tr', r.line === 'held' ? 'held' : undefined);
      tr.title = r.tool_use_id;
      tr.appendChild(el('td', undefined, r.tool));
      tr.appendChild(el('td', 'num', r.line));
      tr.appendChild(el('td', 'mono', r.hook));
      tr.appendChild(el('td', 'mono', r.started_at));
      tr.appendChild(el('td', 'num', r.ran));
      tr.appendChild(el('td', 'num', r.share));
      tr.appendChild(el('td', r.stopped ? 'behind' : undefined, r.decision));
      tr.appendChild(el('td', undefined, r.transcript));
      body.appendChild(tr);
    }
    t.appendChild(body);
    s.appendChild(t);
    return s;
  }

  function render(data) {
    const frag = document.createDocumentFragment();
    frag.appendChild(el('h1', undefined, data.title));
    frag.appendChild(el('p', 'muted mono', data.transcript_path));
    frag.appendChild(summary(data));
    frag.appendChild(histogram(data.histogram));
    frag.appendChild(timeline(data.batches));
    frag.appendChild(recordLags(data.record_lags ?? []));
    frag.appendChild(table(data.rows));
    frag.appendChild(hookRuns(data.hook_runs ?? []));
    frag.appendChild(el('p', 'muted', `Updated ${data.generated_at}`));
    root.replaceChildren(frag);
  }

  window.addEventListener('message', (ev) => {
    const m = ev.data;
    // The tab's state is which session it reports: after a reload VS Code hands it back and the
    // extension draws the report again from the engine (src/vscode/report.ts restore).
    if (m && m.type === 'report') {
      vscode.setState({ session_id: m.data.session_id });
      vscode.postMessage({ type: 'kept', session_id: m.data.session_id });
      render(m.data);
    } else if (m && m.type === 'gone') root.replaceChildren(el('p', 'muted', 'This session is no longer active.'));
  });
  vscode.postMessage({ type: 'ready' });
})();
