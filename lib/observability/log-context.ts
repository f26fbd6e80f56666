import type { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';

/**
 * Puts the invocation's Lambda context (request id, function name, cold
 * start) on every line the shared logger writes until the next invocation.
 * Only on Lambda, where a container runs one invocation at a time: the local
 * runtime runs invocations of every function at once in one process, where a
 * shared context would label one request's lines with another's id.
 */
export function addLambdaContext(logger: Logger, context: Context, env: NodeJS.ProcessEnv = process.env): void {
  if (env.AWS_LAMBDA_FUNCTION_NAME) logger.addContext(context);
}
