// The review pages in a real browser (issue #20): headless Chromium (Debian's chromium) driven by
// puppeteer-core against a real `kwb serve` with really evaluated CPU candidates. Checks, each
// named when it fails:
//   pages      every page loads without console errors, uncaught exceptions or failed requests
//   verdict    the candidate page shows the verdict values GET /v1/candidates/{id} returns
//   diff       the side-by-side diff shows the changed lines on each side
//   roofline   the roofline plot has a candidate and an incumbent point per bench workload
//   promote    a reviewer clicks Promote; the library's head commit is the one the page shows
//   agent      an agent token gets no Promote button, and a forged promote with it is refused (403)
//   live       a running candidate's page follows its stages and shows the verdict without a reload
//   keyboard   Tab reaches every control of every page, and every control has an accessible name
//   reject     a reviewer's Reject records the reason typed
//   leaderboard sorting and the status filter ask the daemon (server-side)
//   lineage    the candidate page shows the tree of its attempts with the API's best and latest
//   samples    a histogram of every timed bench workload's samples, and of its block ratios
//   resources  the resource table beside the incumbent's, losses marked (an intercepted verdict)
// Screenshots of each page go to a temporary folder, or to $KWB_UI_SHOTS where set
// (`KWB_UI_SHOTS=docs/ui ctest -R WebUi` refreshes the ones docs/web.md shows): a test run
// leaves the source tree as it found it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { here, sourceDir, startDaemon, fastKernel, wrongKernel, waitFor } from './lib.mjs';

const chromium = process.env.KWB_CHROMIUM || ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => fs.existsSync(p));
if (!chromium) {
  const msg = 'chromium is not installed (Debian package chromium, listed in .ci/packages)';
  if (process.env.CI) {
    console.error(`FAIL: ${msg}; CI installs .ci/packages, so this is a broken setup`);
    process.exit(1);
  }
  console.log(`WEBUI-SKIPPED: ${msg}; install it to run the browser tests`);
  process.exit(0);
}
const puppeteerPath = path.join(here, 'node_modules', 'puppeteer-core');
if (!fs.existsSync(puppeteerPath)) {
  console.error(`missing ${puppeteerPath}: run .ci/setup (it runs npm ci in tests/web) to install the pinned browser test tools`);
  process.exit(2);
}
const { default: puppeteer } = await import('puppeteer-core');

const failures = [];
function check(name, ok, detail) {
  console.log(`${ok ? 'ok' : 'FAIL'} - ${name}${ok ? '' : ': ' + detail}`);
  if (!ok) failures.push(`${name}: ${detail}`);
}

const shots = process.env.KWB_UI_SHOTS
  ? path.resolve(sourceDir, process.env.KWB_UI_SHOTS)
  : fs.mkdtempSync(path.join(os.tmpdir(), 'kwb-ui-shots-'));
fs.mkdirSync(shots, { recursive: true });
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'kwb-web-'));
const daemon = await startDaemon(root);
let browser;
try {
  const reviewer = daemon.token('reviewer');
  const agent = daemon.token('agent');
  // Really evaluated candidates: two winners against the slow incumbent and a wrong one.
  const winner = await daemon.submit(agent, fastKernel('restrict pointers, one pass'), 'web test: winner');
  const second = await daemon.submit(agent, fastKernel('second winner'), 'web test: second winner', { parent: winner });
  const wrong = await daemon.submit(agent, wrongKernel, 'web test: wrong', { parent: winner });
  const W = await daemon.done(agent, winner);
  await daemon.done(agent, second);
  await daemon.done(agent, wrong);
  if (W.status !== 'accepted' || !W.verdict.summary.beats_incumbent)
    throw new Error(`the winner did not win: ${W.status}: ${W.verdict?.reason}\n${daemon.log()}`);

  browser = await puppeteer.launch({
    executablePath: chromium, headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--disable-extensions'],
    defaultViewport: { width: 1360, height: 900 },
  });

  // A page whose console errors, page errors and failed requests are recorded per visit.
  async function openPage(context) {
    const page = await context.newPage();
    page.problems = [];
    page.on('console', (m) => { if (m.type() === 'error') page.problems.push(`console: ${m.text()}`); });
    page.on('pageerror', (e) => page.problems.push(`exception: ${e.message}`));
    page.on('requestfailed', (r) => { if (!/aborted/i.test(r.failure()?.errorText || '')) page.problems.push(`request failed: ${r.url()} ${r.failure()?.errorText}`); });
    page.on('response', (r) => { if (r.status() >= 400) page.problems.push(`HTTP ${r.status()} ${r.url()}`); });
    return page;
  }
  async function visit(page, hash, name) {
    page.problems.length = 0;
    await page.evaluate((h) => { document.body.dataset.ready = 'false'; location.hash = h; }, hash);
    await page.waitForSelector('body[data-ready="true"]', { timeout: 60000 });
    check(`pages: ${name} loads without errors`, page.problems.length === 0, page.problems.join('; '));
  }
  async function signIn(page, tok) {
    await page.goto(daemon.url + '/', { waitUntil: 'load' });
    await page.waitForSelector('body[data-ready="true"]');
    await page.type('#token', tok);
    await page.click('#signin-button');
    await page.waitForFunction(() => document.getElementById('who').dataset.role !== 'none' && document.body.dataset.ready === 'true');
  }
  // Tab from the top of the document: every visible control is reached, and each has a name.
  async function keyboard(page, name) {
    const r = await page.evaluate(() => {
      const sel = 'a[href], button:not([disabled]), input:not([type=hidden]), select, textarea, [tabindex]:not([tabindex="-1"])';
      const visible = (e) => !!(e.offsetWidth || e.offsetHeight || e.getClientRects().length) && !e.closest('[hidden]');
      const all = [...document.querySelectorAll(sel)].filter(visible);
      all.forEach((e, i) => { e.dataset.kbd = String(i); });
      const nameOf = (e) => {
        if (e.getAttribute('aria-label')) return e.getAttribute('aria-label');
        if (e.id && document.querySelector(`label[for="${e.id}"]`)) return document.querySelector(`label[for="${e.id}"]`).textContent;
        if (e.tagName === 'INPUT' || e.tagName === 'SELECT') return '';
        return (e.textContent || e.getAttribute('title') || '').trim();
      };
      const unnamed = all.filter((e) => !nameOf(e).trim()).map((e) => e.outerHTML.slice(0, 80));
      document.activeElement?.blur();
      return { count: all.length, unnamed };
    });
    const reached = new Set();
    await page.focus('body').catch(() => {});
    await page.evaluate(() => window.scrollTo(0, 0));
    for (let i = 0; i < r.count + 5; ++i) {
      await page.keyboard.press('Tab');
      const k = await page.evaluate(() => document.activeElement?.dataset?.kbd ?? null);
      if (k !== null) reached.add(k);
    }
    check(`keyboard: Tab reaches every control on ${name}`, reached.size === r.count, `${reached.size} of ${r.count} reached`);
    check(`keyboard: every control on ${name} has an accessible name`, r.unnamed.length === 0, r.unnamed.join(' | '));
  }

  // --- reviewer
  const revContext = await browser.createBrowserContext();
  const page = await openPage(revContext);
  await signIn(page, reviewer);
  check('sign-in: the reviewer is recognised', (await page.$eval('#who', (e) => e.dataset.role)) === 'reviewer', 'role shown is not reviewer');
  check('sign-in: the token is kept in localStorage, not a cookie',
    (await page.evaluate(() => localStorage.getItem('kwb.token'))) === reviewer && (await page.evaluate(() => document.cookie)) === '', 'not in localStorage, or a cookie was set');

  // The scorecard section shows the stored report GET /v1/library/report serves: a hand-made one
  // (kwb library report --measure writes the same document), one row below the bar.
  const reports = path.join(daemon.workspace, 'library-reports');
  fs.mkdirSync(reports, { recursive: true });
  const scoreRow = (workload, ns, rival) => ({ op: 'vector_add', variant: 'f32', backend: 'cpu', device_class: 'cpu-x86_64-v3',
    workload, kernel: 'vector_add/cpu/scalar.cpp', source_sha256: '', status: 'measured', reason: '', incumbent_ns: ns,
    stderr_pct: 1, samples: 10, rivals: [{ name: 'vector_add/cpu/other.cpp', kind: 'library', ns: rival, status: 'measured' }],
    roofline: { pct_bw: 50, pct_flops: null, pct_bw_sheet: null, pct_flops_sheet: null }, device: 'web test', measured_at: '2026-01-01T00:00:00Z', stale: false });
  fs.writeFileSync(path.join(reports, 'report-2026-01-01T00-00-00Z-001.json'), JSON.stringify({ schema: 'kwb.library_report.v1',
    source: { kind: 'measured', measured_at: '2026-01-01T00:00:00Z', devices: ['web test'], library_commit: '0'.repeat(40) },
    bar: 0.99, rows: [scoreRow('n1M', 1000, 500), scoreRow('n2M', 1000, 2000)] }));
  const served = (await daemon.call(agent, 'GET', '/v1/library/report')).json;
  await visit(page, '#/', 'ops overview');
  check('ops: vector_add has a row', await page.$$eval('#ops tbody tr', (rows) => rows.some((r) => r.textContent.includes('vector_add'))), 'no row');
  const card = await page.$$eval('#scorecard-rows tbody tr', (rows) => rows.map((r) => r.textContent));
  check('scorecard: a row per row of the API\'s report, with its ratio to the fastest',
    card.length === served.rows.length && card[0].includes('0.500×') && card[1].includes('2.000×'), JSON.stringify(card));
  const fam = await page.$eval('#scorecard-families tbody', (t) => t.textContent);
  check('scorecard: the family\'s share at the bar and geomean', fam.includes('1 / 2') && fam.includes('50.0%') && fam.includes('1.000×'), fam);
  const below = await page.$$eval('#scorecard-below li', (li) => li.map((e) => e.textContent));
  check('scorecard: the row below the bar with its gap', below.length === served.below_bar.length && below.length === 1 && below[0].includes('50.0%'),
    JSON.stringify(below));
  await keyboard(page, 'ops overview');
  await page.screenshot({ path: path.join(shots, 'ops.png'), fullPage: true });

  await visit(page, '#/leaderboard/vector_add?backend=cpu', 'leaderboard');
  const board = (await daemon.call(agent, 'GET', '/v1/leaderboard/vector_add?backend=cpu&limit=25')).json;
  const shown = await page.$$eval('#leaderboard tbody tr td:nth-child(2) a', (as) => as.map((a) => a.textContent));
  check('leaderboard: the rows are the API\'s, in its order', JSON.stringify(shown) === JSON.stringify(board.candidates.map((c) => c.id)),
    `page ${shown} vs API ${board.candidates.map((c) => c.id)}`);
  await keyboard(page, 'leaderboard');
  await page.screenshot({ path: path.join(shots, 'leaderboard.png'), fullPage: true });
  await page.click('button[aria-label="Sort by Finished"]');
  await page.waitForFunction(() => location.hash.includes('sort=newest') && document.body.dataset.ready === 'true');
  const newest = (await daemon.call(agent, 'GET', '/v1/leaderboard/vector_add?backend=cpu&limit=25&sort=newest')).json;
  const shownNewest = await page.$$eval('#leaderboard tbody tr td:nth-child(2) a', (as) => as.map((a) => a.textContent));
  check('leaderboard: sorting by finished asks the daemon (sort=newest)', JSON.stringify(shownNewest) === JSON.stringify(newest.candidates.map((c) => c.id)),
    `page ${shownNewest} vs API ${newest.candidates.map((c) => c.id)}`);
  await page.select('#lb-status', 'incorrect');
  await page.waitForFunction(() => location.hash.includes('status=incorrect') && document.body.dataset.ready === 'true');
  const wrongRows = await page.$$eval('#leaderboard tbody tr td:first-child a', (as) => as.map((a) => a.textContent));
  check('leaderboard: the status filter lists the incorrect candidate', JSON.stringify(wrongRows) === JSON.stringify([wrong]), `rows ${wrongRows}`);

  // The candidate page of the winner: the verdict's values, the diff, the roofline, the samples.
  // Its decision is in first (the blocks artifact comes with it).
  const decided = await waitFor(`${winner}'s decision`, async () => {
    const r = (await daemon.call(agent, 'GET', `/v1/candidates/${winner}`)).json;
    return r.comparison?.state !== 'pending' ? r : null;
  });
  await visit(page, `#/candidate/${winner}`, 'candidate');
  await page.waitForSelector('#verdict-table');
  const bench = W.verdict.workloads.filter((w) => w.kind === 'bench');
  const cells = await page.$$eval('#verdict-table tbody tr', (rows) => rows.map((r) => ({
    workload: r.dataset.workload, samples: r.querySelector('.samples').textContent,
    median: r.querySelector('.median').textContent, vs: r.querySelector('.vs-incumbent').textContent,
    stdev: r.querySelector('.stdev').textContent, label: r.querySelector('.label').textContent })));
  const fmtNs = (v) => v >= 1e9 ? (v / 1e9).toFixed(3) + ' s' : v >= 1e6 ? (v / 1e6).toFixed(3) + ' ms' : v >= 1e3 ? (v / 1e3).toFixed(2) + ' µs' : v.toFixed(0) + ' ns';
  const expected = bench.map((w) => ({ workload: w.name, samples: String(w.time.samples), median: fmtNs(w.time.median_ns),
    vs: w.vs_incumbent.toFixed(3) + '×', stdev: w.time.stdev_pct.toFixed(2) + '%', label: w.comparison.label }));
  check('verdict: the table shows the API\'s median, stdev, samples, ratio and label per bench workload',
    JSON.stringify(cells) === JSON.stringify(expected), `page ${JSON.stringify(cells)} vs API ${JSON.stringify(expected)}`);
  check('verdict: the status and reason are the API\'s',
    (await page.$eval('#verdict-status', (e) => e.textContent)) === W.verdict.status &&
    (await page.$eval('#verdict-reason', (e) => e.textContent)) === W.verdict.reason, 'status or reason differ');
  const dots = await page.$$eval('svg.roofline .pt-candidate', (p) => p.map((e) => e.dataset.workload));
  const squares = await page.$$eval('svg.roofline .pt-incumbent', (p) => p.map((e) => e.dataset.workload));
  check('roofline: a candidate point per bench workload', JSON.stringify(dots) === JSON.stringify(bench.map((w) => w.name)), `points ${dots}`);
  check('roofline: an incumbent point per bench workload', JSON.stringify(squares) === JSON.stringify(bench.map((w) => w.name)), `points ${squares}`);
  check('roofline: the device\'s calibrated roof is drawn', (await page.$$('svg.roofline path.roof')).length >= 1, 'no roof');
  // Samples: per bench workload a histogram whose bars hold every sample the API keeps, and one of
  // the block pairs' ratios the comparison kept.
  const kept = (await daemon.call(agent, 'GET', `/v1/candidates/${winner}/artifacts/samples`)).json;
  const keptBlocks = decided.verdict.summary.blocks_sha256 ?
    (await daemon.call(agent, 'GET', `/v1/candidates/${winner}/artifacts/blocks`)).json : { workloads: [] };
  const drawn = await page.$$eval('#samples figure.samples-plot', (figs) => {
    const total = (f, sel) => [...f.querySelectorAll(sel)].reduce((n, r) => n + Number(r.dataset.count), 0);
    return figs.map((f) => ({ workload: f.dataset.workload, samples: total(f, 'svg.hist-samples rect.bar'),
      ratios: total(f, 'svg.hist-ratios rect.bar') }));
  });
  const count = (a, name, key) => a.workloads.find((k) => k.name === name)?.[key]?.length ?? 0;
  const wanted = bench.map((w) => ({ workload: w.name, samples: count(kept, w.name, 'samples_ns'),
    ratios: count(keptBlocks, w.name, 'ratios') }));
  check('samples: a histogram of every bench workload holds all the samples the API keeps',
    kept.schema === 'kwb.samples.v1' && wanted.every((w) => w.samples > 0) &&
    JSON.stringify(drawn.map(({ workload, samples }) => ({ workload, samples }))) === JSON.stringify(wanted.map(({ workload, samples }) => ({ workload, samples }))),
    `page ${JSON.stringify(drawn)} vs API ${JSON.stringify(wanted)}`);
  check('samples: the winner\'s comparison kept its block pairs, and each is a histogram of their ratios',
    !!decided.verdict.summary.blocks_sha256 && wanted.some((w) => w.ratios > 0) &&
    JSON.stringify(drawn.map((d) => d.ratios)) === JSON.stringify(wanted.map((w) => w.ratios)),
    `blocks ${decided.verdict.summary.blocks_sha256}; page ${JSON.stringify(drawn)} vs API ${JSON.stringify(wanted)}`);
  const right = await page.$$eval('#diff tr.row-add td:nth-child(4), #diff tr.row-change td:nth-child(4)', (t) => t.map((e) => e.textContent));
  const left = await page.$$eval('#diff tr.row-del td:nth-child(2), #diff tr.row-change td:nth-child(2)', (t) => t.map((e) => e.textContent));
  check('diff: the candidate\'s changed lines are marked on the right',
    right.some((l) => l.includes('for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];')) && right.some((l) => l.includes('__restrict')), `right: ${right.join(' / ')}`);
  check('diff: the incumbent\'s replaced lines are marked on the left', left.some((l) => l.includes('volatile float x = a[i];')), `left: ${left.join(' / ')}`);
  check('diff: highlighted (keywords as tokens)', (await page.$$('#diff .tok-keyword')).length > 0, 'no highlighted token');
  check('review: a reviewer sees Promote and Reject', !!(await page.$('#promote')) && !!(await page.$('#reject')), 'buttons missing');
  // Its lineage: the winner and the two attempts made on it, the API's best and latest marked.
  const lineage = (await daemon.call(agent, 'GET', `/v1/candidates/${winner}/lineage`)).json;
  const tree = await page.$$eval('#lineage li', (items) => items.map((li) => ({ id: li.dataset.id, best: li.dataset.best,
    latest: li.dataset.latest, parent: li.parentElement.closest('li')?.dataset.id ?? null })));
  const treeIds = tree.map((n) => n.id).sort();
  check('lineage: the candidate page shows the tree of its attempts',
    JSON.stringify(treeIds) === JSON.stringify([winner, second, wrong].sort()) &&
    tree.filter((n) => n.parent === winner).length === 2, JSON.stringify(tree));
  check('lineage: the best and the latest are the API\'s',
    lineage.best && tree.find((n) => n.best === 'true')?.id === lineage.best && lineage.latest === wrong &&
    tree.find((n) => n.latest === 'true')?.id === wrong, `page ${JSON.stringify(tree)} vs API best ${lineage.best} latest ${lineage.latest}`);
  await keyboard(page, 'candidate');
  await page.screenshot({ path: path.join(shots, 'candidate.png'), fullPage: true });

  // Resources beside the incumbent's (docs/verdict.md "Resources"): a cpu verdict has none; the
  // table is drawn from a verdict given one through an intercepted reply (the figures themselves
  // come from a daemon on the fake driver: tests/unit/cuda/test_fake_gpu_resources.cpp).
  check('resources: a cpu candidate has no resource table', !(await page.$('#resources')), 'a table is shown');
  const side = (smem, blocks, limiter) => ({ kernel: 'vector_add_f32', config: 'default', registers: 16, spill_store_bytes: 0,
    spill_load_bytes: 0, static_smem_bytes: smem, dynamic_smem_bytes: 0, barriers: 0,
    occupancy: { threads: 256, blocks_per_sm: blocks, warps_per_sm: blocks * 8, pct: blocks * 12.5, limited_by: limiter } });
  const loss = 'occupancy 8 → 4 blocks/SM, 64 → 32 warps (100% → 50%; limiter: shared memory, 0 → 49152 B per block)';
  const withResources = structuredClone(W);
  withResources.verdict.summary.resources = { rows: [{ workload: 'n1M', candidate: side(49152, 4, 'shared_memory'),
    incumbent: side(0, 8, 'warps'), losses: [loss] }], losses: [`vector_add_f32: ${loss} on n1M`] };
  const resPage = await openPage(revContext);
  await resPage.setRequestInterception(true);
  resPage.on('request', (req) => {
    if (req.method() === 'GET' && new URL(req.url()).pathname === `/v1/candidates/${winner}`)
      req.respond({ status: 200, contentType: 'application/json', body: JSON.stringify(withResources) });
    else req.continue();
  });
  await resPage.goto(`${daemon.url}/#/candidate/${winner}`, { waitUntil: 'load' });
  await resPage.waitForSelector('#resources', { timeout: 60000 });
  const resRows = await resPage.$$eval('#resources tbody tr', (rows) => rows.map((r) => ({ side: r.dataset.side || 'loss',
    loss: r.classList.contains('res-loss'), text: r.textContent })));
  check('resources: the candidate\'s line, the incumbent\'s and the loss, marked',
    resRows.length === 3 && resRows.every((r) => r.loss) && resRows[0].side === 'candidate' && resRows[0].text.includes('49152 + 0') &&
    resRows[1].side === 'incumbent' && resRows[1].text.includes('8 blocks, 64 warps') && resRows[2].text.includes(loss), JSON.stringify(resRows));
  check('resources: the losses are listed above the table',
    (await resPage.$eval('#resource-losses', (e) => e.textContent)).includes(`vector_add_f32: ${loss} on n1M`), 'no loss listed');
  await resPage.close();

  // Promote: the page shows the commit; the library's head has it, naming the candidate.
  page.problems.length = 0;
  await page.click('#promote');
  await page.waitForSelector('#decision-commit', { timeout: 120000 });
  const commit = await page.$eval('#decision-commit', (e) => e.textContent);
  const lib = (await daemon.call(agent, 'GET', '/v1/library/vector_add')).json;
  check('promote: the library\'s latest commit is the one the page shows, naming the candidate',
    lib.history[0].commit === commit && lib.history[0].trailers['Kwb-Candidate'] === winner, `page ${commit}, library ${JSON.stringify(lib.history[0])}`);
  check('promote: the candidate is the incumbent', lib.entries.some((e) => e.candidate === winner), JSON.stringify(lib.entries));
  check('promote: no errors while promoting', page.problems.length === 0, page.problems.join('; '));
  await page.screenshot({ path: path.join(shots, 'candidate-promoted.png'), fullPage: false });

  await visit(page, '#/history', 'library history');
  check('history: the promotion is on the timeline', (await page.$$('svg.timeline .pt-promotion')).length === 1, 'no point');
  check('history: the commit and its trailers are listed',
    await page.$$eval('table.history tbody tr', (rows, c) => rows.some((r) => r.textContent.includes(c.slice(0, 12)) && r.textContent.includes('Kwb-Speedup')), commit),
    'commit row missing');
  await keyboard(page, 'library history');
  await page.screenshot({ path: path.join(shots, 'history.png'), fullPage: true });

  // --- agent: sees the pages, no review buttons; the API refuses a forged promotion.
  const agentContext = await browser.createBrowserContext();
  const apage = await openPage(agentContext);
  await signIn(apage, agent);
  await visit(apage, `#/candidate/${second}`, 'candidate (agent)');
  await apage.waitForSelector('#verdict-table');
  check('agent: no Promote or Reject button', !(await apage.$('#promote')) && !(await apage.$('#reject')), 'a review button is shown');
  const forged = await apage.evaluate(async (id, tok) => {
    const r = await fetch(`/v1/candidates/${id}/promote`, { method: 'POST', headers: { Authorization: `Bearer ${tok}`, 'Content-Type': 'application/json' }, body: '{}' });
    return { status: r.status, body: await r.text() };
  }, second, agent);
  check('agent: a forged promote request with the agent token is refused with 403', forged.status === 403, `${forged.status} ${forged.body}`);
  const ambient = await apage.evaluate(async (id) => (await fetch(`/v1/candidates/${id}/promote`, { method: 'POST', body: '{}' })).status, second);
  check('agent: a request without the header (what another site could make the browser send) is refused with 401', ambient === 401, String(ambient));
  const after = (await daemon.call(agent, 'GET', `/v1/candidates/${second}`)).json;
  check('agent: the forged requests changed nothing', after.decision === null, JSON.stringify(after.decision));
  await keyboard(apage, 'candidate (agent)');

  // Reject with a reason, as the reviewer.
  await visit(page, `#/candidate/${second}`, 'candidate (to reject)');
  await page.type('#reject-reason', 'web test: not needed beside the promoted winner');
  await page.click('#reject');
  await page.waitForFunction(() => document.getElementById('decision')?.textContent.startsWith('rejected'), { timeout: 60000 });
  const rejected = (await daemon.call(agent, 'GET', `/v1/candidates/${second}`)).json.decision;
  check('reject: the reason typed is the decision the API records',
    rejected?.decision === 'rejected' && rejected?.reason === 'web test: not needed beside the promoted winner', JSON.stringify(rejected));

  // --- live: a running candidate's page follows it.
  const live = await daemon.submit(agent, fastKernel('live'), 'web test: live');
  page.problems.length = 0;
  await page.evaluate((h) => { window.kwbNoReload = true; document.body.dataset.ready = 'false'; location.hash = h; }, `#/candidate/${live}`);
  await page.waitForSelector('body[data-ready="true"]');
  const first = await page.$eval('#cand-state', (e) => e.dataset.state);
  check('live: the page opened while the candidate was still running', first !== 'done', `state ${first}`);
  await page.waitForSelector('#stages [data-status="running"], #stages [data-status="done"]', { timeout: 300000 });
  await page.screenshot({ path: path.join(shots, 'candidate-live.png'), fullPage: false });
  await page.waitForSelector('#verdict-status', { timeout: 600000 });
  const liveJson = (await daemon.call(agent, 'GET', `/v1/candidates/${live}`)).json;
  check('live: the verdict appeared without a reload', await page.evaluate(() => window.kwbNoReload === true), 'the page reloaded');
  check('live: the verdict shown is the API\'s', (await page.$eval('#verdict-status', (e) => e.textContent)) === liveJson.status, liveJson.status);
  // The stages the stream says finished are the ones the page marks done (a stage that fails has
  // a start event and no finish: the verdict follows).
  const evs = (await daemon.call(agent, 'GET', `/v1/candidates/${live}/events?wait=0`)).json.events;
  // The stream ends at the terminal state event: the stages finished before it.
  const end = evs.findIndex((e) => e.kind === 'state' && (e.data.state === 'done' || e.data.state === 'cancelled'));
  const finished = evs.slice(0, end < 0 ? evs.length : end).filter((e) => e.kind === 'stage' && e.data.finished)
    .map((e) => e.data.stage).sort();
  const order = evs.map((e) => e.kind === 'stage' ? `${e.data.stage}${e.data.finished ? '.done' : ''}` : e.kind === 'state' ? e.data.state : e.kind).join(' ');
  const marked = (await page.$$eval('#stages [data-status="done"]', (l) => l.map((e) => e.dataset.stage))).sort();
  check('live: the stages the event stream finished are marked done', finished.length > 0 && JSON.stringify(marked) === JSON.stringify(finished),
    `page ${marked} vs stream ${finished} (events: ${order})`);
  check('live: no errors while following', page.problems.length === 0, page.problems.join('; '));

  // --- Content-Security-Policy on the page; static files need no token, data does.
  const res = await fetch(daemon.url + '/');
  const csp = res.headers.get('content-security-policy') || '';
  check('csp: default-src \'self\' and no inline script', csp.includes("default-src 'self'") && csp.includes("script-src 'self'") && !csp.includes('unsafe-inline'), csp);
  check('static: the page and its script need no token', res.status === 200 && (await fetch(daemon.url + '/ui/app.js')).status === 200, String(res.status));
  check('static: data needs a token', (await fetch(daemon.url + '/v1/candidates')).status === 401, 'GET /v1/candidates without a token was answered');
} catch (e) {
  failures.push(`unexpected: ${e.stack || e}`);
  console.error(e.stack || e);
} finally {
  if (browser) await browser.close();
  await daemon.stop();
  if (failures.length) {
    console.error(`daemon log:\n${daemon.log().slice(-4000)}`);
    console.error(`screenshots: ${shots}`);
  } else {
    fs.rmSync(root, { recursive: true, force: true });
    if (!process.env.KWB_UI_SHOTS) fs.rmSync(shots, { recursive: true, force: true });
  }
}
console.log(failures.length ? `${failures.length} failed:\n  ${failures.join('\n  ')}` : 'all browser checks passed');
process.exit(failures.length ? 1 : 0);
