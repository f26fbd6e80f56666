import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KnownDevices } from 'puppeteer-core';
import { DEFAULT_DEVICE, findDevice, listDevices } from '../../lib/schemas/devices.js';

const DESKTOP = [
  ['Macbook Pro 13', 1280, 800, 2],
  ['Macbook Pro 15', 1440, 900, 2],
  ['Macbook Pro 16', 1536, 960, 2],
  ['iMac 21', 1920, 1080, 1],
  ['iMac 21 4K', 2048, 1152, 2],
  ['iMac 24 4.5K', 2240, 1260, 2],
  ['iMac 27', 2560, 1440, 1],
  ['iMac 27 5K', 2560, 1440, 2],
] as const;

describe('findDevice', () => {
  it('gives iPhone 15 Pro at 393 CSS px × 3 = 1179 device pixels wide, mobile with touch', () => {
    // Act
    const device = findDevice('iPhone 15 Pro');
    // Assess
    assert.ok(device);
    assert.equal(device.viewport.width, 393);
    assert.equal(device.viewport.deviceScaleFactor, 3);
    assert.equal(device.viewport.width * device.viewport.deviceScaleFactor, 1179);
    assert.equal(device.viewport.isMobile, true);
    assert.equal(device.viewport.hasTouch, true);
    assert.equal(device.viewport.isLandscape, false);
    assert.match(device.userAgent ?? '', /iPhone/);
  });

  it('gives a landscape preset that is wider than high, at the same scale factor', () => {
    // Act
    const portrait = findDevice('iPhone 15 Pro');
    const landscape = findDevice('iPhone 15 Pro landscape');
    // Assess
    assert.ok(portrait && landscape);
    assert.ok(landscape.viewport.width > landscape.viewport.height);
    assert.equal(landscape.viewport.deviceScaleFactor, portrait.viewport.deviceScaleFactor);
    assert.equal(landscape.viewport.isLandscape, true);
  });

  for (const [name, width, height, scale] of DESKTOP) {
    it(`gives ${name} at ${width}×${height} CSS px @${scale}x as a desktop without touch or mobile user agent`, () => {
      assert.deepEqual(findDevice(name), {
        name,
        viewport: { width, height, deviceScaleFactor: scale, isMobile: false, hasTouch: false, isLandscape: true },
      });
    });
  }

  it('matches names exactly: other spellings are unknown', () => {
    for (const name of ['iphone 15 pro', 'iPhone 15 Pro ', 'MacBook Pro 16', 'constructor', 'toString', '__proto__', '']) {
      assert.equal(findDevice(name), undefined, name);
    }
  });

  it('cannot be changed by a caller that mutates a preset', () => {
    // Prepare
    const device = findDevice('Pixel 5');
    assert.ok(device);
    // Act
    assert.throws(() => {
      (device.viewport as { width: number }).width = 1;
    }, TypeError);
    // Assess
    assert.notEqual(findDevice('Pixel 5')?.viewport.width, 1);
  });
});

describe('DEFAULT_DEVICE', () => {
  it('is the 16-inch laptop preset, 1536×960 CSS px at scale factor 2', () => {
    assert.equal(DEFAULT_DEVICE.name, 'Macbook Pro 16');
    assert.deepEqual(
      { w: DEFAULT_DEVICE.viewport.width, h: DEFAULT_DEVICE.viewport.height, s: DEFAULT_DEVICE.viewport.deviceScaleFactor },
      { w: 1536, h: 960, s: 2 },
    );
  });
});

describe('listDevices', () => {
  it("lists every one of Puppeteer's known devices and the eight desktop presets, each once", () => {
    // Act
    const names = listDevices().map((device) => device.name);
    // Assess
    assert.equal(new Set(names).size, names.length);
    assert.deepEqual(
      [...names].sort(),
      [...Object.keys(KnownDevices), ...DESKTOP.map(([name]) => name)].sort(),
    );
  });

  it('answers name and the six viewport fields only, as GET /v1/devices documents', () => {
    for (const device of listDevices()) {
      assert.deepEqual(Object.keys(device).sort(), ['name', 'viewport']);
      assert.deepEqual(Object.keys(device.viewport).sort(), [
        'deviceScaleFactor',
        'hasTouch',
        'height',
        'isLandscape',
        'isMobile',
        'width',
      ]);
      for (const key of ['width', 'height', 'deviceScaleFactor'] as const) {
        assert.equal(typeof device.viewport[key], 'number', `${device.name}.${key}`);
      }
      for (const key of ['isMobile', 'hasTouch', 'isLandscape'] as const) {
        assert.equal(typeof device.viewport[key], 'boolean', `${device.name}.${key}`);
      }
    }
  });

  it("gives the same viewports as puppeteer-core's public KnownDevices", () => {
    for (const [name, known] of Object.entries(KnownDevices)) {
      const listed = listDevices().find((device) => device.name === name);
      assert.equal(listed?.viewport.width, known.viewport.width, name);
      assert.equal(listed?.viewport.height, known.viewport.height, name);
      assert.equal(listed?.viewport.deviceScaleFactor, known.viewport.deviceScaleFactor ?? 1, name);
      assert.equal(findDevice(name)?.userAgent, known.userAgent, name);
    }
  });

  it('returns copies: editing the list does not change the presets', () => {
    // Prepare
    const list = listDevices();
    // Act
    (list[0]!.viewport as { width: number }).width = 1;
    // Assess
    assert.notEqual(listDevices()[0]!.viewport.width, 1);
  });
});
