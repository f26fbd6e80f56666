import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { webcrypto } from 'node:crypto';
import { issueCertificate } from '../../../lib/signing/dev-pki.js';

describe('the development PKI', () => {
  it('gives every certificate a serial number in DER\'s shortest positive form, which strict parsers (OpenSSL) require', async () => {
    // Prepare: one key; 1,024 certificates (a random serial padded with 0x00 came one time in 256: 98% of such runs would see one).
    const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;

    // Act
    const serials: Uint8Array[] = [];
    for (let i = 0; i < 1024; i += 1) {
      const certificate = await issueCertificate({ commonName: `serial ${i}`, kind: 'ca', publicKey: keys.publicKey, signingKey: keys.privateKey });
      serials.push(new Uint8Array(certificate.serialNumber.valueBlock.valueHexView));
    }

    // Assess
    const bad = serials.filter((serial) => serial[0] === 0 || (serial[0] ?? 0) >= 0x80);
    assert.equal(bad.length, 0, `serials not in their shortest positive form: ${bad.map((serial) => Buffer.from(serial).toString('hex')).join(', ')}`);
  });
});
