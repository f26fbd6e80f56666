/**
 * The embedded emulators in a process of their own (startEmulatorsApart in
 * emulators.ts): started by npm start when LOCAL_EMULATORS_APART is set, so
 * that what AWS would store (objects, items, messages, all kept in memory
 * here) is measured apart from the service's own memory. Sends its endpoints
 * once listening and stops when its parent goes.
 */
import { startEmulators, type EmulatorEndpoints } from './emulators.js';
import { MEMORY_STATS_DIR_VARIABLE, watchMajorGc, writeMemoryStats } from './memory-stats.js';

export type EmulatorProcessMessage = { type: 'ready'; endpoints: EmulatorEndpoints } | { type: 'error'; message: string };

try {
  const emulators = await startEmulators();
  const stop = () => void emulators.stop().finally(() => process.exit(0));
  // The parent stopped it, or is gone (even by SIGKILL: the IPC channel closes): emulators never outlive npm start.
  process.on('SIGTERM', stop);
  // Ctrl+C reaches the whole terminal group: npm start stops its instances first, then this process.
  process.on('SIGINT', () => undefined);
  process.on('disconnect', stop);
  const statsDir = process.env[MEMORY_STATS_DIR_VARIABLE];
  if (statsDir) {
    watchMajorGc();
    setInterval(() => writeMemoryStats(statsDir, 'emulators'), 1_000).unref();
  }
  process.send?.({ type: 'ready', endpoints: emulators.endpoints } satisfies EmulatorProcessMessage);
} catch (error) {
  process.send?.({ type: 'error', message: error instanceof Error ? error.message : String(error) } satisfies EmulatorProcessMessage);
  process.exitCode = 1;
  process.disconnect?.();
}
