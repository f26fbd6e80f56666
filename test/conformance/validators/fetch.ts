/** Resolves the test-only validators (veraPDF, Mustang) from Maven Central into .cache/validators: `.ci/run` calls it. */
import { validatorClassPath } from './run-validators.js';

for (const tool of ['verapdf', 'mustang'] as const) {
  const classPath = await validatorClassPath(tool);
  console.log(`${tool}: ${classPath.split(':').length} jars`);
}
