import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { RunningService } from '../helpers/service.js';
import { type AttackerSite, b64, page, pdfTextOf, startAttackerSite, startSecuredService } from './attack-fixtures.js';

/** Leaves a cookie (server and script), localStorage, sessionStorage, IndexedDB and a cached response behind. */
const writer = `<p>writer</p><img src="/cached.svg"><script>
  document.cookie = 'script_cookie=LEFT-BEHIND; max-age=3600; path=/';
  localStorage.setItem('stored', 'LEFT-BEHIND');
  sessionStorage.setItem('session', 'LEFT-BEHIND');
  const open = indexedDB.open('db', 1);
  open.onupgradeneeded = () => open.result.createObjectStore('s');
  open.onsuccess = () => { const tx = open.result.transaction('s', 'readwrite'); tx.objectStore('s').put('LEFT-BEHIND', 'k'); };
</script>`;

/** Prints whatever an earlier render could have left, then "done". */
const reader = `<p id="o">reader</p><img src="/cached.svg"><script>
  const out = (t) => document.getElementById('o').append(' ' + t);
  out('cookie=[' + document.cookie + ']');
  out('stored=[' + localStorage.getItem('stored') + ']');
  out('session=[' + sessionStorage.getItem('session') + ']');
  const open = indexedDB.open('db', 1);
  open.onupgradeneeded = () => open.result.createObjectStore('s');
  open.onsuccess = () => {
    const get = open.result.transaction('s').objectStore('s').get('k');
    get.onsuccess = () => out('idb=[' + get.result + '] done');
  };
</script>`;

describe('security › isolation between renders and between accounts', () => {
  let service: RunningService;
  let site: AttackerSite;
  let otherToken: string;

  before(async () => {
    site = await startAttackerSite({
      '/writer': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'server_cookie=LEFT-BEHIND; Max-Age=3600; Path=/' });
        res.end(writer);
      },
      '/reader': page(reader),
      '/cached.svg': (_req, res) => {
        res.writeHead(200, { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=3600' });
        res.end('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>');
      },
    });
    service = await startSecuredService();
    otherToken = (await service.tokens('create')).stdout.trim();
  });

  after(async () => {
    await service?.stop();
    await site?.close();
  });

  it('shows one render nothing of the cookies, storage or cache of the one before', async () => {
    // Prepare
    const first = await service.request('/v1/pdf', { json: { page: { url: `${site.url}/writer`, waitForMilliseconds: 300 } } });
    const cachedFetches = site.requests.filter((r) => r === '/cached.svg').length;

    // Act: the other account renders the same site next.
    const second = await service.request('/v1/pdf', { json: { page: { url: `${site.url}/reader`, waitForFunction: { pageFunction: 'document.body.innerText.includes("done")' } } }, token: otherToken });
    const text = await pdfTextOf(second);

    // Assess
    assert.equal(first.status, 200);
    assert.equal(second.status, 200);
    assert.doesNotMatch(text, /LEFT-BEHIND/);
    assert.match(text, /cookie=\[\]/);
    assert.equal(site.requests.filter((r) => r === '/cached.svg').length, cachedFetches + 1, 'the cached image was fetched again');
  });

  it("answers 404 for another account's template, whatever is done with it", async () => {
    // Prepare
    const created = await service.request('/v1/templates', { json: { name: 'Private', variables: { page: { html: b64('<p>OWNER-ONLY</p>') } } } });
    const { id } = (await created.json()) as { id: string };

    // Act
    const read = await service.request(`/v1/templates/${id}`, { token: otherToken });
    const update = await service.request(`/v1/templates/${id}`, { method: 'PUT', json: { name: 'Stolen' }, token: otherToken });
    const render = await service.request(`/v1/template/${id}`, { json: {}, token: otherToken });
    const removal = await service.request(`/v1/templates/${id}`, { method: 'DELETE', token: otherToken });
    const list = (await (await service.request('/v1/templates', { token: otherToken })).json()) as { data: Array<{ id: string }> };
    const stillThere = await service.request(`/v1/templates/${id}`);

    // Assess
    assert.deepEqual([read.status, update.status, render.status, removal.status], [404, 404, 404, 404]);
    for (const res of [read, update, render, removal]) assert.doesNotMatch(await res.text(), /OWNER-ONLY|Private/);
    assert.ok(!list.data.some((t) => t.id === id));
    assert.equal(stillThere.status, 200);
    assert.equal(((await stillThere.json()) as { name: string }).name, 'Private');
  });

  it("answers 404 for another account's job", async () => {
    // Prepare
    const queued = await service.request('/v1/pdf/async', { json: { page: { html: b64('<p>job</p>') }, webhook: { url: `${site.url}/hook` } } });
    const { id } = (await queued.json()) as { id: string };

    // Act
    const foreign = await service.request(`/v1/jobs/${id}`, { token: otherToken });
    const own = await service.request(`/v1/jobs/${id}`);

    // Assess
    assert.equal(queued.status, 201);
    assert.equal(foreign.status, 404);
    assert.equal(own.status, 200);
  });
});
