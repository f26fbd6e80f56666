/**
 * Documents for the compression proofs (issue 34) that the real-documents
 * suite lacks: a product catalogue of full-resolution photos and a scanned
 * letter. The pictures are drawn by the page itself (seeded noise over
 * gradients, in Chromium's canvas), so they are the same on every run and
 * need no network, and handed to <img> as the JPEG or PNG files a camera or a
 * scanner would give.
 */

/** A seeded random generator and the photo drawing, shared by both pages. */
const PHOTO_SCRIPT = `
function rng(seed) { let s = seed >>> 0; return () => { s = (s * 1664525 + 1013904223) >>> 0; return s / 4294967296; }; }
function photo(seed, width, height) {
  const random = rng(seed);
  const canvas = document.createElement('canvas');
  canvas.width = width; canvas.height = height;
  const g = canvas.getContext('2d');
  const sky = g.createLinearGradient(0, 0, width, height);
  sky.addColorStop(0, 'hsl(' + Math.floor(random() * 360) + ',70%,60%)');
  sky.addColorStop(1, 'hsl(' + Math.floor(random() * 360) + ',60%,30%)');
  g.fillStyle = sky; g.fillRect(0, 0, width, height);
  for (let i = 0; i < 60; i++) {
    const x = random() * width, y = random() * height, r = (0.03 + random() * 0.2) * width;
    const blob = g.createRadialGradient(x, y, 0, x, y, r);
    blob.addColorStop(0, 'hsla(' + Math.floor(random() * 360) + ',80%,' + Math.floor(30 + random() * 50) + '%,0.8)');
    blob.addColorStop(1, 'hsla(0,0%,50%,0)');
    g.fillStyle = blob; g.fillRect(x - r, y - r, 2 * r, 2 * r);
  }
  // Sensor noise: what makes a real photo heavy.
  const pixels = g.getImageData(0, 0, width, height);
  for (let i = 0; i < pixels.data.length; i += 4) {
    const n = (random() - 0.5) * 24;
    pixels.data[i] += n; pixels.data[i + 1] += n; pixels.data[i + 2] += n;
  }
  g.putImageData(pixels, 0, 0);
  return canvas;
}
const asFile = (canvas, type, quality) => new Promise((resolve) => canvas.toBlob((blob) => resolve(URL.createObjectURL(blob)), type, quality));
`;

/** A product catalogue: eight products, each a 2400×1600 photo (six JPEG, two PNG) shown 3 inches wide, two pages. */
export function catalogueHtml(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Spring catalogue</title><style>
body{font-family:sans-serif;margin:0}
h1{font-size:20pt;margin:0 0 12pt}
.grid{display:grid;grid-template-columns:1fr 1fr;gap:18pt}
.item img{width:3in;height:2in;display:block}
.item p{margin:4pt 0 0;font-size:10pt}
</style></head><body><h1>Spring catalogue</h1><div class="grid" id="grid"></div><script>${PHOTO_SCRIPT}
(async () => {
  const grid = document.getElementById('grid');
  for (let i = 0; i < 8; i++) {
    const png = i % 4 === 3;
    const src = await asFile(photo(1000 + i, 2400, 1600), png ? 'image/png' : 'image/jpeg', 0.92);
    const item = document.createElement('div'); item.className = 'item';
    const img = new Image(); img.alt = 'Product ' + (i + 1); img.src = src; await img.decode();
    const caption = document.createElement('p'); caption.textContent = 'Product ' + (i + 1) + ' — ' + (19 + i * 7) + '.90 EUR';
    item.append(img, caption); grid.append(item);
  }
  document.body.dataset.ready = '1';
})();
</script></body></html>`;
}

/** A scanned letter: one page-sized 300-dpi image (greyish paper, dark "text" strokes), as a scanner's PDF holds. */
export function scannedHtml(): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Scanned letter</title><style>
@page{size:A4;margin:0}body{margin:0}img{width:210mm;height:297mm;display:block}
</style></head><body><script>${PHOTO_SCRIPT}
(async () => {
  const random = rng(7);
  const canvas = document.createElement('canvas');
  canvas.width = 2480; canvas.height = 3508;
  const g = canvas.getContext('2d');
  g.fillStyle = '#f3f1ea'; g.fillRect(0, 0, canvas.width, canvas.height);
  g.fillStyle = '#222';
  for (let line = 0; line < 60; line++) {
    let x = 250;
    const y = 350 + line * 48;
    while (x < 2200) { const w = 20 + random() * 120; g.fillRect(x, y, w, 26); x += w + 18 + random() * 10; }
  }
  const pixels = g.getImageData(0, 0, canvas.width, canvas.height);
  for (let i = 0; i < pixels.data.length; i += 4) { const n = (random() - 0.5) * 16; pixels.data[i] += n; pixels.data[i + 1] += n; pixels.data[i + 2] += n; }
  g.putImageData(pixels, 0, 0);
  const img = new Image(); img.alt = 'Scanned page'; img.src = await asFile(canvas, 'image/jpeg', 0.9); await img.decode();
  document.body.append(img);
  document.body.dataset.ready = '1';
})();
</script></body></html>`;
}

/** The `page` waits for the drawing script to finish. */
export const WAIT_FOR_PHOTOS = { pageFunction: "document.body.dataset.ready === '1'", options: { timeout: 25_000 } } as const;
