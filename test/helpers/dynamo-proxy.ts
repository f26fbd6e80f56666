import { once } from 'node:events';
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export type DynamoProxy = {
  url: string;
  /** Requests that went through, by operation (`GetItem`, `UpdateItem`…). */
  calls: Map<string, number>;
  stop(): Promise<void>;
};

/** dynalite names the error `com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException`, LocalStack without the namespace. */
const CONDITION_FAILED = /(^|#)ConditionalCheckFailedException$/;

async function bodyOf(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function send(upstream: URL, headers: Record<string, string>, body: Buffer): Promise<{ status: number; headers: IncomingMessage['headers']; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(upstream, { method: 'POST', headers: { ...headers, 'content-length': String(body.length) } }, (response) => {
      bodyOf(response).then((data) => resolve({ status: response.statusCode ?? 500, headers: response.headers, body: data }), reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/**
 * A pass-through in front of the DynamoDB emulator that counts the
 * operations sent to it, and makes a refused conditional change answer one
 * way whatever the emulator: dynalite 4 ignores
 * `ReturnValuesOnConditionCheckFailure`, while DynamoDB (and DynamoDB Local,
 * under LocalStack) puts the item as it stood (`Item`, in attribute-value
 * form) into the ConditionalCheckFailedException's body. With
 * `returnItemOnConditionFailure` the answer has the item (the proxy reads it
 * from the emulator, not counted, and adds it); without, it has none.
 */
export async function startDynamoProxy(endpoint: string, opts: { returnItemOnConditionFailure: boolean }): Promise<DynamoProxy> {
  const upstream = new URL(endpoint);
  const calls = new Map<string, number>();
  const server = createServer((incoming, outgoing) => {
    void (async () => {
      const body = await bodyOf(incoming);
      const target = String(incoming.headers['x-amz-target'] ?? '');
      const operation = target.split('.').pop() ?? '';
      calls.set(operation, (calls.get(operation) ?? 0) + 1);
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(incoming.headers)) if (name !== 'host' && name !== 'connection' && typeof value === 'string') headers[name] = value;
      const answer = await send(upstream, headers, body);
      let answerBody = answer.body;
      const sent = JSON.parse(body.toString('utf8')) as { TableName: string; Key?: unknown; ReturnValuesOnConditionCheckFailure?: string };
      const error = answer.status === 400 ? (JSON.parse(answer.body.toString('utf8')) as { __type?: string }) : undefined;
      if (opts.returnItemOnConditionFailure && error && CONDITION_FAILED.test(error.__type ?? '') && sent.ReturnValuesOnConditionCheckFailure === 'ALL_OLD' && sent.Key) {
        const read = await send(upstream, { ...headers, 'x-amz-target': 'DynamoDB_20120810.GetItem' }, Buffer.from(JSON.stringify({ TableName: sent.TableName, Key: sent.Key, ConsistentRead: true })));
        const { Item } = JSON.parse(read.body.toString('utf8')) as { Item?: unknown };
        if (Item) answerBody = Buffer.from(JSON.stringify({ ...error, Item }));
      } else if (!opts.returnItemOnConditionFailure && error && CONDITION_FAILED.test(error.__type ?? '')) {
        const { Item: _dropped, ...withoutItem } = error as { Item?: unknown };
        answerBody = Buffer.from(JSON.stringify(withoutItem));
      }
      outgoing.writeHead(answer.status, { 'content-type': String(answer.headers['content-type'] ?? 'application/x-amz-json-1.0'), 'content-length': String(answerBody.length) });
      outgoing.end(answerBody);
    })().catch((error: unknown) => {
      outgoing.writeHead(500);
      outgoing.end(String(error));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    stop: async () => {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
