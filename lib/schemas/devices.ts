/**
 * Device presets for screenshots: Puppeteer's phones and tablets plus eight
 * desktop presets. `GET /v1/devices` lists them; `screenshot.device` names one.
 */
// The deep import loads only the device table (about 3 ms) instead of all of
// puppeteer-core (about 400 ms), which every HTTP handler would otherwise pay
// at cold start just to validate `screenshot.device`.
import { KnownDevices } from 'puppeteer-core/internal/common/Device.js';

/** What the browser emulates for a preset, in CSS pixels. */
export type DeviceViewport = {
  readonly width: number;
  readonly height: number;
  readonly deviceScaleFactor: number;
  readonly isMobile: boolean;
  readonly hasTouch: boolean;
  readonly isLandscape: boolean;
};

/** A named preset. Desktop presets carry no user agent: Chromium's own is kept. */
export type Device = {
  readonly name: string;
  readonly userAgent?: string;
  readonly viewport: DeviceViewport;
};

/** One entry of the `GET /v1/devices` body's `data`. */
export type DeviceListing = { name: string; viewport: DeviceViewport };

function desktop(name: string, width: number, height: number, deviceScaleFactor: number): Device {
  return { name, viewport: { width, height, deviceScaleFactor, isMobile: false, hasTouch: false, isLandscape: true } };
}

// The CSS viewport of each Retina display is its panel resolution divided by
// the scale factor ("looks like" at exactly 2x), so a screenshot is pixel for
// pixel what the panel shows; the non-Retina iMacs render at 1x.
const DESKTOP_DEVICES: readonly Device[] = [
  desktop('Macbook Pro 13', 1280, 800, 2), // 2560×1600 panel
  desktop('Macbook Pro 15', 1440, 900, 2), // 2880×1800 panel
  desktop('Macbook Pro 16', 1536, 960, 2), // 3072×1920 panel
  desktop('iMac 21', 1920, 1080, 1), // 21.5" 1920×1080 panel
  desktop('iMac 21 4K', 2048, 1152, 2), // 4096×2304 panel
  desktop('iMac 24 4.5K', 2240, 1260, 2), // 4480×2520 panel
  desktop('iMac 27', 2560, 1440, 1), // 2560×1440 panel
  desktop('iMac 27 5K', 2560, 1440, 2), // 5120×2880 panel
];

const PUPPETEER_DEVICES: readonly Device[] = Object.entries(KnownDevices).map(([name, device]) => ({
  name,
  userAgent: device.userAgent,
  viewport: {
    width: device.viewport.width,
    height: device.viewport.height,
    deviceScaleFactor: device.viewport.deviceScaleFactor ?? 1,
    isMobile: device.viewport.isMobile ?? false,
    hasTouch: device.viewport.hasTouch ?? false,
    isLandscape: device.viewport.isLandscape ?? false,
  },
}));

// A Map, not an object, so that names like `constructor` are not found.
const DEVICES: ReadonlyMap<string, Device> = new Map(
  [...DESKTOP_DEVICES, ...PUPPETEER_DEVICES].map((device) => [device.name, deepFreeze(device)]),
);

/** The preset used when a screenshot names neither `device` nor `viewport`. */
export const DEFAULT_DEVICE: Device = DEVICES.get('Macbook Pro 16')!;

/** Returns the preset with exactly this name (case-sensitive), or undefined. */
export function findDevice(name: string): Device | undefined {
  return DEVICES.get(name);
}

/** Lists every preset, desktop ones first, as `GET /v1/devices` answers them. */
export function listDevices(): DeviceListing[] {
  return [...DEVICES.values()].map(({ name, viewport }) => ({ name, viewport: { ...viewport } }));
}

function deepFreeze<T extends object>(value: T): T {
  for (const child of Object.values(value)) {
    if (child && typeof child === 'object') deepFreeze(child);
  }
  return Object.freeze(value);
}
