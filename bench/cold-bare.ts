/**
 * Cold start of bare Puppeteer, run as a fresh process (bundled first, as a
 * Lambda function would be): load the modules, unpack Chromium if needed,
 * launch it, render the small PDF in a fresh context. Reports its phases to
 * the parent over IPC. Phases are milliseconds since the process started.
 */
import chromium from '@sparticuz/chromium';
import puppeteer from 'puppeteer-core';
import { chromiumArgs } from '../lib/render/browser/launch-args.js';
import { SMALL_HTML } from './pages.js';
import { processTree } from '../scripts/local-runtime/process-tree.js';
import { treeCpuMs } from './process-memory.js';

const loaded = performance.now();
const executablePath = await chromium.executablePath();
const unpacked = performance.now();
const browser = await puppeteer.launch({ executablePath, headless: 'shell', args: chromiumArgs(chromium.args, 'multi-process'), pipe: true });
const launched = performance.now();
const context = await browser.createBrowserContext();
const page = await context.newPage();
await page.setContent(SMALL_HTML, { waitUntil: 'load' });
const pdf = await page.pdf({ format: 'letter', printBackground: false, tagged: false, outline: false });
const rendered = performance.now();
// CPU spent to the PDF, as the service's cold start reports it.
const { user, system } = process.cpuUsage();
const cpuMs = treeCpuMs(processTree(process.pid));
process.send?.({ phases: { loaded, unpacked, launched, rendered, nodeCpuMs: (user + system) / 1000, cpuMs }, bytes: pdf.byteLength, status: 200 });
await browser.close();
process.exit(0);
