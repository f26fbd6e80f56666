"""Validates every signature of a PDF with pyHanko, trusting only the given CA,
with fetching disabled; prints one JSON object per signature (a list)."""
import json
import sys

from pyhanko.keys import load_cert_from_pemder
from pyhanko.pdf_utils.reader import PdfFileReader
from pyhanko.sign.validation import validate_pdf_signature
from pyhanko_certvalidator import ValidationContext


def main(pdf_path, ca_path, password=None):
    ca = load_cert_from_pemder(ca_path)
    results = []
    with open(pdf_path, 'rb') as f:
        reader = PdfFileReader(f)
        if password is not None:
            reader.decrypt(password)
        for sig in reader.embedded_signatures:
            context = ValidationContext(trust_roots=[ca], allow_fetching=False, revocation_mode='soft-fail')
            ts_context = ValidationContext(trust_roots=[ca], allow_fetching=False, revocation_mode='soft-fail')
            status = validate_pdf_signature(sig, signer_validation_context=context, ts_validation_context=ts_context)
            ts = status.timestamp_validity
            docmdp = sig.docmdp_level
            results.append({
                'field': sig.field_name,
                'intact': status.intact,
                'valid': status.valid,
                'trusted': status.trusted,
                'bottomLine': status.bottom_line,
                'coverage': status.coverage.name if status.coverage else None,
                'modificationLevel': status.modification_level.name if status.modification_level else None,
                'docmdp': docmdp.name if docmdp else None,
                'subFilter': str(sig.sig_object.get('/SubFilter')),
                'signer': status.signing_cert.subject.human_friendly,
                'timestamp': None if ts is None else {
                    'intact': ts.intact, 'valid': ts.valid, 'trusted': ts.trusted, 'time': ts.timestamp.isoformat(),
                },
                'summary': status.summary(),
            })
    print(json.dumps(results))


if __name__ == '__main__':
    main(*sys.argv[1:])
