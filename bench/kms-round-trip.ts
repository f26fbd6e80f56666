/**
 * One KMS `Sign` round trip (MessageType DIGEST, RSA-2048), measured against
 * moto's server on loopback: what the emulator adds, stated apart from the
 * service's own cost. On AWS it is network time to KMS in the region
 * (typically tens of milliseconds), which no local run measures.
 */
import { CreateKeyCommand, KMSClient, SignCommand } from '@aws-sdk/client-kms';
import { startMoto } from '../test/helpers/pades.js';
import { summarize, type Summary } from './stats.js';

export async function measureKmsRoundTrip(rounds: number): Promise<Summary> {
  const moto = await startMoto();
  const kms = new KMSClient({ region: 'us-east-1', endpoint: moto.endpoint, credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' } });
  try {
    const keyId = (await kms.send(new CreateKeyCommand({ KeySpec: 'RSA_2048', KeyUsage: 'SIGN_VERIFY' }))).KeyMetadata?.Arn as string;
    const trips: number[] = [];
    for (let round = -3; round < rounds; round += 1) {
      const started = performance.now();
      await kms.send(new SignCommand({ KeyId: keyId, Message: new Uint8Array(32), MessageType: 'DIGEST', SigningAlgorithm: 'RSASSA_PKCS1_V1_5_SHA_256' }));
      if (round >= 0) trips.push(performance.now() - started);
    }
    return summarize(trips);
  } finally {
    kms.destroy();
    await moto.stop();
  }
}
