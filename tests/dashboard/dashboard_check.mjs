// Drives the Sluice dashboard in Debian's headless chromium with Playwright and exits
// non-zero on the first check that fails. Run by tests/integration/dashboard_test.cc
// against a running local cluster; the environment says where:
//   DASHBOARD_URL  http://host:port/dashboard/     SLURM_JWT     a token (scontrol token)
//   SLUICE_CONF    the cluster's config (sbatch, squeue and scancel run against it)
//   EXPECT_NODES   node names, comma separated     ARTIFACT_DIR  where screenshots go
import { execFileSync } from 'node:child_process';
import { chromium } from 'playwright-core';

const env = process.env;
const shot = (page, name) => page.screenshot({ path: `${env.ARTIFACT_DIR}/${name}`, fullPage: true });
const run = (cmd, args) => execFileSync(cmd, args, { encoding: 'utf8' }).trim();
function check(ok, what) {
  if (!ok) throw new Error(`check failed: ${what}`);
  console.log(`ok: ${what}`);
}

// The GPUs the controller gave job `id`, as "node:index" strings, from `squeue --json`
// (job_resources.allocated_nodes[i] holds gres_detail[i], e.g. "gpu:3(IDX:0-2)").
function allocatedGpus(id) {
  const job = JSON.parse(run('squeue', ['--json', '-j', id])).jobs[0];
  const gpus = [];
  job.job_resources.allocated_nodes.forEach((n, i) => {
    const m = /IDX:([0-9,-]+)\)/.exec(job.gres_detail[i] || '');
    if (!m) return;
    for (const part of m[1].split(',')) {
      const [a, b] = part.split('-').map(Number);
      for (let g = a; g <= (b ?? a); g++) gpus.push(`${n.nodename}:${g}`);
    }
  });
  return gpus.sort();
}

const shownGpus = (page, id) => page.$$eval(`.gpu[data-job="${id}"]`,
    (cells) => cells.map((c) => `${c.dataset.node}:${c.dataset.gpu}`).sort());

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
         '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));

  await page.goto(env.DASHBOARD_URL);
  await page.waitForSelector('#login:not([hidden])');
  await page.fill('#login-token', 'not-a-token');
  await page.click('#login button[type=submit]');
  await page.waitForFunction(() => document.getElementById('login-error').textContent !== '');
  check(await page.isVisible('#login'), 'a bad token is refused and the login stays');
  await shot(page, 'dashboard-login.png');

  await page.fill('#login-token', env.SLURM_JWT);
  await page.click('#login button[type=submit]');
  await page.waitForSelector('#board:not([hidden])');
  const nodes = await page.$$eval('#map .node', (els) => els.map((e) => e.dataset.node));
  check(JSON.stringify(nodes) === JSON.stringify(env.EXPECT_NODES.split(',')),
        `the map shows the cluster's nodes (${nodes.join(',')})`);
  const cells = await page.$$eval('#map .gpu', (els) => els.length);
  check(cells === nodes.length * 8, `every GPU is a cell (${cells})`);

  const drained = nodes[nodes.length - 1];
  run('scontrol', ['update', `nodename=${drained}`, 'state=drain', 'reason=fan failure']);
  const tile = `#map .node[data-node="${drained}"]`;
  await page.waitForSelector(`${tile}.drained`, { timeout: 3000 });
  check((await page.textContent(`${tile} .reason`)) === 'fan failure',
        `drained ${drained} is marked with its reason`);

  const id = run('sbatch', ['--parsable', '-N1', '--gres=gpu:3', '-J', 'dash-train',
                            '--wrap', 'sleep 300']);
  const submitted = Date.now();
  await page.waitForFunction((j) => document.querySelectorAll(`.gpu[data-job="${j}"]`).length === 3,
                             id, { timeout: 2000, polling: 50 });
  const seenMs = Date.now() - submitted;
  check(seenMs <= 2000, `job ${id} appears on the map ${seenMs} ms after sbatch returned`);
  const want = allocatedGpus(id);
  const shown = await shownGpus(page, id);
  check(JSON.stringify(shown) === JSON.stringify(want),
        `it is on exactly its GPUs: shown ${shown} / allocated ${want}`);
  check(await page.isVisible(`#legend [data-job="${id}"]`), 'the legend names it');

  const held = run('sbatch', ['--parsable', '--hold', '--gres=gpu:1', '-J', 'dash-held',
                              '--wrap', 'true']);
  const row = `#queue tr[data-job="${held}"]`;
  await page.waitForSelector(row, { timeout: 3000 });
  const text = await page.textContent(row);
  check(text.includes('JobHeldUser') && /held/i.test(text),
        `the held job is queued with its reason in words: ${text.replace(/\s+/g, ' ')}`);
  await shot(page, 'dashboard-running.png');

  run('scancel', [id, held]);
  await page.waitForFunction((j) => document.querySelectorAll(`.gpu[data-job="${j}"]`).length === 0,
                             id, { timeout: 15000, polling: 100 });
  check(true, `job ${id} is gone from the map once it ended`);
  await page.waitForSelector(row, { state: 'detached', timeout: 5000 });
  check(true, 'and the held job from the queue');
  run('scontrol', ['update', `nodename=${drained}`, 'state=resume']);
  await page.waitForSelector(`${tile}.idle`, { timeout: 3000 });
  check(true, `${drained} is idle again once resumed`);
  await shot(page, 'dashboard-ended.png');
  check(errors.length === 0, `no script errors on the page (${errors.join('; ')})`);
} finally {
  await browser.close();
}
