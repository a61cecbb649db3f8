// The Sluice dashboard: polls /dashboard/state every second with the token the user
// logged in with (kept in this tab's sessionStorage) and draws the GPU map, the queue,
// GPU-hours by account and recent events. Read-only. Every text from the server goes
// through textContent (job names are users' input).
'use strict';

const POLL_MS = 1000;
const $ = (id) => document.getElementById(id);
const tiles = new Map();  // node name -> {el, state, reason, cells: Map(index -> cell)}
let timer = null;

function el(tag, props = {}, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('data-')) e.setAttribute(k, v);
    else e[k] = v;
  }
  if (text !== undefined) e.textContent = String(text);
  return e;
}

function session() {
  return { token: sessionStorage.getItem('sluice.token') || '',
           user: sessionStorage.getItem('sluice.user') || '' };
}

// The user a Slurm JWT names (claim "sun"), to fill the user field.
function tokenUser(token) {
  try {
    const part = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    return JSON.parse(atob(part)).sun || '';
  } catch (e) {
    return '';
  }
}

function jobColor(id) {
  return `hsl(${(id * 137.508) % 360}, 62%, 52%)`;
}

function fmtTime(epoch) {
  if (!epoch) return '';
  return new Date(epoch * 1000).toISOString().replace('T', ' ').slice(0, 19);
}

function showLogin(message) {
  clearTimeout(timer);
  $('board').hidden = true;
  $('logout').hidden = true;
  $('who').textContent = '';
  $('login').hidden = false;
  $('login-error').textContent = message || '';
}

async function poll() {
  const { token, user } = session();
  if (!token) return showLogin('');
  let res;
  try {
    res = await fetch('/dashboard/state', {
      headers: { 'X-SLURM-USER-TOKEN': token, 'X-SLURM-USER-NAME': user },
      cache: 'no-store',
    });
  } catch (e) {
    $('updated').textContent = 'controller unreachable, retrying';
    timer = setTimeout(poll, POLL_MS);
    return;
  }
  if (res.status === 401) {
    sessionStorage.removeItem('sluice.token');
    return showLogin((await res.text()).trim());
  }
  if (res.ok) render(await res.json());
  else $('updated').textContent = `controller answered ${res.status}, retrying`;
  timer = setTimeout(poll, POLL_MS);
}

function render(s) {
  $('login').hidden = true;
  $('board').hidden = false;
  $('logout').hidden = false;
  $('cluster').textContent = s.cluster;
  $('who').textContent = s.user + (s.admin ? ' (admin)' : '');
  const t = s.totals;
  $('totals').replaceChildren(
      el('b', {}, `${t.gpus_allocated}/${t.gpus}`), ' GPUs allocated · ',
      el('b', {}, t.nodes), ' nodes · ', el('b', {}, t.running), ' running · ',
      el('b', {}, t.pending), ' pending');
  const jobs = new Map(s.jobs.map((j) => [j.id, j]));
  renderMap(s.nodes, jobs);
  renderLegend(s.jobs);
  renderQueue(s.queue, t.pending);
  renderGpuHours(s.gpu_hours_24h);
  renderEvents(s.events);
  $('updated').textContent = 'updated ' + fmtTime(s.now);
  document.body.dataset.updated = String(s.now);
}

function tileFor(node) {
  let t = tiles.get(node.name);
  if (t) return t;
  const el_ = el('div', { class: 'node', 'data-node': node.name });
  const head = el('div', { class: 'name' });
  const state = el('span', { class: 'state' });
  head.append(el('span', {}, node.name), state);
  const reason = el('div', { class: 'reason' });
  const grid = el('div', { class: 'gpus' });
  el_.append(head, reason, grid);
  t = { el: el_, state, reason, grid, cells: new Map() };
  tiles.set(node.name, t);
  $('map').append(el_);
  return t;
}

function renderMap(nodes, jobs) {
  const seen = new Set();
  for (const n of nodes) {
    seen.add(n.name);
    const t = tileFor(n);
    const cls = 'node ' + n.state;
    if (t.el.className !== cls) t.el.className = cls;
    if (t.state.textContent !== n.state) t.state.textContent = n.state;
    const reason = n.reason && (n.state === 'down' || n.state.startsWith('drain')) ? n.reason : '';
    if (t.reason.textContent !== reason) {
      t.reason.textContent = reason;
      t.reason.title = reason;
    }
    for (const g of n.gpus) {
      let cell = t.cells.get(g.index);
      if (!cell) {
        cell = el('div', { class: 'gpu', 'data-node': n.name, 'data-gpu': g.index, 'data-job': 0 });
        t.cells.set(g.index, cell);
        t.grid.append(cell);
      }
      if (cell.dataset.job === String(g.job)) continue;
      cell.dataset.job = String(g.job);
      const j = jobs.get(g.job);
      cell.className = g.job === -1 ? 'gpu hidden' : 'gpu';
      cell.style.background = g.job > 0 ? jobColor(g.job) : '';
      cell.title = g.job > 0
          ? `${n.name} GPU ${g.index}: job ${g.job}` + (j ? ` (${j.user}, ${j.name})` : '')
          : g.job === -1 ? `${n.name} GPU ${g.index}: another user's job`
                         : `${n.name} GPU ${g.index}: free`;
    }
  }
  for (const [name, t] of tiles) {
    if (!seen.has(name)) {
      t.el.remove();
      tiles.delete(name);
    }
  }
}

function renderLegend(jobs) {
  const items = jobs.filter((j) => j.gpus > 0).slice(0, 40).map((j) => {
    const item = el('span', { 'data-job': j.id });
    const sw = el('span', { class: 'swatch' });
    sw.style.background = jobColor(j.id);
    item.append(sw, `job ${j.id} · ${j.user} · ${j.name} · ${j.gpus} GPU${j.gpus === 1 ? '' : 's'}`);
    return item;
  });
  $('legend').replaceChildren(...(items.length ? items : [el('span', { class: 'empty' }, 'no job holds a GPU')]));
}

function renderQueue(queue, pending) {
  $('queue-count').textContent = pending > queue.length
      ? `first ${queue.length} of ${pending} pending` : `${pending} pending`;
  const rows = queue.map((j) => {
    const tr = el('tr', { 'data-job': j.id });
    const cells = [j.id, j.user, j.account, j.partition, j.name, j.gpus, j.nodes, j.priority,
                   j.reason, fmtTime(j.planned_start)];
    for (const c of cells) tr.append(el('td', {}, c));
    tr.append(el('td', { class: 'why' }, j.explanation));
    return tr;
  });
  $('queue').tBodies[0].replaceChildren(...rows);
}

function renderGpuHours(rows) {
  const max = Math.max(1e-9, ...rows.map((r) => r.hours));
  const bars = rows.map((r) => {
    const bar = el('div', { class: 'bar', 'data-account': r.account });
    const fill = el('div', { class: 'fill' });
    fill.style.width = `${Math.max(1, (r.hours / max) * 260)}px`;
    bar.append(el('span', { class: 'label' }, r.account), fill, el('span', {}, r.hours.toFixed(2)));
    return bar;
  });
  $('gpu-hours').replaceChildren(...(bars.length ? bars : [el('div', { class: 'empty' }, 'no GPU used in the last 24 hours')]));
}

function renderEvents(events) {
  const items = events.map((e) => {
    const li = el('li', { class: e.kind });
    li.append(el('span', { class: 'kind' }, e.kind.replace('_', ' ')), `${fmtTime(e.time)}  ${e.text}`);
    return li;
  });
  $('events').replaceChildren(...(items.length ? items : [el('li', { class: 'empty' }, 'none')]));
}

$('login-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const token = $('login-token').value.trim();
  const user = $('login-user').value.trim() || tokenUser(token);
  sessionStorage.setItem('sluice.token', token);
  sessionStorage.setItem('sluice.user', user);
  $('login-token').value = '';
  poll();
});

$('logout').addEventListener('click', () => {
  sessionStorage.removeItem('sluice.token');
  showLogin('');
});

poll();
