export { createRenderer } from './renderer.js';
export type { RenderPlan } from './render-plan.js';
export type { ChromiumMode, RenderResult, Renderer, RendererOptions } from './types.js';
