import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplication } from '@nestjs/common';
import puppeteer, { Browser, Page } from 'puppeteer-core';
import { RateLimiterFactory } from '../../src';
import { ADMIN_HEADERS, adminCall, hit, hitKey, startAdminApp } from '../helpers/admin-app';
import { PLATFORMS } from '../helpers/http';
import { RedisServer, startRedisServer } from '../helpers/redis-server';

/** Debian's chromium (CI installs it); CHROMIUM_PATH points elsewhere. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** Set to write the page's screenshot to docs/admin-page.png (docs/operations.md shows it). */
const SCREENSHOT = process.env.ADMIN_PAGE_SCREENSHOT === '1';

async function launchChromium(userDataDir: string): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    // No silent skip: without a browser the page is untested.
    throw new Error(
      `Chromium is not at ${CHROMIUM}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`,
    );
  }
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** The text of every cell of a table's rows. */
const rowsOf = (page: Page, table: string) =>
  page.$$eval(`#${table} tbody tr`, (rows) =>
    // Runs in the page (the tests compile without DOM types).
    rows.map((row: any) => Array.from(row.cells as any[], (cell) => cell.textContent as string)),
  );

/** The page's `document`, in functions that run in the browser. */
declare const document: any;
declare const getComputedStyle: (element: any) => { color: string };

/**
 * Clicks a button found and clicked in one turn of the page's own
 * event loop: the page rebuilds its tables every 2 s, so a handle taken a moment earlier
 * (page.click's query, then its scroll and mouse) can be a row that is already gone.
 */
const clickButton = (page: Page, selector: string) =>
  page.waitForFunction(
    (target) => {
      const button = document.querySelector(target);
      button?.click();
      return button !== null;
    },
    {},
    selector,
  );

describe.each(PLATFORMS)('the admin page in a real browser, on %s', (platform) => {
  let redis: RedisServer;
  let app: INestApplication;
  let port: number;
  let browser: Browser;
  let userDataDir: string;

  beforeAll(async () => {
    userDataDir = mkdtempSync(join(tmpdir(), 'nestjs-limiter-chromium-'));
    browser = await launchChromium(userDataDir);
    redis = await startRedisServer();
    // A fixed overload limit on every handler (the admin page's own excepted): the page shows it.
    const overload = { initialLimit: 7, minLimit: 7, maxLimit: 7 };
    const upstreams = [{ name: 'partner', rate: 40, capacity: 4 }];
    ({ app, port } = await startAdminApp(platform, { redis: redis.url, overload, upstreams }));
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await redis?.stop();
    rmSync(userDataDir, { recursive: true, force: true });
  });

  it('shows a denied key; unblocking it there lets its next request pass', async () => {
    const statuses: number[] = [];
    for (const [ip, times] of [
      ['127.0.0.2', 6],
      ['127.0.0.5', 4],
      ['127.0.0.3', 3],
    ] as const) {
      for (let i = 0; i < times; i++) statuses.push(await hit(port, ip));
    }
    expect(statuses).toEqual([200, 200, 429, 429, 429, 429, 200, 200, 429, 429, 200, 200, 429]);
    await adminCall(port, 'PUT', 'api/overrides/perIp', {
      options: { limit: 2, period: 60 },
      ttl: 900,
    });
    await adminCall(port, 'PUT', 'api/networks', {
      allow: ['10.0.0.0/8'],
      deny: ['203.0.113.0/24'],
    });

    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 720 });
    await page.setExtraHTTPHeaders(ADMIN_HEADERS);
    const answer = await page.goto(`http://127.0.0.1:${port}/rate-limits`);
    expect(answer?.status()).toBe(200);
    const key = hitKey('127.0.0.2');
    const blockedRow = `#blocked tr[data-key="${key}"]`;
    await page.waitForSelector(blockedRow);
    await page.waitForSelector('#overrides tbody tr');

    const top = await rowsOf(page, 'top');
    expect(top.map((cells) => [cells[0], cells[2]])).toEqual([
      [key, '4'],
      [hitKey('127.0.0.5'), '2'],
      [hitKey('127.0.0.3'), '1'],
    ]);
    expect(top[0][1]).toBe('perIp · @CountLimit on HitController.hit');
    if (SCREENSHOT) {
      await page.screenshot({ path: join(__dirname, '../../docs/admin-page.png'), fullPage: true });
    }

    // Each table offers the one action its rows call for, and says what it does.
    const actions = (table: string) =>
      page.$$eval(`#${table} tbody tr:first-child button`, (buttons) =>
        buttons.map((b: any) => [b.dataset.action as string, (b.title as string).split(':')[0]]),
      );
    expect(await actions('top')).toEqual([
      ['peek', 'Show what the key has left, without taking anything'],
      ['reset', 'Forget this key’s count (and any block)'],
    ]);
    expect(await actions('blocked')).toEqual([
      ['peek', 'Show what the key has left, without taking anything'],
      ['unblock', 'Lift the block, and forget the count that caused it'],
    ]);

    // A peek that finds nothing left is bad news, not shown as a success.
    await clickButton(page, `${blockedRow} button[data-action="peek"]`);
    await page.waitForFunction(
      (text) => document.getElementById('status')?.textContent.startsWith(text),
      {},
      `${key}: 0 of 2 left`,
    );
    const peekShown = await page.$eval('#status', (status: any) => [
      status.className,
      getComputedStyle(status).color,
    ]);
    expect(peekShown).toEqual(['failed', 'rgb(180, 35, 24)']);

    expect(await hit(port, '127.0.0.2')).toBe(429);
    await clickButton(page, `${blockedRow} button[data-action="unblock"]`);
    await page.waitForFunction(
      (text) => document.getElementById('status')?.textContent === text,
      {},
      `${key}: unblocked, its count forgotten`,
    );
    expect(await hit(port, '127.0.0.2')).toBe(200);
    // The page drops the key from the blocked list on its next refresh.
    await page.waitForFunction(
      (selector) => document.querySelector(selector) === null,
      {},
      blockedRow,
    );
    await page.close();
  });

  it("shows the overload guard's limit, in flight, refusals and the limit's last minute as a chart", async () => {
    const page = await browser.newPage();
    await page.setExtraHTTPHeaders(ADMIN_HEADERS);
    await page.goto(`http://127.0.0.1:${port}/rate-limits`);
    await page.waitForSelector('#overload tr[data-gate="overload"]');
    const [row] = await rowsOf(page, 'overload');
    expect(row.slice(0, 4)).toEqual(['overload', '7', '0', '0 / 0 / 0']);
    const chart = await page.$eval('#overload tr[data-gate="overload"] svg.chart', (svg: any) => ({
      points: (svg.querySelector('polyline').getAttribute('points') as string).split(' ').length,
      title: svg.querySelector('title').textContent as string,
    }));
    expect(chart.points).toBeGreaterThanOrEqual(1);
    expect(chart.title.split(' → ').every((limit) => limit === '7')).toBe(true);
    await page.close();
  });

  it('lists the upstreams with their rate, the rate the fleet learned and a pause', async () => {
    const partner = app.get(RateLimiterFactory).upstream('partner');
    // A bare 429 cuts the learned rate by 15 %; a Retry-After then pauses the upstream.
    await partner.call(() => ({ status: 429, headers: {} }));
    for (let waited = 0; partner.status().learnedRate === 40 && waited < 5000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await partner.call(() => ({ status: 429, headers: { 'retry-after': '60' } }));
    const api = (await adminCall(port, 'GET', 'api/upstreams')).body as {
      upstreams: Array<Record<string, unknown>>;
    };
    expect(api.upstreams).toEqual([
      {
        name: 'partner',
        rate: 40,
        learnedRate: 34,
        pausedForMs: expect.any(Number),
        waiting: 0,
      },
    ]);
    expect(api.upstreams[0].pausedForMs).toBeGreaterThan(50_000);
    expect(api.upstreams[0].pausedForMs).toBeLessThanOrEqual(60_000);
    const page = await browser.newPage();
    await page.setExtraHTTPHeaders(ADMIN_HEADERS);
    await page.goto(`http://127.0.0.1:${port}/rate-limits`);
    await page.waitForSelector('#upstreams tbody tr');
    const rows = await rowsOf(page, 'upstreams');
    expect(rows).toHaveLength(1);
    const [name, rate, learned, paused, waiting] = rows[0];
    expect([name, rate, learned, waiting]).toEqual(['partner', '40 /s', '34.0 /s', '0']);
    // The pause's seconds left, counted down from 60 when the page read them.
    expect(paused).toMatch(/^\d+ s$/);
    expect(Number(paused.split(' ')[0])).toBeGreaterThan(50);
    expect(Number(paused.split(' ')[0])).toBeLessThanOrEqual(60);
    await page.close();
  });
});
