export { createRenderer } from './renderer.js';
export type { ChromiumMode, RenderInput, RenderResult, Renderer, RendererOptions } from './types.js';
